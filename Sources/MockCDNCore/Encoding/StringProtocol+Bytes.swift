extension StringProtocol {
    /// Whether the text's UTF-8 bytes start with `prefix`'s: S3's notion of a key prefix. `hasPrefix` compares
    /// characters under Unicode's canonical equivalence, so `"cafe\u{301}"` (NFD) does not start with `"cafe"`
    /// there, and `"café"` as NFC would start with the NFD spelling.
    ///
    /// - Parameter prefix: the bytes looked for.
    /// - Returns: true when the text begins with them.
    public func hasBytePrefix(_ prefix: some StringProtocol) -> Bool {
        self.utf8.starts(with: prefix.utf8)
    }

    /// Whether the text's UTF-8 bytes end with `suffix`'s (S3's key suffix, as a notification filter reads it).
    ///
    /// - Parameter suffix: the bytes looked for.
    /// - Returns: true when the text ends with them.
    public func hasByteSuffix(_ suffix: some StringProtocol) -> Bool {
        self.utf8.count >= suffix.utf8.count && self.utf8.reversed().starts(with: suffix.utf8.reversed())
    }

    /// Whether two texts are the same bytes (not merely canonically equivalent, as `==` asks).
    ///
    /// - Parameter other: the other text.
    /// - Returns: true when their UTF-8 bytes are equal.
    public func isByteEqual(_ other: some StringProtocol) -> Bool {
        self.utf8.elementsEqual(other.utf8)
    }
}
