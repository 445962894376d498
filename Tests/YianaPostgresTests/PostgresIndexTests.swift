import Foundation
import Testing
import YianaTestSupport
@testable import YianaPostgres

/// A library's documents and pages on a PostgreSQL server the test starts: found by words
/// (stemmed, accents folded as the SQLite index folds them), phrases and prefixes, titles above
/// text; a document replaced whole in one transaction, also by eight writers at once; two
/// libraries never mixed.
@Suite("postgres index", .serialized)
struct PostgresIndexTests {
    @Test func theQueryAsAPersonTypesIt() {
        #expect(PostgresIndex.tsquery("Bank  statements") == "'bank' & 'statements'")
        #expect(PostgresIndex.tsquery("\u{201C}annual report\u{201D} inv*") == "('annual' <-> 'report') & 'inv':*")
        #expect(PostgresIndex.tsquery("Lefèvre's & | ! (x) <->") == "'lefevre' & 's' & 'x'")
        #expect(PostgresIndex.tsquery("  ***  \"\" ") == nil)
    }

    @Test func documentsAreFoundReplacedAndRemoved() async throws {
        let server = try TestPostgres()
        let database = try await PostgresDatabase.connect(try PostgresLocation(url: server.url(), environment: ["USER": "yiana"]))
        try await PostgresSchema.migrate(database)
        let index = try await PostgresIndex.open(database, libraryKey: "0a1b2c3d-0000-4000-8000-000000000001", name: "Home")
        #expect(try await PostgresIndex.open(database, libraryKey: "0a1b2c3d-0000-4000-8000-000000000001", name: "Home").library == index.library)
        let other = try await PostgresIndex.open(database, libraryKey: "0a1b2c3d-0000-4000-8000-000000000002", name: "Clinic")

        try await index.replace(.init(path: "Bank/Reminder.yianazip", title: "Bank statement reminder", tags: ["bank"]),
                                pages: [.init(number: 1, source: "pdf", body: "Dear Ms. Lefèvre, your annual statements are enclosed."),
                                        .init(number: 2, source: "pdf", body: "Invoices and receipts for the year.")])
        try await index.replace(.init(path: "Letters/Garden.yianazip", title: "Garden letter"),
                                pages: [.init(number: 1, source: "ocr", body: "The statement about the garden fence.")])
        try await other.replace(.init(path: "Bank/Reminder.yianazip", title: "Clinic appointment"),
                                pages: [.init(number: 1, source: "pdf", body: "appointment statement")])

        let statement = try await index.search("statement")
        // Pages, best first: both of the document with the word in its title, then the other.
        #expect(statement.map(\.path) == ["Bank/Reminder.yianazip", "Bank/Reminder.yianazip", "Letters/Garden.yianazip"], "the title's word first: \(statement)")
        #expect(try await index.search("lefevre").map(\.page) == [1], "accents folded")
        #expect(try await index.search("LEFÈVRE").map(\.page) == [1])
        #expect(try await index.search("invoice").map(\.page) == [2], "stemmed")
        let inOrder = try await index.search("\"annual statements\""), reversed = try await index.search("\"statements annual\"")
        #expect(inOrder.count == 1 && reversed.isEmpty)
        #expect(try await index.search("rec*").map(\.page) == [2])
        #expect(try await index.search("appointment").isEmpty, "another library's rows are not this one's")
        #expect(try await other.search("appointment").map(\.title) == ["Clinic appointment"])

        // Replaced: the old words are gone with the old pages.
        try await index.replace(.init(path: "Letters/Garden.yianazip", title: "Garden letter"), pages: [.init(number: 1, source: "ocr", body: "Hedges and roses.")])
        let fence = try await index.search("fence"), roses = try await index.search("roses")
        #expect(fence.isEmpty && roses.map(\.path) == ["Letters/Garden.yianazip"])
        try await index.remove(path: "Letters/Garden.yianazip")
        #expect(try await index.search("roses").isEmpty)
        await database.close()
    }

    /// Eight machines replace one document at once, each with its own version: at the end the
    /// document is exactly one of them, its pages all of that version's.
    @Test func concurrentReplacersOfOneDocumentConverge() async throws {
        let server = try TestPostgres()
        let location = try PostgresLocation(url: server.url(), environment: ["USER": "yiana"])
        let setup = try await PostgresDatabase.connect(location)
        try await PostgresSchema.migrate(setup)
        await setup.close()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<8 {
                group.addTask {
                    let database = try await PostgresDatabase.connect(location)
                    let index = try await PostgresIndex.open(database, libraryKey: "shared-library", name: "Home")
                    for round in 0..<5 {
                        try await index.replace(.init(path: "Doc.yianazip", title: "Document"),
                                                pages: (1...3).map { .init(number: $0, source: "pdf", body: "version\(writer)x\(round) page \($0)") })
                    }
                    await database.close()
                }
            }
            try await group.waitForAll()
        }
        let database = try await PostgresDatabase.connect(location)
        let versions = try await database.run(within: 10) { connection in
            var bodies: [String] = []
            for try await body in try await connection.query("SELECT body FROM yiana_page ORDER BY number", logger: PostgresDatabase.logger).decode(String.self) {
                bodies.append(body)
            }
            return bodies
        }
        let tags = Set(versions.map { $0.split(separator: " ")[0] })
        #expect(versions.count == 3 && tags.count == 1, "\(versions)")
        await database.close()
    }
}
