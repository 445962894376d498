extension Sequence {
    /// This sequence and `other`, both sorted by `precedes`, as one sorted array: in one pass,
    /// not a sort of both. Of two equal elements, `other`'s comes first. `capacity`: the room
    /// made at once (by default this sequence's underestimated count and `other`'s), for a
    /// filtered sequence of 100,000 items grown by doubling would hold up to twice the room.
    package func merged(with other: [Element], capacity: Int? = nil, by precedes: (Element, Element) -> Bool) -> [Element] {
        var all: [Element] = []
        all.reserveCapacity(capacity ?? underestimatedCount + other.count)
        var next = 0
        for element in self {
            while next < other.count, !precedes(element, other[next]) {
                all.append(other[next])
                next += 1
            }
            all.append(element)
        }
        all.append(contentsOf: other[next...])
        return all
    }
}
