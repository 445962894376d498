import ArgumentParser
import Foundation
import YianaArchive
import YianaLibrary
import YianaSystem

/// `--library`, shared by every command.
struct LibraryOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "The library folder.", discussion: "Default: $YIANA_LIBRARY, else the current folder.", valueName: "dir"))
    var library: String?

    /// The library, or a usage error (exit 2) naming the folder.
    func open() throws -> Library {
        do {
            return try Library.resolve(explicit: library)
        } catch let error as LibraryError {
            throw ValidationError(error.description)
        }
    }

    /// The library, made first when its folder does not exist yet (for `import`, which
    /// starts a library): the parent folder must exist, so a mistyped path is still refused.
    func openOrCreate() throws -> Library {
        let chosen = library ?? ProcessInfo.processInfo.environment[Library.environmentVariable].flatMap { $0.isEmpty ? nil : $0 }
        if let chosen {
            let url = URL(fileURLWithPath: chosen).standardizedFileURL
            if FileKind.at(url.path) == .missing, FileKind.at(url.deletingLastPathComponent().path) == .folder {
                do {
                    try Sys.makeDirectory(url.path, mode: 0o755)
                    Output.error("made the library folder \(url.path)")
                } catch {
                    throw ValidationError("the library folder \(url.path) does not exist and could not be made: \(error)")
                }
            }
        }
        return try open()
    }

    /// The document an argument names, or an error that says what was looked for.
    func document(_ argument: String, in library: Library) throws -> URL {
        do { return try library.document(named: argument) } catch let error as DocumentLookupError { throw CommandFailure(error.description) }
    }
}

extension LibraryOptions {
    /// The files or folders arguments name, for commands that check whatever they are
    /// given (verify, repair): found as `document(_:in:)` finds documents, a placeholder
    /// as its stub, anything else as given (and then reported as not found).
    func targets(_ arguments: [String], in library: Library) -> [URL] {
        arguments.map { argument in
            switch library.locate(argument) {
            case .document(let url): url
            case .placeholder(let stub, _): stub
            case .notFound: URL(fileURLWithPath: argument).standardizedFileURL
            }
        }
    }
}

/// `--jobs`, for commands that work on several files at once.
struct JobsOption: ParsableArguments {
    @Option(help: "How many files to work on at once (default: the number of cores).")
    var jobs: Int = ProcessInfo.processInfo.activeProcessorCount

    func validate() throws {
        guard jobs >= 1 else { throw ValidationError("--jobs must be at least 1.") }
    }
}

/// `--now`, for commands that leave alone documents a sync program is still writing.
struct ArrivalOption: ParsableArguments {
    @Flag(help: ArgumentHelp(
        "Also work on documents that are still arriving.",
        discussion: "A document whose file changed in the last few seconds ($YIANA_SETTLE_SECONDS, default 5), or beside which a sync program's temporary file for it stands, is being written by a sync program: it is left for a later run unless --now is given."))
    var now = false

    /// Seconds a file must have been left alone (0 with `--now`).
    var settle: Double { now ? 0 : Arrival.defaultWindow }
}

/// A failure the command reports in a sentence, exiting with 1.
struct CommandFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }

    /// One rule for every command: only a regular file is a document (a FIFO, a folder, a
    /// link is refused with the reason, never opened).
    static func unlessRegularFile(_ url: URL) throws {
        if let refusal = FileKind.at(url.path).refusal { throw CommandFailure("\(url.path): \(refusal).") }
    }
}

enum Output {
    /// Prints `value` as pretty JSON with sorted keys on standard output.
    static func json<T: Encodable>(_ value: T) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .internetTime
        print(String(decoding: try encoder.encode(value), as: UTF8.self))
    }

    static func error(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    /// What a summary line adds when a run left `count` documents for later because a sync
    /// program is still writing them: how many, and when to run again.
    static func later(_ count: Int, _ noun: String = "document", _ plural: String? = nil) -> String {
        guard count > 0 else { return "" }
        let wait = max(1, Int(Arrival.defaultWindow.rounded(.up)))
        return " \(Output.count(count, noun, plural)) left for later: still arriving (a sync program is writing \(count == 1 ? "it" : "them")); "
            + "run the command again in \(wait) s, or with --now to go ahead."
    }

    /// "1 document", "2 documents", "1 stray copy", "3 stray copies": a count with its noun.
    static func count(_ n: Int, _ singular: String, _ plural: String? = nil) -> String {
        "\(n) \(n == 1 ? singular : plural ?? singular + "s")"
    }
}
