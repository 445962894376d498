import Foundation
import YianaSystem

/// A library's identity, the same on every machine that syncs it: a random id in the library's
/// own `.yiana/library-id`, which travels with it, made by the first machine that needs one (an
/// index on a shared server keeps the library's rows under it, so that copies of one library
/// share them and two libraries never mix).
///
/// Two machines that each make one before they have synced end with two files once they have:
/// the id and the sync program's copy of the other (`library-id.sync-conflict-…`,
/// `library-id (… conflicted copy …)`, …). Every machine then takes the smallest id among all
/// of them, so all agree as soon as the files have travelled, whichever came first.
public enum LibraryIdentity {
    public static let fileName = "library-id"

    /// The library's id, made (and written, never over another) when it has none.
    /// - Throws: when the library's `.yiana` folder cannot be written to make one.
    public static func key(of library: Library) throws -> String {
        if let found = ids(in: library).min() { return found }
        let folder = library.root.appendingPathComponent(Library.stateFolderName)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let id = UUID().uuidString.lowercased()
        let path = folder.appendingPathComponent(fileName).path
        let temporary = try TemporaryFile(beside: path)
        try temporary.write(Array((id + "\n").utf8))
        try temporary.sync()
        // Never over another: if a process of this machine made one first, that one counts.
        try temporary.place(at: path, .keepingExisting)
        return ids(in: library).min() ?? id
    }

    /// Gives `library` the id `id` when it has none (a library restored from a backup takes
    /// back the id its snapshots are tagged with, so that its next backups are of the same
    /// library). Never over another.
    public static func adopt(_ id: String, for library: Library) throws {
        guard ids(in: library).isEmpty, UUID(uuidString: id) != nil else { return }
        let folder = library.root.appendingPathComponent(Library.stateFolderName)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = folder.appendingPathComponent(fileName).path
        let temporary = try TemporaryFile(beside: path)
        try temporary.write(Array((id.lowercased() + "\n").utf8))
        try temporary.sync()
        try temporary.place(at: path, .keepingExisting)
    }

    /// Every id the library's `.yiana` folder holds: the file's and its sync copies'.
    public static func ids(in library: Library) -> [String] {
        let folder = library.root.appendingPathComponent(Library.stateFolderName)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { $0.hasPrefix(fileName) && !$0.contains(TemporaryFile.marker) }.compactMap { name in
            guard let text = try? String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8) else { return nil }
            let id = text.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
            return UUID(uuidString: id) == nil ? nil : id
        }
    }
}
