import Foundation
import YianaPeople
import YianaLibrary
import YianaSystem

/// Where an index keeps a library's documents and pages: the SQLite file on this machine
/// (``SearchIndex``), or a PostgreSQL database that every machine shares (`YianaPostgres`).
///
/// Only storage sits behind it: what changed, moves and renames reusing pages, statuses,
/// `--full`, the people of the address files and the staleness record are decided once, above
/// it (``Indexer``, ``AddressIndex``, ``IndexFreshness``), whichever store holds the rows.
public protocol IndexStore: Sendable {
    /// Where the index is, for people: a file's path, or the server and database (never a password).
    var location: String { get }

    /// What the index holds of every document this copy of the library indexed, by path: to
    /// tell what changed here.
    func known() async throws -> [String: StoredDocument]
    /// ``known()``'s rows one at a time, in the order of their paths' UTF-8 bytes: a run over
    /// the whole library compares it with them without holding them all.
    func forEachKnown(_ body: (String, StoredDocument) throws -> Void) async throws
    /// ``known()``'s answer for the documents at `paths` alone (those the index holds): a
    /// watcher's pass, told what changed, reads their rows, not the library's.
    func known(paths: Set<String>) async throws -> [String: StoredDocument]
    /// The content keys of the PDFs indexed whole (status ok), whose pages a document with the
    /// same bytes can copy: those of `known` (``known()``'s answer), and any others the index holds.
    func indexedContent(known: [String: StoredDocument]) async throws -> Set<String>
    /// Those of `keys` whose PDFs the index holds whole (status ok), on any machine: the same
    /// question as ``indexedContent(known:)``, asked of a few documents' keys.
    func indexedContent(among keys: Set<String>) async throws -> Set<String>
    /// Empties the index (`index --full`).
    func clear() async throws
    /// Writes `documents`, each with its pages, so that a search never sees half of one;
    /// several machines writing one document at once end with one of their versions, whole.
    /// A document whose pages were to be copied (``ExtractedDocument/Pages/reuse(contentKey:)``)
    /// from one that no longer holds them is not written: it is returned, to be extracted.
    func write(_ documents: [ExtractedDocument]) async throws -> [ExtractedDocument]
    /// Removes the documents at `paths`; returns the paths of those the index held.
    func remove(_ paths: [String]) async throws -> [String]
    /// The status of every document (or only of those with a problem), by path.
    func statuses(onlyProblems: Bool) async throws -> [IndexReport.Document]
    /// The status of the documents at `paths` that the index holds, by path.
    func statuses(paths: Set<String>) async throws -> [IndexReport.Document]
    /// How many documents the index holds.
    func documentCount() async throws -> Int
    /// The stamps of the documents directly in `folder` ('' for the root), by path.
    func stamps(inFolder folder: String) async throws -> [String: FileStamp]
    /// A value the index keeps about itself (``IndexState``), nil when never set.
    func state(_ key: IndexState) async throws -> String?
    /// Sets values the index keeps about itself, together.
    func setState(_ values: [IndexState: String]) async throws
    /// The people records of the documents at `paths` (of every document when nil): each
    /// one's id, path, title and the fingerprint of the address files it was made from (nil
    /// when none was made). A run that wrote a few documents reads a few rows, not the library's.
    /// `named`, with `paths` nil: only the documents with a record made from address files and
    /// those whose title or ``AddressRecord/stem(of:)`` is among these names (the address
    /// files' keys): what a look at every document's address files can find changed.
    func addressRecords(paths: Set<String>?, named: Set<String>?) async throws -> [AddressRecord]
    /// Puts each document's people (its text, empty for none; what the register keeps of it)
    /// in place, with the fingerprint.
    func writeAddresses(_ rows: [AddressRow]) async throws
    /// Every document as the register of people reads it: its path, title, id, time and the
    /// people its address files name (``AddressRow/people``).
    func registerDocuments() async throws -> [RegisterDocument]
    /// NHS England's GP practices, as `yiana people ods-import` last read them.
    func odsPractices() async throws -> [ODSPractice]
    /// Puts `practices` in place of those kept.
    func replaceODSPractices(_ practices: [ODSPractice]) async throws
    /// Documents matching `query`, best first, each with its matching pages, best first.
    func search(_ query: String, options: SearchOptions) async throws -> [SearchHit]
    /// One page of the documents `query` lists, from the index alone.
    func browse(_ query: BrowseQuery) async throws -> BrowsePage
    /// The library's folders and tags with their counts, from the index alone.
    func outline() async throws -> LibraryOutline
    /// The vocabulary in memory, kept by a process that searches many times (``ResidentVocabulary/enable()``).
    var residentVocabulary: ResidentVocabulary { get }
    /// Lets go of the index's connections (a file's close when the last reference goes).
    func close() async
}

/// The values an index keeps about itself.
public enum IndexState: String, Sendable, Hashable, CaseIterable {
    /// The folders' times at the last run (``IndexFreshness``).
    case folderTimes
    /// When `yiana index` last ran over the whole library (seconds since 1970).
    case lastRun
    /// The `.addresses` folder's time and inode at the last run (``AddressIndex``).
    case addressesFolder = "addresses-folder"
    /// When every document's address files were last looked at (seconds since 1970).
    case addressesChecked = "addresses-checked"
}

/// What the index holds about a document, to decide whether it changed.
public struct StoredDocument: Sendable {
    public let id: Int64
    public let file: FileStamp
    public let contentKey: String?
    public let status: IndexStatus
    var isPlaceholder: Bool { status == .notDownloaded }

    public init(id: Int64, file: FileStamp, contentKey: String?, status: IndexStatus) {
        self.id = id
        self.file = file
        self.contentKey = contentKey
        self.status = status
    }
}

/// A document as ``AddressIndex`` needs it.
public struct AddressRecord: Sendable {
    public let id: Int64
    public let path: String
    public let title: String
    public let fingerprint: String?

    public init(id: Int64, path: String, title: String, fingerprint: String?) {
        self.id = id
        self.path = path
        self.title = title
        self.fingerprint = fingerprint
    }

    /// A document's file name without the documents' extension: the other name the app gives
    /// its address files.
    public static func stem(of path: String) -> String {
        let name = LibraryItem.lastComponent(of: path)
        let suffix = ".\(Library.documentExtension)"
        // Nearly every name: the extension once, at its end (read by its bytes, no Foundation search).
        if name.hasSuffix(suffix), !name.dropLast(suffix.count).contains(suffix) { return String(name.dropLast(suffix.count)) }
        return name.replacingOccurrences(of: suffix, with: "")
    }

    /// True when address files of one of `names` can be this document's, or some once were.
    func matches(_ names: Set<String>) -> Bool {
        fingerprint != nil || !names.isEmpty && (names.contains(title) || names.contains(Self.stem(of: path)))
    }
}

/// One document's people as the index keeps them (``AddressIndex``).
public struct AddressRow: Sendable {
    public var id: Int64
    /// The names, addresses and postcodes, for search.
    public var text: String
    /// What the register of people keeps of the document (``DocumentPeople``, as JSON).
    public var people: String
    /// The address files' paths, sizes, times and inodes.
    public var fingerprint: String

    public init(id: Int64, text: String, people: String, fingerprint: String) {
        (self.id, self.text, self.people, self.fingerprint) = (id, text, people, fingerprint)
    }

    /// A stored `people` column back as the register reads it (none when it is not there or
    /// does not read).
    public static func people(_ json: String?) -> DocumentPeople {
        json.flatMap { try? JSONDecoder().decode(DocumentPeople.self, from: Data($0.utf8)) } ?? DocumentPeople()
    }

    /// `people` as the column keeps it.
    public static func json(_ people: DocumentPeople) -> String {
        (try? String(decoding: JSONEncoder().encode(people), as: UTF8.self)) ?? "{}"
    }
}

extension IndexStore {
    /// The people records of the documents at `paths` (of every document when nil).
    public func addressRecords(paths: Set<String>?) async throws -> [AddressRecord] {
        try await addressRecords(paths: paths, named: nil)
    }
}

extension IndexStore {
    /// Documents matching `query`, with no filter and the default limit.
    public func search(_ query: String) async throws -> [SearchHit] {
        try await search(query, options: SearchOptions())
    }
}

extension IndexStore {
    /// `body`'s result, the index closed after it whether it returned or threw.
    public func closing<T>(after body: () async throws -> T) async throws -> T {
        do {
            let value = try await body()
            await close()
            return value
        } catch {
            await close()
            throw error
        }
    }
}
