import Foundation
import YianaArchive
import YianaLibrary
import YianaPeople
import YianaSystem

/// The people in the app's address files, searchable with their document: for each document,
/// one page row (source ``TextSource/addresses``; in SQLite at the last rowid of its range)
/// holding the names, addresses and postcodes the app shows for it (``AddressBook``), so that
/// `yiana search Smith` finds the letters about Mrs Smith even where the scan misspells her.
/// A document's address files are found by its title (the app's key) or its file name, and
/// read again only when one of them, or which ones there are, changed.
///
/// A run looks at every document's address files when the `.addresses` folder itself
/// changed (a file added, removed or renamed into place, as the app and Syncthing, unison,
/// Dropbox and Nextcloud write: through a temporary name), and at least once an hour;
/// otherwise only at the documents the run wrote. So a file rewritten in place under its
/// own name (older rclone) is seen within the hour, or at once with `yiana index --full`,
/// and a run that changed nothing does not `stat` thousands of address files.
struct AddressIndex {
    let library: Library
    let index: any IndexStore

    /// Brings the addresses rows up to date with `scan`'s address files: every document's
    /// when the `.addresses` folder changed since the last run, else those of `changed` (the
    /// paths of the documents this run wrote).
    /// - Returns: how many documents' rows were written or removed.
    func update(_ scan: LibraryScan, changed: [String]) async throws -> Int {
        let folderStamp = FileStamp(path: library.root.appendingPathComponent(CompanionFile.addressesFolder).path)
            .map { "\($0.modified) \($0.inode)" } ?? "-"
        let lastStamp = try await index.state(.addressesFolder)
        let lastFull = try await index.state(.addressesChecked).flatMap(Double.init)
        let now = Date().timeIntervalSince1970
        let everyDocument = lastStamp != folderStamp || now - (lastFull ?? 0) >= Self.fullCheckEvery
        guard everyDocument || !changed.isEmpty else { return 0 }
        let written = try await update(scan, only: everyDocument ? nil : Set(changed))
        try await index.setState(everyDocument ? [.addressesFolder: folderStamp, .addressesChecked: String(now)] : [.addressesFolder: folderStamp])
        return written
    }

    /// Brings the addresses rows of `documents` (paths relative to the library) up to date
    /// with their address files, after this process wrote them (`yiana extract`): the
    /// `.addresses` folder is listed, the library is not walked.
    func update(documents: Set<String>) async throws -> Int {
        let folder = library.root.appendingPathComponent(CompanionFile.addressesFolder)
        var scan = LibraryScan()
        scan.companions = ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).compactMap {
            CompanionFile.classify("\(CompanionFile.addressesFolder)/\($0)")
        }
        return try await update(scan, only: documents)
    }

    /// Seconds between looks at every document's address files when the folder did not change.
    static let fullCheckEvery = 3600.0

    private func update(_ scan: LibraryScan, only paths: Set<String>?) async throws -> Int {
        var files: [String: (extraction: String?, corrections: String?)] = [:]
        for file in scan.companions where !file.isTemp && !file.isConflictCopy {
            guard let key = file.key else { continue }
            switch file.kind {
            case .addressExtraction: files[key, default: (nil, nil)].extraction = file.path
            case .addressCorrections: files[key, default: (nil, nil)].corrections = file.path
            default: continue
            }
        }
        var changed: [(id: Int64, fingerprint: String, paths: (extraction: String?, corrections: String?))] = []
        // A look at every document asks only for those that have or had address files.
        for record in try await index.addressRecords(paths: paths, named: paths == nil ? Set(files.keys) : nil) {
            let paths = files[record.title] ?? files[AddressRecord.stem(of: record.path)] ?? (nil, nil)
            let fingerprint: String = [paths.extraction, paths.corrections].map { path -> String in
                guard let path, let stamp = FileStamp(path: self.library.root.appendingPathComponent(path).path) else { return "-" }
                return "\(path)|\(stamp.size)|\(stamp.modified)|\(stamp.inode)"
            }.joined(separator: "\n")
            let hasFiles = paths.extraction != nil || paths.corrections != nil
            if record.fingerprint.map({ $0 != fingerprint }) ?? hasFiles {
                changed.append((record.id, fingerprint, paths))
            }
        }
        guard !changed.isEmpty else { return 0 }
        let root = library.root
        func read(_ path: String?) -> JSONValue? {
            path.flatMap { try? CompanionContent.json(at: root.appendingPathComponent($0)).get() }
        }
        try await index.writeAddresses(changed.map { document in
            let book = AddressBook(extraction: read(document.paths.extraction), corrections: read(document.paths.corrections))
            return AddressRow(id: document.id, text: book.text, people: AddressRow.json(DocumentPeople(book)), fingerprint: document.fingerprint)
        })
        return changed.count
    }
}
