import Foundation
import Hummingbird
import NIOCore
import YianaArchive

/// A document's PDF streamed as it is read (inflated if it was stored compressed), a few MiB
/// in flight at most, whatever the PDF's size. The reader checks the CRC as it goes; should a
/// chunk or the CRC at the end be wrong, the connection is cut before the last byte, so with
/// its `Content-Length` the client sees a broken download, never a wrong PDF.
enum PDFStream {
    /// The body; `size` is the PDF's length as the archive records it.
    static func body(_ url: URL, size: Int) -> ResponseBody {
        ResponseBody(contentLength: size) { writer in
            let handoff = Handoff()
            let (chunks, continuation) = AsyncThrowingStream<ByteBuffer, Error>.makeStream()
            Thread.detachNewThread {
                do {
                    // Each chunk is sent once the next one is read, the last once the CRC is
                    // checked: a PDF that fails it is never sent to its last byte.
                    var pending: ByteBuffer?
                    try DocumentReader(path: url.path).readPDF { chunk in
                        try handoff.waitForRoom()
                        if let pending { continuation.yield(pending) }
                        pending = ByteBuffer(bytes: chunk)
                    }
                    if let pending { continuation.yield(pending) }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            do {
                for try await chunk in chunks {
                    try await writer.write(chunk)
                    handoff.taken()
                }
            } catch {
                handoff.stop()
                throw error
            }
            try await writer.finish(nil)
        }
    }

    /// Back-pressure between the reading thread and the writer: at most four chunks (4 MiB)
    /// read ahead of what the client took; stopped when the client has gone.
    final class Handoff: @unchecked Sendable {
        // @unchecked: `stopped` is guarded by `lock`; the semaphore is thread-safe.
        private let room = DispatchSemaphore(value: 4)
        private let lock = NSLock()
        private var stopped = false

        func waitForRoom() throws {
            room.wait()
            if lock.withLock({ stopped }) { throw CancellationError() }
        }

        func taken() { room.signal() }

        func stop() {
            lock.withLock { stopped = true }
            room.signal()
        }
    }
}
