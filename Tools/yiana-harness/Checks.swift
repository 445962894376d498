import Foundation
import YianaArchive
import YianaLibrary

/// What the checks after a run found.
struct Findings {
    /// Documents that are neither what they were before the run nor a document that verifies.
    var damaged: [String] = []
    /// Documents' bytes from before the run found nowhere after it (libraries, version stores, cloud).
    var lost: [String] = []
    /// Leftover temporary files, all of which `verify` must report.
    var tempFiles: [URL] = []
    var temps: Int { tempFiles.count }
    var unfoundTemps: [String] = []
    /// Anything else wrong (the index, a crash), in words.
    var other: [String] = []

    var clean: Bool { damaged.isEmpty && lost.isEmpty && unfoundTemps.isEmpty && other.isEmpty }

    var summary: String {
        (damaged.map { "damaged \($0)" } + lost.map { "lost \($0)" } + unfoundTemps.map { "temp not reported by verify: \($0)" } + other)
            .joined(separator: "; ")
    }
}

/// What went wrong over many runs: counted, and the first few in words.
struct Tally {
    var damaged = 0
    var lost = 0
    var crashes = 0
    var unfoundTemps = 0
    var indexProblems = 0
    var failures: [String] = []

    var failed: Bool { damaged > 0 || lost > 0 || crashes > 0 || unfoundTemps > 0 || indexProblems > 0 }

    mutating func fail(_ text: String) {
        if failures.count < 5 { failures.append(text) }
    }

    mutating func record(_ findings: Findings, _ description: String) {
        damaged += findings.damaged.count
        lost += findings.lost.count
        unfoundTemps += findings.unfoundTemps.count
        if !findings.clean { fail("\(description): \(findings.summary)") }
    }
}

/// Hashes and verifications of a run folder.
enum Checks {
    /// SHA-256 of the file at `url` (nil when it cannot be read).
    static func hash(_ url: URL) -> String? {
        try? FileHash.sha256(of: url)
    }

    /// Every document (not placeholders, temporary or hidden files) in `libraries`, by its
    /// path relative to `root`, with its SHA-256.
    static func documents(in libraries: [URL], root: URL) -> [String: String] {
        var found: [String: String] = [:]
        for library in libraries {
            for url in files(under: library, skippingState: true)
            where url.pathExtension == Library.documentExtension && !url.lastPathComponent.hasPrefix(".") {
                if let sha = hash(url) { found[relative(url, to: root)] = sha }
            }
        }
        return found
    }

    /// The SHA-256 of every regular file under `root` (libraries, version stores, cloud).
    static func allHashes(under root: URL) -> Set<String> {
        // And the keepers' stores in this machine's state: where a replaced or lost state is kept.
        let keepers = files(under: root.appendingPathComponent(machineFolder), skippingState: false, enteringMachine: true)
            .filter { $0.deletingLastPathComponent().lastPathComponent == "objects" && $0.path.contains("/keeper/") }
        return Set((files(under: root, skippingState: false) + keepers).compactMap(hash))
    }

    /// Every tag in the metadata of every version of every document under `root`: the
    /// libraries, the version stores and the cloud store.
    static func tagsInEveryVersion(under root: URL) -> Set<String> {
        var tags = Set<String>()
        for url in files(under: root, skippingState: false) {
            if let metadata = try? DocumentReader(path: url.path).metadata() { tags.formUnion(metadata.tags) }
        }
        return tags
    }

    /// The documents a `yiana edit --json` run says it changed.
    static func editedPaths(_ output: String) -> [String] {
        guard let start = output.firstIndex(of: "["),
              let results = try? JSONSerialization.jsonObject(with: Data(output[start...].utf8)) as? [[String: Any]] else { return [] }
        return results.filter { $0["changed"] as? Bool == true }.compactMap { $0["path"] as? String }
    }

    /// The run's stand-in for this machine's state and cache folders (never a place where a
    /// document's bytes count as kept: scratch files and partial downloads are copies).
    static let machineFolder = ".machine"

    static func files(under folder: URL, skippingState: Bool, enteringMachine: Bool = false) -> [URL] {
        guard let enumerator = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: [.isRegularFileKey]) else { return [] }
        var found: [URL] = []
        for case let url as URL in enumerator {
            // `.ocr_results` is skipped with the state: `yiana ocr` removes its own leftovers
            // there (the ocr scenario's check), verify does not look in it.
            if (url.lastPathComponent == machineFolder && !enteringMachine) || (skippingState && [Library.stateFolderName, ".ocr_results"].contains(url.lastPathComponent)) {
                enumerator.skipDescendants()
                continue
            }
            if (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true { found.append(url) }
        }
        return found
    }

    static func relative(_ url: URL, to root: URL) -> String {
        let path = url.standardizedFileURL.path, base = root.standardizedFileURL.path + "/"
        return path.hasPrefix(base) ? String(path.dropFirst(base.count)) : path
    }

    /// Verifies `libraries` after a run: what changed must verify, nothing from `before` may be
    /// lost, and every leftover temporary file must be reported by verify.
    static func afterRun(libraries: [URL], root: URL, before: [String: String]) async -> Findings {
        var findings = Findings()
        let ignorable: Set<ProblemCode> = [.leftoverTempFile, .duplicateID]
        for libraryURL in libraries {
            guard let library = try? Library(root: libraryURL) else {
                findings.other.append("\(libraryURL.path) cannot be opened as a library")
                continue
            }
            // The keeper's store: every state it lists has its bytes (checked before the
            // verify below, which looks at the library and so writes to the store).
            let keeper = Keeper(library: library)
            findings.other += (keeper.integrityProblems() + keeper.catalogProblems()).map { "keeper of \(relative(libraryURL, to: root)): \($0)" }
            let report = await Verifier(library: library).verify(jobs: 2)
            var reportedTemps = Set<String>()
            for file in report.files {
                let codes = Set(file.problems.filter { !$0.isNotice }.map(\.code))
                let url = file.path.hasPrefix("/") ? URL(fileURLWithPath: file.path) : libraryURL.appendingPathComponent(file.path)
                if codes.contains(.leftoverTempFile) { reportedTemps.insert(url.standardizedFileURL.path) }
                let damage = codes.subtracting(ignorable)
                guard !damage.isEmpty else { continue }
                let key = relative(url, to: root)
                if let was = before[key], was == hash(url) { continue }  // as it was before the run
                findings.damaged.append("\(key) (\(damage.map(\.rawValue).sorted().joined(separator: ", ")))")
            }
            for url in files(under: libraryURL, skippingState: true) where LibraryScanner.isLeftoverTemp(url.lastPathComponent) {
                findings.tempFiles.append(url)
                if !reportedTemps.contains(url.standardizedFileURL.path) { findings.unfoundTemps.append(relative(url, to: root)) }
            }
        }
        let after = allHashes(under: root)
        findings.lost = before.filter { !after.contains($0.value) }.map(\.key).sorted()
        return findings
    }
}
