import Foundation
import YianaArchive

/// Checks the app's companion files as the app reads them: each JSON file decoded with the
/// app's model (``CompanionShape``), the app's leftover temporary files, conflict copies the
/// app never reads, and files whose document is not in the library (a notice: the app keeps
/// them, and so does the toolkit).
public struct CompanionCheck: Sendable {
    public let library: Library

    public init(library: Library) {
        self.library = library
    }

    /// One verified file per companion of `scan` (which walked the whole library when
    /// `wholeLibrary`: only then can a document be said to be missing).
    public func check(_ scan: LibraryScan, wholeLibrary: Bool, arrival: Arrival) -> [VerifiedFile] {
        let documents = wholeLibrary ? DocumentKeys(scan: scan) : nil
        return scan.companions.map { check($0, documents: documents, arrival: arrival) }
    }

    /// One companion file checked; with `documents`, one whose document is not among them is
    /// an orphan (a notice).
    public func check(_ file: CompanionFile, documents: DocumentKeys? = nil, arrival: Arrival) -> VerifiedFile {
        let url = library.root.appendingPathComponent(file.path)
        var problems: [VerifyProblem] = []
        if file.isTemp {
            problems.append(VerifyProblem(code: .leftoverTempFile, message: "\(file.path): a temporary file of \(file.plainPath) (\(file.kind.label)), left by an interrupted save; it may hold the newest version: compare it with \(file.plainPath) (`yiana repair --remove-temps` keeps it in the version store and removes it; `yiana versions restore` can put it in place)."))
            return VerifiedFile(path: file.path, problems: problems)
        }
        if file.isConflictCopy {
            problems.append(VerifyProblem(code: .companionConflictCopy, message: "\(file.path): a sync program's conflict copy of \(file.plainPath) (\(file.kind.label)\(file.marks.isEmpty ? "" : "; \(file.marks.joined(separator: "; "))")); the app reads only \(file.plainPath), so what is in this copy is invisible to it: `yiana conflicts resolve --strategy merge` merges it, keeping every version."))
        }
        var content: JSONValue?
        if let shape = CompanionShape.of(file.kind) {
            switch CompanionContent.json(at: url) {
            case .failure(let failure):
                problems.append(decodeProblem(file, code: .companionNotJSON, failure))
            case .success(let value):
                content = value
                if let first = shape.failures(value).first { problems.append(decodeProblem(file, code: .companionAppRefuses, first)) }
            }
        }
        if file.kind == .injectLetter, file.key == nil {
            var notice = VerifyProblem(code: .injectNameUnreadable, message: "\(file.path): not named `<document>_<UUID>.pdf`; the app moves it to .letters/unmatched/ without appending it.")
            notice.isNotice = true
            problems.append(notice)
        }
        if let documents, let owner = owner(of: file, content: content), documents.document(named: owner) == nil {
            var notice = VerifyProblem(code: .companionOrphan, message: "\(file.path): no document \"\(owner)\" is in the library (\(file.kind.label)); kept as it is: the document may be elsewhere or renamed.")
            notice.isNotice = true
            notice.key = owner
            problems.append(notice)
        }
        // A file a sync program is still writing is not damaged yet: one that reads whole is
        // arriving only while the program's temporary file for it is beside it.
        let whole = CompanionShape.of(file.kind) == nil || content != nil
        if problems.contains(where: { !$0.isNotice }), let why = arrival.stillArriving(url, whole: whole) {
            return VerifiedFile(path: file.path, problems: [Arrival.notice(file.path, why)])
        }
        return VerifiedFile(path: file.path, problems: problems)
    }

    private func decodeProblem(_ file: CompanionFile, code: ProblemCode, _ failure: CompanionDecodeFailure) -> VerifyProblem {
        let at = failure.key.isEmpty ? "" : " at \(failure.key)"
        let consequence = file.kind == .legacyWorkList
            ? "the app deletes this file when it cannot decode it: keep a copy"
            : "the app cannot read it and acts as if it were not there"
        var problem = VerifyProblem(code: code, message: "\(file.path): \(failure.reason)\(at) (\(file.kind.label)); \(consequence).")
        problem.key = failure.key.isEmpty ? nil : failure.key
        return problem
    }

    /// The document a file belongs to: an address file's key (the document's title), an
    /// inject letter's target (its file name), a draft's `yiana_target`.
    private func owner(of file: CompanionFile, content: JSONValue?) -> String? {
        switch file.kind {
        case .addressExtraction, .addressCorrections:
            return file.isConflictCopy ? nil : file.key
        case .injectLetter:
            return file.key
        case .letterDraft:
            guard !file.isConflictCopy, case .object(let object)? = content, case .string(let target)? = object["yiana_target"] else { return nil }
            return target.isEmpty ? nil : target
        default:
            return nil
        }
    }
}
