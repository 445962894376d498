import Foundation
import YianaLibrary
import YianaPostgres
import YianaSearch

/// How `yiana serve` runs.
public struct ServeOptions: Sendable {
    /// The libraries served: one at the root, or several, each under `/name/` (``Mounts``).
    public var libraries: [Library]
    /// The search index: a file for the one library (its default one when nil; with several
    /// libraries each has its default one), or a database on a PostgreSQL server, which holds
    /// every library's.
    public var index: IndexLocation?
    public var host = "127.0.0.1"
    /// 0: any free port (the one taken is reported when the server is up).
    public var port = 8484
    /// Refuse every request that would change the library.
    public var readOnly = false
    /// The most bytes one imported file may have.
    public var importLimit = 512 << 20
    /// Needed for any address beyond loopback: every request then needs a session.
    public var password: PasswordHash?

    public init(libraries: [Library]) {
        self.libraries = libraries
    }

    public init(library: Library) {
        self.init(libraries: [library])
    }

    /// The search index of `library`.
    public func index(for library: Library) -> IndexLocation {
        switch index {
        case .server?: index!
        case .file? where libraries.count == 1: index!
        default: .file(SearchIndex.defaultLocation(for: library.root))
        }
    }

    /// `HOST:PORT`, `:PORT` or `PORT`; a host beyond loopback is refused (see ``isLoopback(_:)``).
    public static func parseListen(_ text: String) throws(ServeError) -> (host: String, port: Int) {
        var host = "127.0.0.1", portText = text
        if let colon = text.lastIndex(of: ":") {
            let head = String(text[..<colon])
            portText = String(text[text.index(after: colon)...])
            if !head.isEmpty { host = head.hasPrefix("[") && head.hasSuffix("]") ? String(head.dropFirst().dropLast()) : head }
        }
        guard let port = Int(portText), (0...65535).contains(port) else {
            throw ServeError("--listen \(text): not HOST:PORT with a port from 0 to 65535 (e.g. 127.0.0.1:8484)")
        }
        return (host, port)
    }

    /// Loopback addresses only: 127.0.0.0/8, ::1, localhost.
    public static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || host.split(separator: ".").first == "127"
            && host.split(separator: ".").count == 4 && host.split(separator: ".").allSatisfy { UInt8($0) != nil }
    }
}

public struct ServeError: Error, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description }
}
