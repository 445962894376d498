import Foundation
import YianaLibrary
import YianaSystem

/// The `backup` scenario (issue 58): `yiana backup` of a library (two documents of 1.5 MB
/// among them) to a restic repository in the run folder, killed at any moment, restic's run
/// with it; the next run must complete a snapshot that holds every document, the repository
/// must pass `restic check`, and the library must be as it was (the harness's own checks).
enum BackupCheck {
    static let repository = "repo"

    static func build(_ context: Context) throws -> [String] {
        try context.importPDFs(["b1", "b2", "b3", "b4", "b5"], into: "lib", big: ["b1", "b2"])
        let password = context.path("restic-password")
        try Data("harness\n".utf8).write(to: URL(fileURLWithPath: password))
        // restic reads its password where the runs find it: the harness's environment.
        setenv("RESTIC_PASSWORD_FILE", password, 1)
        let restic = try Restic(repository: context.path(repository))
        try restic.run(["init"])
        return ["backup", "--library", context.path("lib"), "--repo", context.path(repository)]
    }

    /// Nil when the newest snapshot holds every document of `library` and the repository checks.
    static func finished(_ library: URL) -> String? {
        do {
            let restic = try Restic(repository: library.deletingLastPathComponent().appendingPathComponent(repository).path)
            let history = try ResticHistory(restic: restic, library: try Library(root: library), chosenID: nil,
                                            scratch: library.deletingLastPathComponent().appendingPathComponent("restic-scratch"))
            let held = try history.contents(of: try history.snapshot()).libraryPaths
            let documents = try LibraryScanner.scan(try Library(root: library)).items.filter { $0.kind == .document }.count
            if held.count != documents { return "the newest snapshot holds \(held.count) documents of \(documents)" }
            // A killed run's lock stays behind (restic's way); check takes the repository alone,
            // so it is removed first, as `yiana backup forget` does.
            try restic.removeStaleLocks()
            let check = try restic.run(["check"])
            if check.status != 0 { return "restic check: \(check.errors.suffix(300))" }
            return nil
        } catch {
            return "the repository: \(error)"
        }
    }
}
