import Testing
@testable import YianaFolder
@testable import YianaHistory
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
        // ownCloud's old form with a user; Nextcloud's case clash
        ("Scan_conflict-alice-20260301-142233.yianazip", "Scan.yianazip", [.nextcloudLegacy(stamp: "20260301-142233")]),
        ("Scan (case clash from 2026-03-01 142233).yianazip", "Scan.yianazip", [.nextcloud(user: nil, stamp: "2026-03-01 142233")]),
        // unison -copyonconflict (as unison 2.52 names them, seen in the real-sync test)
        ("Report (conflict_on_2026-11-23).yianazip", "Report.yianazip", [.unison(date: "2026-11-23")]),
        // rclone bisync: before 1.66 (after the extension), 1.66+ (after it, or before with
        // --suffix-keep-extension), --conflict-loser pathname, conflicts of conflicts
        ("Report.yianazip..path1", "Report.yianazip", [.rclone(side: "path1")]),
        ("Report.yianazip..path2", "Report.yianazip", [.rclone(side: "path2")]),
        ("Report.yianazip.conflict1", "Report.yianazip", [.rclone(side: "conflict1")]),
        ("Report.conflict2.yianazip", "Report.yianazip", [.rclone(side: "conflict2")]),
        ("Report.yianazip.path1", "Report.yianazip", [.rclone(side: "path1")]),
        ("Report.yianazip.path1.path2", "Report.yianazip", [.rclone(side: "path2"), .rclone(side: "path1")]),
        // Seafile, Resilio, pCloud
        ("Scan (SFConflict alice@example.com 2026-03-01-14-22-33).yianazip", "Scan.yianazip", [.seafile(user: "alice@example.com", stamp: "2026-03-01-14-22-33")]),
        ("Scan (SFConflict 2026-03-01-14-22-33).yianazip", "Scan.yianazip", [.seafile(user: nil, stamp: "2026-03-01-14-22-33")]),
        ("Scan.Conflict.yianazip", "Scan.yianazip", [.resilio(nil)]),
        ("Scan.Conflict2.yianazip", "Scan.yianazip", [.resilio(2)]),
        ("Scan.conflicted.yianazip", "Scan.yianazip", [.pcloud]),
        ("Scan.yianazip.conflicted", "Scan.yianazip", [.pcloud]),
        // OneDrive (Windows: the computer's name; the Linux client's safe backup), Google Drive
        ("Report-DESKTOP-7K2L9QF.yianazip", "Report.yianazip", [.oneDrive(host: "DESKTOP-7K2L9QF", backup: nil)]),
        ("Report-laptop-safeBackup-0001.yianazip", "Report.yianazip", [.oneDrive(host: "laptop", backup: 1)]),
        ("Report_conf(1).yianazip", "Report.yianazip", [.googleDrive(1)]),
        // A second file of one name (Google Drive, OneDrive, Box, MEGA)
        ("Report (1).yianazip", "Report.yianazip", [.parenthesized(1)]),
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
        ("Invoice-2024.yianazip", "Invoice-2024.yianazip", []),
        ("Road-trip.yianazip", "Road-trip.yianazip", []),
        ("Report.yianazip", "Report.yianazip", []),
    ])
    func parses(name: String, original: String, marks: [Mark]) {
        let parsed = ConflictName(fileName: name)
        #expect(parsed.original == original, "\(name)")
        #expect(parsed.marks == marks, "\(name)")
    }

    /// Each pattern is tried only on names that hold its literal and end as it can end: that
    /// screen must never change what a name reads as, also for near misses and stacked marks.
    @Test func screeningPatternsNeverChangesAnAnswer() {
        let stems = ["Report", "Smith, J. (2019) Paper", "Invoice-2024 A", "Ω 測試 (draft)"]
        let marks = [".sync-conflict-20260301-142233-AB", ".sync-conflict-20260301-142233-", " (Bob's conflicted copy 2026-03-01 (1))",
                     " (Konfliktkopie von Anna 2026-03-01)", " (conflicted copy alice 2026-03-01 142233)", "_conflict-alice-20260301-142233",
                     " (case clash from 2026-03-01 142233)", " (conflict_on_2026-11-23)", ".conflict2", " (SFConflict 2026-03-01-14-22-33)",
                     ".Conflict", ".Conflict2", ".conflicted", "-DESKTOP-7K2L9QF", "-laptop-safeBackup-0001", "_conf(1)", " (1)", " (0)",
                     " 2", " 1000", " Copy", " Copy 3", " copy", "-", " ", "()", ".path1", ""]
        let outer = ["", " (1)", " 2", ".sync-conflict-20260302-101010-CD", " (Ann's conflicted copy 2026-03-02)", "-PC1"]
        let afterExtension = ["", "..path1", ".path2", ".conflict1", ".conflicted"]
        var names = 0
        for stem in stems {
            for inner in marks {
                for second in outer {
                    for after in afterExtension {
                        let name = stem + inner + second + ".yianazip" + after
                        #expect(ConflictName(fileName: name) == ConflictName(fileName: name, screened: false), "\(name)")
                        // The companion walk's quick test never misses a sync mark that comes off
                        // (with another extension too, as the app's `.json` files have).
                        for each in [name, stem + inner + second + ".json" + after] where ConflictName(fileName: each).withoutSyncMarks != each {
                            #expect(ConflictName.mayCarrySyncMark(each), "\(each)")
                        }
                        names += 1
                    }
                }
            }
        }
        #expect(names == stems.count * marks.count * outer.count * afterExtension.count)
    }

    @Test func syncMarksAreToldFromTheAppsOwn() {
        #expect(ConflictName(fileName: "A (Bob's conflicted copy 2026-03-01).yianazip").isSyncConflict)
        #expect(!ConflictName(fileName: "A 2.yianazip").isSyncConflict)
        #expect(!ConflictName(fileName: "A Copy.yianazip").isSyncConflict)
        #expect(ConflictName(fileName: "A (conflict_on_2026-11-23).yianazip").isSyncConflict)
        #expect(ConflictName(fileName: "A.yianazip..path1").isSyncConflict)
        // Forms a title could have count only where the metadata id says it is a copy.
        #expect(!ConflictName(fileName: "A-DESKTOP1.yianazip").isSyncConflict)
        #expect(!ConflictName(fileName: "A (1).yianazip").isSyncConflict)
    }

    @Test func onlyTheSyncMarksComeOffForTheNameACopyIsOf() {
        #expect(ConflictName(fileName: "Letter 2.sync-conflict-20260301-142233-ABCDEF7.json").withoutSyncMarks == "Letter 2.json")
        #expect(ConflictName(fileName: "Letter 2.sync-conflict-20260301-142233-ABCDEF7.json").original == "Letter.json")
        #expect(ConflictName(fileName: "A (Bob's conflicted copy 2026-03-01).sync-conflict-20260301-142233-ABCDEF7.yianazip").withoutSyncMarks == "A.yianazip")
        #expect(ConflictName(fileName: "A.yianazip..path1").withoutSyncMarks == "A.yianazip")
        #expect(ConflictName(fileName: "A 2.yianazip").withoutSyncMarks == "A 2.yianazip")
    }

    @Test func theScannerFindsDocumentsUnderNamesASyncServiceMangled() {
        #expect(LibraryScanner.documentName(of: "Report.yianazip..path1") == "Report.yianazip..path1")
        #expect(LibraryScanner.documentName(of: "Report.yianazip.conflict3") != nil)
        #expect(LibraryScanner.documentName(of: "Report.yianazip.conflicted") != nil)
        #expect(LibraryScanner.documentName(of: "Report.yianazip.Ab12Cd") == nil)  // libzip's temporary file
        #expect(LibraryScanner.documentName(of: "Report.pdf..path1") == nil)
    }
}
