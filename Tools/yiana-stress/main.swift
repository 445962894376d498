// yiana-stress: hammers one document from several processes to prove the coordinated
// reader and writer. Writers replace the document with versions whose content is derived
// from a seed named in the title; readers check that what they read is one complete
// version: CRCs pass and the PDF bytes are exactly those the title promises.
//
//   yiana-stress write DOC [--iterations N] [--seed S] [--max-bytes B]
//   yiana-stress read  DOC [--iterations N]
//   yiana-stress write-pdf PDF DOC   (one coordinated write of a PDF file: the benchmark's writer)
//   yiana-stress lock DOC SECONDS    (takes DOC's write lock: exit 0, or 3 when it timed out)
//
// Prints one JSON line with counts; exits 1 if any read or write went wrong.
import Foundation
import YianaSystem
import YianaArchive
import YianaLibrary

/// The PDF bytes of version `seed`: a PDF header, then pseudo-random bytes.
func content(seed: UInt64, size: Int) -> Data {
    var generator = SeededGenerator(seed: seed)
    var bytes = [UInt8](repeating: 0, count: size)
    let header = Array("%PDF-1.4\n".utf8)
    for i in 0..<size {
        bytes[i] = i < header.count ? header[i] : UInt8(truncatingIfNeeded: generator.next())
    }
    return Data(bytes)
}

func option(_ name: String, _ arguments: [String], default value: UInt64) -> UInt64 {
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count,
          let parsed = UInt64(arguments[index + 1]) else { return value }
    return parsed
}

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.count == 3, arguments[0] == "lock", let seconds = Double(arguments[2]) {
    do {
        _ = try DocumentLock(document: arguments[1], mode: .exclusive, timeout: seconds)
        exit(0)
    } catch let error as ArchiveError where error.kind == .lockTimeout(seconds: seconds) {
        exit(3)
    } catch {
        FileHandle.standardError.write(Data("\(error)\n".utf8))
        exit(1)
    }
}
if arguments.count == 3, arguments[0] == "write-pdf" {
    guard let fd = try? RegularFile.openForReading(arguments[1]) else { FileHandle.standardError.write(Data("cannot open \(arguments[1])\n".utf8)); exit(1) }
    do {
        let title = URL(fileURLWithPath: arguments[1]).deletingPathExtension().lastPathComponent
        try CoordinatedDocument.create(at: arguments[2], metadata: DocumentMetadata(title: title, pageCount: 1),
                                       pdf: .file(try SourceFile(fd: fd, path: arguments[1])))
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("\(error)\n".utf8))
        exit(1)
    }
}
guard arguments.count >= 2, ["write", "read"].contains(arguments[0]) else {
    FileHandle.standardError.write(Data("usage: yiana-stress write|read DOC [--iterations N] [--seed S] [--max-bytes B]\n".utf8))
    exit(2)
}
let role = arguments[0]
let path = arguments[1]
let iterations = Int(option("--iterations", arguments, default: 100))
var seedGenerator = SeededGenerator(seed: option("--seed", arguments, default: UInt64(Sys.processID)))
let maxBytes = Int(option("--max-bytes", arguments, default: 256 << 10))
let id = UUID(uuidString: "5D1E0000-0000-4000-8000-000000000001")!

var succeeded = 0
var errors: [String] = []
for _ in 0..<iterations {
    do {
        if role == "write" {
            let seed = seedGenerator.next()
            let size = 16 + Int(seedGenerator.next() % UInt64(maxBytes))
            let metadata = DocumentMetadata(id: id, title: "stress \(seed) \(size)", pageCount: 1)
            try CoordinatedDocument.replace(at: path, metadata: metadata, pdf: .data(content(seed: seed, size: size)))
        } else {
            try CoordinatedDocument.read(path) { reader in
                let metadata = try reader.verifyContents()
                let parts = metadata.title.split(separator: " ")
                guard parts.count == 3, let seed = UInt64(parts[1]), let size = Int(parts[2]) else {
                    throw ArchiveError(.verificationFailed("unexpected title \(metadata.title)"), path: path)
                }
                var pdf = Data()
                try reader.readPDF { pdf.append(contentsOf: $0) }
                guard pdf == content(seed: seed, size: size) else {
                    throw ArchiveError(.verificationFailed("PDF bytes are not the version the metadata names"), path: path)
                }
            }
        }
        succeeded += 1
    } catch {
        errors.append("\(error)")
    }
}
let summary: [String: Any] = ["role": role, "pid": Int(Sys.processID), "succeeded": succeeded,
                              "failed": errors.count, "errors": Array(errors.prefix(5))]
let json = try JSONSerialization.data(withJSONObject: summary, options: [.sortedKeys])
print(String(decoding: json, as: UTF8.self))
exit(errors.isEmpty ? 0 : 1)
