import Foundation
import YianaArchive

/// The PDFs a library already holds, by SHA-256.
enum KnownPDFs {
    /// Hash → document (relative path). Uses each document's `pdfHash`; a document without
    /// one (older app versions) is hashed only when its PDF's size equals one of
    /// `sizesOfInterest`, since only then can it equal a PDF being imported.
    ///
    /// Documents are read without taking their locks: a scan of thousands of documents would
    /// otherwise create and delete a lock file beside each in the synced folder, and every
    /// write replaces a document by rename, so an open file is always one whole version.
    /// Placeholders and damaged documents are passed over (`verify` reports them).
    static func hashes(in library: Library, sizesOfInterest: Set<UInt64>) -> [String: String] {
        var result: [String: String] = [:]
        let items = (try? LibraryScanner.scan(library.root)) ?? []
        for item in items where item.kind == .document {
            guard let reader = try? DocumentReader(path: item.url.path), let pdf = reader.pdf else { continue }
            let relative = library.relativePath(of: item.url) ?? item.url.path
            if let hash = (try? reader.metadata())?.pdfHash, hash.count == 64 {
                result[hash] = result[hash] ?? relative
            } else if sizesOfInterest.contains(pdf.size),
                      let hash = try? FileHash.sha256({ update in try reader.readPDF { update($0) } }) {
                result[hash] = result[hash] ?? relative
            }
        }
        return result
    }
}
