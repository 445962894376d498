import Glibc

/// Work split over a few threads, for work that is mostly the kernel's (a `stat`, a `link`
/// each): the items cut into `workers` runs in their order, each run on a thread of its own
/// (the caller's among them, not Dispatch's pool, which a busy process may have given to
/// other work), so that two threads work in two folders at once rather than taking turns at
/// one folder's lock.
package enum Parallel {
    /// `body` of each item, the results in the items' order.
    package static func map<T, R>(_ items: [T], workers: Int, _ body: (T) -> R) -> [R] {
        let workers = max(1, min(workers, items.count / 64))  // a few dozen items are not worth a thread
        guard workers > 1 else { return items.map(body) }
        var results = [R?](repeating: nil, count: items.count)
        withoutActuallyEscaping(body) { body in
            results.withUnsafeMutableBufferPointer { buffer in
                // Each run writes its own slots, and every thread has ended (joined, its work
                // released) before this returns.
                nonisolated(unsafe) let buffer = buffer
                let run = { (worker: Int) in
                    for index in (items.count * worker / workers)..<(items.count * (worker + 1) / workers) {
                        buffer[index] = body(items[index])
                    }
                }
                var threads: [pthread_t] = []
                for worker in 1..<workers {
                    let work = Unmanaged.passRetained(Work { run(worker) }).toOpaque()
                    var thread = pthread_t()
                    if pthread_create(&thread, nil, { work in
                        Unmanaged<Work>.fromOpaque(work!).takeRetainedValue().run()
                        return nil
                    }, work) == 0 {
                        threads.append(thread)
                    } else {
                        Unmanaged<Work>.fromOpaque(work).release()
                        run(worker)  // no thread to be had: done here
                    }
                }
                run(0)
                for thread in threads { pthread_join(thread, nil) }
            }
        }
        return results.map { $0! }
    }

    private final class Work {
        let run: () -> Void
        init(_ run: @escaping () -> Void) { self.run = run }
    }
}
