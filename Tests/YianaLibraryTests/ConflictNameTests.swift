import Testing
@testable import YianaLibrary

@Suite("conflict-copy names")
struct ConflictNameTests {
    typealias Mark = ConflictName.Mark

    @Test(arguments: [
        // Syncthing, with a device, an empty device, no device
        ("Report.sync-conflict-20260301-142233-ABCDEF7.yianazip", "Report.yianazip", [Mark.syncthing(stamp: "20260301-142233", device: "ABCDEF7")]),
        ("Report.sync-conflict-20260301-142233-.yianazip", "Report.yianazip", [.syncthing(stamp: "20260301-142233", device: nil)]),
        ("Report.sync-conflict-20260301-142233.yianazip", "Report.yianazip", [.syncthing(stamp: "20260301-142233", device: nil)]),
        // Dropbox, English, with a counter, translated
        ("Tax return (Bob's conflicted copy 2026-03-01).yianazip", "Tax return.yianazip", [.dropbox(owner: "Bob", date: "2026-03-01", counter: nil)]),
        ("Tax return (Bob's conflicted copy 2026-03-01 (1)).yianazip", "Tax return.yianazip", [.dropbox(owner: "Bob", date: "2026-03-01", counter: 1)]),
        ("Tax return (Bob's conflicted copy 2026-03-01 2).yianazip", "Tax return.yianazip", [.dropbox(owner: "Bob", date: "2026-03-01", counter: 2)]),
        ("Steuer (Konfliktkopie von Anna 2026-03-01).yianazip", "Steuer.yianazip", [.dropbox(owner: nil, date: "2026-03-01", counter: nil)]),
        ("Impôts (copie en conflit de Luc 2026-03-01).yianazip", "Impôts.yianazip", [.dropbox(owner: nil, date: "2026-03-01", counter: nil)]),
        // Nextcloud, with and without a user; the old form
        ("Scan (conflicted copy 2026-03-01 142233).yianazip", "Scan.yianazip", [.nextcloud(user: nil, stamp: "2026-03-01 142233")]),
        ("Scan (conflicted copy alice 2026-03-01 142233).yianazip", "Scan.yianazip", [.nextcloud(user: "alice", stamp: "2026-03-01 142233")]),
        ("Scan_conflict-20260301-142233.yianazip", "Scan.yianazip", [.nextcloudLegacy(stamp: "20260301-142233")]),
        // iCloud's number (or the app's), and the app's Duplicate command
        ("Report 2.yianazip", "Report.yianazip", [.numbered(2)]),
        ("Report Copy.yianazip", "Report.yianazip", [.appCopy(nil)]),
        ("Report Copy 3.yianazip", "Report.yianazip", [.appCopy(3)]),
        // Conflicts of conflicts, unstacked from the outside in
        ("Report 2.sync-conflict-20260301-142233-AB.yianazip", "Report.yianazip", [.syncthing(stamp: "20260301-142233", device: "AB"), .numbered(2)]),
        ("Report (Bob's conflicted copy 2026-03-01) (Ann's conflicted copy 2026-03-02).yianazip", "Report.yianazip",
         [.dropbox(owner: "Ann", date: "2026-03-02", counter: nil), .dropbox(owner: "Bob", date: "2026-03-01", counter: nil)]),
        ("Notes.sync-conflict-20260301-142233-AB.sync-conflict-20260302-101010-CD.yianazip", "Notes.yianazip",
         [.syncthing(stamp: "20260302-101010", device: "CD"), .syncthing(stamp: "20260301-142233", device: "AB")]),
        // Names with dots and brackets of their own stay whole
        ("v1.2 release notes (draft).yianazip", "v1.2 release notes (draft).yianazip", []),
        ("Smith, J. (2019) Paper.sync-conflict-20260301-142233-XY.yianazip", "Smith, J. (2019) Paper.yianazip", [.syncthing(stamp: "20260301-142233", device: "XY")]),
        ("Minutes (2026-03-01).yianazip", "Minutes (2026-03-01).yianazip", []),
        ("Invoice 2024.yianazip", "Invoice 2024.yianazip", []),
        ("Report.yianazip", "Report.yianazip", []),
    ])
    func parses(name: String, original: String, marks: [Mark]) {
        let parsed = ConflictName(fileName: name)
        #expect(parsed.original == original, "\(name)")
        #expect(parsed.marks == marks, "\(name)")
    }

    @Test func syncMarksAreToldFromTheAppsOwn() {
        #expect(ConflictName(fileName: "A (Bob's conflicted copy 2026-03-01).yianazip").isSyncConflict)
        #expect(!ConflictName(fileName: "A 2.yianazip").isSyncConflict)
        #expect(!ConflictName(fileName: "A Copy.yianazip").isSyncConflict)
    }
}
