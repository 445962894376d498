import Foundation
import Testing
import YianaTestSupport

/// The toolkit under real sync programs, started by the test on this machine only
/// (`yiana-realsync`; the long form is Scripts/soak/realsync-syncthing.sh): import, sync, a tag
/// on one device and a new title on the other while apart, reconnect, merge, sync again.
/// Each scenario has folders, a unison home and loopback ports of its own, so they run at once.
@Suite("real sync programs")
struct RealSyncTests {
    let tool = Fixtures.productsFolder.appendingPathComponent("yiana-realsync")

    func scenario(_ program: String, _ scenario: String = "edit", extra: [String] = []) async throws -> [String: Any] {
        var environment = ProcessInfo.processInfo.environment
        environment["USER"] = "yiana"  // the test server's user, for a postgres:// URL without one
        let run = try await runProcess(tool, ["--program", program, "--scenario", scenario, "--json", "--samples", Fixtures.sampleDocs.path] + extra,
                                 environment: environment)
        let result = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any], "\(run.stdout)\(run.stderr)")
        #expect(run.status == 0, "\(result["problems"] ?? run.stderr)")
        return result
    }

    func check(_ result: [String: Any]) {
        #expect(result["conflictGroupsBeforeResolve"] as? Int == 1, "the sync program made its conflict copy")
        #expect(result["bothEditsKept"] as? Bool == true)
        #expect(result["mergedThreeWay"] as? Bool == true)
        #expect((result["overruled"] as? [String])?.isEmpty == true)
        #expect(result["documentConflictCopiesLeft"] as? Int == 0)
        #expect(result["stateConflictCopiesLeft"] as? Int == 0)
        #expect(result["converged"] as? Bool == true)
        #expect(result["verifyClean"] as? [Bool] == [true, true])
        let kept = result["versionsKept"] as? Int ?? 0
        #expect(kept >= 3 && result["versionsListed"] as? [Int] == [kept, kept])
        #expect(result["versionBytesMissing"] as? Int == 0)
        #expect((result["travelled"] as? [String])?.isEmpty == true, "a lock, scratch or local file was in the synced folder")
    }

    @Test func unison() async throws {
        check(try await scenario("unison"))
    }

    @Test func syncthing() async throws {
        check(try await scenario("syncthing"))
    }

    /// Nothing lost, whoever deletes: device b deletes, overwrites (random bytes, zero bytes)
    /// and edits; a's watcher lists every loss, one command brings all back byte for byte,
    /// the restores reach b, b's edit survives (Syncthing in Scripts/soak/realsync-syncthing.sh).
    @Test func deletionsAndOverwritesFromAnotherDeviceAreBroughtBackUnderUnison() async throws {
        let result = try await scenario("unison", "keeper")
        let lost = (result["deleted"] as? [String] ?? []) + (result["overwritten"] as? [String] ?? [])
        #expect(lost.count == 5 && Set(result["listed"] as? [String] ?? []) == Set(lost))
        #expect(result["alarmRaised"] as? Bool == true && result["alarmLowered"] as? Bool == true)
        #expect(result["restoredIdentical"] as? [Int] == [5, 5])
        #expect(result["unwatchedRecovered"] as? Bool == true)
        #expect(result["editKept"] as? Bool == true)
        #expect(result["converged"] as? Bool == true)
        #expect(result["verifyClean"] as? [Bool] == [true, true])
        #expect((result["travelled"] as? [String])?.isEmpty == true)
    }

    /// Both devices run `yiana ocr` on one scan while apart (Syncthing in Scripts/soak/realsync-syncthing.sh).
    @Test func ocrOnBothDevicesUnderUnison() async throws {
        let result = try await scenario("unison", "ocr")
        #expect(result["documentConflictGroups"] as? Int == 1, "the sync program made its conflict copy of the document")
        #expect(result["resultCopiesMade"] as? Int ?? 0 >= 1, "and of the results files")
        #expect(result["resultCopiesSettled"] as? Int == result["resultCopiesMade"] as? Int)
        #expect((result["overruled"] as? [String])?.isEmpty == true)
        #expect((result["conflictCopiesLeft"] as? [String])?.isEmpty == true)
        #expect(result["converged"] as? Bool == true)
        #expect(result["verifyClean"] as? [Bool] == [true, true])
        #expect(result["resultsMatch"] as? [Bool] == [true, true])
        #expect(result["foundOnPage"] as? [Bool] == [true, true])
        #expect((result["travelled"] as? [String])?.isEmpty == true)
    }

    /// Corrections, the work list and a draft changed on both devices while apart (Syncthing
    /// in Scripts/soak/realsync-syncthing.sh): every correction and item of both devices kept in
    /// the plain files, which the app's decoders read; no conflict copy left; every byte from
    /// before resolving retrievable on both; verify clean.
    @Test func companionFilesChangedOnBothDevicesUnderUnison() async throws {
        let result = try await scenario("unison", "companions")
        #expect(result["companionCopiesMade"] as? Int ?? 0 >= 3, "unison conflict-copied the corrections, work list and draft")
        let made = result["correctionsMade"] as? Int ?? 0
        #expect(made == 4 && result["correctionsKept"] as? [Int] == [made, made])
        #expect(result["workListItemsKept"] as? [Int] == [3, 3])
        #expect(result["appDecodes"] as? [Bool] == [true, true])
        #expect((result["conflictCopiesLeft"] as? [String])?.isEmpty == true)
        let needed = result["versionsNeeded"] as? Int ?? 0
        #expect(needed > 0 && result["versionsRetrievable"] as? [Int] == [needed, needed])
        let kept = result["versionsKept"] as? Int ?? 0
        #expect(kept >= 3 && result["versionsListed"] as? [Int] == [kept, kept])
        #expect(result["converged"] as? Bool == true)
        #expect(result["verifyClean"] as? [Bool] == [true, true])
        #expect((result["travelled"] as? [String])?.isEmpty == true)
    }

    /// Extraction on one device and a person's correction on the other, while apart (Syncthing
    /// in Scripts/soak/realsync-syncthing.sh): both survive as written, the app shows the correction.
    @Test func extractionAndACorrectionApartUnderUnison() async throws {
        let result = try await scenario("unison", "extract")
        #expect(result["pagesKept"] as? [Int] == [1, 1])
        #expect(result["correctionKept"] as? [Bool] == [true, true])
        #expect(result["appDecodes"] as? [Bool] == [true, true])
        #expect(result["shown"] as? [String] == ["Eleanor M Hartley (corrected)", "Eleanor M Hartley (corrected)"])
        #expect((result["conflictCopiesLeft"] as? [String])?.isEmpty == true)
        #expect(result["converged"] as? Bool == true)
        #expect((result["travelled"] as? [String])?.isEmpty == true)
    }

    /// The app's letter injected into its patient's document and extracted by the watcher on one
    /// device (Syncthing in Scripts/soak/realsync-syncthing.sh): on both devices each of its
    /// pages names the patient of its Re: line with her MRN, postcode and GP, never the consultant.
    @Test func aLetterInjectedAndExtractedNamesItsPatientUnderUnison() async throws {
        let result = try await scenario("unison", "letter")
        let expected = result["expectedPages"] as? Int ?? 0
        #expect(expected > 2 && result["pages"] as? [Int] == [expected, expected], "\(result)")
        #expect(result["letterPagesNamingThePatient"] as? [Int] == [2, 2] && result["consultantAsPatient"] as? [Int] == [0, 0], "\(result)")
        #expect(result["appDecodes"] as? [Bool] == [true, true] && (result["conflictCopiesLeft"] as? [String])?.isEmpty == true)
        #expect(result["converged"] as? Bool == true && (result["travelled"] as? [String])?.isEmpty == true, "\(result)")
    }

    /// Rename, move and delete on one device carried to the other (Syncthing in
    /// Scripts/soak/realsync-syncthing.sh): the same files at the new paths, none at the old, the
    /// deletion restorable on both devices and b's restore back on a.
    @Test func renameMoveAndDeleteCarriedUnderUnison() async throws {
        let result = try await scenario("unison", "organize")
        #expect(result["renamedOnB"] as? Bool == true && result["movedOnB"] as? Bool == true && (result["oldPathsLeft"] as? [String])?.isEmpty == true)
        #expect(result["deletedOnB"] as? Bool == true && result["restorable"] as? [Bool] == [true, true] && result["restoredOnA"] as? Bool == true)
        #expect((result["conflictCopiesLeft"] as? [String])?.isEmpty == true && result["converged"] as? Bool == true)
        #expect(result["verifyClean"] as? [Bool] == [true, true] && (result["travelled"] as? [String])?.isEmpty == true)
    }

    /// The box tells its person (issue 55): a fifth of the library deleted on the other device
    /// gives one alert within a minute with the count and the restore command, the heartbeat
    /// at /fail; the restore one "resolved"; a message while the receiver is down is delivered
    /// once it is back; a restart repeats nothing (Syncthing in Scripts/soak/realsync-syncthing.sh).
    @Test func theBoxTellsItsPersonUnderUnison() async throws {
        let result = try await scenario("unison", "notify")
        #expect((result["problems"] as? [String])?.isEmpty == true, "\(result["problems"] ?? "")")
        #expect(result["alerts"] as? Int == 1 && (result["secondsToAlert"] as? Double).map { $0 >= 0 && $0 <= 60 } == true)
        #expect(result["heartbeatFailed"] as? Bool == true && result["resolved"] as? Bool == true && result["heartbeatBack"] as? Bool == true)
        #expect(result["waitedWhileDown"] as? Bool == true && (result["deliveredAfter"] as? Double ?? -1) >= 0)
        #expect(result["repeatedAfterRestart"] as? Int == 0 && (result["travelled"] as? [String])?.isEmpty == true)
    }

    /// One rendered letter injected on both devices while apart (Syncthing in
    /// Scripts/soak/realsync-syncthing.sh): its pages in the document exactly once on both, no
    /// conflict copy left, every byte retrievable, verify clean.
    @Test func aLetterInjectedOnBothDevicesUnderUnison() async throws {
        let result = try await scenario("unison", "inject")
        #expect(result["appendsMade"] as? Int == 3 && result["documentCopiesMade"] as? Int ?? 0 >= 1, "both devices appended; unison conflict-copied")
        let expected = result["expectedPages"] as? Int ?? 0
        #expect(expected > 1 && result["pages"] as? [Int] == [expected, expected], "each letter once")
        #expect(result["documents"] as? [Int] == [1, 1], "one document, no (other PDF) beside it")
        #expect((result["conflictCopiesLeft"] as? [String])?.isEmpty == true)
        let needed = result["bytesNeeded"] as? Int ?? 0
        #expect(needed > 0 && result["bytesRetrievable"] as? [Int] == [needed, needed])
        #expect(result["converged"] as? Bool == true && result["verifyClean"] as? [Bool] == [true, true])
        #expect((result["travelled"] as? [String])?.isEmpty == true)
    }

    /// Two `yiana watch --index postgres://…` on two copies of one library kept in step by
    /// unison, into one database, while documents are added, edited, renamed and removed on
    /// both: at the end the library's rows equal a fresh `yiana index` of a copy.
    @Test func twoWatchersShareOnePostgreSQLIndexUnderUnison() async throws {
        let server = try TestPostgres.shared()
        let result = try await scenario("unison", "shared-index", extra: ["--index", server.url(database: try server.makeDatabase()),
                                                                     "--fresh-index", server.url(database: try server.makeDatabase())])
        #expect(result["converged"] as? Bool == true)
        #expect(result["equalsFresh"] as? Bool == true, "\(result["differences"] ?? "")")
        #expect(result["indexedFresh"] as? Int == 3 && result["indexedShared"] as? Int == 3)
        #expect((result["watcherErrors"] as? [String])?.isEmpty == true)
        #expect((result["travelled"] as? [String])?.isEmpty ?? true)
    }
}
