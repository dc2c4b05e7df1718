import Foundation
import HTTPTypes
import MockCDNCore
import Testing

@testable import MockCDNServer

/// A multipart upload's checksum: which algorithm makes which type, how UploadPart's claim is held to it, and
/// the composite value (against values Python's hashlib and zlib compute).
@Suite("S3 multipart checksums")
struct MultipartChecksumTests {
    @Test(
        "S3's default type: FULL_OBJECT for CRC64NVME, COMPOSITE for every other",
        arguments: ChecksumAlgorithm.all
    )
    func defaultType(algorithm: ChecksumAlgorithm) throws {
        let checksum = try MultipartChecksum(algorithm)
        #expect(checksum.kind == (algorithm == .crc64nvme ? .fullObject : .composite))
        #expect(checksum.answerHeaders[MultipartChecksum.algorithmHeader] == algorithm.name)
    }

    @Test("FULL_OBJECT only for the CRCs, COMPOSITE for all but CRC64NVME", arguments: ChecksumAlgorithm.all)
    func typeRules(algorithm: ChecksumAlgorithm) {
        let crcs: Set<ChecksumAlgorithm> = [.crc32, .crc32c, .crc64nvme]
        #expect(((try? MultipartChecksum(algorithm, kind: .fullObject)) != nil) == crcs.contains(algorithm))
        #expect(((try? MultipartChecksum(algorithm, kind: .composite)) != nil) == (algorithm != .crc64nvme))
        if !crcs.contains(algorithm) {
            let error = #expect(throws: S3Error.self) { try MultipartChecksum(algorithm, kind: .fullObject) }
            #expect(error?.code == "InvalidRequest")
            #expect(
                error?.message
                    == "The FULL_OBJECT checksum type cannot be used with the \(algorithm.name.lowercased()) checksum "
                    + "algorithm."
            )
        }
    }

    @Test(
        "UploadPart's claim against the upload's checksum",
        arguments: [
            // (upload's algorithm and type, the part's claim, the refusal's words or nil)
            (ChecksumAlgorithm?.some(.sha512), MultipartChecksum.Kind.composite, ChecksumAlgorithm?.some(.sha512), nil),
            (.sha512, .composite, .crc32, "expected checksum Type: sha512, actual checksum Type: crc32"),
            (.sha512, .composite, nil, "expected checksum Type: sha512, actual checksum Type: null"),
            (.crc32, .fullObject, nil, nil),
            (.crc32, .fullObject, .crc32c, "expected checksum Type: crc32, actual checksum Type: crc32c"),
            (nil, .composite, nil, nil),
            (nil, .composite, .crc32, nil),
            (nil, .composite, .xxhash3, "expected checksum Type: null, actual checksum Type: xxhash3"),
        ] as [(ChecksumAlgorithm?, MultipartChecksum.Kind, ChecksumAlgorithm?, String?)]
    )
    func partClaims(
        algorithm: ChecksumAlgorithm?,
        kind: MultipartChecksum.Kind,
        claimed: ChecksumAlgorithm?,
        refusal: String?
    ) throws {
        let upload = try algorithm.map { try MultipartChecksum($0, kind: kind) }
        guard let refusal else {
            try MultipartChecksum.checkPart(claimed: claimed, upload: upload)
            return
        }
        let error = #expect(throws: S3Error.self) { try MultipartChecksum.checkPart(claimed: claimed, upload: upload) }
        #expect(error?.code == "InvalidRequest")
        #expect(error?.message == "Checksum Type mismatch occurred, " + refusal)
    }

    @Test(
        "the composite checksum: the checksum of the parts' binary checksums, then -N",
        arguments: [
            (
                ChecksumAlgorithm.sha512,
                [
                    "MD8e5A5x/CIUk9bzPABuHJyJWgW6wZASBUIskBgXs+/lvkM0G8oxUB1meJmw/w9zgS9HrVcTojkODm5+pKhz8w==",
                    "EYU99A9LK5GdOBX2R5LljQhmN2eklLy7OMCyOJ2RQLuxcCgbSoR753V73hLJzQBUzjZS0K06GgySurtpeYJG7g==",
                ],
                "C/HEc13zUZH9s4kBUK4WaZuRLMHXDX5OxDMVhb1l/Wn7H5Wkuh8nvXIQhoWYRHTF988UAluGd2CRQk1bfZRsNQ==-2"
            ),
            (.crc32, ["7YH59g==", "OncRQw=="], "1Fu2mQ==-2"),
        ]
    )
    func composite(algorithm: ChecksumAlgorithm, parts: [String], expected: String) {
        // The parts are "hello " and "world"; Python: b64(sha512(sha512(p1) + sha512(p2))) + "-2", and zlib's.
        #expect(parts == ["hello ", "world"].map { Base64.encode(algorithm.checksum(of: $0), .standard) })
        #expect(MultipartChecksum.composite(algorithm, ofParts: parts) == expected)
    }
}
