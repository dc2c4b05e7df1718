/// A store's objects by key, with the keys also kept in S3's listing order (their UTF-8 bytes), so a page of a
/// listing costs a binary search and the page, not a sort of the whole bucket.
///
/// The order is brought up to date lazily, at the next listing: keys added since are sorted among themselves
/// and merged in, and when keys were removed the order drops those no longer held. A put or delete stays a
/// hash-table update however large the bucket; a listing after changes costs one linear merge, and a listing
/// after none, only its page.
struct OrderedIndex<Value> {
    /// The values, by key.
    private(set) var values: [ObjectKey: Value]
    /// Keys in UTF-8 byte order, as of the last listing.
    private var sorted: [ObjectKey]
    /// Keys added since the last listing, in any order (a key removed and added again may be in both lists).
    private var added: [ObjectKey] = []
    /// Whether keys were removed since the last listing.
    private var removed = false

    /// - Parameter values: the values to start with.
    init(_ values: [ObjectKey: Value] = [:]) {
        self.values = values
        self.sorted = []
        self.added = Array(values.keys)
    }

    /// The value of `key`; setting nil removes it.
    subscript(key: ObjectKey) -> Value? {
        get { self.values[key] }
        set {
            if let newValue {
                self.updateValue(newValue, forKey: key)
            } else {
                self.removeValue(forKey: key)
            }
        }
    }

    /// Sets the value of `key`.
    ///
    /// - Returns: the value it replaced, if any.
    @discardableResult
    mutating func updateValue(_ value: Value, forKey key: ObjectKey) -> Value? {
        let replaced = self.values.updateValue(value, forKey: key)
        if replaced == nil { self.added.append(key) }
        return replaced
    }

    /// Removes `key`.
    ///
    /// - Returns: its value, if there was one.
    @discardableResult
    mutating func removeValue(forKey key: ObjectKey) -> Value? {
        let removed = self.values.removeValue(forKey: key)
        if removed != nil { self.removed = true }
        return removed
    }

    /// Up to `limit` keys that start with `prefix` and come after `after`, in UTF-8 byte order.
    ///
    /// - Parameters:
    ///   - prefix: the keys' common start; empty for every key.
    ///   - after: only keys after this one (which need not be held); nil for the first.
    ///   - limit: the most keys returned.
    /// - Returns: the keys, in order.
    mutating func keys(prefix: String, after: String?, limit: Int) -> ArraySlice<ObjectKey> {
        self.bringOrderUpToDate()
        var start = Self.firstIndex(in: self.sorted) { !ObjectKey.listedBefore($0.rawValue, prefix) }
        if let after, ObjectKey.listedBefore(prefix, after) || after.isByteEqual(prefix) {
            start = Self.firstIndex(in: self.sorted) { ObjectKey.listedBefore(after, $0.rawValue) }
        }
        var end = start
        while end < self.sorted.endIndex, end - start < limit, self.sorted[end].rawValue.hasBytePrefix(prefix) {
            end += 1
        }
        return self.sorted[start..<end]
    }

    /// Merges the keys added since the last listing into the order, and drops the ones no longer held.
    private mutating func bringOrderUpToDate() {
        guard !self.added.isEmpty || self.removed else { return }
        let values = self.values
        if self.removed { self.sorted.removeAll { values[$0] == nil } }
        let fresh = self.added.filter { values[$0] != nil }.sorted { ObjectKey.listedBefore($0.rawValue, $1.rawValue) }
        var merged: [ObjectKey] = []
        merged.reserveCapacity(self.sorted.count + fresh.count)
        var (old, new) = (self.sorted.startIndex, fresh.startIndex)
        while old < self.sorted.endIndex || new < fresh.endIndex {
            let next: ObjectKey
            if new == fresh.endIndex
                || (old < self.sorted.endIndex
                    && !ObjectKey.listedBefore(fresh[new].rawValue, self.sorted[old].rawValue))
            {
                next = self.sorted[old]
                old += 1
            } else {
                next = fresh[new]
                new += 1
            }
            // A key removed and added again since the last listing is in both lists; it is kept once.
            if merged.last != next { merged.append(next) }
        }
        self.sorted = merged
        self.added = []
        self.removed = false
    }

    /// The first index of `keys` (sorted) where `isAtOrPast` holds, by binary search; `keys.endIndex` if none.
    private static func firstIndex(in keys: [ObjectKey], where isAtOrPast: (ObjectKey) -> Bool) -> Int {
        var (low, high) = (keys.startIndex, keys.endIndex)
        while low < high {
            let middle = low + (high - low) / 2
            if isAtOrPast(keys[middle]) { high = middle } else { low = middle + 1 }
        }
        return low
    }
}

extension OrderedIndex: Sendable where Value: Sendable {}
