extension FileAccessToken {
    /// A FAT's lifetime in seconds when the mint request names none: CometChat's documented hour.
    public static let defaultTTL: Int64 = 3600
    /// The longest lifetime a FAT may be minted with (30 days); longer asks are refused, not capped.
    public static let maximumTTL: Int64 = 30 * 24 * 3600
}
