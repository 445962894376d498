import Foundation
import Testing
import YianaArchive
import YianaLibrary
import YianaTestSupport

/// Rename, move and delete as the app does them, on the coordinated writer.
struct OrganizerTests {
    func document(_ title: String, in folder: TemporaryFolder, at relative: String? = nil) throws -> URL {
        let url = folder.url.appendingPathComponent(relative ?? "\(title).yianazip")
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try CoordinatedDocument.create(at: url.path, metadata: DocumentMetadata(title: title, pageCount: 1), pdf: .data(Data("%PDF-1.4\n%%EOF\n".utf8)))
        return url
    }

    @Test func theAppsFileNames() {
        #expect(DocumentOrganizer.appStem(for: "annual report 2026") == "Annual_Report_2026")
        #expect(DocumentOrganizer.appStem(for: "o'brien mcdonald macbeth") == "O'Brien_McDonald_Macbeth")
        #expect(DocumentOrganizer.appStem(for: "a/b: c?*") == "Ab_C")
        #expect(DocumentOrganizer.appStem(for: "..hidden") == "Hidden")
        #expect(DocumentOrganizer.appStem(for: "Smith_Jane_010180") == "Smith_Jane_010180")
    }

    @Test func aRenameWritesTheTitleNamesTheFileAndTakesItsCompanionsAlong() throws {
        let folder = try TemporaryFolder()
        let library = try Library(root: folder.url)
        let url = try document("Scan 1", in: folder)
        for ext in ["json", "xml", "hocr"] { try Data(ext.utf8).write(to: folder.url.appendingPathComponent(".ocr_results/Scan 1.\(ext)").creatingFolder()) }
        try Data("{}".utf8).write(to: folder.url.appendingPathComponent(".addresses/Scan 1.overrides.json").creatingFolder())
        let organizer = DocumentOrganizer(library: library)
        #expect(try organizer.rename(url, to: "hartley referral", dryRun: true).lastPathComponent == "Hartley_Referral.yianazip")
        #expect(FileManager.default.fileExists(atPath: url.path))
        let renamed = try organizer.rename(url, to: "hartley referral")
        #expect(renamed.lastPathComponent == "Hartley_Referral.yianazip" && !FileManager.default.fileExists(atPath: url.path))
        #expect(try DocumentReader(path: renamed.path).metadata().title == "hartley referral")
        #expect(folder.contents().filter { $0.hasSuffix(".yianazip") } == ["Hartley_Referral.yianazip"])
        for ext in ["json", "xml", "hocr"] { #expect(FileManager.default.fileExists(atPath: folder.path(".ocr_results/Hartley_Referral.\(ext)"))) }
        #expect(FileManager.default.fileExists(atPath: folder.path(".addresses/hartley referral.overrides.json")))
        #expect(try VersionStore(library: library).records().contains { $0.reason == "before an edit" })

        // A name another document has: refused, nothing changed.
        let other = try document("Other", in: folder)
        #expect(throws: OrganizeError.nameTaken("Hartley_Referral.yianazip")) { try organizer.rename(other, to: "Hartley referral") }
        #expect(try DocumentReader(path: other.path).metadata().title == "Other")
        #expect(throws: OrganizeError.invalidName("")) { try organizer.rename(other, to: "  ") }
    }

    @Test func aMoveKeepsTheNameAndNeverReplaces() throws {
        let folder = try TemporaryFolder()
        let library = try Library(root: folder.url)
        let url = try document("Report", in: folder)
        let organizer = DocumentOrganizer(library: library)
        let moved = try organizer.move(url, toFolder: "Letters/2026")
        #expect(library.relativePath(of: moved) == "Letters/2026/Report.yianazip" && !FileManager.default.fileExists(atPath: url.path))
        #expect(try organizer.move(moved, toFolder: "Letters/2026") == moved)  // already there
        _ = try document("Report", in: folder)
        let back = folder.url.appendingPathComponent("Report.yianazip")
        #expect(throws: OrganizeError.nameTaken("Letters/2026/Report.yianazip")) { try organizer.move(back, toFolder: "Letters/2026") }
        try Data("x".utf8).write(to: folder.url.appendingPathComponent("afile"))
        try FileManager.default.createSymbolicLink(atPath: folder.path("out"), withDestinationPath: "/tmp")
        for bad in ["../x", "/etc", ".yiana", "Letters/../../x", "afile/x", "out", "a\0b"] {
            #expect(throws: OrganizeError.invalidFolder(bad), "\(bad)") { try organizer.move(back, toFolder: bad) }
        }
        #expect(FileManager.default.fileExists(atPath: back.path))
    }

    @Test func aDeletionIsKeptFirstAndComesBackByteForByte() throws {
        let folder = try TemporaryFolder()
        let library = try Library(root: folder.url)
        let url = try document("Old letter", in: folder)
        let bytes = try Data(contentsOf: url)
        let organizer = DocumentOrganizer(library: library)
        #expect(try organizer.delete(url, dryRun: true) == nil && FileManager.default.fileExists(atPath: url.path))
        let kept = try #require(try organizer.delete(url))
        #expect(!FileManager.default.fileExists(atPath: url.path) && kept.reason == "before it was deleted")
        try VersionStore(library: library).restore(kept, to: url)
        #expect(try Data(contentsOf: url) == bytes)
    }
}

extension URL {
    /// This URL, its folder made first.
    func creatingFolder() throws -> URL {
        try FileManager.default.createDirectory(at: deletingLastPathComponent(), withIntermediateDirectories: true)
        return self
    }
}
