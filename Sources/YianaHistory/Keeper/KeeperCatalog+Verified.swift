import Foundation
import YianaFolder
import YianaSQLite

/// The objects found to hash to their names, with their files' identities then
/// (``FileIdentity/fingerprint``): a listing in a fresh process reads again only the bytes of
/// a file changed since (``Keeper/intact(_:catalog:now:recorded:held:found:)``), not every state of
/// every document it lists. Not the journal's: a catalog rebuilt starts without it.
extension KeeperCatalog {
    /// The states kept of `path` (and, with `documentID`, of that document wherever it was),
    /// oldest first, each with the identity its object's file had when last found intact (nil:
    /// never recorded): one query of the catalog for a document's whole history, not one per
    /// state listed.
    func keptStates(path: String?, documentID: String?) -> [(state: KeptState, identity: String?)] {
        read([]) { db in
            // By a cursor: each column read where SQLite holds it, not from a copy of the row.
            let rows = try db.statement(sql: """
                SELECT \(Self.stateColumns), o.identity FROM state s JOIN object o ON o.sha = s.sha
                WHERE (s.path = ?1 OR s.docid = ?2) ORDER BY s.id
                """).cursor(arguments: [path, documentID])
            var found: [(state: KeptState, identity: String?)] = []
            while let row = try rows.next() { if let state = Self.state(row) { found.append((state, row[12])) } }
            return found
        }
    }

    /// Records `found` (sha → identity), in one transaction. A catalog that cannot be written
    /// to records nothing: the next listing hashes them again.
    func noteVerified(_ found: [String: String]) {
        guard !found.isEmpty else { return }
        try? queue.write { db in
            let statement = try db.statement(sql: "UPDATE object SET identity = ? WHERE sha = ?")
            for (sha, identity) in found { try statement.execute(arguments: [identity, sha]) }
        }
    }
}
