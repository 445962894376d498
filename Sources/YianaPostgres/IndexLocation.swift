import Foundation
import PostgresNIO
import YianaLibrary
import YianaSearch

/// Where a library's search index is: an SQLite file on this machine (the default, one per
/// library under `~/.cache/yiana-tools/`), or a PostgreSQL database every machine shares
/// (`--index postgres://USER@HOST[:PORT]/DB`, or `$YIANA_INDEX`).
public enum IndexLocation: Sendable, Equatable, CustomStringConvertible {
    case file(String)
    case server(PostgresLocation)

    /// The environment variable that names the index when `--index` does not.
    public static let environmentKey = "YIANA_INDEX"

    /// `option` (`--index`) if given, else `$YIANA_INDEX`, else the library's default file.
    /// - Throws: ``PostgresLocationError`` for a `postgres://` URL that is not valid.
    public static func resolve(_ option: String?, library: Library,
                               environment: [String: String] = ProcessInfo.processInfo.environment) throws(PostgresLocationError) -> IndexLocation {
        guard let given = option ?? environment[environmentKey].flatMap({ $0.isEmpty ? nil : $0 }) else {
            return .file(SearchIndex.defaultLocation(for: library.root, environment: environment))
        }
        if PostgresLocation.isURL(given) { return .server(try PostgresLocation(url: given, environment: environment)) }
        return .file(URL(fileURLWithPath: given).standardizedFileURL.path)
    }

    /// This machine's copy of `library`, as a shared index tells it from the others' (each tells
    /// its own files' changes): the machine's id (`/etc/machine-id`, else its host name) and the
    /// library's path on it (two copies on one machine are two copies).
    public static func machine(for library: Library) -> String {
        let id = (try? String(contentsOfFile: "/etc/machine-id", encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
        return (id.flatMap { $0.isEmpty ? nil : $0 } ?? ProcessInfo.processInfo.hostName) + ":" + library.root.standardizedFileURL.path
    }

    /// The file's path, or the server's URL without its password.
    public var description: String {
        switch self {
        case .file(let path): path
        case .server(let location): location.description
        }
    }

    /// The file's path; nil for a server.
    public var path: String? {
        if case .file(let path) = self { return path }
        return nil
    }

    /// Whether an index may be here: the file exists, or it is on a server (whether the server
    /// holds this library is known only by asking it, ``openExisting(_:writable:connections:)``).
    public var mayExist: Bool {
        switch self {
        case .file(let path): FileManager.default.fileExists(atPath: path)
        case .server: true
        }
    }

    /// The index to write (`yiana index`, `watch`, the commands that keep it current): the file
    /// made if missing; on a server, the schema brought up to this version and the library's
    /// rows made if new (its id made in the library's `.yiana/` when it has none).
    /// - Throws: ``PostgresIndexError`` naming the server, or the file's error.
    public func openForWriting(_ library: Library, connections: Int = 1) async throws -> any IndexStore {
        switch self {
        case .file(let path):
            return try SearchIndex(path: path)
        case .server(let location):
            let database = try await PostgresDatabase.connect(location, connections: connections)
            do {
                try await PostgresSchema.migrate(database)
                try await PostgresSchema.upkeep(database)
                try await PostgresSchema.fillVocabulary(database)
                let key = try LibraryIdentity.key(of: library)
                guard let index = try await PostgresIndex.open(database, libraryKey: key, name: library.root.lastPathComponent,
                                                               machine: Self.machine(for: library), root: library) else {
                    throw PostgresIndexError(.other("the library's row could not be made"), location: location)
                }
                return index
            } catch {
                await database.close()
                throw error
            }
        }
    }

    /// The index to search (or with `writable`, to keep current without making one), or nil when
    /// there is none yet (no file; on the server, no schema or no rows of this library: `yiana
    /// index` makes them).
    /// - Throws: ``YianaSearch/SearchError`` `.indexNeedsUpdate` for an older file,
    ///   ``PostgresIndexError`` naming the server (down, refused, a newer schema, …).
    public func openExisting(_ library: Library, writable: Bool = false, connections: Int = 1) async throws -> (any IndexStore)? {
        switch self {
        case .file(let path):
            guard FileManager.default.fileExists(atPath: path) else { return nil }
            return writable ? try SearchIndex(path: path) : try SearchIndex(readingAt: path)
        case .server(let location):
            let database = try await PostgresDatabase.connect(location, connections: connections)
            guard try await PostgresSchema.check(database) == PostgresSchema.version else {
                // No index yet, or one an older yiana made (reading it needs `yiana index` to bring it up).
                await database.close()
                return nil
            }
            guard let key = LibraryIdentity.ids(in: library).min(),
                  let index = try await PostgresIndex.open(database, libraryKey: key, name: library.root.lastPathComponent,
                                                           machine: Self.machine(for: library), create: false) else {
                await database.close()
                return nil
            }
            return index
        }
    }

    /// What the database holds of `library`, by path: each document's title, tags, status, PDF
    /// and every page's source and text (as a digest), not which machine's file stamps: two
    /// indexes of one library are equal when these are (the shared-index checks). Empty for a
    /// file, or a library that has no id yet.
    public func contents(of library: Library) async throws -> [String: String] {
        guard case .server(let location) = self, let key = LibraryIdentity.ids(in: library).min() else { return [:] }
        let database = try await PostgresDatabase.connect(location)
        let query: PostgresQuery = """
            SELECT d.path, d.title || ' | ' || array_to_string(d.tags, ',') || ' | ' || d.status || ' | ' || coalesce(d.content_key, '-')
                   || ' | ' || coalesce((SELECT string_agg(p.number || ':' || p.source || ':' || md5(p.body), ' ' ORDER BY p.number, p.source)
                                         FROM yiana_page p WHERE p.document = d.id), '')
            FROM yiana_document d JOIN yiana_library l ON l.id = d.library WHERE l.key = \(key)
            """
        do {
            let rows = try await database.run(within: 30) { connection in
                var rows: [String: String] = [:]
                for try await (path, description) in try await connection.query(query, logger: PostgresDatabase.logger).decode((String, String).self) {
                    rows[path] = description
                }
                return rows
            }
            await database.close()
            return rows
        } catch {
            await database.close()
            throw error
        }
    }
}
