import Foundation
import YianaSQLite

/// The objects found to hash to their names, with their files' identities then
/// (``FileIdentity/fingerprint``): a listing in a fresh process reads again only the bytes of
/// a file changed since (``Keeper/intact(_:catalog:now:recorded:held:found:)``), not every state of
/// every document it lists. Not the journal's: a catalog rebuilt starts without it.
extension KeeperCatalog {
    /// Of `shas`, those whose bytes the catalog holds, each with the identity its file had when
    /// last found intact (nil: never recorded): in one read, not one per state listed (each read
    /// of the catalog is a transaction of its own, about 0.1 ms).
    func heldObjects(among shas: Set<String>) -> [String: String?] {
        guard !shas.isEmpty else { return [:] }
        return read([:]) { db in
            let statement = try db.statement(sql: "SELECT v.identity FROM object o LEFT JOIN verified v ON v.sha = o.sha WHERE o.sha = ?")
            var found: [String: String?] = [:]
            for sha in shas {
                if let row = try statement.row(arguments: [sha]) { found[sha] = row[0] as String? }
            }
            return found
        }
    }

    /// Records `found` (sha → identity), in one transaction. A catalog that cannot be written
    /// to records nothing: the next listing hashes them again.
    func noteVerified(_ found: [String: String]) {
        guard !found.isEmpty else { return }
        try? queue.write { db in
            let statement = try db.statement(sql: "INSERT OR REPLACE INTO verified(sha, identity) VALUES (?, ?)")
            for (sha, identity) in found { try statement.execute(arguments: [sha, identity]) }
        }
    }
}
