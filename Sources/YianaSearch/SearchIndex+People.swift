import Foundation
import YianaPeople
import YianaSQLite

/// What the register of people reads from the index: each document's people, and the GP
/// practices of NHS England's file (``ODSPractice``).
extension SearchIndex {
    public func registerDocuments() async throws -> [RegisterDocument] {
        try readNow { db in
            var documents: [RegisterDocument] = []
            let rows = try db.cursor(sql: """
                SELECT d.path, d.title, d.documentID, d.modified, a.people
                FROM document d LEFT JOIN document_addresses a ON a.document = d.id ORDER BY d.path
                """)
            while let row = try rows.next() {
                let modified: Double? = row[3]
                documents.append(RegisterDocument(path: row[0], title: row[1], documentID: row[2], modified: modified.map { $0 + Date.timeIntervalBetween1970AndReferenceDate },
                                                  people: AddressRow.people(row[4])))
            }
            return documents
        }
    }

    public func odsPractices() async throws -> [ODSPractice] {
        try readNow { db in
            try db.rows(sql: "SELECT json FROM ods_practice ORDER BY code").compactMap { row in
                try? JSONDecoder().decode(ODSPractice.self, from: Data((row[0] as String).utf8))
            }
        }
    }

    public func replaceODSPractices(_ practices: [ODSPractice]) async throws {
        let encoder = JSONEncoder()
        let rows = try practices.map { ($0.code, String(decoding: try encoder.encode($0), as: UTF8.self)) }
        try writeNow { db in
            try db.execute(sql: "DELETE FROM ods_practice")
            let insert = try db.statement(sql: "INSERT OR REPLACE INTO ods_practice (code, json) VALUES (?, ?)")
            for (code, json) in rows { try insert.execute(arguments: [code, json]) }
        }
    }
}
