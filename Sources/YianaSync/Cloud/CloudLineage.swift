import Foundation
import YianaArchive
import YianaLibrary

/// Carries how versions were made from device to device: the cloud records what each
/// upload was made from (by SHA-256), and a device that receives a version writes that
/// lineage, as content keys, into its own history (`.yiana/history.jsonl`). Conflict
/// resolution can then find the common ancestor of two edits made on two devices and merge
/// three-way, and tell an update from a conflict across devices.
struct CloudLineage {
    let cloud: CloudStore
    let library: Library

    /// Records the lineage of the version `sha256`, as far back as the cloud knows it.
    func record(_ sha256: String) {
        let parents = cloud.lineage()
        let history = DocumentHistory(library: library)
        var keys: [String: (key: String, id: String)?] = [:]
        func identify(_ sha: String) -> (key: String, id: String)? {
            if let known = keys[sha] { return known }
            let reader = try? DocumentReader(path: cloud.objectURL(sha).path)
            let found = reader.flatMap { reader in
                reader.contentKey.flatMap { key in (try? reader.metadata()).map { (key, $0.id.uuidString) } }
            }
            keys[sha] = found
            return found
        }
        var queue = [sha256], seen: Set<String> = [sha256]
        while let sha = queue.popLast(), seen.count < 256 {
            guard let node = identify(sha) else { continue }
            let ancestors = (parents[sha] ?? []).sorted()
            let ancestorKeys = ancestors.compactMap { identify($0) }.filter { $0.id == node.id }.map(\.key)
            if !ancestorKeys.isEmpty, !history.knows(node.key, descendsFrom: ancestorKeys, documentID: node.id) {
                try? history.record(documentID: node.id, key: node.key, parents: ancestorKeys, what: "sync (from the cloud)")
            }
            for ancestor in ancestors where seen.insert(ancestor).inserted { queue.append(ancestor) }
        }
    }
}

/// The content key of the version the cloud holds as `sha256`, and the cloud objects by key.
extension CloudStore {
    /// The bytes in the cloud whose content key is `key`, if any.
    func object(withContentKey key: String) -> URL? {
        for sha in Set(index.read().compactMap(\.sha256)) {
            let url = objectURL(sha)
            if (try? DocumentReader(path: url.path).contentKey) == key { return url }
        }
        return nil
    }
}
