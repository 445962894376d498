import Foundation
import YianaPeople
import PostgresNIO
import YianaLibrary
import YianaSearch
import YianaSystem

/// One library's index on PostgreSQL, as an ``IndexStore``: its documents and their pages, a
/// batch of documents written in one transaction (a search sees a document's old pages or its
/// new ones, never a mix or none), searched with PostgreSQL's full-text search
/// (``search(_:options:)``). Every machine with a copy of the library shares its rows: the
/// library is known by the id in its synced folder (``YianaLibrary/LibraryIdentity``).
///
/// A page's `tsvector` holds its document's title (weight A), tags (B) and folder (C) and its
/// own text (D), each folded in Swift as the SQLite index's tokenizer folds (compatibility
/// forms, diacritics, case) and split at every character that is not a letter or digit, so both
/// indexes see the same words; no `unaccent` extension is needed on a shared server.
public struct PostgresIndex: IndexStore {
    public let database: PostgresDatabase
    /// The library's row (``PostgresSchema``'s `yiana_library`).
    public var library: Int64 { row.current.id }
    /// Which library row this is, and by which id (``refreshIdentity()``).
    let row: LibraryRow
    /// The library on this machine, whose id is read again at every run; nil for a store
    /// opened by its key alone.
    let root: Library?
    /// This machine's copy of the library (``IndexLocation/machine(for:)``): what it has seen
    /// of each document is its own (`yiana_seen`).
    public let machine: String

    public var location: String { database.location.description }
    /// The vocabulary in memory, for a process that searches many times.
    public let residentVocabulary = ResidentVocabulary()

    /// Seconds a write may take before it is given up (and tried again by the next run).
    static let writeTimeout = 120.0

    /// The index of the library known by `key`, its row made when the database has none
    /// (`create`), else nil when there is none; the schema must be this yiana's
    /// (``PostgresSchema/migrate(_:)``).
    public static func open(_ database: PostgresDatabase, libraryKey key: String, name: String, machine: String,
                            create: Bool = true, root: Library? = nil) async throws(PostgresIndexError) -> PostgresIndex? {
        let id = try await database.run(within: 30) { connection -> Int64? in
            let rows = create
                ? try await connection.query("""
                    INSERT INTO yiana_library (key, name) VALUES (\(key), \(name))
                    ON CONFLICT (key) DO UPDATE SET name = excluded.name RETURNING id
                    """, logger: PostgresDatabase.logger)
                : try await connection.query("SELECT id FROM yiana_library WHERE key = \(key)", logger: PostgresDatabase.logger)
            var id: Int64?
            for try await value in rows.decode(Int64.self) { id = value }
            return id
        }
        return id.map { PostgresIndex(database: database, row: LibraryRow(id: $0, key: key), root: root, machine: machine) }
    }

    /// Text as PostgreSQL can store it (it takes no NUL character).
    static func storable(_ text: String) -> String {
        text.contains("\u{0}") ? text.replacingOccurrences(of: "\u{0}", with: "") : text
    }

    /// The words of a document's title, tags and folder, weighted for ``header``.
    struct Header: Sendable {
        let title: String, tags: String, folder: String
        init(title: String, tags: [String], folder: String) {
            self.title = Vocabulary.searchable(title)
            self.tags = Vocabulary.searchable(tags.joined(separator: " "))
            self.folder = Vocabulary.searchable(folder)
        }
    }

    public func close() async {
        await database.close()
    }

    // MARK: - Reading what the index holds

    /// The documents this machine has indexed, with its copies' stamps: one another machine
    /// wrote and this one never saw is new here (its pages reused by content, if the same).
    public func known() async throws -> [String: StoredDocument] {
        try await known(nil)
    }

    public func known(paths: Set<String>) async throws -> [String: StoredDocument] {
        paths.isEmpty ? [:] : try await known(Array(paths))
    }

    public func forEachKnown(_ body: (String, StoredDocument) throws -> Void) async throws {
        for (path, stored) in try await rows(of: nil) { try body(path, stored) }
    }

    /// This machine's rows of the documents at `paths` (of every document when nil).
    private func known(_ paths: [String]?) async throws -> [String: StoredDocument] {
        Dictionary(try await rows(of: paths), uniquingKeysWith: { _, last in last })
    }

    /// This machine's rows of the documents at `paths` (of every document when nil), in the
    /// order of their paths' bytes (``IndexStore/forEachKnown(_:)``'s).
    private func rows(of paths: [String]?) async throws -> [(String, StoredDocument)] {
        try await refreshIdentity()
        return try await rows("""
            SELECT d.id, d.path, s.file_size, s.file_modified, s.file_inode, d.content_key, d.status
            FROM yiana_document d JOIN yiana_seen s ON s.document = d.id AND s.machine = \(machine)
            WHERE d.library = \(library) AND (\(paths == nil) OR d.path = ANY(\(paths ?? [])))
            ORDER BY d.path COLLATE "C"
            """, as: (Int64, String, Int64, Int64, Int64, String?, String).self)
            .map { row in
                (row.1, StoredDocument(id: row.0, file: FileStamp(size: row.2, modified: row.3, inode: row.4),
                                       contentKey: row.5, status: IndexStatus(rawValue: row.6) ?? .failed))
            }
    }

    /// Every machine's: a document this machine has not seen yet reuses the pages another's run made.
    public func indexedContent(known: [String: StoredDocument]) async throws -> Set<String> {
        let own = Set(known.values.filter { $0.status == .ok }.compactMap(\.contentKey))
        // The keys of documents other machines indexed and this one has not seen, read only
        // when there are any: the whole library's are a read of every row.
        guard try await documentCount() > known.count else { return own }
        return own.union(try await rows("""
            SELECT DISTINCT d.content_key FROM yiana_document d
            WHERE d.library = \(library) AND d.status = 'ok' AND d.content_key IS NOT NULL
              AND NOT EXISTS (SELECT 1 FROM yiana_seen s WHERE s.document = d.id AND s.machine = \(machine))
            """, as: String.self))
    }

    public func indexedContent(among keys: Set<String>) async throws -> Set<String> {
        guard !keys.isEmpty else { return [] }
        return Set(try await rows("""
            SELECT DISTINCT content_key FROM yiana_document
            WHERE library = \(library) AND status = 'ok' AND content_key = ANY(\(Array(keys)))
            """, as: String.self))
    }

    public func statuses(onlyProblems: Bool) async throws -> [IndexReport.Document] {
        try await statuses(onlyProblems: onlyProblems, paths: nil)
    }

    public func statuses(paths: Set<String>) async throws -> [IndexReport.Document] {
        paths.isEmpty ? [] : try await statuses(onlyProblems: false, paths: Array(paths))
    }

    private func statuses(onlyProblems: Bool, paths: [String]?) async throws -> [IndexReport.Document] {
        try await rows("""
            SELECT path, status, reason, page_count, text_pages, ocr_pages FROM yiana_document
            WHERE library = \(library) AND (NOT \(onlyProblems) OR status <> 'ok') AND (\(paths == nil) OR path = ANY(\(paths ?? [])))
            ORDER BY path COLLATE "C"
            """, as: (String, String, String?, Int, Int, Int).self)
            .map { IndexReport.Document(path: $0.0, status: IndexStatus(rawValue: $0.1) ?? .failed, reason: $0.2, pages: $0.3, textPages: $0.4, ocrPages: $0.5) }
    }

    public func documentCount() async throws -> Int {
        try await rows("SELECT count(*)::int8 FROM yiana_document WHERE library = \(library)", as: Int.self).first ?? 0
    }

    public func stamps(inFolder folder: String) async throws -> [String: FileStamp] {
        try await rows("""
            SELECT d.path, s.file_size, s.file_modified, s.file_inode
            FROM yiana_document d JOIN yiana_seen s ON s.document = d.id AND s.machine = \(machine)
            WHERE d.library = \(library) AND d.folder = \(folder)
            """, as: (String, Int64, Int64, Int64).self)
            .reduce(into: [:]) { $0[$1.0] = FileStamp(size: $1.1, modified: $1.2, inode: $1.3) }
    }

    /// The key under which `key` is kept: the folders' times and the address files' stamps are
    /// this machine's copy's (another's differ), when the last run was is the library's.
    func stateKey(_ key: IndexState) -> String {
        key == .lastRun ? key.rawValue : key.rawValue + " " + machine
    }

    public func state(_ key: IndexState) async throws -> String? {
        try await rows("SELECT value FROM yiana_state WHERE library = \(library) AND key = \(stateKey(key))", as: String.self).first
    }

    public func setState(_ values: [IndexState: String]) async throws {
        let library = self.library
        let values = values.map { (stateKey($0.key), $0.value) }
        try await database.transaction(within: Self.writeTimeout) { connection in
            for (key, value) in values {
                try await connection.query("""
                    INSERT INTO yiana_state (library, key, value) VALUES (\(library), \(key), \(value))
                    ON CONFLICT (library, key) DO UPDATE SET value = excluded.value
                    """, logger: PostgresDatabase.logger)
            }
        }
    }

    public func addressRecords(paths: Set<String>?, named names: Set<String>?) async throws -> [AddressRecord] {
        // The names as AddressRecord.matches(_:) takes them: a title, or the file name less
        // every ".yianazip" in it.
        try await rows("""
            SELECT d.id, d.path, d.title, a.fingerprint FROM yiana_document d
            LEFT JOIN yiana_document_addresses a ON a.document = d.id AND a.machine = \(machine)
            WHERE d.library = \(library) AND (\(paths == nil) OR d.path = ANY(\(paths.map { Array($0) } ?? [])))
              AND (\(paths != nil || names == nil) OR a.fingerprint IS NOT NULL OR d.title = ANY(\(Array(names ?? [])))
                   OR replace(regexp_replace(d.path, '^.*/', ''), \("." + Library.documentExtension), '') = ANY(\(Array(names ?? []))))
            """, as: (Int64, String, String, String?).self)
            .map { AddressRecord(id: $0.0, path: $0.1, title: $0.2, fingerprint: $0.3) }
    }

    /// Every row of `query`, its columns decoded as `columns`.
    func rows<each C: PostgresDecodable & Sendable>(_ query: PostgresQuery, as columns: (repeat each C).Type, within seconds: Double = 30)
        async throws(PostgresIndexError) -> [(repeat each C)] {
        try await database.run(within: seconds) { connection in
            try await FixedStatements.rows(query, as: (repeat each C).self, on: connection)
        }
    }

    /// Two machines that each indexed the library before it synced made an id each; once the
    /// files have met, every machine takes the smallest (``YianaLibrary/LibraryIdentity``). A run
    /// that finds the id changed moves to that library's rows and drops the ones it leaves (a
    /// machine still writing them fails its run, and moves on its next).
    func refreshIdentity() async throws {
        guard let root else { return }
        let ids = LibraryIdentity.ids(in: root)
        guard let key = ids.min() else { return }
        let old = row.current
        // The rows under every other id this library has had: the ones it leaves.
        let stale = Array(Set(ids + [old.key]).subtracting([key]))
        guard key != old.key || !stale.isEmpty else { return }
        let name = root.root.lastPathComponent
        let id = try await database.transaction(within: Self.writeTimeout) { connection -> Int64 in
            var id = old.id
            if key != old.key {
                let made = try await connection.query("""
                    INSERT INTO yiana_library (key, name) VALUES (\(key), \(name)) ON CONFLICT (key) DO UPDATE SET name = excluded.name RETURNING id
                    """, logger: PostgresDatabase.logger)
                for try await value in made.decode(Int64.self) { id = value }
            }
            try await connection.query("DELETE FROM yiana_library WHERE key = ANY(\(stale))", logger: PostgresDatabase.logger)
            return id
        }
        row.set(id: id, key: key)
    }

    // MARK: - Writing

    public func clear() async throws {
        let library = self.library
        try await database.transaction(within: Self.writeTimeout) { connection in
            try await connection.query("DELETE FROM yiana_document WHERE library = \(library)", logger: PostgresDatabase.logger)
            try await connection.query("DELETE FROM yiana_state WHERE library = \(library)", logger: PostgresDatabase.logger)
            try await connection.query("DELETE FROM yiana_word WHERE library = \(library)", logger: PostgresDatabase.logger)
            try await connection.query("DELETE FROM yiana_word_letter WHERE library = \(library)", logger: PostgresDatabase.logger)
            try await Self.newVocabularyVersion(library: library, connection)
        }
    }

    public func write(_ documents: [ExtractedDocument]) async throws -> [ExtractedDocument] {
        guard !documents.isEmpty else { return [] }
        let library = self.library, machine = self.machine
        // In order of path: two machines writing overlapping batches lock rows in one order, so
        // they take turns instead of deadlocking.
        let sorted = documents.sorted { $0.path < $1.path }
        return try await database.transaction(within: Self.writeTimeout) { connection in
            // Newly extracted documents all together (most of a run); those whose pages are
            // copied or kept one by one.
            let extracted = sorted.filter { if case .extracted = $0.pages { true } else { false } }
            try await PostgresBatchWriter(connection: connection, library: library, machine: machine).write(extracted)
            var unwritten: [ExtractedDocument] = []
            let writer = PostgresWriter(connection: connection, library: library, machine: machine)
            for document in sorted {
                if case .extracted = document.pages { continue }
                if try await !writer.apply(document) { unwritten.append(document) }
            }
            try await Self.addWords(Self.words(of: sorted.filter { written in !unwritten.contains { $0.path == written.path } }),
                                    library: library, connection)
            return unwritten
        }
    }

    public func remove(_ paths: [String]) async throws -> [String] {
        guard !paths.isEmpty else { return [] }
        let library = self.library
        return try await database.transaction(within: Self.writeTimeout) { connection in
            var removed: [String] = []
            let rows = try await connection.query("DELETE FROM yiana_document WHERE library = \(library) AND path = ANY(\(paths)) RETURNING path",
                                                  logger: PostgresDatabase.logger)
            for try await path in rows.decode(String.self) { removed.append(path) }
            return removed
        }
    }

    /// Removes the documents this machine indexed that are not in `paths` (one another machine
    /// added, which has not reached this one yet, is not this one's to remove).
    public func writeAddresses(_ rows: [AddressRow]) async throws {
        guard !rows.isEmpty else { return }
        let rows = rows.map { AddressRow(id: $0.id, text: Self.storable($0.text), people: Self.storable($0.people), fingerprint: $0.fingerprint) }
        let machine = self.machine
        let library = self.library
        try await database.transaction(within: Self.writeTimeout) { connection in
            for row in rows {
                try await PostgresWriter(connection: connection, library: 0, machine: machine).writeAddresses(id: row.id, text: row.text, people: row.people, fingerprint: row.fingerprint)
            }
            try await Self.addWords(Vocabulary.words(of: rows.map(\.text)), library: library, connection)
        }
    }
}


/// The library row a ``PostgresIndex`` writes under, which a run may move (its id changed).
final class LibraryRow: @unchecked Sendable {
    // @unchecked: `value` is guarded by `lock`.
    private let lock = NSLock()
    private var value: (id: Int64, key: String)

    init(id: Int64, key: String) {
        value = (id, key)
    }

    var current: (id: Int64, key: String) { lock.withLock { value } }

    func set(id: Int64, key: String) {
        lock.withLock { value = (id, key) }
    }
}
