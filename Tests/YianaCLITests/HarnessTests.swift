import Foundation
import Testing
import YianaArchive
import YianaLibrary
import YianaTestSupport

/// The short version of Scripts/soak/crash-harness.sh: every write path killed and faulted a few
/// times, and one round of concurrent processes; nothing may be damaged or lost.
@Suite("crash and fault harness")
struct HarnessTests {
    /// The write paths in groups of about equal length, run at once (the harness is one
    /// process running path after path; alone it would be the suite's longest test). The last
    /// group is every path the others do not name, so a new write path is run, and must be
    /// named here, as before.
    static let groups: [[String]] = [
        ["ocr", "serve import", "serve restore", "serve edit", "serve delete", "serve resolve"],
        ["watch", "index", "append", "inject"],
        ["backup"],
        ["concurrency"],
    ]
    static let others: Set<String> = ["import", "repair", "edit", "move", "rename", "delete", "conflicts resolve", "download", "evict", "sync",
                                      "versions restore", "restore deleted"]

    @Test(arguments: 0...groups.count)
    func everyWritePathSurvivesKillsAndFaults(group: Int) async throws {
        let harness = Fixtures.productsFolder.appendingPathComponent("yiana-harness")
        let work = try TemporaryFolder()
        let named = Self.groups.flatMap { $0 }.joined(separator: ",")
        let selection = group < Self.groups.count ? ["--only", Self.groups[group].joined(separator: ",")] : ["--skip", named]
        let run = try await runProcess(harness, ["--kills", "2", "--faults", "2", "--rounds", "1", "--seed", "11", "--json",
                                           "--samples", Fixtures.sampleDocs.path, "--work", work.url.appendingPathComponent("h").path] + selection)
        #expect(run.status == 0, "\(run.stdout)\n\(run.stderr.suffix(2000))")
        let json = run.stdout[run.stdout.firstIndex(of: "{")!...]
        let report = try JSONSerialization.jsonObject(with: Data(json.utf8)) as! [String: Any]
        let paths = report["paths"] as! [[String: Any]]
        let expected = group < Self.groups.count ? Set(Self.groups[group]).subtracting(["concurrency"]) : Self.others
        #expect(Set(paths.map { $0["path"] as! String }) == expected)
        for path in paths {
            #expect(path["kills"] as! Int >= 2 && path["faults"] as! Int >= 2, "\(path)")
            #expect(path["damaged"] as! Int == 0 && path["bytesLost"] as! Int == 0 && path["crashes"] as! Int == 0, "\(path)")
            #expect(path["recovered"] as! Int == path["runs"] as! Int, "\(path)")
            #expect(path["tempsRemoved"] as! Int == path["temps"] as! Int, "\(path)")
        }
        if group < Self.groups.count, Self.groups[group].contains("concurrency") {
            let concurrency = try #require(report["concurrency"] as? [String: Any])
            #expect(concurrency["rounds"] as! Int == 1 && concurrency["damaged"] as! Int == 0 && concurrency["bytesLost"] as! Int == 0)
        } else {
            #expect((report["concurrency"] as? [String: Any])?.isEmpty == true)
        }
    }

    /// An I/O error while reading a good document is said as "unreadable", never as damage
    /// (which `repair` would then act on), at whichever read it happens.
    @Test func anIOErrorIsNeverTakenForDamage() async throws {
        let folder = try TemporaryFolder()
        let yiana = Fixtures.productsFolder.appendingPathComponent("yiana")
        for name in ["One", "Two"] {
            try CoordinatedDocument.create(at: folder.path("\(name).yianazip"), metadata: DocumentMetadata(title: name, pageCount: 1),
                                           pdf: .data(simplePDF([name])))
        }
        var environment = ProcessInfo.processInfo.environment
        environment["LD_PRELOAD"] = try FaultShim.library().path
        environment["YIANA_FAULT_ROOT"] = folder.url.path
        environment["YIANA_FAULT_KIND"] = "eio"
        var unreadable = 0
        for at in 1...40 {
            environment["YIANA_FAULT_AT"] = String(at)
            let run = try await runProcess(yiana, ["verify", "--json", "--jobs", "1", "--library", folder.url.path], environment: environment)
            let report = try JSONDecoder().decode(VerifyReport.self, from: Data(run.stdout.utf8))
            let codes = Set(report.files.flatMap(\.problems).map(\.code.rawValue))
            #expect(codes.isSubset(of: ["unreadable"]), "EIO at read \(at): \(codes)")
            if codes == ["unreadable"] { unreadable += 1 }
        }
        #expect(unreadable > 5)  // the faults did land
    }
}
