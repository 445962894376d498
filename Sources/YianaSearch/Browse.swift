import Foundation

/// How the documents of a library are listed without a query (the start page, `/api/documents`).
public struct BrowseQuery: Sendable, Equatable {
    public enum Sort: String, Sendable, CaseIterable, Codable {
        /// Most recently changed first (the metadata's `modified`).
        case newest
        case oldest
        /// By title, A to Z, ignoring case.
        case title
    }

    /// Only this folder and those below it (relative to the library; nil: the whole library).
    public var folder: String?
    /// Only documents with every one of these tags.
    public var tags: [String] = []
    public var sort: Sort = .newest
    public var limit = 50
    public var offset = 0

    public init(folder: String? = nil, tags: [String] = [], sort: Sort = .newest, limit: Int = 50, offset: Int = 0) {
        self.folder = folder
        self.tags = tags
        self.sort = sort
        self.limit = limit
        self.offset = offset
    }

    /// The folder and those below it, as a range of the `folder` column: `X` and `X/…`.
    var folderRange: (exact: String, below: String, beyond: String)? {
        guard let folder, !folder.isEmpty else { return nil }
        return (folder, folder + "/", folder + "0")  // "0" is the character after "/"
    }
}

/// One page of a listing, and how many documents match in all.
public struct BrowsePage: Sendable, Codable, Equatable {
    public struct Document: Sendable, Codable, Equatable {
        public let path: String
        public let folder: String
        public let title: String
        public let tags: [String]
        /// Seconds since 1970, from the metadata (nil when it could not be read).
        public let modified: Double?
        public let status: IndexStatus
        public let pageCount: Int

        public init(path: String, folder: String, title: String, tags: [String], modified: Double?, status: IndexStatus, pageCount: Int) {
            self.path = path
            self.folder = folder
            self.title = title
            self.tags = tags
            self.modified = modified
            self.status = status
            self.pageCount = pageCount
        }
    }

    public let total: Int
    public let documents: [Document]

    public init(total: Int, documents: [Document]) {
        self.total = total
        self.documents = documents
    }
}

/// A library's folders with how many documents each holds (below it too), and its tags with
/// how many documents carry each.
public struct LibraryOutline: Sendable, Codable, Equatable {
    public struct Folder: Sendable, Codable, Equatable {
        public let path: String
        /// Documents in it and in the folders below it.
        public let count: Int
    }

    public struct Tag: Sendable, Codable, Equatable {
        public let name: String
        public let count: Int
    }

    public let documents: Int
    /// Every folder with documents (and each folder above one), by path.
    public let folders: [Folder]
    /// By count, most first.
    public let tags: [Tag]

    /// From the count of documents directly in each folder.
    public init(direct: [String: Int], tags: [String: Int]) {
        var total: [String: Int] = [:]
        for (folder, count) in direct {
            var path = folder
            while true {
                total[path, default: 0] += count
                guard !path.isEmpty else { break }
                path = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? ""
            }
        }
        documents = total[""] ?? 0
        folders = total.filter { !$0.key.isEmpty }.map { Folder(path: $0.key, count: $0.value) }.sorted { $0.path < $1.path }
        self.tags = tags.map { Tag(name: $0.key, count: $0.value) }.sorted { ($0.count, $1.name) > ($1.count, $0.name) }
    }
}
