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
        let group = MultiThreadedEventLoopGroup.singleton
        let answer = group.next().makePromise(of: HTTPResponseHead.self)
        let context = tls ? try NIOSSLContext(configuration: .makeClientConfiguration()) : nil
        let bootstrap = ClientBootstrap(group: group)
            .connectTimeout(.seconds(timeout))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let context {
                        try channel.pipeline.syncOperations.addHandler(try NIOSSLClientHandler(context: context, serverHostname: host))
                    }
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    try channel.pipeline.syncOperations.addHandler(AnswerHandler(answer))
                }
            }
        let channel: Channel
        do {
            channel = try await bootstrap.connect(host: host, port: port).get()
        } catch {
            answer.fail(error)
            throw error
        }
        let limit = channel.eventLoop.scheduleTask(in: .seconds(timeout)) {
            answer.fail(Failure(description: "no answer within \(timeout) s"))
            channel.close(promise: nil)
        }
        var head = HTTPRequestHead(version: .http1_1, method: .GET, uri: target)
        head.headers.add(name: "Host", value: url.port.map { "\(host):\($0)" } ?? host)
        head.headers.add(name: "User-Agent", value: userAgent)
        head.headers.add(name: "Connection", value: "close")
        channel.write(HTTPClientRequestPart.head(head), promise: nil)
        channel.writeAndFlush(HTTPClientRequestPart.end(nil), promise: nil)
        defer {
            limit.cancel()
            channel.close(promise: nil)
        }
        return Int(try await answer.futureResult.get().status.code)
    }

    /// Completes the promise with the answer's head; fails it when the connection ends first.
    private final class AnswerHandler: ChannelInboundHandler {
        typealias InboundIn = HTTPClientResponsePart
        let answer: EventLoopPromise<HTTPResponseHead>

        init(_ answer: EventLoopPromise<HTTPResponseHead>) { self.answer = answer }

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
