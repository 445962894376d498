import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// One HTTP GET, for a heartbeat: the status of the answer, nothing else read. HTTPS with the
/// system's trusted certificates (`/etc/ssl/certs`), no redirect followed, one connection
/// closed after it.
public enum Ping {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Requests `url` with GET; returns the answer's status code.
    /// - Throws: ``Failure`` (an address that is not http or https, no answer within
    ///   `timeout` seconds), or the connection's or TLS's error.
    public static func get(_ url: URL, timeout: Int64 = 15, userAgent: String = "yiana") async throws -> Int {
        guard let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme), let host = url.host, !host.isEmpty else {
            throw Failure(description: "not an http or https address")
        }
        let tls = scheme == "https"
        let port = url.port ?? (tls ? 443 : 80)
        var target = url.path.isEmpty ? "/" : url.path
        if let query = url.query { target += "?" + query }
        let group = Self.group
        let answer = group.next().makePromise(of: HTTPResponseHead.self)
        let context = tls ? try NIOSSLContext(configuration: .makeClientConfiguration()) : nil
        var head = HTTPRequestHead(version: .http1_1, method: .GET, uri: target)
        head.headers.add(name: "Host", value: url.port.map { "\(host):\($0)" } ?? host)
        head.headers.add(name: "User-Agent", value: userAgent)
        head.headers.add(name: "Connection", value: "close")
        let request = head
        // Everything happens on the connection's loop: the request is written as soon as it is
        // connected, and the time limit runs there, whatever keeps the caller's task waiting.
        let bootstrap = ClientBootstrap(group: group)
            .connectTimeout(.seconds(timeout))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let context {
                        try channel.pipeline.syncOperations.addHandler(try NIOSSLClientHandler(context: context, serverHostname: host))
                    }
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    try channel.pipeline.syncOperations.addHandler(AnswerHandler(answer, request: request))
                    let limit = channel.eventLoop.scheduleTask(in: .seconds(timeout)) {
                        answer.fail(Failure(description: "no answer within \(timeout) s"))
                        channel.close(promise: nil)
                    }
                    answer.futureResult.whenComplete { _ in
                        limit.cancel()
                        channel.close(promise: nil)
                    }
                }
            }
        do {
            _ = try await bootstrap.connect(host: host, port: port).get()
        } catch {
            answer.fail(error)
            throw error
        }
        return Int(try await answer.futureResult.get().status.code)
    }

    /// A loop of its own, for the life of the process: a heartbeat is never kept waiting by
    /// other users of SwiftNIO in the process (the server's, the PostgreSQL index's).
    private static let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)

    /// Completes the promise with the answer's head; fails it when the connection ends first.
    private final class AnswerHandler: ChannelInboundHandler {
        typealias InboundIn = HTTPClientResponsePart
        typealias OutboundOut = HTTPClientRequestPart
        let answer: EventLoopPromise<HTTPResponseHead>
        let request: HTTPRequestHead

        init(_ answer: EventLoopPromise<HTTPResponseHead>, request: HTTPRequestHead) {
            self.answer = answer
            self.request = request
        }

        func channelActive(context: ChannelHandlerContext) {
            context.write(wrapOutboundOut(.head(request)), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            context.fireChannelActive()
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            if case .head(let head) = unwrapInboundIn(data) { answer.succeed(head) }
        }

        func channelInactive(context: ChannelHandlerContext) {
            answer.fail(Failure(description: "the connection closed before an answer"))
            context.fireChannelInactive()
        }

        func errorCaught(context: ChannelHandlerContext, error: Error) {
            answer.fail(error)
            context.close(promise: nil)
        }
    }
}
