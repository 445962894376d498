import Foundation
import YianaFolder
import YianaArchive

/// The PDFs a library already holds: by SHA-256, and their sizes.
struct KnownPDFs {
    /// Hash → document (relative path).
    var holders: [String: String] = [:]
    /// The size of every PDF in the library: a PDF of another size cannot be one of them.
    var sizes: Set<UInt64> = []

    /// Reads the library. Hashes come from each document's `pdfHash`; a document without
    /// one (older app versions) is hashed only when its PDF's size equals one of
    /// `sizesOfInterest`, since only then can it equal a PDF being imported.
    ///
    /// Documents are read without taking their locks: a scan of thousands of documents would
    /// otherwise create and delete a lock file beside each in the synced folder, and every
    /// write replaces a document by rename, so an open file is always one whole version.
    /// Placeholders and damaged documents are passed over (`verify` reports them).
    static func scan(_ library: Library, sizesOfInterest: Set<UInt64>) -> KnownPDFs {
        var known = KnownPDFs()
        let items = (try? LibraryScanner.scan(library.root)) ?? []
        for item in items where item.kind == .document {
            guard let reader = try? DocumentReader(path: item.path, checks: .layout), let pdf = reader.pdf else { continue }
            known.sizes.insert(pdf.size)
            let relative = library.relativePath(ofFile: item.path) ?? item.path
            if let hash = (try? reader.metadata())?.pdfHash, hash.count == 64 {
                known.holders[hash] = known.holders[hash] ?? relative
            } else if sizesOfInterest.contains(pdf.size),
                      let hash = try? FileHash.sha256({ update in try reader.readPDF { update($0) } }) {
                known.holders[hash] = known.holders[hash] ?? relative
            }
        }
        return known
    }
}
