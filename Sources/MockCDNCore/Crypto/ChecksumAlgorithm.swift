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

    /// Every algorithm, in the order a client prefers when a response carries several (botocore's
    /// `_ALGORITHMS_PRIORITY_LIST`: the CRCs, fastest first, then the SHAs).
    public static let all: [ChecksumAlgorithm] = [.crc64nvme, .crc32c, .crc32, .sha1, .sha256]

    /// S3's name for it, upper case, as in `x-amz-checksum-algorithm: CRC32C` and S3's error messages.
    public var name: String {
        switch self {
        case .crc32: "CRC32"
        case .crc32c: "CRC32C"
        case .crc64nvme: "CRC64NVME"
        case .sha1: "SHA1"
        case .sha256: "SHA256"
        }
    }

    /// The header (or trailer) that carries its value, lower case: `x-amz-checksum-crc32c`.
    public var headerName: String { "x-amz-checksum-" + self.name.lowercased() }

    /// How many bytes the checksum has, before base64.
    public var digestLength: Int {
        switch self {
        case .crc32, .crc32c: 4
        case .crc64nvme: 8
        case .sha1: 20
        case .sha256: 32
        }
    }

    /// The algorithm S3 names so, in any case: `CRC32`, `crc32c`, `CRC64NVME`, `SHA1`, `SHA256`.
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
    /// - Returns: `digestLength` bytes, big-endian for the CRCs, as S3 encodes them.
    public func checksum(of data: some ContiguousBytesView) -> [UInt8] {
        let checksummer = Checksummer(self)
        checksummer.update(data)
        return checksummer.finalize()
    }

    /// The upper-case name, as S3 writes it.
    public var description: String { self.name }
}
