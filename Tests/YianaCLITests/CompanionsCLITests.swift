import Crypto
import Foundation
import Testing
import YianaArchive
import YianaLibrary
import YianaTestSupport

/// Nothing the app keeps beside the documents is ever removed or rewritten by `repair`,
/// `conflicts resolve` or `watch` without a kept version: run each on a library holding every
/// kind of companion file, with conflict copies, the app's temporary files, a damaged
/// document, a leftover temporary file of the toolkit and a document that is gone, and check
/// every companion byte from before is still in its file or in the version store.
@Suite("the app's companion files under every command")
struct CompanionsCLITests {
    typealias F = CompanionFixtures
    let letter = "0c1d2e3f-4a5b-4c6d-8e7f-8091a2b3c4d5"

    func library() throws -> TemporaryFolder {
        let folder = try TemporaryFolder()
        let root = folder.url
        try CoordinatedDocument.create(at: folder.path("Smith_Jane_010180.yianazip"),
                                       metadata: DocumentMetadata(title: "Smith_Jane_010180", pageCount: 1), pdf: .data(simplePDF(["letter"])))
        try CoordinatedDocument.create(at: folder.path("Cut.yianazip"), metadata: DocumentMetadata(title: "Cut", pageCount: 1), pdf: .data(simplePDF(["cut"])))
        let cut = try Data(contentsOf: root.appendingPathComponent("Cut.yianazip"))
        try cut.prefix(cut.count - 200).write(to: root.appendingPathComponent("Cut.yianazip"))
        try FileManager.default.copyItem(atPath: folder.path("Cut.yianazip"), toPath: folder.path(".Cut.yianazip.yiana-tmp-0A1B2C3D"))
        try F.write(F.extraction("Smith_Jane_010180"), ".addresses/Smith_Jane_010180.json", in: root)
        try F.write(F.extraction("Smith_Jane_010180", extractedAt: "2026-03-09T09:00:00Z"), ".addresses/Smith_Jane_010180 (conflict_on_2026-11-24).json", in: root)
        try F.write(F.corrections("Smith_Jane_010180", [F.correction(page: 1, date: "2026-03-01T10:00:00Z")]), ".addresses/Smith_Jane_010180.overrides.json", in: root)
        try F.write(F.corrections("Smith_Jane_010180", [F.correction(page: 2, date: "2026-03-02T10:00:00Z")]),
                    ".addresses/Smith_Jane_010180.overrides.sync-conflict-20261124-101010-ABCDEF7.json", in: root)
        try F.write(F.corrections("Gone_Document", [F.correction(page: 1, date: "2026-03-01T10:00:00Z")]), ".addresses/Gone_Document.overrides.json", in: root)
        try F.write("{\"half\" : ", ".addresses/Smith_Jane_010180.overrides.json.tmp", in: root)
        try F.write(F.workList([F.workItem("A", surname: "S", added: "2026-03-01T08:00:00Z")]), ".worklist.json", in: root)
        try F.write(F.workList([F.workItem("B", surname: "T", added: "2026-03-02T08:00:00Z")]), ".worklist.json..path1", in: root)
        try F.write(F.workList([]), "E621E1F8-C36C-495A-93FC-0C247A3E6E5F.tmp", in: root)
        try F.write(F.legacyWorkList, ".yiana-worklist.json", in: root)
        try F.write(F.sender(), ".letters/config/sender.json", in: root)
        try F.write(F.sender(phone: "0113 999 9999"), ".letters/config/sender (Bob's conflicted copy 2026-11-24).json", in: root)
        try F.write(F.draft(letter, target: "Smith_Jane_010180"), ".letters/drafts/\(letter).json", in: root)
        try F.write(F.draft(letter, target: "Smith_Jane_010180", body: "other", modified: "2026-03-09T10:00:00Z"), ".letters/drafts/\(letter) 2.json", in: root)
        try F.write("%PDF-1.4 rendered", ".letters/rendered/\(letter)/letter.pdf", in: root)
        try F.write("%PDF-1.4 inject", ".letters/inject/Smith_Jane_010180_\(letter.uppercased()).pdf", in: root)
        try F.write("%PDF-1.4 unmatched", ".letters/unmatched/Nobody_\(letter).pdf", in: root)
        return folder
    }

    func sha(_ data: Data) -> String { SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined() }

    /// Every companion file's bytes, by path.
    func companions(_ root: URL) throws -> [String: Data] {
        var result: [String: Data] = [:]
        for file in try LibraryScanner.scan(Library(root: root)).companions {
            result[file.path] = try Data(contentsOf: root.appendingPathComponent(file.path))
        }
        return result
    }

    /// The bytes of every version the store holds.
    func kept(_ root: URL) throws -> Set<String> {
        let store = VersionStore(library: try Library(root: root))
        return Set(try store.records().compactMap { FileManager.default.contents(atPath: store.objectURL($0).path).map(sha) })
    }

    @Test(arguments: [
        ["repair"], ["repair", "--remove-temps"], ["conflicts", "resolve", "--strategy", "newest"],
        ["conflicts", "resolve", "--strategy", "keep-both"], ["conflicts", "resolve", "--strategy", "merge"],
        ["watch", "--once", "--resolve", "identical"],
    ])
    func nothingTheAppKeepsIsLost(command: [String]) async throws {
        let folder = try library(), index = try TemporaryFolder()
        let before = try companions(folder.url)
        #expect(before.count == 17)
        let extra = command.first == "watch" ? ["--index", index.path("index.sqlite")] : []
        let run = try await runYiana(command + ["--library", folder.url.path] + extra)
        #expect([0, 1].contains(run.status), "\(run.stderr)")
        let after = try companions(folder.url)
        let store = try kept(folder.url)
        for (path, bytes) in before where after[path] != bytes {
            #expect(store.contains(sha(bytes)), "\(command): \(path) changed or went without a kept version")
        }
        // What the app reads is there and decodes, whatever was merged.
        for path in [".addresses/Smith_Jane_010180.overrides.json", ".worklist.json", ".letters/config/sender.json", ".letters/drafts/\(letter).json"] {
            #expect(after[path] != nil, "\(command): \(path)")
        }
        #expect(after[".addresses/Gone_Document.overrides.json"] == before[".addresses/Gone_Document.overrides.json"], "the document is gone; its corrections stay")
    }

    /// A temporary file an interrupted save left beside a corrections file may hold the newest
    /// corrections: `repair --remove-temps` keeps it, and `versions restore` puts it in place.
    @Test func anInterruptedSaveOfCorrectionsCanBePutInPlace() async throws {
        let folder = try TemporaryFolder()
        try CoordinatedDocument.create(at: folder.path("Smith_Jane_010180.yianazip"),
                                       metadata: DocumentMetadata(title: "Smith_Jane_010180", pageCount: 1), pdf: .data(simplePDF(["letter"])))
        let plain = ".addresses/Smith_Jane_010180.overrides.json", temp = plain + ".tmp"
        try F.write(F.corrections("Smith_Jane_010180", []), plain, in: folder.url)
        let newest = F.corrections("Smith_Jane_010180", [F.correction(page: 1, date: "2026-03-05T10:00:00Z", name: "Jane Newest")])
        try F.write(newest, temp, in: folder.url)
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -7200)], ofItemAtPath: folder.path(temp))
        let lib = folder.url.path
        let verify = try await runYiana(["verify", "--library", lib])
        #expect(verify.status == 1 && verify.stdout.contains("[leftover-temp-file] \(temp)"))
        let repair = try await runYiana(["repair", "--remove-temps", "--library", lib])
        #expect(repair.status == 0 && repair.stdout.contains("a temporary file of \(plain)"), "\(repair.stdout)")
        #expect(!FileManager.default.fileExists(atPath: folder.path(temp)))
        let listed = try await runYiana(["versions", "list", "--json", "--library", lib, "Smith_Jane_010180"])
        let versions = try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])
        let id = try #require(versions.first { $0["originalPath"] as? String == temp }?["sha256"] as? String)
        let restore = try await runYiana(["versions", "restore", "--library", lib, "Smith_Jane_010180", String(id.prefix(12))])
        #expect(restore.status == 0 && restore.stdout.contains("restored version \(id.prefix(12)) to \(plain)"), "\(restore.stdout)\(restore.stderr)")
        #expect(try String(contentsOfFile: folder.path(plain), encoding: .utf8) == newest)
        #expect(try await runYiana(["verify", "--library", lib]).status == 0)
    }
}
