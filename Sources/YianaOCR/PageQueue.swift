import Foundation
import YianaPDF

/// One page to recognise: the PDF (a scratch copy of the document's), the page and where
/// its text layer goes; `finish` is called once with what became of it.
struct PageTask: Sendable {
    let pdf: String
    /// 0-based.
    let index: Int
    let dpi: Int
    let layerBase: String?
    let finish: @Sendable (Result<RecognizedPage, Error>) -> Void
}

/// Worker threads, each with its own tesseract engine and its own poppler handle on the PDF
/// it is working on, taking pages from one queue: the pages of one long document and of many
/// short ones keep every worker busy alike.
final class PageWorkers: @unchecked Sendable {
    // @unchecked: `tasks` and `closed` are only touched under `condition`.
    private let condition = NSCondition()
    private var tasks: [PageTask] = []
    private var head = 0
    private var closed = false
    private var threads: [Thread] = []
    private let finished = DispatchGroup()

    /// Starts `count` workers for `languages`. An engine that cannot start fails each page given to it.
    init(count: Int, languages: String) {
        for number in 0..<max(1, count) {
            finished.enter()
            let thread = Thread { [self] in
                work(engine: Result { try TesseractEngine(languages: languages) })
                finished.leave()
            }
            thread.name = "yiana-ocr-\(number)"
            thread.stackSize = 8 << 20  // tesseract recurses deeply on some layouts
            threads.append(thread)
            thread.start()
        }
    }

    func submit(_ task: PageTask) {
        condition.lock()
        tasks.append(task)
        condition.signal()
        condition.unlock()
    }

    /// Lets the workers end once the queue is empty, and waits for them.
    func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
        finished.wait()
    }

    private func next() -> PageTask? {
        condition.lock()
        defer { condition.unlock() }
        while head == tasks.count && !closed { condition.wait() }
        guard head < tasks.count else { return nil }
        let task = tasks[head]
        head += 1
        if head > 1024, head * 2 > tasks.count {
            tasks.removeFirst(head)
            head = 0
        }
        return task
    }

    private func work(engine: Result<TesseractEngine, Error>) {
        var open: (path: String, document: PDFDocument)?
        while let task = next() {
            let outcome = Result<RecognizedPage, Error> {
                let engine = try engine.get()
                if open?.path != task.pdf { open = (task.pdf, try PDFDocument(path: task.pdf)) }
                let image = try open!.document.renderGray(page: task.index, dpi: task.dpi)
                return try engine.recognize(image, pageNumber: task.index + 1, layerBase: task.layerBase)
            }
            task.finish(outcome)
        }
    }
}
