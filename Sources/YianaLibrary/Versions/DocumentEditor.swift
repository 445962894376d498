import Foundation
import YianaFolder
import YianaHistory
import YianaArchive
import YianaSystem

/// A change to a document's metadata, as a person makes it in the app.
public struct MetadataEdit: Sendable, Equatable {
    public var title: String?
    public var addTags: [String] = []
    public var removeTags: [String] = []

    public init(title: String? = nil, addTags: [String] = [], removeTags: [String] = []) {
        self.title = title
        self.addTags = addTags
        self.removeTags = removeTags
    }

    public var isEmpty: Bool { title == nil && addTags.isEmpty && removeTags.isEmpty }

    /// `metadata` with the edit made; `modified` is set to `now` when anything changed.
    public func applied(to metadata: DocumentMetadata, now: Date) -> DocumentMetadata {
        var edited = metadata
        if let title { edited.title = title }
        edited.tags = edited.tags.filter { !removeTags.contains($0) }
        for tag in addTags where !edited.tags.contains(tag) { edited.tags.append(tag) }
        if edited != metadata { edited.modified = now }
        return edited
    }
}

/// Edits documents' metadata through the coordinated writer, keeping what it replaces in
/// the version store and recording the step in the history (so that conflict resolution
/// can later find the common ancestor of two edits).
public struct DocumentEditor: Sendable {
    public let library: Library

    public init(library: Library) {
        self.library = library
    }

    /// Applies `edit` to the document at `url`.
    /// - Returns: the metadata written, or nil when the edit changes nothing.
    /// If another process writes the document meanwhile, the edit is made again on what it wrote
    /// (an edit is a change to whatever the metadata is), never written over it.
    @discardableResult
    public func apply(_ edit: MetadataEdit, to url: URL, now: Date = Date()) throws -> DocumentMetadata? {
        var attempt = 0
        while true {
            attempt += 1
            let identity = FileIdentity(path: url.path)
            let reader = try DocumentReader(path: url.path)
            let before = try reader.metadata()
            let after = edit.applied(to: before, now: now)
            guard after != before else { return nil }
            let parent = reader.contentKey
            _ = try VersionStore(library: library).keep(url, reason: "before an edit")
            do {
                try DocumentRewrite(library: library).write(after, pdfFrom: url, to: url, replacing: true, expecting: identity)
            } catch let error as ArchiveError where error.kind == .documentChanged && attempt < 5 {
                continue
            }
            if let key = try? DocumentReader(path: url.path).contentKey {
                try? DocumentHistory(library: library).record(documentID: after.id.uuidString, key: key, parents: parent.map { [$0] } ?? [], what: "edit")
            }
            return after
        }
    }
}

/// What `yiana edit` did to each document it was given.
public struct EditReport: Encodable, Sendable {
    public struct Result: Encodable, Sendable {
        public let path: String
        /// False when the document already was so (nothing written) or the edit failed.
        public let changed: Bool
        public let title: String?
        public let tags: [String]?
        public let error: String?
    }

    public var results: [Result] = []
    public var failed: Bool { results.contains { $0.error != nil } }

    public func encode(to encoder: any Encoder) throws {
        try results.encode(to: encoder)  // the JSON is the list, as it always was
    }
}

extension DocumentEditor {
    /// Applies `edit` to each named document (see ``apply(_:to:now:)``), going on past failures.
    public func apply(_ edit: MetadataEdit, toDocumentsNamed arguments: [String]) -> EditReport {
        var report = EditReport()
        for argument in arguments {
            do {
                let url = try library.document(named: argument)
                let path = library.relativePath(of: url) ?? url.path
                let written = try apply(edit, to: url)
                report.results.append(.init(path: path, changed: written != nil, title: written?.title, tags: written?.tags, error: nil))
            } catch {
                report.results.append(.init(path: argument, changed: false, title: nil, tags: nil, error: "\(error)"))
            }
        }
        return report
    }
}
