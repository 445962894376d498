import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One HTTP/1.1 exchange over a plain socket to 127.0.0.1, exactly as written (any `Host`,
/// any header, no redirect followed, no cookie kept): for tests of what a server does with
/// requests a browser library would tidy up.
public struct RawHTTP {
    public let status: Int
    /// Lower-cased names; a repeated header keeps its last value.
    public let headers: [String: String]
    public let body: String
    /// The body's bytes as they came.
    public let bytes: [UInt8]

    /// Sends `head` (request line and headers, without the blank line; `Connection: close` and
    /// `Content-Length` are added) and `body` to `port`, and reads the answer to its end.
    public static func send(port: Int, _ head: String, body: String = "") throws -> RawHTTP {
        // A server that hangs fails the test after 20 s instead of hanging it.
        let fd = try connected(port: port, timeout: timeval(tv_sec: 20, tv_usec: 0))
        defer { close(fd) }
        try write(Array((head + "\r\nConnection: close\r\nContent-Length: \(body.utf8.count)\r\n\r\n" + body).utf8), to: fd)
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 { throw POSIXError(.ETIMEDOUT) }
            if n == 0 { break }
            answer += buffer[0..<n]
        }
        let separator: [UInt8] = [13, 10, 13, 10]
        let end = (0..<max(0, answer.count - 3)).first { answer[$0..<($0 + 4)].elementsEqual(separator) } ?? answer.count
        let head = String(decoding: answer[..<end], as: UTF8.self)
        let bytes = Array(answer[min(answer.count, end + 4)...])
        let lines = head.components(separatedBy: "\r\n")
        let status = Int(lines[0].split(separator: " ").dropFirst().first ?? "") ?? 0
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return RawHTTP(status: status, headers: headers, body: String(decoding: bytes, as: UTF8.self), bytes: bytes)
    }

    /// A stream's text (server-sent events): `GET path` sent, its answer read as it comes
    /// until `done` says so or `seconds` pass; then the connection is closed.
    public static func stream(port: Int, _ path: String, seconds: Double, until done: (String) -> Bool) throws -> String {
        let fd = try connected(port: port, timeout: timeval(tv_sec: 0, tv_usec: 200_000))
        defer { close(fd) }
        try write(Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nAccept: text/event-stream\r\n\r\n".utf8), to: fd)
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n == 0 { break }
            if n > 0 {
                answer += buffer[0..<n]
                if done(String(decoding: answer, as: UTF8.self)) { break }
            }
        }
        return String(decoding: answer, as: UTF8.self)
    }

    private static func connected(port: Int, timeout: timeval) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else {
            close(fd)
            throw POSIXError(.ECONNREFUSED)
        }
        var timeout = timeout
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        return fd
    }

    private static func write(_ request: [UInt8], to fd: Int32) throws {
        var sent = 0
        while sent < request.count {
            let n = request[sent...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            guard n > 0 else { throw POSIXError(.EPIPE) }
            sent += n
        }
    }
}
