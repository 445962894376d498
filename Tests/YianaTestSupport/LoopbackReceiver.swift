import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A small HTTP server on 127.0.0.1 that keeps every request it is sent and answers each with
/// `status`: the receiving end of a notification service (apprise's `json://` webhook, ntfy's
/// publish API) for tests. `close()` stops it listening, as a service that is down; a new
/// receiver on the same port brings it back.
public final class LoopbackReceiver: @unchecked Sendable {
    // @unchecked: `received` and `status` are touched only under `lock`.
    public struct Request: Sendable {
        public let method: String
        public let path: String
        /// Lower-cased names.
        public let headers: [String: String]
        public let body: String
    }

    public let port: Int
    private let fd: Int32
    private let lock = NSLock()
    private var requests: [Request] = []
    private var answer = 200
    private var closed = false

    /// Listens on 127.0.0.1:`port` (0: any free port).
    public init(port: Int = 0) throws {
        guard let (fd, port) = listeningSocket(port: port) else { throw POSIXError(.EADDRINUSE) }
        self.fd = fd
        self.port = port
        // The thread alone closes the socket, once it has stopped accepting: closed under it,
        // its number could be handed to another receiver's socket and its connections taken.
        Thread.detachNewThread { [self] in
            defer { Glibc.close(fd) }
            while !lock.withLock({ closed }) {
                let client = accept(fd, nil, nil)
                if client < 0 {
                    if errno == EINTR { continue }  // a signal (a test's child ending), not the end
                    return
                }
                answer(client)
            }
        }
    }

    deinit { close() }

    /// The requests received so far.
    public var received: [Request] { lock.withLock { requests } }

    /// The status every request is answered with from now on.
    public func answer(with status: Int) { lock.withLock { answer = status } }

    /// Stops listening: connections are refused until a receiver listens on the port again
    /// (at once: a shut-down socket refuses them, and the thread closes it).
    public func close() {
        let first = lock.withLock { () -> Bool in
            defer { closed = true }
            return !closed
        }
        guard first else { return }
        shutdown(fd, Int32(SHUT_RDWR))  // wakes the accepting thread, which closes it
    }

    /// Waits up to `seconds` for `count` requests; returns them.
    public func wait(for count: Int, seconds: Double) -> [Request] {
        let deadline = Date().addingTimeInterval(seconds)
        while received.count < count, Date() < deadline { usleep(50_000) }
        return received
    }

    private func answer(_ client: Int32) {
        defer { Glibc.close(client) }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        var headEnd: Int?
        var length = 0
        while true {
            let n = buffer.withUnsafeMutableBytes { read(client, $0.baseAddress, $0.count) }
            if n < 0, errno == EINTR { continue }
            if n <= 0 { break }
            bytes += buffer[0..<n]
            if headEnd == nil, let end = Self.find([13, 10, 13, 10], in: bytes) {
                headEnd = end + 4
                let head = String(decoding: bytes[..<end], as: UTF8.self).lowercased()
                length = head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
                    .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
            }
            if let headEnd, bytes.count >= headEnd + length { break }
        }
        guard let headEnd else { return }
        let lines = String(decoding: bytes[..<(headEnd - 4)], as: UTF8.self).components(separatedBy: "\r\n")
        let requestLine = lines[0].split(separator: " ")
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let request = Request(method: requestLine.first.map(String.init) ?? "", path: requestLine.count > 1 ? String(requestLine[1]) : "",
                              headers: headers, body: String(decoding: bytes[headEnd...], as: UTF8.self))
        let status = lock.withLock { () -> Int in
            requests.append(request)
            return answer
        }
        let reply = "HTTP/1.1 \(status) \(status == 200 ? "OK" : "Error")\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}"
        _ = reply.utf8CString.withUnsafeBufferPointer { write(client, $0.baseAddress, $0.count - 1) }
    }

    private static func find(_ needle: [UInt8], in bytes: [UInt8]) -> Int? {
        guard bytes.count >= needle.count else { return nil }
        for start in 0...(bytes.count - needle.count) where bytes[start..<(start + needle.count)].elementsEqual(needle) { return start }
        return nil
    }
}

/// A socket listening on 127.0.0.1:`port` (0: a free one, `SO_REUSEADDR` set), and its port;
/// nil when it cannot listen there.
func listeningSocket(port: Int) -> (fd: Int32, port: Int)? {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return nil }
    var yes: Int32 = 1
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let bound = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
    }
    guard bound, listen(fd, 16) == 0 else {
        close(fd)
        return nil
    }
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
    return (fd, Int(UInt16(bigEndian: address.sin_port)))
}
