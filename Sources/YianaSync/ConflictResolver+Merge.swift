import Foundation
import YianaArchive
import YianaLibrary
import YianaSystem

// The merge strategy: one document from the original and its conflict copies.
extension GroupPlan {
    mutating func planMerge(_ original: Snapshot, _ conflicts: [Snapshot], now: Date) {
        let id = original.metadata.id.uuidString
        var current = original.metadata
        var currentPDF = (url: original.url, crc: original.pdfCRC, size: original.pdfSize, modified: original.metadata.modified)
        for (index, copy) in conflicts.sorted(by: { $0.metadata.modified < $1.metadata.modified }).enumerated() {
            let common = commonAncestor(original, copy, documentID: id)
            var merged = MetadataMerge.merge(ancestor: common?.metadata, ours: current, theirs: copy.metadata, now: now)

            let copyPDF = (url: copy.url, crc: copy.pdfCRC, size: copy.pdfSize, modified: copy.metadata.modified)
            var chosen = currentPDF
            var other: (url: URL, metadata: DocumentMetadata)? = nil
            var appends: AppendMerge? = nil
            let ancestorPDF = common?.pdf
            if currentPDF.crc != copyPDF.crc || currentPDF.size != copyPDF.size {
                if let ancestorPDF, currentPDF.crc == ancestorPDF.crc && currentPDF.size == ancestorPDF.size {
                    chosen = copyPDF  // only the copy changed the PDF
                } else if let ancestorPDF, copyPDF.crc == ancestorPDF.crc && copyPDF.size == ancestorPDF.size {
                    chosen = currentPDF  // only the original changed it
                } else if index == 0, let common, let plan = appendMerge(original, copy, ancestor: common.key, documentID: id) {
                    // Both changed it, one only by appends: one PDF holding every page once.
                    appends = plan
                    chosen = plan.base.url == copy.url ? copyPDF : currentPDF
                    merged.metadata = plan.metadata(merged.metadata)
                    merged.overruled.removeAll { $0.hasPrefix("\(Appender.appendsKey):") }
                } else {
                    // Both changed it (or nobody knows): the newer goes in, the other stays a document.
                    let copyNewer = copyPDF.modified > currentPDF.modified
                    chosen = copyNewer ? copyPDF : currentPDF
                    other = copyNewer ? (currentPDF.url, current) : (copy.url, copy.metadata)
                }
            }
            resolution.overruled += merged.overruled
            if appends == nil {
                let source = chosen.url == copy.url ? copy.metadata : current
                merged.metadata.pageCount = source.pageCount
                merged.metadata.pdfHash = source.pdfHash
            }
            if let other { addOtherPDF(other, beside: original) }
            let detail = "merged with \(copy.path)\(common?.metadata == nil ? " (no common ancestor known: two-way)" : "")"
            addMergeStep(into: original, from: copy, metadata: merged.metadata, pdf: chosen.url,
                         appending: appends.flatMap { $0.missing.isEmpty ? nil : $0 },
                         detail: appends.map { "\(detail): \($0.detail)" } ?? detail, now: now)
            addRemoval(copy.path, action: "remove-copy", detail: "merged into \(original.path)")
            current = merged.metadata
            let joined = appends.map { !$0.missing.isEmpty } ?? false
            currentPDF = (original.url, joined ? nil : chosen.crc, joined ? nil : chosen.size, max(chosen.modified, now))
        }
        resolution.winner = original.path
    }

    /// The common ancestor of the original and a copy by the history: its content key, its PDF's
    /// CRC and size (from the key), and its metadata if the store has its bytes.
    private func commonAncestor(_ original: Snapshot, _ copy: Snapshot, documentID: String)
        -> (key: String, metadata: DocumentMetadata?, pdf: (crc: UInt32, size: UInt64)?)? {
        guard let a = original.key, let b = copy.key, let common = history.commonAncestor(a, b, documentID: documentID) else { return nil }
        let metadata = Self.bytes(withContentKey: common, library: library).flatMap { try? DocumentReader(path: $0.path).metadata() }
        let parts = common.split(separator: "-")
        guard parts.count == 3, let crc = UInt32(parts[1], radix: 16), let size = UInt64(parts[2]) else { return (common, metadata, nil) }
        return (common, metadata, (crc, size))
    }

    /// The merge of the original and a copy that both changed the PDF, if one only appended.
    private func appendMerge(_ original: Snapshot, _ copy: Snapshot, ancestor: String, documentID: String) -> AppendMerge? {
        guard let a = original.key, let b = copy.key else { return nil }
        return AppendMerge.plan(.init(key: a, url: original.url, metadata: original.metadata),
                                .init(key: b, url: copy.url, metadata: copy.metadata),
                                ancestor: ancestor, history: history, documentID: documentID)
    }

    /// Both sides changed the PDF: the one not kept becomes a document of its own.
    private mutating func addOtherPDF(_ other: (url: URL, metadata: DocumentMetadata), beside original: Snapshot) {
        var metadata = other.metadata
        metadata.id = UUID()
        metadata.title = "\(metadata.title) (other PDF)"
        let destination = reserveName(for: metadata.title, in: original.url.deletingLastPathComponent())
        add("new-document", library.relativePath(of: destination) ?? destination.path,
            "both sides changed the PDF: the older one as a document of its own") { [rewrite] in
            try rewrite.writeNew(metadata, pdfFrom: other.url, preferring: destination)
            return nil
        }
    }

    /// Writes the merged metadata into the original with the PDF of `pdf`, or with the PDF
    /// `appending` joins (the base's pages, then those the other side appended that it lacks).
    private mutating func addMergeStep(into original: Snapshot, from copy: Snapshot, metadata: DocumentMetadata, pdf: URL,
                                       appending: AppendMerge?, detail: String, now: Date) {
        let id = original.metadata.id.uuidString
        add("merge-metadata", original.path, detail) { [rewrite, library, expected, history] in
            let before = try? DocumentReader(path: original.url.path).contentKey
            let record = try VersionStore(library: library).keep(original.url, reason: "before merging \(copy.path) into it")
            // What the merged version came from is recorded before it takes the name: a run
            // killed at any point after leaves a version the next resolve knows (a record of a
            // version that never took the name is harmless), so it merges three-way.
            let recordParents = { (temp: String) in
                if let key = try? DocumentReader(path: temp).contentKey {
                    try history.record(documentID: id, key: key, parents: [before, copy.key].compactMap { $0 }, what: "merge")
                }
            }
            if let appending {
                let scratch = try rewrite.scratchFolder()
                let joined = scratch.appendingPathComponent("merge-\(UUID().uuidString).pdf")
                defer { Sys.removeIfPresent(joined.path) }
                let written = try appending.writePDF(to: joined, metadata: metadata, scratch: scratch, now: now)
                try rewrite.write(written, pdfFile: joined, to: original.url, replacing: true, expecting: expected[original.path],
                                  hashingPDF: true, check: recordParents)
            } else {
                try rewrite.write(metadata, pdfFrom: pdf, to: original.url, replacing: true, expecting: expected[original.path], check: recordParents)
            }
            expected.refresh(original.path, at: original.url)
            return record
        }
    }
}
