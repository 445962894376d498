// yiana-bench: measurements and harnesses that need the libraries in-process.
//
//   yiana-bench search-latency INDEX QUERIES
//   yiana-bench fts5 QUERIES
//   yiana-bench fuzz-reader SECONDS CORPUS_DIR WORK_DIR [SEED]   (see Scripts/soak/fuzz-reader.sh)
//   yiana-bench people [FIXTURES] [ROUNDS] [--misses]              (see Scripts/bench/extract.sh)
//   yiana-bench letter-texts LIBRARY OUT.json                       (see Scripts/generate/letter-fixtures.sh)
//   yiana-bench layout-pages LIBRARY OUT.json                       (see Scripts/generate/layout-fixtures.sh)
//
// Opens the index once (read-only, as `yiana search` does) and times each query of the
// QUERIES file (one per line: the query words, optionally preceded by --tag T,
// --folder F or --since YYYY-MM-DD, separated by tabs), as `yiana search --limit 20`
// would run it. Prints one line per query and the p50/p99 in milliseconds.
import Foundation
import YianaSearch
import YianaSystem
import YianaLibrary

Allocator.tune()  // as `yiana` runs
let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == "fuzz-reader", arguments.count >= 4, let seconds = Double(arguments[1]) {
    let seed = arguments.count > 4 ? UInt64(arguments[4]) ?? 1 : UInt64(Date().timeIntervalSince1970)
    exit(await ReaderFuzzer(corpus: URL(fileURLWithPath: arguments[2]), work: URL(fileURLWithPath: arguments[3]), seed: seed).run(seconds: seconds))
}
if arguments.first == "layout-pages", arguments.count == 3 {
    exit(try PeopleBench.layoutPages(library: URL(fileURLWithPath: arguments[1]), output: URL(fileURLWithPath: arguments[2])))
}
if arguments.first == "letter-texts", arguments.count == 3 {
    exit(try PeopleBench.letterTexts(library: URL(fileURLWithPath: arguments[1]), output: URL(fileURLWithPath: arguments[2])))
}
if arguments.first == "people" {
    exit(try PeopleBench.run(Array(arguments.dropFirst())))
}
if arguments.count == 2, arguments[0] == "fts5" {
    // The FTS5 expression `yiana search` runs for each query of QUERIES (its words, after any
    // --tag/--folder/--since pairs), for running the same SQL with the sqlite3 CLI.
    for line in try String(contentsOfFile: arguments[1], encoding: .utf8).split(separator: "\n") {
        var fields = line.split(separator: "\t").map(String.init)
        while fields.count >= 2, fields[0].hasPrefix("--") { fields.removeFirst(2) }
        print(SearchQuery.fts5(fields.joined(separator: " ")) ?? "")
    }
    exit(0)
}
guard arguments.count == 3, arguments[0] == "search-latency" else {
    FileHandle.standardError.write(Data("usage: yiana-bench search-latency INDEX QUERIES | fts5 QUERIES | fuzz-reader SECONDS CORPUS WORK [SEED] | people [FIXTURES] [ROUNDS] [--misses]\n".utf8))
    exit(2)
}
let index = try SearchIndex(readingAt: arguments[1])
let lines = try String(contentsOfFile: arguments[2], encoding: .utf8).split(separator: "\n")
let day = DateFormatter()
day.dateFormat = "yyyy-MM-dd"
var latencies: [Double] = []
for line in lines {
    var fields = line.split(separator: "\t").map(String.init)
    var options = SearchOptions()
    options.limit = 20
    while fields.count >= 2, fields[0].hasPrefix("--") {
        switch fields[0] {
        case "--tag": options.tags.append(fields[1])
        case "--folder": options.folder = fields[1]
        case "--since": options.since = day.date(from: fields[1])
        default: break
        }
        fields.removeFirst(2)
    }
    let start = DispatchTime.now().uptimeNanoseconds
    let hits = (try? index.search(fields.joined(separator: " "), options: options)) ?? []
    let milliseconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
    latencies.append(milliseconds)
    print(String(format: "%7.2f ms  %3d hits  %@", milliseconds, hits.count, line.replacingOccurrences(of: "\t", with: " ")))
}
let sorted = latencies.sorted()
func percentile(_ p: Double) -> Double { sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))] }
print(String(format: "queries %d  p50 %.2f ms  p99 %.2f ms  max %.2f ms", sorted.count, percentile(0.5), percentile(0.99), sorted.last ?? 0))
