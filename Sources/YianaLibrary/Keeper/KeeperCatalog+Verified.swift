import Foundation
import GRDB

/// The objects found to hash to their names, with their files' identities then
/// (``FileIdentity/fingerprint``): a listing in a fresh process reads again only the bytes of
/// a file changed since (``Keeper/intact(_:catalog:now:recorded:found:)``), not every state of
/// every document it lists. Not the journal's: a catalog rebuilt starts without it.
extension KeeperCatalog {
    /// The recorded identity of each of `shas` that has one.
    func verifiedIdentities(of shas: Set<String>) -> [String: String] {
        guard !shas.isEmpty else { return [:] }
        return read([:]) { db in
            let statement = try db.cachedStatement(sql: "SELECT identity FROM verified WHERE sha = ?")
            var found: [String: String] = [:]
            for sha in shas {
                if let identity = try String.fetchOne(statement, arguments: [sha]) { found[sha] = identity }
            }
            return found
        }
    }

    /// Records `found` (sha → identity), in one transaction. A catalog that cannot be written
    /// to records nothing: the next listing hashes them again.
    func noteVerified(_ found: [String: String]) {
        guard !found.isEmpty else { return }
        try? queue.write { db in
            let statement = try db.cachedStatement(sql: "INSERT OR REPLACE INTO verified(sha, identity) VALUES (?, ?)")
            for (sha, identity) in found { try statement.execute(arguments: [sha, identity]) }
        }
    }
}
