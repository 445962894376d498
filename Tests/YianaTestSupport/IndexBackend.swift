import Foundation
import YianaLibrary
import YianaPostgres
import YianaSearch

/// Where a test keeps its index: the SQLite file, or a database of its own on the test
/// process's PostgreSQL server (``TestPostgres/shared()``). The search and indexing tests run
/// on both, and must pass the same.
public enum IndexBackend: String, CaseIterable, Sendable, CustomStringConvertible {
    case sqlite, postgres

    public var description: String { rawValue }

    /// Where a new index of this kind is: a file in `folder`, or a new database.
    public func location(in folder: TemporaryFolder) throws -> IndexLocation {
        switch self {
        case .sqlite:
            return .file(folder.path("index.sqlite"))
        case .postgres:
            let server = try TestPostgres.shared()
            return .server(try PostgresLocation(url: server.url(database: try server.makeDatabase()), environment: ["USER": "yiana"]))
        }
    }

    /// A new, empty index of this kind for `library`.
    public func makeIndex(for library: Library, in folder: TemporaryFolder) async throws -> any IndexStore {
        try await location(in: folder).openForWriting(library)
    }
}
