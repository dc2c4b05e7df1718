/// One of S3's flexible checksums: the algorithms a client names in `x-amz-checksum-algorithm`,
/// `x-amz-sdk-checksum-algorithm` or `x-amz-trailer`, and whose value it sends in `x-amz-checksum-*`.
public enum ChecksumAlgorithm: Sendable, Hashable, CustomStringConvertible {
    /// CRC-32 (IEEE 802.3, as zlib): 4 bytes.
    case crc32
    /// CRC-32C (Castagnoli): 4 bytes.
    case crc32c
    /// CRC-64/NVME: 8 bytes; S3's default for full-object checksums.
    case crc64nvme
    /// SHA-1: 20 bytes.
    case sha1
    /// SHA-256: 32 bytes.
    case sha256
    /// SHA-512: 64 bytes (one of the five S3 added on 2026-04-22, as the four below).
    case sha512
    /// MD5 as a flexible checksum (`x-amz-checksum-md5`), beside the older `Content-MD5`: 16 bytes.
    case md5
    /// XXH64, seed 0: 8 bytes.
    case xxhash64
    /// XXH3 64-bit, seed 0: 8 bytes.
    case xxhash3
    /// XXH3 128-bit (XXH128), seed 0: 16 bytes.
    case xxhash128

    /// Every algorithm: the five S3 has had since 2022, CRCs first, then the five of 2026, in the order S3's
    /// API model lists them (and its error messages name them).
    public static let all: [ChecksumAlgorithm] = [
        .crc64nvme, .crc32c, .crc32, .sha1, .sha256, .sha512, .md5, .xxhash64, .xxhash3, .xxhash128,
    ]

    /// The five algorithms S3 added on 2026-04-22.
    public static let added2026: Set<ChecksumAlgorithm> = [.sha512, .md5, .xxhash64, .xxhash3, .xxhash128]

    /// S3's name for it, upper case, as in `x-amz-checksum-algorithm: CRC32C` and S3's error messages.
    public var name: String {
        switch self {
        case .crc32: "CRC32"
        case .crc32c: "CRC32C"
        case .crc64nvme: "CRC64NVME"
        case .sha1: "SHA1"
        case .sha256: "SHA256"
        case .sha512: "SHA512"
        case .md5: "MD5"
        case .xxhash64: "XXHASH64"
        case .xxhash3: "XXHASH3"
        case .xxhash128: "XXHASH128"
        }
    }

    /// Whether S3 can give a multipart object a full-object checksum of this algorithm (`FULL_OBJECT`): only
    /// the CRCs, whose values for parts combine into the value for the whole. Every other is `COMPOSITE` only.
    public var combinesFullObject: Bool {
        switch self {
        case .crc32, .crc32c, .crc64nvme: true
        case .sha1, .sha256, .sha512, .md5, .xxhash64, .xxhash3, .xxhash128: false
        }
    }

    /// Whether S3 can give a multipart object a composite checksum of this algorithm (`COMPOSITE`): all
    /// but CRC64NVME, which is full-object only.
    public var makesComposite: Bool { self != .crc64nvme }

    /// The header (or trailer) that carries its value, lower case: `x-amz-checksum-crc32c`.
    public var headerName: String { "x-amz-checksum-" + self.name.lowercased() }

    /// How many bytes the checksum has, before base64.
    public var digestLength: Int {
        switch self {
        case .crc32, .crc32c: 4
        case .crc64nvme, .xxhash64, .xxhash3: 8
        case .md5, .xxhash128: 16
        case .sha1: 20
        case .sha256: 32
        case .sha512: 64
        }
    }

    /// The algorithm S3 names so, in any case: `CRC32`, `crc32c`, `SHA512`, `xxhash3`, ...
    ///
    /// - Parameter name: the value of `x-amz-checksum-algorithm` or `x-amz-sdk-checksum-algorithm`.
    public init?(name: some StringProtocol) {
        let lowered = name.lowercased()
        guard let algorithm = Self.all.first(where: { $0.name.lowercased() == lowered }) else { return nil }
        self = algorithm
    }

    /// The algorithm whose value a header carries, in any case: `x-amz-checksum-crc32` is `.crc32`.
    ///
    /// - Parameter headerName: a header name, or the value of `x-amz-trailer`.
    public init?(headerName: some StringProtocol) {
        let lowered = headerName.lowercased()
        guard let algorithm = Self.all.first(where: { $0.headerName == lowered }) else { return nil }
        self = algorithm
    }

    /// The checksum of a whole buffer.
    ///
    /// - Parameter data: the bytes to check.
    /// - Returns: `digestLength` bytes, big-endian for the CRCs and xxHashes, as S3 encodes them.
    public func checksum(of data: some ContiguousBytesView) -> [UInt8] {
        let checksummer = Checksummer(self)
        checksummer.update(data)
        return checksummer.finalize()
    }

    /// The upper-case name, as S3 writes it.
    public var description: String { self.name }
}
