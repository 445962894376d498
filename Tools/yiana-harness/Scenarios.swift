import Foundation
import YianaArchive
import YianaLibrary
import YianaPDF

/// One write path under test: how to set up a library for it, and the command that writes.
struct Scenario: Sendable {
    let name: String
    /// Library folders under the run folder (every one is verified after a run).
    let libraries: [String]
    /// What the command does, for the table.
    let what: String
    /// Builds the starting state in `context.root` and returns the command's arguments.
    let build: @Sendable (Context) throws -> [String]
    /// Words each indexed document must be found by after a run (index paths only).
    var indexWords: [String] = []
    /// What must hold of the first library once a rerun has finished the job (nil: it holds;
    /// else the problem in words).
    var finished: (@Sendable (URL) -> String?)?
    /// The rerun after a kill may exit 1 having found the job already done (`append`
    /// refuses a PDF the document already holds); `finished` then says whether it is.
    var rerunMayFindItDone = false
}

/// What a scenario's set-up works with.
struct Context {
    let runner: Runner
    let root: URL
    let samples: URL

    func url(_ relative: String) -> URL { root.appendingPathComponent(relative) }
    func path(_ relative: String) -> String { url(relative).path }

    @discardableResult
    func folder(_ relative: String) throws -> URL {
        let folder = url(relative)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    /// Writes a PDF named `name` into `folder` whose text holds the word `word(name)`; a big
    /// one (about 1.5 MB) when asked, so that kills land in the middle of its copy.
    @discardableResult
    func pdf(_ name: String, in folder: String, big: Bool = false) throws -> URL {
        var lines = ["Harness document \(name)", Scenarios.word(name), "Written for the crash and fault harness."]
        if big {
            lines += (0..<36_000).map { "filler line \($0) for \(name): the quick brown fox jumps over the lazy dog" }
        }
        let url = try self.folder(folder).appendingPathComponent("\(name).pdf")
        try PDFDocument.onePagePDF(lines: lines).write(to: url)
        return url
    }

    /// The document at `document` with `here` appended, and the conflict copy `copy` of it
    /// with `there` appended instead (as two devices apart would), both by `yiana append`, so
    /// the history knows each side's append.
    func appendedApart(_ document: String, here: URL, there: URL, copy: String) throws {
        let lib = url(document).deletingLastPathComponent().path, name = url(document).deletingPathExtension().lastPathComponent
        let base = url("\(document).base")
        try FileManager.default.copyItem(at: url(document), to: base)
        try runner.must(["append", "--library", lib, name, there.path])
        try FileManager.default.moveItem(at: url(document), to: url(copy))
        try FileManager.default.moveItem(at: base, to: url(document))
        try runner.must(["append", "--library", lib, name, here.path])
    }

    /// `yiana import` of PDFs made on the spot into `library` (at its top level).
    func importPDFs(_ names: [String], into library: String, big: Set<String> = []) throws {
        let urls = try names.map { try pdf($0, in: "sources", big: big.contains($0)) }
        try folder(library)
        try runner.must(["import", "--library", path(library)] + urls.map(\.path))
    }

    /// Replaces the metadata (and, when given, the PDF) of a document, as an edit in the app would.
    func edit(_ relative: String, pdf: Data? = nil, change: (inout DocumentMetadata) -> Void) throws {
        let url = self.url(relative)
        var metadata = try DocumentReader(path: url.path).metadata()
        change(&metadata)
        metadata.modified = metadata.modified.addingTimeInterval(60)
        if let pdf {
            metadata.pdfHash = FileHash.sha256 { update in pdf.withUnsafeBytes { update($0) } }
            try CoordinatedDocument.replace(at: url.path, metadata: metadata, pdf: .data(pdf))
        } else {
            let library = try Library(root: url.deletingLastPathComponent())
            try DocumentRewrite(library: library).write(metadata, pdfFrom: url, to: url, replacing: true)
        }
    }

    /// Changes bytes of a document file in place.
    func damage(_ relative: String, _ change: (inout [UInt8]) -> Void) throws {
        var bytes = Array(try Data(contentsOf: url(relative)))
        change(&bytes)
        try Data(bytes).write(to: url(relative))
    }
}

enum Scenarios {
    /// A word found only in the document `name`.
    static func word(_ name: String) -> String {
        "harnessword" + name.filter { $0.isLetter || $0.isNumber }.lowercased()
    }

    /// Offset of the `index`-th (0-based) ZIP local header in `bytes`.
    static func localHeader(_ index: Int, in bytes: [UInt8]) -> Int? {
        var found = -1
        for i in 0..<(bytes.count - 3) where bytes[i] == 0x50 && bytes[i + 1] == 0x4B && bytes[i + 2] == 0x03 && bytes[i + 3] == 0x04 {
            found += 1
            if found == index { return i }
        }
        return nil
    }

    static let all: [Scenario] = [
        Scenario(name: "import", libraries: ["lib"], what: "yiana import of 6 PDFs (2 of 1.5 MB) beside 2 documents") { context in
            try context.importPDFs(["old1", "old2"], into: "lib")
            for name in ["new1", "new2", "new3", "new4"] { try context.pdf(name, in: "in") }
            try context.pdf("newbig1", in: "in", big: true)
            try context.pdf("newbig2", in: "in", big: true)
            return ["import", "--library", context.path("lib"), context.path("in")]
        },
        Scenario(name: "repair", libraries: ["lib"], what: "yiana repair of 7 damaged documents") { context in
            try context.importPDFs(["r1", "r2", "r3", "r4", "r5", "r6"], into: "lib", big: ["r1"])
            try context.damage("lib/r1.yianazip") { $0.removeLast(300) }
            try context.damage("lib/r2.yianazip") { $0 += Array(repeating: 0x42, count: 100) }
            try context.damage("lib/r3.yianazip") { bytes in bytes[localHeader(1, in: bytes)!] = 0 }
            try context.damage("lib/r4.yianazip") { bytes in bytes[localHeader(1, in: bytes)! + 200] ^= 0x01 }
            try context.damage("lib/r5.yianazip") { bytes in bytes[localHeader(0, in: bytes)! + 60] ^= 0x01 }
            try FileManager.default.copyItem(at: context.url("lib/r6.yianazip"), to: context.url("lib/r6 Copy.yianazip"))
            try FileManager.default.copyItem(at: context.samples.appendingPathComponent("archives/Legacy Separator.yianazip"),
                                             to: context.url("lib/Legacy.yianazip"))
            return ["repair", "--library", context.path("lib")]
        },
        Scenario(name: "edit", libraries: ["lib"], what: "yiana edit of 4 documents (one of 1.5 MB)") { context in
            try context.importPDFs(["t1", "t2", "t3", "tbig"], into: "lib", big: ["tbig"])
            return ["edit", "--library", context.path("lib"), "--tag", "edited", "--untag", "none", "t1", "t2", "t3", "tbig"]
        },
        // Moved, renamed or deleted by a run, a document is not there for the rerun to find: it
        // exits 1 for those, and `finished` says whether the job is done (a move a kill stopped
        // between the two names is finished by the rerun).
        Scenario(name: "move", libraries: ["lib"], what: "yiana move of 3 documents (one of 1.5 MB) into a new folder",
                 build: { context in
                     try context.importPDFs(["m1", "m2", "mbig"], into: "lib", big: ["mbig"])
                     return ["move", "--library", context.path("lib"), "--to", "Moved/Here", "m1", "m2", "mbig"]
                 },
                 finished: { library in
                     let names = ((try? FileManager.default.contentsOfDirectory(atPath: library.appendingPathComponent("Moved/Here").path)) ?? []).sorted()
                     let left = ["m1", "m2", "mbig"].filter { FileManager.default.fileExists(atPath: library.appendingPathComponent("\($0).yianazip").path) }
                     return names == ["m1.yianazip", "m2.yianazip", "mbig.yianazip"] && left.isEmpty ? nil : "in Moved/Here: \(names); still at the top: \(left)"
                 },
                 rerunMayFindItDone: true),
        Scenario(name: "rename", libraries: ["lib"], what: "yiana rename of a 1.5 MB document (its title, and its file as the app names it)",
                 build: { context in
                     try context.importPDFs(["nbig"], into: "lib", big: ["nbig"])
                     return ["rename", "--library", context.path("lib"), "nbig", "renamed big letter"]
                 },
                 finished: { library in
                     let title = try? DocumentReader(path: library.appendingPathComponent("Renamed_Big_Letter.yianazip").path).metadata().title
                     let old = FileManager.default.fileExists(atPath: library.appendingPathComponent("nbig.yianazip").path)
                     return title == "renamed big letter" && !old ? nil : "Renamed_Big_Letter.yianazip: \(title ?? "absent"); nbig.yianazip still there: \(old)"
                 },
                 rerunMayFindItDone: true),
        Scenario(name: "delete", libraries: ["lib"], what: "yiana delete of 3 documents (one of 1.5 MB), each kept first",
                 build: { context in
                     try context.importPDFs(["d1", "d2", "dbig"], into: "lib", big: ["dbig"])
                     return ["delete", "--library", context.path("lib"), "d1", "d2", "dbig"]
                 },
                 finished: { library in
                     let left = ["d1", "d2", "dbig"].filter { FileManager.default.fileExists(atPath: library.appendingPathComponent("\($0).yianazip").path) }
                     return left.isEmpty ? nil : "still there: \(left)"
                 },
                 rerunMayFindItDone: true),
        Scenario(name: "conflicts resolve", libraries: ["lib"], what: "yiana conflicts resolve --strategy merge, 4 groups (one of appends on both sides)",
                 build: { context in
            try context.importPDFs(["c1", "c2", "c3", "c4"], into: "lib", big: ["c2"])
            try context.appendedApart("lib/c4.yianazip", here: context.pdf("c4here", in: "in"), there: context.pdf("c4there", in: "in", big: true),
                                      copy: "lib/c4.sync-conflict-20260301-142233-ABCDEF8.yianazip")
            let dropbox = "lib/c1 (Bob's conflicted copy 2026-03-01).yianazip"
            try FileManager.default.copyItem(at: context.url("lib/c1.yianazip"), to: context.url(dropbox))
            try context.edit(dropbox) { $0.tags = ["bob"] }
            let syncthing = "lib/c2.sync-conflict-20260301-142233-ABCDEF7.yianazip"
            try FileManager.default.copyItem(at: context.url("lib/c2.yianazip"), to: context.url(syncthing))
            try context.edit(syncthing, pdf: PDFDocument.onePagePDF(lines: ["c2 as edited elsewhere", word("c2b")])) { $0.title = "c2 elsewhere" }
            try context.edit("lib/c2.yianazip", pdf: PDFDocument.onePagePDF(lines: ["c2 as edited here", word("c2a")])) { $0.tags = ["here"] }
            try FileManager.default.copyItem(at: context.url("lib/c3.yianazip"), to: context.url("lib/c3 2.yianazip"))
            try context.edit("lib/c3 2.yianazip") { $0.title = "c3 renamed" }
            return ["conflicts", "resolve", "--strategy", "merge", "--library", context.path("lib")]
        }, finished: { library in
            // The two appends joined into one document: its page and both appended, once each.
            guard let metadata = try? DocumentReader(path: library.appendingPathComponent("c4.yianazip").path).metadata() else { return "c4.yianazip does not read" }
            let others = ((try? FileManager.default.contentsOfDirectory(atPath: library.path)) ?? []).filter { $0.hasPrefix("c4") && $0 != "c4.yianazip" }
            if metadata.pageCount != 3 { return "c4.yianazip has \(metadata.pageCount) pages, not 3" }
            return others.isEmpty ? nil : "beside c4.yianazip: \(others)"
        }),
        Scenario(name: "download", libraries: ["lib"], what: "yiana download --all of 4 evicted documents") { context in
            try context.folder("lib")
            try context.runner.must(["cloud", "init", "--library", context.path("lib"), "--device", "a", context.path("cloud")])
            try context.importPDFs(["d1", "d2", "d3", "dbig"], into: "lib", big: ["dbig"])
            try context.runner.must(["sync", "--library", context.path("lib")])
            try context.runner.must(["evict", "--library", context.path("lib"), "d1", "d2", "d3", "dbig"])
            return ["download", "--all", "--library", context.path("lib")]
        },
        Scenario(name: "evict", libraries: ["lib"], what: "yiana evict of 4 documents, one changed since the last sync") { context in
            try context.folder("lib")
            try context.runner.must(["cloud", "init", "--library", context.path("lib"), "--device", "a", context.path("cloud")])
            try context.importPDFs(["e1", "e2", "e3", "ebig"], into: "lib", big: ["ebig"])
            try context.runner.must(["sync", "--library", context.path("lib")])
            try context.edit("lib/e2.yianazip") { $0.tags = ["changed"] }
            return ["evict", "--library", context.path("lib"), "e1", "e2", "e3", "ebig"]
        },
        Scenario(name: "sync", libraries: ["a", "b"], what: "yiana sync: 2 uploads, 3 pulls, a conflict, a deletion") { context in
            for device in ["a", "b"] {
                try context.folder(device)
                try context.runner.must(["cloud", "init", "--library", context.path(device), "--device", device, context.path("cloud")])
            }
            try context.importPDFs(["s1", "s2", "s3", "s4"], into: "a")
            try context.runner.must(["sync", "--library", context.path("a")])
            try context.runner.must(["sync", "--library", context.path("b")])
            try context.edit("b/s1.yianazip") { $0.tags = ["from b"] }
            try context.importPDFs(["bnew1", "bnew2"], into: "b", big: ["bnew2"])
            try FileManager.default.removeItem(at: context.url("b/s3.yianazip"))
            try context.runner.must(["sync", "--library", context.path("b")])
            try context.edit("a/s2.yianazip") { $0.tags = ["from a"] }
            try context.edit("a/s1.yianazip") { $0.title = "s1 edited on a" }
            try context.importPDFs(["anew"], into: "a", big: ["anew"])
            return ["sync", "--library", context.path("a")]
        },
        Scenario(name: "versions restore", libraries: ["lib"], what: "yiana versions restore of a 1.5 MB version") { context in
            try context.importPDFs(["doc"], into: "lib", big: ["doc"])
            let library = try Library(root: context.url("lib"))
            let first = try VersionStore(library: library).keep(context.url("lib/doc.yianazip"), reason: "the first version")
            try context.edit("lib/doc.yianazip", pdf: PDFDocument.onePagePDF(lines: ["the second version", word("second")])) { $0.title = "second" }
            _ = try VersionStore(library: library).keep(context.url("lib/doc.yianazip"), reason: "the second version")
            try context.edit("lib/doc.yianazip", pdf: PDFDocument.onePagePDF(lines: ["the third version", word("third")])) { $0.title = "third" }
            return ["versions", "restore", "--library", context.path("lib"), "doc", first.shortID]
        },
        Scenario(name: "restore deleted", libraries: ["lib"], what: "yiana versions restore --deleted: 2 deleted (one of 1.5 MB), 1 overwritten with garbage",
                 build: { context in
                     try context.importPDFs(["k1", "k2", "k3", "k4"], into: "lib", big: ["k1"])
                     try context.runner.must(["index", "--library", context.path("lib"), "--index", context.path("index/index.sqlite")])
                     try FileManager.default.removeItem(at: context.url("lib/k1.yianazip"))
                     try FileManager.default.removeItem(at: context.url("lib/k2.yianazip"))
                     let garbage = context.url("lib/.k3.garbage")
                     try Data((0..<3000).map { UInt8(truncatingIfNeeded: $0 &* 131) }).write(to: garbage)
                     try FileManager.default.moveItem(at: garbage, to: context.url("lib/k3.yianazip.new"))
                     _ = rename(context.path("lib/k3.yianazip.new"), context.path("lib/k3.yianazip"))
                     // --now: the garbage, written just now, is looked at as it is (not as still arriving).
                     try context.runner.must(["index", "--now", "--library", context.path("lib"), "--index", context.path("index/index.sqlite")], allowed: [0, 1])
                     return ["versions", "restore", "--deleted", "--library", context.path("lib")]
                 },
                 finished: { library in
                     // Every lost document back, and nothing left to restore.
                     for name in ["k1", "k2", "k3"] {
                         guard (try? DocumentReader(path: library.appendingPathComponent("\(name).yianazip").path).verifyContents()) != nil else {
                             return "\(name).yianazip is not back as a good document"
                         }
                     }
                     let lost = (try? Library(root: library)).map { Keeper(library: $0).lost() } ?? []
                     return lost.isEmpty ? nil : "still listed as lost: \(lost.map(\.path))"
                 },
                 rerunMayFindItDone: true),
        Scenario(name: "index", libraries: ["lib"], what: "yiana index update: 2 added, 1 moved, 1 deleted, 1 edited",
                 build: { context in
                     try context.importPDFs(["i1", "i2", "i3", "i4", "i5", "i6"], into: "lib", big: ["i1"])
                     try context.runner.must(["index", "--library", context.path("lib"), "--index", context.path("index/index.sqlite")])
                     try context.importPDFs(["i7", "i8"], into: "lib", big: ["i8"])
                     try context.folder("lib/moved")
                     try FileManager.default.moveItem(at: context.url("lib/i2.yianazip"), to: context.url("lib/moved/i2.yianazip"))
                     try FileManager.default.removeItem(at: context.url("lib/i3.yianazip"))
                     try context.edit("lib/i4.yianazip") { $0.title = "i4 edited" }
                     return ["index", "--library", context.path("lib"), "--index", context.path("index/index.sqlite")]
                 },
                 indexWords: ["i1", "i2", "i4", "i5", "i7", "i8"].map(word)),
        Scenario(name: "append", libraries: ["lib"], what: "yiana append of 2 PDFs (one of 1.5 MB) to a document",
                 build: { context in
                     try context.importPDFs(["target"], into: "lib")
                     let small = try context.pdf("add1", in: "in"), big = try context.pdf("addbig", in: "in", big: true)
                     return ["append", "--library", context.path("lib"), "target", small.path, big.path]
                 },
                 finished: { library in
                     // Exactly once: the document's one page and the two appended, never twice.
                     let url = library.appendingPathComponent("target.yianazip")
                     guard let metadata = try? DocumentReader(path: url.path).metadata() else { return "target.yianazip does not read" }
                     return metadata.pageCount == 3 ? nil : "target.yianazip has \(metadata.pageCount) pages, not 3"
                 },
                 rerunMayFindItDone: true),
        Scenario(name: "inject", libraries: ["lib"], what: "yiana inject of a 1.5 MB letter dropped for a document",
                 build: { context in
                     try context.importPDFs(["patient"], into: "lib")
                     let letter = try context.pdf("letter", in: "in", big: true)
                     let inject = try context.folder("lib/.letters/inject")
                     try FileManager.default.copyItem(at: letter, to: inject.appendingPathComponent("patient_0c1d2e3f-4a5b-4c6d-8e7f-8091a2b3c4d5.pdf"))
                     return ["inject", "--now", "--library", context.path("lib")]
                 },
                 finished: { library in
                     // Exactly once, and nothing left behind: no letter, no claim, nothing unmatched.
                     let url = library.appendingPathComponent("patient.yianazip")
                     guard let metadata = try? DocumentReader(path: url.path).metadata() else { return "patient.yianazip does not read" }
                     let left = (try? FileManager.default.contentsOfDirectory(atPath: library.appendingPathComponent(".letters/inject").path)) ?? []
                     if metadata.pageCount != 2 { return "patient.yianazip has \(metadata.pageCount) pages, not 2" }
                     if !left.isEmpty { return "left in .letters/inject: \(left)" }
                     if FileManager.default.fileExists(atPath: library.appendingPathComponent(".letters/unmatched").path) { return "a letter went to .letters/unmatched" }
                     return nil
                 }),
        Scenario(name: "ocr", libraries: ["lib"], what: "yiana ocr --all of 3 scans beside 2 documents with text",
                 build: OCRCheck.build, finished: OCRCheck.finished),
        Scenario(name: "watch", libraries: ["lib"], what: "yiana watch --once --ocr --resolve identical: 2 scans, 2 documents, 2 copies",
                 build: WatchCheck.build, finished: WatchCheck.finished),
        Scenario(name: "backup", libraries: ["lib"], what: "yiana backup of 5 documents (2 of 1.5 MB) to a restic repository, restic killed with it",
                 build: BackupCheck.build, finished: BackupCheck.finished),
    ] + ServeRequests.scenarios
}
