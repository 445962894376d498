extension Array {
    /// This array and `other`, both sorted by `precedes`, as one sorted array: in one pass,
    /// not a sort of both. Of two equal elements, `other`'s comes first.
    package func merged(with other: [Element], by precedes: (Element, Element) -> Bool) -> [Element] {
        guard !isEmpty else { return other }
        guard !other.isEmpty else { return self }
        var all: [Element] = [], i = 0, j = 0
        all.reserveCapacity(count + other.count)
        while i < count || j < other.count {
            if j == other.count || (i < count && precedes(self[i], other[j])) {
                all.append(self[i])
                i += 1
            } else {
                all.append(other[j])
                j += 1
            }
        }
        return all
    }
}
