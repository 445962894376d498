import Foundation
import YianaArchive

/// A three-way merge of two documents' metadata against their common ancestor.
public enum MetadataMerge {
    public struct Result: Sendable {
        public var metadata: DocumentMetadata
        /// Fields both sides changed differently: which value was kept, which recorded here.
        public var overruled: [String]
    }

    /// Merges `ours` and `theirs` (same document) against `ancestor` (nil: unknown, then a
    /// field that differs counts as changed on both sides):
    /// - a field changed on one side takes that side's value; changed on both, the newer
    ///   side's (by `modified`; ours on a tie) and the other is recorded in `overruled`;
    /// - tags merge as sets: additions from both, removals relative to the ancestor;
    /// - the OCR fields move together, from the side with `ocrCompleted` (or the newer);
    /// - unknown keys merge key by key like fields; `modified` becomes `now`.
    /// `pageCount` and `pdfHash` are left to the caller, who picks the PDF.
    public static func merge(ancestor: DocumentMetadata?, ours: DocumentMetadata, theirs: DocumentMetadata, now: Date) -> Result {
        let theirsNewer = theirs.modified > ours.modified
        var result = ours
        var overruled: [String] = []

        func pick<T: Equatable>(_ name: String, _ field: KeyPath<DocumentMetadata, T>, describe: (T) -> String = { "\($0)" }) -> T {
            let o = ours[keyPath: field], t = theirs[keyPath: field]
            if o == t { return o }
            if let ancestor {
                let a = ancestor[keyPath: field]
                if o == a { return t }
                if t == a { return o }
            }
            let (kept, other) = theirsNewer ? (t, o) : (o, t)
            overruled.append("\(name): kept \(describe(kept)), the other copy had \(describe(other))")
            return kept
        }

        result.title = pick("title", \.title)
        result.created = min(ours.created, theirs.created)
        result.tags = mergeTags(ancestor: ancestor?.tags, ours: ours.tags, theirs: theirs.tags)

        // OCR results belong together: take them all from one side.
        let ocrFromTheirs: Bool
        if ours.ocrCompleted != theirs.ocrCompleted {
            ocrFromTheirs = theirs.ocrCompleted
        } else {
            ocrFromTheirs = theirsNewer
        }
        takeOCR(from: ocrFromTheirs ? theirs : ours, into: &result)

        var unknown: [String: JSONValue] = [:]
        for key in Set(ours.unknownFields.keys).union(theirs.unknownFields.keys).sorted() {
            let o = ours.unknownFields[key], t = theirs.unknownFields[key], a = ancestor?.unknownFields[key]
            let value: JSONValue?
            if o == t { value = o } else if ancestor != nil && o == a { value = t } else if ancestor != nil && t == a { value = o } else {
                value = theirsNewer ? t : o
                overruled.append("\(key): kept the \(theirsNewer ? "copy's" : "original's") value")
            }
            if let value { unknown[key] = value }
        }
        result.unknownFields = unknown
        result.modified = max(now, ours.modified, theirs.modified)
        return Result(metadata: result, overruled: overruled)
    }

    /// The OCR fields and page states of `source`, which belong together, into `result`.
    static func takeOCR(from source: DocumentMetadata, into result: inout DocumentMetadata) {
        result.ocrCompleted = source.ocrCompleted
        result.fullText = source.fullText
        result.ocrProcessedAt = source.ocrProcessedAt
        result.ocrConfidence = source.ocrConfidence
        result.ocrSource = source.ocrSource
        result.hasPendingTextPage = source.hasPendingTextPage
        result.pageProcessingStates = source.pageProcessingStates
    }

    /// Tags as sets: what either side added, less what either side removed.
    static func mergeTags(ancestor: [String]?, ours: [String], theirs: [String]) -> [String] {
        guard let ancestor else {
            return ours + theirs.filter { !ours.contains($0) }
        }
        let removed = Set(ancestor).subtracting(ours).union(Set(ancestor).subtracting(theirs))
        var merged: [String] = []
        for tag in ours + theirs where !removed.contains(tag) && !merged.contains(tag) {
            merged.append(tag)
        }
        return merged
    }
}
