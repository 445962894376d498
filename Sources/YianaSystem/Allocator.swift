import CYiana

/// The allocator a program of ours runs on.
package enum Allocator {
    /// Sets the program's allocator up; call first thing in `main`. Where the program is
    /// linked against mimalloc (`yiana`, `yiana-bench`), freed memory goes back to the system
    /// after 1 ms, not mimalloc's 25: in a process that reads thousands of documents one after
    /// another (the reader fuzzer, the watcher, the server), pages freed and not yet given back
    /// were a fifth of the peak memory (63 → 56 MB in a minute of fuzzing), and `index --full`
    /// of 5,000 documents took no longer (3.16–3.25 s either way). An environment variable
    /// `MIMALLOC_DECOMMIT_DELAY` or `MIMALLOC_PURGE_DELAY` has the last word.
    /// - Returns: true when the setting was made.
    @discardableResult
    package static func tune() -> Bool {
        yiana_tune_allocator() == 1
    }
}
