/// Runs `transform` over `items` with at most `width` running at once (one new task as each
/// finishes, in the manner of swift-nio's parallel copy), and returns the results in the
/// items' order. `progress` is called after each result, with how many are done.
public func boundedMap<Item: Sendable, Result: Sendable>(
    _ items: [Item], width: Int,
    progress: (Int, Item) -> Void = { _, _ in },
    _ transform: @escaping @Sendable (Item) async -> Result
) async -> [Result] {
    var results = [Result?](repeating: nil, count: items.count)
    await withTaskGroup(of: (Int, Result).self) { group in
        var next = 0
        var done = 0
        func addNext() {
            guard next < items.count else { return }
            let index = next
            let item = items[index]
            next += 1
            group.addTask { (index, await transform(item)) }
        }
        for _ in 0..<max(1, min(width, items.count)) { addNext() }
        for await (index, result) in group {
            results[index] = result
            done += 1
            progress(done, items[index])
            addNext()
        }
    }
    return results.map { $0! }
}
