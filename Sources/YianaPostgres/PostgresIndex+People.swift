import Foundation
import PostgresNIO
import YianaPeople
import YianaSearch

/// What the register of people reads from the shared index, as from SQLite's.
extension PostgresIndex {
    public func registerDocuments() async throws -> [RegisterDocument] {
        try await rows("""
            SELECT d.path, d.title, d.document_id, d.modified, a.people FROM yiana_document d
            LEFT JOIN yiana_document_addresses a ON a.document = d.id AND a.machine = \(machine)
            WHERE d.library = \(library) ORDER BY d.path
            """, as: (String, String, String?, Double?, String?).self)
            .map { RegisterDocument(path: $0.0, title: $0.1, documentID: $0.2, modified: $0.3.map { $0 + Date.timeIntervalBetween1970AndReferenceDate },
                                    people: AddressRow.people($0.4)) }
    }

    public func odsPractices() async throws -> [ODSPractice] {
        try await rows("SELECT json FROM yiana_ods_practice WHERE library = \(library) ORDER BY code", as: String.self)
            .compactMap { try? JSONDecoder().decode(ODSPractice.self, from: Data($0.utf8)) }
    }

    public func replaceODSPractices(_ practices: [ODSPractice]) async throws {
        let encoder = JSONEncoder()
        let codes = practices.map(\.code), json = try practices.map { String(decoding: try encoder.encode($0), as: UTF8.self) }
        let library = self.library
        try await database.transaction(within: Self.writeTimeout) { connection in
            try await connection.query("DELETE FROM yiana_ods_practice WHERE library = \(library)", logger: PostgresDatabase.logger)
            try await connection.query("""
                INSERT INTO yiana_ods_practice (library, code, json) SELECT \(library), code, json FROM unnest(\(codes)::text[], \(json)::text[]) AS t(code, json)
                ON CONFLICT (library, code) DO UPDATE SET json = excluded.json
                """, logger: PostgresDatabase.logger)
        }
    }
}
