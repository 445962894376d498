import Foundation
import PostgresNIO
import Testing
import YianaArchive
import YianaLibrary
import YianaSystem
import YianaTestSupport
@testable import YianaPostgres
@testable import YianaSearch

/// A library's documents and pages on a PostgreSQL server the test starts (what the search
/// and indexing tests check on both indexes is in YianaSearchTests): the query as typed, two
/// libraries in one database never mixed, a document replaced whole in one transaction, also
/// by eight writers at once.
@Suite("postgres index", .serialized)
struct PostgresIndexTests {
    @Test func theQueryAsAPersonTypesIt() {
        #expect(PostgresIndex.tsquery("Bank  statements") == "'bank' & 'statements'")
        #expect(PostgresIndex.tsquery("\u{201C}annual report\u{201D} inv*") == "('annual' <-> 'report') & 'inv':*")
        #expect(PostgresIndex.tsquery("Lefèvre's & | ! (x) <->") == "('lefevre' <-> 's') & 'x'")
        #expect(PostgresIndex.tsquery("A-1312/B e-mail*") == "('a' <-> '1312' <-> 'b') & ('e' <-> 'mail':*)")
        #expect(PostgresIndex.tsquery("  ***  \"\" ' ") == nil)
        // A page's own text: each word only as the page's text holds it (weight D).
        #expect(PostgresIndex.tsqueryTerms("\u{201C}annual report\u{201D} inv*", weight: "D") == ["('annual':D <-> 'report':D)", "'inv':*D"])
    }

    /// ASCII text takes a short way to its searchable form: the same as Foundation's, for every
    /// ASCII character (controls, NUL and punctuation included) and for mixed text.
    @Test func asciiTextIsFoldedAsFoundationFoldsIt() {
        let every = String(String.UnicodeScalarView((0..<128).compactMap(Unicode.Scalar.init)))
        #expect(Vocabulary.searchable(every) == Vocabulary.searchableByFoundation(every))
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            let text = String(String.UnicodeScalarView((0..<Int.random(in: 0...80, using: &generator)).map { _ in
                Unicode.Scalar(UInt8.random(in: 0...127, using: &generator))
            }))
            #expect(Vocabulary.searchable(text) == Vocabulary.searchableByFoundation(text), "\(Array(text.utf8))")
        }
        #expect(Vocabulary.searchable("Invoice No. 12/B, Café") == "invoice no  12 b  cafe")
        #expect(Vocabulary.searchable("INVOICE\u{0}Total:\t£5") == "invoice total   5")
    }

    /// A document as the extractor makes it, with one page per text.
    static func document(_ path: String, title: String, tags: [String] = [], pages: [String]) -> ExtractedDocument {
        var document = ExtractedDocument(path: path, folder: (path as NSString).deletingLastPathComponent,
                                         file: FileStamp(size: 1, modified: 1, inode: 1), title: title, status: .ok)
        document.tags = tags
        document.pages = .extracted(pages.enumerated().map { PageText(number: $0.offset + 1, text: $0.element, source: .pdf) })
        return document
    }

    @Test func twoLibrariesInOneDatabaseNeverMix() async throws {
        let server = try TestPostgres.shared()
        let location = try PostgresLocation(url: server.url(database: try server.makeDatabase()), environment: ["USER": "yiana"])
        let home = try TemporaryFolder(), clinic = try TemporaryFolder()
        let index = try await IndexLocation.server(location).openForWriting(try Library(root: home.url))
        let other = try await IndexLocation.server(location).openForWriting(try Library(root: clinic.url))
        // The same path in both, and a second open of a library finds its rows again.
        _ = try await index.write([Self.document("Bank/Reminder.yianazip", title: "Bank statement reminder", pages: ["annual statements"])])
        _ = try await other.write([Self.document("Bank/Reminder.yianazip", title: "Clinic appointment", pages: ["appointment statement"])])
        #expect(try await index.search("appointment").isEmpty, "another library's rows are not this one's")
        #expect(try await other.search("appointment").map(\.title) == ["Clinic appointment"])
        let again = try #require(try await IndexLocation.server(location).openExisting(try Library(root: home.url)))
        #expect(try await again.search("statement").map(\.title) == ["Bank statement reminder"])
        #expect(try await again.documentCount() == 1)
        // A library never indexed there has no index there (and gets no id from a search).
        let stranger = try TemporaryFolder()
        #expect(try await IndexLocation.server(location).openExisting(try Library(root: stranger.url)) == nil)
        #expect(LibraryIdentity.ids(in: try Library(root: stranger.url)).isEmpty)
        // Removed: its pages go with it.
        #expect(try await index.remove(["Bank/Reminder.yianazip", "Bank/Never.yianazip"]) == ["Bank/Reminder.yianazip"])
        #expect(try await index.search("statement").isEmpty)
        #expect(try await other.search("statement").count == 1)
    }

    /// A new database with the schema of `version` (as an older yiana made it), a library with
    /// its id (`key`), and a connection to the database.
    static func olderIndex(_ version: Int) async throws
        -> (PostgresLocation, TemporaryFolder, Library, String, YianaPostgres.PostgresDatabase) {
        let server = try TestPostgres.shared()
        let location = try PostgresLocation(url: server.url(database: try server.makeDatabase()), environment: ["USER": "yiana"])
        let folder = try TemporaryFolder()
        let library = try Library(root: folder.url)
        let database = try await PostgresDatabase.connect(location)
        #expect(try await PostgresSchema.migrate(database, upTo: version) == (0, version))
        return (location, folder, library, try LibraryIdentity.key(of: library), database)
    }

    /// An index made before the pages' word lists were kept in their rows (the same schema
    /// version: an older yiana goes on using it): the next `yiana index` moves the lists into
    /// the rows in batches, results unchanged.
    @Test func anIndexWithWordListsOutOfTheirRowsHasThemMovedIn() async throws {
        let (location, folder, library, key, database) = try await Self.olderIndex(PostgresSchema.version)
        defer { _ = folder }
        // The table as an older yiana made it: PostgreSQL's default storage, no upkeep.
        _ = try await database.run(within: 10) { connection in
            try await connection.query("ALTER TABLE yiana_page RESET (toast_tuple_target)", logger: PostgresDatabase.logger)
            try await connection.query("ALTER TABLE yiana_page ALTER COLUMN search SET STORAGE EXTENDED", logger: PostgresDatabase.logger)
            return try await connection.query("DROP TABLE yiana_upkeep", logger: PostgresDatabase.logger)
        }
        // Five documents of three long pages (300 different words: a word list of some 4 KB).
        let words = (0..<300).map { "w\($0)x" }.joined(separator: " ")
        _ = try await database.run(within: 10) { connection in
            try await connection.query("INSERT INTO yiana_library (key, name) VALUES (\(key), 'home')", logger: PostgresDatabase.logger)
            try await connection.query("""
                INSERT INTO yiana_document (library, path, folder, title, file_size, file_modified, file_inode, status, page_count, text_pages)
                SELECT l.id, 'Manual ' || n || '.yianazip', '', 'Manual ' || n, 1, 1, 1, 'ok', 3, 3 FROM yiana_library l, generate_series(1, 5) n
                """, logger: PostgresDatabase.logger)
            return try await connection.query("""
                INSERT INTO yiana_page (library, document, number, source, body, search)
                SELECT d.library, d.id, n, 'pdf', 'the boiler manual', setweight(to_tsvector('yiana_english', d.title), 'A')
                       || to_tsvector('yiana_english', 'boiler manual ' || \(words)) FROM yiana_document d, generate_series(1, 3) n
                """, logger: PostgresDatabase.logger)
        }
        let outOfRow = { () async throws -> Int in
            try await database.run(within: 5) { connection in
                var table = ""
                for try await name in try await connection.query("SELECT reltoastrelid::regclass::text FROM pg_class WHERE relname = 'yiana_page'",
                                                                 logger: PostgresDatabase.logger).decode(String.self) { table = name }
                var count = 0
                for try await n in try await connection.query(PostgresQuery(unsafeSQL: "SELECT count(DISTINCT chunk_id)::int8 FROM \(table)"),
                                                              logger: PostgresDatabase.logger).decode(Int.self) { count = n }
                return count
            }
        }
        #expect(try await outOfRow() == 15, "PostgreSQL's default keeps each page's word list out of its row")
        let reader = try #require(try await IndexLocation.server(location).openExisting(library))
        let before = try await reader.search("boiler w7x").map { [$0.path, "\($0.matchingPages)"] }
        #expect(before.count == 5)
        // The next writer sets the storage, then rewrites the pages two documents at a time, as
        // a second machine might find it half done.
        #expect(try await PostgresSchema.migrate(database) == (PostgresSchema.version, PostgresSchema.version))
        #expect(try await PostgresSchema.upkeep(database, documents: 2) == 15)
        #expect(try await outOfRow() == 0, "the word lists are in their rows")
        #expect(try await PostgresSchema.upkeep(database) == 0, "once done, nothing is left to do")
        let writer = try await IndexLocation.server(location).openForWriting(library)
        #expect(try await writer.search("boiler w7x").map { [$0.path, "\($0.matchingPages)"] } == before)
        await database.close()
    }

    /// A search without filters runs statements prepared once per connection: the second and
    /// later searches only bind and run them. A filtered search finds its pages with a
    /// statement of its own, then reads their documents with the same prepared one.
    @Test func searchesReuseStatementsPreparedOncePerConnection() async throws {
        let server = try TestPostgres.shared()
        let location = try PostgresLocation(url: server.url(database: try server.makeDatabase()), environment: ["USER": "yiana"])
        let folder = try TemporaryFolder()
        let library = try Library(root: folder.url)
        _ = try await IndexLocation.server(location).openForWriting(library).write([
            Self.document("Bank/Statement.yianazip", title: "Bank statement", pages: ["annual statement", "interest paid"]),
            Self.document("Home/Boiler.yianazip", title: "Boiler", pages: ["annual service", "statement of work"]),
        ])
        let index = try #require(try await IndexLocation.server(location).openExisting(library, connections: 1) as? PostgresIndex)
        for query in ["annual statement", "interest", "boiler service"] { _ = try await index.search(query) }
        var inBank = SearchOptions()
        inBank.folder = "Bank"
        #expect(try await index.search("statement", options: inBank).map(\.title) == ["Bank statement"])
        let (prepared, mode) = try await index.database.run(within: 5) { connection in
            var runs: [String: [Int]] = [:]
            for try await (name, custom, generic) in try await connection.query(
                "SELECT name, custom_plans, generic_plans FROM pg_prepared_statements", logger: PostgresDatabase.logger).decode((String, Int, Int).self) {
                runs[name] = [custom, generic]
            }
            var mode = ""
            for try await value in try await connection.query("SHOW plan_cache_mode", logger: PostgresDatabase.logger).decode(String.self) { mode = value }
            return (runs, mode)
        }
        // Each run planned for its own words (a generic plan guesses how common they are).
        #expect(prepared == ["yiana_search_0": [3, 0], "yiana_search_1": [4, 0]], "\(prepared)")
        #expect(mode == "force_custom_plan")
    }

    /// An index a yiana of schema version 1 made (pages without their library): a reader sees
    /// no index it can use, and the next `yiana index` brings it up, its pages searchable.
    @Test func aVersion1IndexIsBroughtUpToDate() async throws {
        let (location, folder, library, key, database) = try await Self.olderIndex(1)
        defer { _ = folder }
        _ = try await database.run(within: 5) { connection in
            try await connection.query("INSERT INTO yiana_library (key, name) VALUES (\(key), 'home')", logger: PostgresDatabase.logger)
            try await connection.query("""
                INSERT INTO yiana_document (library, path, folder, title, file_size, file_modified, file_inode, status, page_count, text_pages)
                SELECT id, 'Bank/Old.yianazip', 'Bank', 'Old letter', 1, 1, 1, 'ok', 1, 1 FROM yiana_library
                """, logger: PostgresDatabase.logger)
            return try await connection.query("""
                INSERT INTO yiana_page (document, number, source, body, search)
                SELECT id, 1, 'pdf', 'annual statement', setweight(to_tsvector('yiana_english', 'Old letter'), 'A')
                       || to_tsvector('yiana_english', 'annual statement') FROM yiana_document
                """, logger: PostgresDatabase.logger)
        }
        await database.close()
        #expect(try await IndexLocation.server(location).openExisting(library) == nil, "an older schema is not read as if it were this one")
        let index = try await IndexLocation.server(location).openForWriting(library)
        #expect(try await index.search("statement").map(\.title) == ["Old letter"])
        var inBank = SearchOptions()
        inBank.folder = "Bank"
        #expect(try await index.search("statement", options: inBank).map(\.path) == ["Bank/Old.yianazip"])
        await index.close()
    }

    /// Eight machines replace one document at once, each with its own version: at the end the
    /// document is exactly one of them, its pages all of that version's.
    @Test func concurrentReplacersOfOneDocumentConverge() async throws {
        let server = try TestPostgres.shared()
        let location = try PostgresLocation(url: server.url(database: try server.makeDatabase()), environment: ["USER": "yiana"])
        let library = try TemporaryFolder()
        _ = try await IndexLocation.server(location).openForWriting(try Library(root: library.url))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<8 {
                group.addTask {
                    // A connection of its own, as another machine has.
                    let index = try await IndexLocation.server(location).openForWriting(try Library(root: library.url))
                    for round in 0..<5 {
                        // With another document in the batch, in another order each time: no deadlock.
                        let batch = [Self.document("Doc.yianazip", title: "Document", pages: (1...3).map { "version\(writer)x\(round) page \($0)" }),
                                     Self.document("Other \(round % 2).yianazip", title: "Other", pages: ["writer\(writer)"])]
                        _ = try await index.write(writer % 2 == 0 ? batch : batch.reversed())
                    }
                }
            }
            try await group.waitForAll()
        }
        let database = try await PostgresDatabase.connect(location)
        let versions = try await database.run(within: 10) { connection in
            var bodies: [String] = []
            let rows = try await connection.query("""
                SELECT p.body FROM yiana_page p JOIN yiana_document d ON d.id = p.document WHERE d.path = 'Doc.yianazip' ORDER BY p.number
                """, logger: PostgresDatabase.logger)
            for try await body in rows.decode(String.self) { bodies.append(body) }
            return bodies
        }
        let tags = Set(versions.map { $0.split(separator: " ")[0] })
        #expect(versions.count == 3 && tags.count == 1, "\(versions)")
        await database.close()
    }

    /// Two machines' copies of one library (the second a copy of the first, as a sync program
    /// makes it: other inodes and times) share the rows: the second extracts nothing, neither
    /// redoes what the other did, and neither removes what the other added before it arrives.
    @Test func twoCopiesShareTheIndexWithoutRedoingEachOthersWork() async throws {
        let server = try TestPostgres.shared()
        let location = IndexLocation.server(try PostgresLocation(url: server.url(database: try server.makeDatabase()), environment: ["USER": "yiana"]))
        let a = try TemporaryFolder(), b = try TemporaryFolder()
        for n in 0..<6 {
            try CoordinatedDocument.create(at: a.path("Note \(n).yianazip"), metadata: DocumentMetadata(title: "Note \(n)", pageCount: 1),
                                           pdf: .data(simplePDF(["note number \(n)", "words for every note"])))
        }
        let copyA = try Library(root: a.url), copyB = try Library(root: b.url)
        func run(_ library: Library) async throws -> IndexReport {
            let index = try await location.openForWriting(library)
            return try await index.closing { try await Indexer(library: library, index: index).run(options: IndexOptions(jobs: 2)) }
        }
        let first = try await run(copyA)
        #expect(first.extracted == 6)
        // The copy, with the library's id the first run made.
        for name in try FileManager.default.contentsOfDirectory(atPath: a.url.path) {
            try FileManager.default.copyItem(at: a.url.appendingPathComponent(name), to: b.url.appendingPathComponent(name))
        }
        let second = try await run(copyB)
        #expect(second.extracted == 0 && second.reused == 6 && second.documentCount == 6, "\(second)")
        #expect(try await run(copyA).unchanged == 6, "the other machine's run changed nothing here")
        #expect(try await run(copyB).unchanged == 6)
        // Added on B, not yet synced to A: A's run leaves it.
        try CoordinatedDocument.create(at: b.path("New.yianazip"), metadata: DocumentMetadata(title: "New", pageCount: 1), pdf: .data(simplePDF(["brand new"])))
        #expect(try await run(copyB).extracted == 1)
        let onA = try await run(copyA)
        #expect(onA.removed == 0 && onA.documentCount == 7, "\(onA)")
        // Removed on A (and seen there): gone from the index.
        try FileManager.default.removeItem(at: a.url.appendingPathComponent("Note 0.yianazip"))
        #expect(try await run(copyA).removed == 1)
        let index = try await location.openForWriting(copyA)
        #expect(try await index.search("brand").map(\.path) == ["New.yianazip"])
        #expect(try await index.documentCount() == 6)
        await index.close()
    }

    /// Two machines index their copies before these ever synced, each making a library id; the
    /// sync brings each the other's id file (a conflict copy): on their next runs both move to
    /// the smallest id's rows, the other library row goes, and nothing is extracted again.
    @Test func twoIdsMadeApartConvergeOnTheSmallest() async throws {
        let server = try TestPostgres.shared()
        let location = IndexLocation.server(try PostgresLocation(url: server.url(database: try server.makeDatabase()), environment: ["USER": "yiana"]))
        let a = try TemporaryFolder(), b = try TemporaryFolder()
        for root in [a, b] {
            try CoordinatedDocument.create(at: root.path("Note.yianazip"), metadata: DocumentMetadata(title: "Note", pageCount: 1),
                                           pdf: .data(simplePDF(["the same note on both"])))
        }
        let copyA = try Library(root: a.url), copyB = try Library(root: b.url)
        func run(_ library: Library) async throws -> IndexReport {
            let index = try await location.openForWriting(library)
            return try await index.closing { try await Indexer(library: library, index: index).run(options: IndexOptions(jobs: 1)) }
        }
        _ = try await run(copyA)
        _ = try await run(copyB)
        let ids = [LibraryIdentity.ids(in: copyA), LibraryIdentity.ids(in: copyB)].map { $0.first ?? "" }
        #expect(ids[0] != ids[1], "each made its own")
        // The sync brings each the other's file, as a conflict copy.
        try Data((ids[1] + "\n").utf8).write(to: a.url.appendingPathComponent(".yiana/library-id.sync-conflict-20261125-120000-B"))
        try Data((ids[0] + "\n").utf8).write(to: b.url.appendingPathComponent(".yiana/library-id.sync-conflict-20261125-120000-A"))
        // A store opened before the ids met moves on its next run.
        let open = try await location.openForWriting(copyA)
        let report = try await Indexer(library: copyA, index: open).run(options: IndexOptions(jobs: 1))
        #expect(report.extracted == 0 && report.documentCount == 1, "\(report)")
        #expect((open as? PostgresIndex).map { $0.row.current.key } == ids.min())
        await open.close()
        #expect(try await run(copyB).extracted == 0)
        let database = try await PostgresDatabase.connect(try PostgresLocation(url: location.description, environment: ["USER": "yiana"]))
        let keys = try await database.run(within: 10) { connection in
            var keys: [String] = []
            for try await key in try await connection.query("SELECT key FROM yiana_library", logger: PostgresDatabase.logger).decode(String.self) { keys.append(key) }
            return keys
        }
        await database.close()
        #expect(keys == [ids.min()!], "the other library row is gone: \(keys)")
    }
}
