import Foundation
import YianaSystem

/// A kind of file the Yiana app keeps beside the documents (`.addresses/`, `.letters/`,
/// `.worklist.json`): the user's data, not documents and not junk. `docs/COMPANION-FILES.md`
/// lists each with its source in the app.
public enum CompanionKind: String, Codable, Sendable, CaseIterable {
    /// `.addresses/<key>.json`: addresses and people extracted from a document's pages.
    case addressExtraction = "address-extraction"
    /// `.addresses/<key>.overrides.json`: a person's corrections to those.
    case addressCorrections = "address-corrections"
    /// `.letters/drafts/<letter id>.json`.
    case letterDraft = "letter-draft"
    /// `.letters/rendered/<letter id>/…`: what the render service made of a draft.
    case renderedLetter = "rendered-letter"
    /// `.letters/inject/<target>_<UUID>.pdf` (and its `….processing` claim): a letter to append.
    case injectLetter = "inject-letter"
    /// `.letters/unmatched/…`: letters the app could not append.
    case unmatchedLetter = "unmatched-letter"
    /// `.letters/config/sender.json`: the sender's letterhead.
    case senderConfig = "sender-config"
    /// `.worklist.json`: the work list the app shares with Yiale.
    case workList = "work-list"
    /// `.yiana-worklist.json`: the work list before it was shared; the app merges it into
    /// `.worklist.json` and deletes it (also when it cannot decode it).
    case legacyWorkList = "legacy-work-list"

    /// Who makes a file of this kind.
    public enum Origin: String, Codable, Sendable {
        /// The app (or its services) makes it and can make it again.
        case rebuildable
        /// A person typed it: nothing can make it again.
        case person
    }

    /// What a file of this kind belongs to.
    public enum Scope: String, Codable, Sendable {
        /// One document, named by its key (the app uses the document's title).
        case document
        /// One letter, by its id.
        case letter
        /// The whole library.
        case library
    }

    public var origin: Origin {
        switch self {
        case .addressExtraction, .renderedLetter, .injectLetter, .unmatchedLetter: .rebuildable
        case .addressCorrections, .letterDraft, .senderConfig, .workList, .legacyWorkList: .person
        }
    }

    public var scope: Scope {
        switch self {
        case .addressExtraction, .addressCorrections, .injectLetter: .document
        case .letterDraft, .renderedLetter, .unmatchedLetter: .letter
        case .senderConfig, .workList, .legacyWorkList: .library
        }
    }

    /// What it is, for people.
    public var label: String {
        switch self {
        case .addressExtraction: "extracted addresses"
        case .addressCorrections: "address corrections"
        case .letterDraft: "letter draft"
        case .renderedLetter: "rendered letter"
        case .injectLetter: "letter waiting to be appended"
        case .unmatchedLetter: "unmatched letter"
        case .senderConfig: "sender's letterhead"
        case .workList: "work list"
        case .legacyWorkList: "old work list"
        }
    }

    /// Where the app reads and writes it (lh/Yiana).
    public var sourceInApp: String {
        switch self {
        case .addressExtraction: "YianaExtraction/Sources/YianaExtraction/Models/AddressSchema.swift (DocumentAddressFile), Yiana/Services/DocumentExtractionService.swift"
        case .addressCorrections: "AddressSchema.swift (OverridesFile), Yiana/Services/AddressRepository.swift"
        case .letterDraft, .renderedLetter: "Yiana/Models/LetterDraft.swift, Yiana/Services/LetterRepository.swift"
        case .injectLetter, .unmatchedLetter: "Yiana/Services/InjectWatcher.swift"
        case .senderConfig: "Yiana/Models/SenderConfig.swift, Yiana/Services/SenderConfigService.swift"
        case .workList: "Yiana/Models/SharedWorkList.swift, Yiana/Services/WorkListRepository.swift"
        case .legacyWorkList: "Yiana/Models/WorkListEntry.swift (LegacyYianaWorkList), WorkListRepository.swift"
        }
    }
}

/// One file the app keeps beside the documents, as its path says: its kind, what it belongs
/// to, and, for a conflict copy a sync program made, the plain name the app reads.
public struct CompanionFile: Codable, Sendable, Equatable, Hashable {
    /// Relative to the library.
    public let path: String
    public let kind: CompanionKind
    /// What it belongs to: the document's key (the app names address files by the document's
    /// title; inject letters by its file name), the letter's id, or nil for the library.
    public let key: String?
    /// The path the app reads: `path` less the marks a sync program added.
    public let plainPath: String
    /// What the marks say ("unison conflict 2026-11-24"), outermost first.
    public let marks: [String]
    /// The app's temporary file for `plainPath` (`X.json.tmp`, a UUID `.tmp`), or the
    /// toolkit's own, left by an interrupted write.
    public let isTemp: Bool

    /// A copy a sync program made of `plainPath`.
    public var isConflictCopy: Bool { !isTemp && plainPath != path }

    public init(path: String, kind: CompanionKind, key: String?, plainPath: String, marks: [String] = [], isTemp: Bool = false) {
        self.path = path
        self.kind = kind
        self.key = key
        self.plainPath = plainPath
        self.marks = marks
        self.isTemp = isTemp
    }

    /// The folders and root files the app keeps its companions in.
    public static let addressesFolder = ".addresses"
    public static let lettersFolder = ".letters"
    public static let workListName = ".worklist.json"
    public static let legacyWorkListName = ".yiana-worklist.json"

    /// The folders at the library's root that hold companions.
    public static let folders: Set<String> = [addressesFolder, lettersFolder]

    /// What the file at `path` (relative to the library) is, or nil when it is none of the
    /// app's companions (a system file in `.addresses`, say).
    public static func classify(_ path: String) -> CompanionFile? {
        let parts = path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        guard let name = parts.last else { return nil }
        return classify(name, in: Array(parts.dropLast()), path: path)
    }

    /// What the file `name` in the folder `folder` (its parts below the library's root) is;
    /// `path` is the two joined (a walk has it already).
    static func classify(_ name: String, in folder: [String], path: String) -> CompanionFile? {
        guard !isSystemFile(name) else { return nil }
        let folderPath = String(decoding: path.utf8.dropLast(name.utf8.count), as: UTF8.self)  // with its trailing slash
        func inFolder(_ plainName: String) -> String { folderPath + plainName }
        // Temporary files: the app's `X.json.tmp` and, beside the work list, `<UUID>.tmp`;
        // the toolkit's `.X.yiana-tmp-XXXXXXXX`.
        if let temp = tempTarget(name, folder: folder) {
            guard let target = classify(temp, in: folder, path: inFolder(temp)) else { return nil }
            return CompanionFile(path: path, kind: target.kind, key: target.key, plainPath: target.plainPath, isTemp: true)
        }
        switch folder.count {
        case 0: return rootFile(name, path: path)
        case 1 where folder[0] == addressesFolder: return addressFile(name, path: path, inFolder: inFolder)
        case 2 where folder[0] == lettersFolder: return letterFile(folder[1], name, path: path, inFolder: inFolder)
        case 3... where folder[0] == lettersFolder && folder[1] == "rendered":
            let conflict = ConflictName(fileName: name)
            return CompanionFile(path: path, kind: .renderedLetter, key: folder[2], plainPath: inFolder(conflict.withoutSyncMarks),
                                 marks: conflict.marks.filter(\.isSyncConflict).map(\.description))
        default: return nil
        }
    }

    // By bytes, not characters: tests a walk makes for each of thousands of files.
    private static func bytes(of name: String, endWith suffix: String) -> Bool {
        name.utf8.count >= suffix.utf8.count && name.utf8.suffix(suffix.utf8.count).elementsEqual(suffix.utf8)
    }

    private static func bytes(of name: String, contain part: String) -> Bool {
        let part = Array(part.utf8), name = Array(name.utf8)
        guard name.count >= part.count else { return false }
        return (0...(name.count - part.count)).contains { start in part.indices.allSatisfy { name[start + $0] == part[$0] } }
    }

    private static func isSystemFile(_ name: String) -> Bool {
        name == ".DS_Store" || name.hasPrefix("._") || name == ".localized"
    }

    /// The name a temporary file was written for, when `name` is one.
    private static func tempTarget(_ name: String, folder: [String]) -> String? {
        if name.hasPrefix("."), let marker = name.range(of: TemporaryFile.marker, options: .backwards) {
            let target = String(name[name.index(after: name.startIndex)..<marker.lowerBound])
            return target.isEmpty ? nil : target
        }
        if name.hasSuffix(".json.tmp") { return String(name.dropLast(4)) }
        // The work list's `<UUID>.tmp` (WorkListRepository.save) at the root; a document's
        // `<UUID>.tmp` is told apart by its content (LibraryScanner).
        if folder.isEmpty, name.hasSuffix(".tmp"), UUID(uuidString: String(name.dropLast(4))) != nil { return workListName }
        return nil
    }

    private static func rootFile(_ name: String, path: String) -> CompanionFile? {
        let lists = [(workListName, CompanionKind.workList), (legacyWorkListName, .legacyWorkList)]
        if let (plain, kind) = lists.first(where: { $0.0 == name }) { return CompanionFile(path: path, kind: kind, key: nil, plainPath: plain) }
        let conflict = ConflictName(fileName: name)
        for (plain, kind) in lists {
            if conflict.original == plain || conflict.withoutSyncMarks == plain {
                return CompanionFile(path: path, kind: kind, key: nil, plainPath: plain, marks: conflict.marks.map(\.description))
            }
        }
        return nil
    }

    private static func addressFile(_ name: String, path: String, inFolder: (String) -> String) -> CompanionFile? {
        // Nearly every file here has its plain name: no mark follows `.overrides`, and an
        // extraction file's name is a title plus `.json` (only a sync program's mark is
        // taken off one; a name holding `.overrides` with a mark after it is a copy of
        // corrections), so no pattern need run on the thousands a walk meets.
        let overrides = ".overrides.json"
        if bytes(of: name, endWith: overrides), name.utf8.count > overrides.utf8.count {
            return CompanionFile(path: path, kind: .addressCorrections, key: String(name.dropLast(overrides.count)), plainPath: inFolder(name))
        }
        if bytes(of: name, endWith: ".json"), name.utf8.count > 5, !bytes(of: name, contain: ".overrides"), !ConflictName.mayCarrySyncMark(name) {
            return CompanionFile(path: path, kind: .addressExtraction, key: String(name.dropLast(5)), plainPath: inFolder(name))
        }
        let conflict = ConflictName(fileName: name)
        // Corrections: any mark after `.overrides` is a sync program's (no title ends there).
        for candidate in [conflict.original, conflict.withoutSyncMarks, name] where candidate.hasSuffix(".overrides.json") {
            let key = String(candidate.dropLast(".overrides.json".count))
            guard !key.isEmpty else { continue }
            return CompanionFile(path: path, kind: .addressCorrections, key: key, plainPath: inFolder(candidate),
                                 marks: candidate == name ? [] : conflict.marks.map(\.description))
        }
        // Extraction results: only a sync program's marks are taken off by the name. ` 2`,
        // ` (1)` or `-HOST` may be part of a title: the file's `document_id` decides
        // (``CompanionFile/copyByContent(documentID:)``).
        let plain = conflict.withoutSyncMarks
        guard plain.hasSuffix(".json"), plain.count > 5 else { return nil }
        let marks = plain == name ? [] : conflict.marks.filter(\.isSyncConflict).map(\.description)
        return CompanionFile(path: path, kind: .addressExtraction, key: String(plain.dropLast(5)), plainPath: inFolder(plain), marks: marks)
    }

    private static func letterFile(_ sub: String, _ name: String, path: String, inFolder: (String) -> String) -> CompanionFile? {
        let conflict = ConflictName(fileName: name)
        switch sub {
        case "drafts":
            // A letter id is a UUID: a mark that would cut into it is not a mark.
            let candidates = [conflict.original, conflict.withoutSyncMarks, name].filter { $0.hasSuffix(".json") && $0.count > 5 }
            guard let plain = candidates.first(where: { UUID(uuidString: String($0.dropLast(5))) != nil }) ?? candidates.last else { return nil }
            return CompanionFile(path: path, kind: .letterDraft, key: String(plain.dropLast(5)), plainPath: inFolder(plain),
                                 marks: plain == name ? [] : conflict.marks.map(\.description))
        case "config":
            guard name == "sender.json" || conflict.original == "sender.json" || conflict.withoutSyncMarks == "sender.json" else { return nil }
            return CompanionFile(path: path, kind: .senderConfig, key: nil, plainPath: inFolder("sender.json"),
                                 marks: name == "sender.json" ? [] : conflict.marks.map(\.description))
        case "inject", "unmatched":
            // Only a sync program's marks: a target is a title, which may end like another's.
            let plain = conflict.withoutSyncMarks
            let marks = conflict.marks.filter(\.isSyncConflict).map(\.description)
            let claim = plain.hasSuffix(".processing") ? String(plain.dropLast(".processing".count)) : plain
            return CompanionFile(path: path, kind: sub == "inject" ? .injectLetter : .unmatchedLetter, key: InjectName(claim)?.target,
                                 plainPath: inFolder(plain), marks: marks)
        default:
            return nil
        }
    }

    /// For an extraction file whose name carries a mark that could be part of a title
    /// (`Report 2.json`): the plain file it is a copy of, when the `document_id` it holds
    /// says so (it is `Report`), else nil (it is the file of a document titled `Report 2`).
    public func copyByContent(documentID: String?) -> CompanionFile? {
        guard kind == .addressExtraction, !isTemp, let key, let documentID, documentID != key else { return nil }
        let name = ConflictName(fileName: key + ".json")
        guard name.original == documentID + ".json" || name.withoutSyncMarks == documentID + ".json" else { return nil }
        let folder = (plainPath as NSString).deletingLastPathComponent
        let plain = (folder as NSString).appendingPathComponent(documentID + ".json")
        return CompanionFile(path: path, kind: kind, key: documentID, plainPath: plain, marks: marks + name.marks.map(\.description))
    }
}

/// The app's grammar of a letter to inject: `<target>_<UUID>.pdf` (InjectWatcher); nil
/// for a name the app would move to `.letters/unmatched/`.
public struct InjectName: Sendable, Equatable {
    /// The file name (without `.yianazip`) of the document it goes to.
    public let target: String
    public let letterID: String

    public init?(_ name: String) {
        guard name.lowercased().hasSuffix(".pdf") else { return nil }
        let stem = String(name.dropLast(4))
        // As the app reads it: a UUID at the end, after at least one character, which is
        // dropped (the `_`) to leave the target.
        guard stem.count > 36 else { return nil }
        let id = String(stem.suffix(36))
        let separator = stem.index(stem.endIndex, offsetBy: -37)
        guard UUID(uuidString: id) != nil else { return nil }
        target = String(stem[..<separator])
        letterID = id
    }
}
