import Foundation
import YianaPDF

/// A fresh temporary folder, removed when the value is released.
public final class TemporaryFolder: Sendable {
    public let url: URL

    public init() throws {
        _ = TestEnvironment.prepared
        url = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("yiana-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }

    public func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    /// Every name in the folder, hidden ones included.
    public func contents() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []).sorted()
    }
}

/// The environment every test runs in (and the processes tests start inherit):
/// - documents are taken as arrived at once (`YIANA_SETTLE_SECONDS=0`): the tests damage a
///   file and check it straight away, where a real library's damage is old; the tests of
///   settling pass their window explicitly;
/// - this machine's state and cache for the tests' libraries go to one folder of this run,
///   not the user's `~/.local/state` and `~/.cache`.
public enum TestEnvironment {
    public static let prepared: Bool = {
        let base = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("yiana-test-home-\(getpid())")
        setenv("YIANA_SETTLE_SECONDS", "0", 1)
        setenv("XDG_STATE_HOME", base.appendingPathComponent("state").path, 1)
        setenv("XDG_CACHE_HOME", base.appendingPathComponent("cache").path, 1)
        return true
    }()
}

public enum Fixtures {
    public static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    public static let sampleDocs = packageRoot.appendingPathComponent("SampleDocs")

    public static func sample(_ relative: String) -> String { sampleDocs.appendingPathComponent(relative).path }

    /// The folder holding the built products (`yiana`, `yiana-stress`; the test runner lives there too).
    public static var productsFolder: URL {
        let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        var url = URL(fileURLWithPath: exe).deletingLastPathComponent()
        while !FileManager.default.fileExists(atPath: url.appendingPathComponent("yiana").path), url.path != "/" {
            url.deleteLastPathComponent()
        }
        return url
    }
}

/// Runs a program and collects its exit status and output.
public struct ProcessResult: Sendable {
    public let status: Int32
    public let stdout: String
    public let stderr: String
    /// Killed by the `timeout` of ``runProcess(_:_:environment:currentDirectory:timeout:)``.
    public var timedOut = false
}

/// Creates a file whose name is the raw bytes `name` (which need not be UTF-8) in `folder`.
public func createFile(named name: [UInt8], in folder: URL, contents: Data) throws {
    let path = Array(folder.path.utf8) + [UInt8(ascii: "/")] + name + [0]
    let fd = path.withUnsafeBufferPointer { $0.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_WRONLY | O_CREAT | O_EXCL, 0o644) } }
    guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    defer { close(fd) }
    _ = contents.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
}

/// Runs the built `yiana` as a user would, with this process's environment less any
/// `YIANA_LIBRARY` of the machine, plus `extra`.
public func runYiana(_ arguments: [String], environment extra: [String: String] = [:], in folder: URL? = nil, input: String? = nil) throws -> ProcessResult {
    var environment = ProcessInfo.processInfo.environment
    environment["YIANA_LIBRARY"] = nil
    environment.merge(extra) { $1 }
    return try runProcess(Fixtures.productsFolder.appendingPathComponent("yiana"), arguments, environment: environment, currentDirectory: folder, input: input)
}

/// Runs `executable` to its end and gives its status and output. `input`, when given, is its
/// standard input (then closed). With `timeout`, a process still running after that many
/// seconds is killed (status `SIGKILL`, 9, with `timedOut`), so a test of a hang fails instead
/// of hanging.
public func runProcess(_ executable: URL, _ arguments: [String], environment: [String: String]? = nil,
                currentDirectory: URL? = nil, timeout: Double? = nil, input: String? = nil) throws -> ProcessResult {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    if let environment { process.environment = environment }
    if let currentDirectory { process.currentDirectoryURL = currentDirectory }
    let out = Pipe(), err = Pipe()
    process.standardOutput = out
    process.standardError = err
    let stdin = input.map { _ in Pipe() }
    if let stdin { process.standardInput = stdin }
    try process.run()
    if let stdin, let input {
        stdin.fileHandleForWriting.write(Data(input.utf8))
        try? stdin.fileHandleForWriting.close()
    }
    if let timeout {
        let pid = process.processIdentifier
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout) { if process.isRunning { kill(pid, SIGKILL) } }
    }
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    let errData = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return ProcessResult(status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
                         stderr: String(decoding: errData, as: UTF8.self),
                         timedOut: process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGKILL)
}

/// A valid one-page PDF showing `lines`, for tests that need specific text.
public func simplePDF(_ lines: [String]) -> Data {
    PDFDocument.onePagePDF(lines: lines)
}

/// A valid PDF of one page per element of `pages`, each showing its lines.
public func pagedPDF(_ pages: [[String]]) -> Data {
    PDFDocument.pdf(pages: pages)
}

/// An image-only PDF, as a scanner makes: each page of `pages` laid out as text (Helvetica
/// 12 pt, A4), drawn to grey pixels at `dpi` by poppler, and stored as that one image with no
/// text layer. For tests of OCR with known words.
public func scannedPDF(_ pages: [[String]], dpi: Int = 200) throws -> Data {
    let text = PDFDocument.pdf(pages: pages)
    let document = try PDFDocument(data: text, source: "scan source")
    var objects = ["<< /Type /Catalog /Pages 2 0 R >>", ""]
    var kids: [String] = []
    var streams: [Int: Data] = [:]
    for index in 0..<document.pageCount {
        let image = try document.renderGray(page: index, dpi: dpi)
        let width = Double(image.width) * 72 / Double(image.dpi), height = Double(image.height) * 72 / Double(image.dpi)
        let imageObject = objects.count + 1
        objects.append("<< /Type /XObject /Subtype /Image /Width \(image.width) /Height \(image.height) /ColorSpace /DeviceGray /BitsPerComponent 8 /Length \(image.pixels.count) >>")
        streams[imageObject] = Data(image.pixels)
        let content = "q \(width) 0 0 \(height) 0 0 cm /Im1 Do Q"
        objects.append("<< /Length \(content.utf8.count) >>")
        streams[imageObject + 1] = Data(content.utf8)
        kids.append("\(objects.count + 1) 0 R")
        objects.append("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 \(width) \(height)] /Resources << /XObject << /Im1 \(imageObject) 0 R >> >> /Contents \(imageObject + 1) 0 R >>")
    }
    objects[1] = "<< /Type /Pages /Kids [\(kids.joined(separator: " "))] /Count \(kids.count) >>"
    var pdf = Data("%PDF-1.4\n".utf8)
    var offsets: [Int] = []
    for (index, body) in objects.enumerated() {
        offsets.append(pdf.count)
        pdf += Data("\(index + 1) 0 obj\n\(body)\n".utf8)
        if let stream = streams[index + 1] { pdf += Data("stream\n".utf8) + stream + Data("\nendstream\n".utf8) }
        pdf += Data("endobj\n".utf8)
    }
    let xref = pdf.count
    pdf += Data("xref\n0 \(objects.count + 1)\n0000000000 65535 f \n".utf8)
    for offset in offsets {
        let digits = String(offset)
        pdf += Data((String(repeating: "0", count: 10 - digits.count) + digits + " 00000 n \n").utf8)
    }
    pdf += Data("trailer\n<< /Size \(objects.count + 1) /Root 1 0 R >>\nstartxref\n\(xref)\n%%EOF\n".utf8)
    return pdf
}

/// Brings the files of `source`'s shared state folder (`.yiana/`: each device's logs, the
/// version store) that `destination`'s lacks, as a sync program carries another device's
/// files: two library folders on one machine are two devices.
public func bringSharedState(from source: URL, to destination: URL) throws {
    let from = source.appendingPathComponent(".yiana"), to = destination.appendingPathComponent(".yiana")
    guard let walker = FileManager.default.enumerator(at: from, includingPropertiesForKeys: [.isDirectoryKey]) else { return }
    for case let url as URL in walker where (try? url.resourceValues(forKeys: [.isDirectoryKey]).isDirectory) == false {
        let relative = String(url.standardizedFileURL.path.dropFirst(from.standardizedFileURL.path.count + 1))
        let target = to.appendingPathComponent(relative)
        guard !FileManager.default.fileExists(atPath: target.path) else { continue }
        try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: url, to: target)
    }
}

/// ``runYiana(_:environment:in:input:)`` for async tests: the wait for the process holds no
/// thread of Swift's cooperative pool. That pool has as many threads as cores (two in CI), and
/// tests waiting on them for processes, servers and sleeps kept the other tests queued: the
/// suite took 95 s with the CPU half idle, and a 1-s timeout's timer in another test fired
/// seconds late.
public func runYiana(_ arguments: [String], environment extra: [String: String] = [:], in folder: URL? = nil, input: String? = nil) async throws -> ProcessResult {
    try await offPool { try runYiana(arguments, environment: extra, in: folder, input: input) }
}

/// ``runProcess(_:_:environment:currentDirectory:timeout:input:)`` for async tests, its wait
/// on a thread of its own.
public func runProcess(_ executable: URL, _ arguments: [String], environment: [String: String]? = nil,
                       currentDirectory: URL? = nil, timeout: Double? = nil, input: String? = nil) async throws -> ProcessResult {
    try await offPool { try runProcess(executable, arguments, environment: environment, currentDirectory: currentDirectory, timeout: timeout, input: input) }
}

/// `work`, which blocks, run on a thread of its own while the calling task waits without one.
public func offPool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread { continuation.resume(with: Result { try work() }) }
    }
}

/// A value several tasks read and one sets (a loop's "go on").
public final class Flag: @unchecked Sendable {
    // @unchecked: `stored` is guarded by `lock`.
    private let lock = NSLock()
    private var stored: Bool

    public init(_ value: Bool) { stored = value }

    public var value: Bool {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}
