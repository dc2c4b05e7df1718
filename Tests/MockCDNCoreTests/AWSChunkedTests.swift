import Foundation
import MockCDNCore
import NIOCore
import Synchronization
import Testing

/// aws-chunked request bodies: AWS's two published examples (a signed upload, and one with a signed trailer),
/// the exact bytes botocore sends, every split of the input, and each rule S3 refuses a body by, with S3's code.
@Suite("aws-chunked bodies")
struct AWSChunkedTests {
    static let credentials = SigV4Tests.aws
    static let date = SigV4AuthorizationTests.date
    static let amzDate = "20130524T000000Z"
    static let a = UInt8(ascii: "a")

    // MARK: - AWS's examples

    /// "Signature Calculations for the Authorization Header: Transferring Payload in Multiple Chunks (Chunked
    /// Upload)", Example: PUT Object, https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-streaming.html:
    /// 66560 bytes of `a` in a 64 KiB chunk, a 1 KiB chunk and the final empty one.
    enum Streaming {
        static let seedSignature = "4f232c4386841ef735655705268965c44a0e4690baa4adea153f7db9fa80a0a9"
        static let chunkSignatures = [
            "ad80c730a21e5b8d04586a2213dd63b9a0e99e0e2307b0ade35a65485a288648",
            "0055627c9e194cb4542bae2aa5492e3c1575bbb81b612b7d234b86a503ef5497",
            "b6c6ea8a5354eaf15b3cb7646744f4275b71ea724fed81ceb9323e279d449df9",
        ]
        static let headers: [String: String] = [
            "content-encoding": "aws-chunked", "content-length": "66824", "host": "s3.amazonaws.com",
            "x-amz-content-sha256": "STREAMING-AWS4-HMAC-SHA256-PAYLOAD", "x-amz-date": "20130524T000000Z",
            "x-amz-decoded-content-length": "66560", "x-amz-storage-class": "REDUCED_REDUNDANCY",
        ]
        static let authorization =
            "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,"
            + "SignedHeaders=content-encoding;content-length;host;x-amz-content-sha256;x-amz-date;"
            + "x-amz-decoded-content-length;x-amz-storage-class,Signature=" + seedSignature
        static let body = AWSChunkedTests.exampleBody(signatures: chunkSignatures)
    }

    /// "Signature Calculations for the Authorization Header: Including Trailing Headers (Chunked Upload)",
    /// Example: PUT Object, https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-streaming-trailers.html: the
    /// same object with an `x-amz-checksum-crc32c` trailer. The page lists `Content-Length` among the request's
    /// headers but does not sign it; these signed headers give its published seed signature.
    enum Trailer {
        static let seedSignature = "106e2a8a18243abcf37539882f36619c00e2dfc72633413f02d3b74544bfeb8e"
        static let chunkSignatures = [
            "b474d8862b1487a5145d686f57f013e54db672cee1c953b3010fb58501ef5aa2",
            "1c1344b170168f8e65b41376b44b20fe354e373826ccbbe2c1d40a8cae51e5c7",
            "2ca2aba2005185cf7159c6277faf83795951dd77a3a99e6e65d5c9f85863f992",
        ]
        static let trailerSignature = "d81f82fc3505edab99d459891051a732e8730629a2e4a59689829ca17fe2e435"
        static let headers: [String: String] = [
            "content-encoding": "aws-chunked", "host": "s3.amazonaws.com",
            "x-amz-content-sha256": "STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER", "x-amz-date": "20130524T000000Z",
            "x-amz-decoded-content-length": "66560", "x-amz-storage-class": "REDUCED_REDUNDANCY",
            "x-amz-trailer": "x-amz-checksum-crc32c",
        ]
        static let authorization =
            "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,"
            + "SignedHeaders=content-encoding;host;x-amz-content-sha256;x-amz-date;x-amz-decoded-content-length;"
            + "x-amz-storage-class;x-amz-trailer,Signature=" + seedSignature
        static let trailer = "x-amz-checksum-crc32c:sOO8/Q==\r\nx-amz-trailer-signature:" + trailerSignature + "\r\n"
        static let body = AWSChunkedTests.exampleBody(signatures: chunkSignatures, trailer: trailer)
    }

    /// The examples' body: a 64 KiB and a 1 KiB chunk of `a`, the final chunk, the trailer and the empty line.
    static func exampleBody(signatures: [String], trailer: String = "") -> [UInt8] {
        var body: [UInt8] = []
        for (size, signature) in zip([65536, 1024, 0], signatures) {
            body += Array((String(size, radix: 16) + ";chunk-signature=" + signature + "\r\n").utf8)
            if size > 0 { body += [UInt8](repeating: a, count: size) + Array("\r\n".utf8) }
        }
        return body + Array((trailer + "\r\n").utf8)
    }

    /// The example's headers checked in full, as the server checks a request: the seed comes out of it.
    static func verifiedSeed(authorization: String, headers: [String: String]) throws -> SigV4.StreamingSeed {
        let signed = try SigV4.verifyAuthorization(
            authorization,
            method: "PUT",
            path: "/examplebucket/chunkObject.txt",
            query: [],
            header: { headers[$0] },
            credentials: credentials,
            now: date
        )
        #expect(signed.payloadHash == headers["x-amz-content-sha256"])
        return signed.streamingSeed
    }

    static let seed = SigV4.StreamingSeed(
        credentials: credentials,
        amzDate: amzDate,
        seedSignature: Streaming.seedSignature
    )

    // MARK: - Helpers

    /// Decodes `body` fed in pieces of `split` bytes; the payload and the trailer.
    static func decode(
        _ body: [UInt8],
        mode: AWSChunkedMode,
        seed: SigV4.StreamingSeed? = AWSChunkedTests.seed,
        decodedLength: Int64,
        split: Int = .max
    ) throws(AWSChunkedError) -> (payload: [UInt8], trailers: AWSChunkedDecoder.Trailers) {
        var decoder = try AWSChunkedDecoder(mode: mode, seed: seed, decodedLength: decodedLength)
        var payload: [UInt8] = []
        var start = 0
        while start < body.count {
            let end = start + min(split, body.count - start)
            var buffer = ByteBuffer(bytes: body[start..<end])
            for slice in try decoder.decode(&buffer) { payload += slice.readableBytesView }
            #expect(buffer.readableBytes == 0)
            start = end
        }
        return (payload, try decoder.finish())
    }

    static func refusal(_ body: () throws(AWSChunkedError) -> Void) -> AWSChunkedError? {
        do {
            try body()
            return nil
        } catch {
            return error
        }
    }

    /// A signed body of `chunks` and the final chunk, chained from `seed`.
    static func signedBody(_ chunks: [[UInt8]], seed: SigV4.StreamingSeed = AWSChunkedTests.seed) -> [UInt8] {
        var previous = seed.seedSignature
        var body: [UInt8] = []
        for data in chunks + [[]] {
            previous = seed.chunkSignature(previous: previous, dataHash: Digest.sha256(data))
            body += Array((String(data.count, radix: 16) + ";chunk-signature=" + previous + "\r\n").utf8)
            if !data.isEmpty { body += data + Array("\r\n".utf8) }
        }
        return body + Array("\r\n".utf8)
    }

    // MARK: - The examples

    @Test("AWS's signed example: the header verifies to the published seed, which chains to the three chunks")
    func streamingExample() throws {
        let seed = try Self.verifiedSeed(authorization: Streaming.authorization, headers: Streaming.headers)
        #expect(seed.seedSignature == Streaming.seedSignature && seed.amzDate == Self.amzDate)
        #expect(seed.scope == "20130524/us-east-1/s3/aws4_request")
        #expect(seed == Self.seed)
        var previous = seed.seedSignature
        for (data, expected) in zip([65536, 1024, 0], Streaming.chunkSignatures) {
            previous = seed.chunkSignature(
                previous: previous,
                dataHash: Digest.sha256([UInt8](repeating: Self.a, count: data))
            )
            #expect(previous == expected)
        }
        #expect(Streaming.body.count == 66824, "the published Content-Length")
        let decoded = try Self.decode(Streaming.body, mode: .signed, seed: seed, decodedLength: 66560)
        #expect(decoded.payload == [UInt8](repeating: Self.a, count: 66560))
        #expect(decoded.trailers.fields.isEmpty)
    }

    @Test("AWS's trailer example: seed, chunks and the trailer signature over `x-amz-checksum-crc32c:sOO8/Q==\\n`")
    func trailerExample() throws {
        let seed = try Self.verifiedSeed(authorization: Trailer.authorization, headers: Trailer.headers)
        #expect(seed.seedSignature == Trailer.seedSignature)
        let canonical = Digest.sha256("x-amz-checksum-crc32c:sOO8/Q==\n")
        #expect(canonical.hexString == "1e376db7e1a34a8ef1c4bcee131a2d60a1cb62503747488624e10995f448d774")
        #expect(
            seed.trailerSignature(previous: Trailer.chunkSignatures[2], trailerHash: canonical)
                == Trailer.trailerSignature
        )
        #expect(Trailer.body.count == 66946)
        let decoded = try Self.decode(Trailer.body, mode: .signedWithTrailer, seed: seed, decodedLength: 66560)
        #expect(decoded.payload == [UInt8](repeating: Self.a, count: 66560))
        #expect(decoded.trailers.fields == [.init(name: "x-amz-checksum-crc32c", value: "sOO8/Q==")])
        #expect(decoded.trailers["X-Amz-Checksum-CRC32C"] == "sOO8/Q==")
    }

    @Test(
        "both examples decode whatever the split of the input, one byte at a time included",
        arguments: [1, 2, 7, 87, 88, 8192, 65625]
    )
    func splits(split: Int) throws {
        let streaming = try Self.decode(Streaming.body, mode: .signed, decodedLength: 66560, split: split)
        #expect(streaming.payload.count == 66560 && streaming.payload.allSatisfy { $0 == Self.a })
        let trailerSeed = SigV4.StreamingSeed(
            credentials: Self.credentials,
            amzDate: Self.amzDate,
            seedSignature: Trailer.seedSignature
        )
        let trailer = try Self.decode(
            Trailer.body,
            mode: .signedWithTrailer,
            seed: trailerSeed,
            decodedLength: 66560,
            split: split
        )
        #expect(trailer.payload.count == 66560 && trailer.payload.allSatisfy { $0 == Self.a })
        #expect(trailer.trailers["x-amz-checksum-crc32c"] == "sOO8/Q==")
    }

    // MARK: - botocore's STREAMING-UNSIGNED-PAYLOAD-TRAILER

    /// botocore 1.43.11's exact bytes, made with its `AwsChunkedWrapper` (botocore/httpchecksum.py), which
    /// `put_object` uses over HTTPS with `x-amz-content-sha256: STREAMING-UNSIGNED-PAYLOAD-TRAILER`,
    /// `Content-Encoding: aws-chunked`, `X-Amz-Trailer: x-amz-checksum-crc32` and
    /// `X-Amz-Decoded-Content-Length: 40`:
    ///
    ///     AwsChunkedWrapper(io.BytesIO(b"Hello from botocore's AwsChunkedWrapper\n"),
    ///                       checksum_cls=Crc32Checksum, checksum_name="x-amz-checksum-crc32").read()
    static let botocoreSmall: [UInt8] = Array(
        "28\r\nHello from botocore's AwsChunkedWrapper\n\r\n0\r\nx-amz-checksum-crc32:9cEdrg==\r\n\r\n".utf8
    )

    /// botocore's default chunk size (1 MiB) on 1 MiB + 1000 bytes, `(i * 7 + 3) % 251` for byte `i`: the same
    /// call on that payload gave exactly these framing lines around it (checked byte for byte in Python).
    static let botocorePayload: [UInt8] = (0..<(1_048_576 + 1000)).map { (index: Int) -> UInt8 in
        UInt8((index * 7 + 3) % 251)
    }
    static let botocoreLarge: [UInt8] = {
        var body = Array("100000\r\n".utf8)
        body += botocorePayload[..<1_048_576]
        body += Array("\r\n3e8\r\n".utf8)
        body += botocorePayload[1_048_576...]
        body += Array("\r\n0\r\nx-amz-checksum-crc32:OBYIqQ==\r\n\r\n".utf8)
        return body
    }()

    @Test(
        "botocore's bytes decode, one byte at a time too, and hand over its checksum trailer",
        arguments: [1, 3, .max]
    )
    func botocore(split: Int) throws {
        #expect(Self.botocoreSmall.count == 82)
        let small = try Self.decode(
            Self.botocoreSmall,
            mode: .unsignedWithTrailer,
            seed: nil,
            decodedLength: 40,
            split: split
        )
        #expect(small.payload == Array("Hello from botocore's AwsChunkedWrapper\n".utf8))
        #expect(small.trailers.fields == [.init(name: "x-amz-checksum-crc32", value: "9cEdrg==")])
        #expect(Self.botocoreLarge.count == 1_049_629)
        let large = try Self.decode(
            Self.botocoreLarge,
            mode: .unsignedWithTrailer,
            seed: nil,
            decodedLength: Int64(Self.botocorePayload.count),
            split: split == 1 ? 4099 : split
        )
        #expect(large.payload == Self.botocorePayload)
        #expect(large.trailers["x-amz-checksum-crc32"] == "OBYIqQ==")
    }

    @Test("an unsigned body may carry chunk extensions, end its trailer lines with a bare LF, or carry no trailer")
    func unsignedTolerance() throws {
        let body = Array("5;ext=1;other\r\nhello\r\n0;x\r\nx-amz-checksum-crc32 : NhCmhg== \n\r\n".utf8)
        let decoded = try Self.decode(body, mode: .unsignedWithTrailer, seed: nil, decodedLength: 5, split: 1)
        #expect(decoded.payload == Array("hello".utf8))
        #expect(decoded.trailers["x-amz-checksum-crc32"] == "NhCmhg==")
        let bare = try Self.decode(
            Array("5\r\nhello\r\n0\r\n\r\n".utf8),
            mode: .unsignedWithTrailer,
            seed: nil,
            decodedLength: 5
        )
        #expect(bare.trailers.fields.isEmpty)
    }

    // MARK: - Refusals

    @Test("a changed data byte breaks its chunk's signature: 403 SignatureDoesNotMatch, before the data is handed on")
    func tamperedData() {
        for offset in [100, 65536 + 200] {
            var body = Streaming.body
            let dataStart = body.firstIndex(of: Self.a)!
            body[dataStart + offset] = UInt8(ascii: "b")
            var handed = 0
            let denial = Self.refusal { () throws(AWSChunkedError) in
                handed = try Self.decode(body, mode: .signed, decodedLength: 66560).payload.count
            }
            #expect(denial == .signatureMismatch, "offset \(offset)")
            #expect(denial?.kind == .forbidden && denial?.category == .forbidden)
            #expect(handed == 0)
        }
    }

    @Test("chunks in another order, each with its own valid signature line, break the chain")
    func swappedChunks() throws {
        let chunks = (0..<3).map { [UInt8](repeating: UInt8(ascii: "x") + UInt8($0), count: 8192) }
        let body = Self.signedBody(chunks)
        #expect(try Self.decode(body, mode: .signed, decodedLength: 3 * 8192).payload == chunks.flatMap { $0 })
        // Each framed data chunk is its 87-byte line (`2000;chunk-signature=` and 64 hex digits, CRLF), the
        // data and CRLF: move the second one first.
        let framed = 87 + 8192 + 2
        let swapped = Array(body[framed..<(2 * framed)] + body[..<framed] + body[(2 * framed)...])
        #expect(
            Self.refusal { () throws(AWSChunkedError) in
                _ = try Self.decode(swapped, mode: .signed, decodedLength: 3 * 8192)
            } == .signatureMismatch
        )
        // AWS's example with its two data chunks' signature lines exchanged.
        var lines = Streaming.body
        let first = Array("10000;chunk-signature=\(Streaming.chunkSignatures[1])".utf8)
        lines.replaceSubrange(0..<first.count, with: first)
        #expect(
            Self.refusal { () throws(AWSChunkedError) in
                _ = try Self.decode(lines, mode: .signed, decodedLength: 66560)
            } == .signatureMismatch
        )
    }

    @Test(
        "a truncated body is 400 IncompleteBody at its end, wherever it stops",
        arguments: [1, 88, 5000, 65626, 66700, 66822]
    )
    func truncated(length: Int) {
        let denial = Self.refusal { () throws(AWSChunkedError) in
            _ = try Self.decode(Array(Streaming.body[..<length]), mode: .signed, decodedLength: 66560, split: 4096)
        }
        #expect(denial == .incompleteBody)
        #expect(denial?.code == "IncompleteBody" && denial?.category == .invalidInput)
    }

    @Test("a decoded length other than x-amz-decoded-content-length is 400 IncompleteBody naming both numbers")
    func wrongDecodedLength() {
        // Declared longer: found at the final chunk.
        let short = Self.refusal { () throws(AWSChunkedError) in
            _ = try Self.decode(Streaming.body, mode: .signed, decodedLength: 66561)
        }
        #expect(short == .decodedLengthMismatch(expected: 66561, provided: 66560))
        #expect(short?.details == [.init("NumberBytesExpected", "66561"), .init("NumberBytesProvided", "66560")])
        // Declared shorter: found as soon as a chunk-size line overruns it, before its data is read.
        let long = Self.refusal { () throws(AWSChunkedError) in
            _ = try Self.decode(Array(Streaming.body[..<65800]), mode: .signed, decodedLength: 66559)
        }
        #expect(long == .decodedLengthMismatch(expected: 66559, provided: 66560))
        #expect(long?.code == "IncompleteBody")
    }

    @Test(
        "framing S3 cannot read is 400 IncompleteBody",
        arguments: [
            "an oversized chunk line", "17 hex digits", "a size over Int64.max", "no hex digits", "a bare LF",
            "no chunk-signature", "a short chunk-signature", "no CRLF after the data", "bytes after the end",
        ]
    )
    func malformedFraming(rule: String) {
        var body = Streaming.body
        var length: Int64 = 66560
        let signature = ";chunk-signature=" + Streaming.chunkSignatures[0]
        switch rule {
        case "an oversized chunk line": body = Array(("10000;" + String(repeating: "x", count: 4096)).utf8)
        case "17 hex digits": body = Array(("00000000000010000" + signature + "\r\n").utf8)
        case "a size over Int64.max":
            body = Array(("8000000000000000" + signature + "\r\n").utf8)
            length = .max
        case "no hex digits": body = Array((signature + "\r\n").utf8)
        case "a bare LF": body = Array(("10000" + signature + "\n").utf8)
        case "no chunk-signature": body = Array("10000\r\n".utf8)
        case "a short chunk-signature": body = Array(("10000" + String(signature.dropLast()) + "\r\n").utf8)
        case "no CRLF after the data": body[88 + 65536] = UInt8(ascii: "x")
        case "bytes after the end": body += Array("0\r\n".utf8)
        default: Issue.record("no such rule \(rule)")
        }
        let denial = Self.refusal { () throws(AWSChunkedError) in
            _ = try Self.decode(body, mode: .signed, decodedLength: length, split: 1000)
        }
        #expect(denial == .incompleteBody, "\(rule): \(String(describing: denial))")
    }

    @Test("an oversized line is refused as soon as it passes the bound, not when its LF arrives")
    func boundedLine() throws {
        var decoder = try AWSChunkedDecoder(mode: .unsignedWithTrailer, seed: nil, decodedLength: 1)
        var buffer = ByteBuffer(bytes: [UInt8](repeating: UInt8(ascii: "0"), count: 4095))
        #expect(try decoder.decode(&buffer).isEmpty)
        var more = ByteBuffer(string: "0")
        #expect(Self.refusal { () throws(AWSChunkedError) in _ = try decoder.decode(&more) } == .incompleteBody)
        // The error sticks.
        var again = ByteBuffer(string: "\r\n")
        #expect(Self.refusal { () throws(AWSChunkedError) in _ = try decoder.decode(&again) } == .incompleteBody)
        #expect(Self.refusal { () throws(AWSChunkedError) in _ = try decoder.finish() } == .incompleteBody)
    }

    @Test("a chunk under 8 KiB that is not the last is 403 InvalidChunkSizeError, numbered as S3 numbers it")
    func smallChunk() {
        // S3 refused "hello" sent in chunks of 3, 2 and 0 bytes with Chunk 2 and BadChunkSize 3 (versitygw #1683).
        let unsigned = Self.refusal { () throws(AWSChunkedError) in
            _ = try Self.decode(
                Array("3\r\nhel\r\n2\r\nlo\r\n0\r\n\r\n".utf8),
                mode: .unsignedWithTrailer,
                seed: nil,
                decodedLength: 5
            )
        }
        #expect(unsigned == .invalidChunkSize(chunk: 2, size: 3))
        #expect(unsigned?.details == [.init("Chunk", "2"), .init("BadChunkSize", "3")])
        #expect(unsigned?.kind == .forbidden)
        let signed = Self.refusal { () throws(AWSChunkedError) in
            let chunks = [[UInt8](repeating: 1, count: 8192), [UInt8](repeating: 2, count: 100), [3]]
            _ = try Self.decode(Self.signedBody(chunks), mode: .signed, decodedLength: 8293)
        }
        #expect(signed == .invalidChunkSize(chunk: 3, size: 100))
        // 8 KiB exactly is enough, and the last data chunk may be any size.
        let chunks = [[UInt8](repeating: 1, count: 8192), [UInt8](repeating: 2, count: 8192), [3]]
        #expect(throws: Never.self) {
            try Self.decode(Self.signedBody(chunks), mode: .signed, decodedLength: 16385)
        }
    }

    @Test("a changed trailer value or signature is 403 SignatureDoesNotMatch")
    func tamperedTrailer() {
        let seed = SigV4.StreamingSeed(
            credentials: Self.credentials,
            amzDate: Self.amzDate,
            seedSignature: Trailer.seedSignature
        )
        for (old, new) in [("sOO8/Q==", "sOO8/R=="), ("d81f82fc", "d81f82fd")] {
            let body = Array(
                String(decoding: Trailer.body, as: UTF8.self).replacingOccurrences(of: old, with: new).utf8
            )
            let denial = Self.refusal { () throws(AWSChunkedError) in
                _ = try Self.decode(body, mode: .signedWithTrailer, seed: seed, decodedLength: 66560)
            }
            #expect(denial == .signatureMismatch, "\(new)")
        }
    }

    @Test(
        "a trailer that is not name:value lines, or does not fit its mode, is 400 MalformedTrailerError",
        arguments: [
            "no signature", "a field after the signature", "two signatures", "a short signature", "no colon",
            "an empty name", "a repeated field", "a trailer in the signed mode", "a signature in the unsigned mode",
            "an oversized trailer",
        ]
    )
    func malformedTrailer(rule: String) {
        let checksum = "x-amz-checksum-crc32c:sOO8/Q==\r\n"
        let signature = "x-amz-trailer-signature:" + Trailer.trailerSignature + "\r\n"
        var mode = AWSChunkedMode.signedWithTrailer
        var seedSignature = Trailer.seedSignature
        var chunkSignatures = Trailer.chunkSignatures
        let trailer: String
        switch rule {
        case "no signature": trailer = checksum
        case "a field after the signature": trailer = checksum + signature + "x-amz-meta-a:b\r\n"
        case "two signatures": trailer = checksum + signature + signature
        case "a short signature": trailer = checksum + String(signature.dropLast(3)) + "\r\n"
        case "no colon": trailer = "x-amz-checksum-crc32c sOO8/Q==\r\n" + signature
        case "an empty name": trailer = ":sOO8/Q==\r\n" + signature
        case "a repeated field": trailer = checksum + checksum + signature
        case "a trailer in the signed mode":
            mode = .signed
            seedSignature = Streaming.seedSignature
            chunkSignatures = Streaming.chunkSignatures
            trailer = checksum
        case "a signature in the unsigned mode":
            mode = .unsignedWithTrailer
            trailer = checksum + signature
        case "an oversized trailer":
            trailer = (0..<200).map { "x-amz-meta-\($0):" + String(repeating: "v", count: 80) + "\r\n" }.joined()
        default:
            Issue.record("no such rule \(rule)")
            return
        }
        var body = Self.exampleBody(signatures: chunkSignatures, trailer: trailer)
        if mode == .unsignedWithTrailer {
            body = Array(("1\r\na\r\n0\r\n" + trailer + "\r\n").utf8)
        }
        let seed = SigV4.StreamingSeed(
            credentials: Self.credentials,
            amzDate: Self.amzDate,
            seedSignature: seedSignature
        )
        let denial = Self.refusal { () throws(AWSChunkedError) in
            _ = try Self.decode(
                body,
                mode: mode,
                seed: seed,
                decodedLength: mode == .unsignedWithTrailer ? 1 : 66560,
                split: 999
            )
        }
        #expect(denial == .malformedTrailer, "\(rule): \(String(describing: denial))")
    }

    // MARK: - Modes and lengths

    @Test(
        "x-amz-content-sha256: the three modes, nothing for a plain hash, SigV4a not implemented, unknown STREAMING- refused"
    )
    func modes() throws {
        for mode in AWSChunkedMode.allCases {
            #expect(try AWSChunkedMode.streaming(payloadHash: mode.payloadHash) == mode)
            #expect(
                AWSChunkedMode(payloadHash: mode.payloadHash) == mode && AWSChunkedMode.isStreaming(mode.payloadHash)
            )
        }
        #expect(AWSChunkedMode.signed.hasChunkSignatures && !AWSChunkedMode.signed.hasTrailer)
        #expect(!AWSChunkedMode.unsignedWithTrailer.hasChunkSignatures && AWSChunkedMode.unsignedWithTrailer.hasTrailer)
        for plain in [SigV4.unsignedPayload, SigV4.emptyPayloadHash] {
            #expect(try AWSChunkedMode.streaming(payloadHash: plain) == nil)
            #expect(AWSChunkedMode(payloadHash: plain) == nil && !AWSChunkedMode.isStreaming(plain))
        }
        for sigV4a in ["STREAMING-AWS4-ECDSA-P256-SHA256-PAYLOAD", "STREAMING-AWS4-ECDSA-P256-SHA256-PAYLOAD-TRAILER"] {
            #expect(AWSChunkedMode(payloadHash: sigV4a) == nil && AWSChunkedMode.isStreaming(sigV4a))
            #expect(throws: AWSChunkedError.sigV4aNotImplemented) { try AWSChunkedMode.streaming(payloadHash: sigV4a) }
        }
        #expect(AWSChunkedError.sigV4aNotImplemented.code == "NotImplemented")
        #expect(AWSChunkedError.sigV4aNotImplemented.kind == .notImplemented)
        for unknown in ["STREAMING-UNSIGNED-PAYLOAD", "STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILERS", "STREAMING-"] {
            #expect(AWSChunkedMode(payloadHash: unknown) == nil && AWSChunkedMode.isStreaming(unknown))
            #expect(throws: AWSChunkedError.invalidPayloadHash) { try AWSChunkedMode.streaming(payloadHash: unknown) }
        }
        #expect(AWSChunkedError.invalidPayloadHash.code == "InvalidRequest")
    }

    @Test("x-amz-decoded-content-length: required (411 MissingContentLength), decimal digits only")
    func decodedLengthHeader() throws {
        #expect(try AWSChunkedDecoder.decodedLength("66560") == 66560)
        #expect(try AWSChunkedDecoder.decodedLength("0") == 0)
        #expect(throws: AWSChunkedError.missingDecodedLength) { try AWSChunkedDecoder.decodedLength(nil) }
        #expect(AWSChunkedError.missingDecodedLength.kind == .lengthRequired)
        for bad in ["", "-1", "+5", "1e3", " 5", "99999999999999999999", "0x10"] {
            #expect(throws: AWSChunkedError.invalidDecodedLength) { try AWSChunkedDecoder.decodedLength(bad) }
        }
    }

    @Test("a signed mode needs the header signature's seed")
    func unseeded() {
        #expect(throws: AWSChunkedError.unseededSignedBody) {
            try AWSChunkedDecoder(mode: .signedWithTrailer, seed: nil, decodedLength: 0)
        }
        #expect(throws: AWSChunkedError.unseededSignedBody) {
            try AWSChunkedBody(AsyncStream<ByteBuffer> { $0.finish() }, mode: .signed, seed: nil, decodedLength: 0)
        }
        #expect(throws: Never.self) {
            try AWSChunkedDecoder(mode: .unsignedWithTrailer, seed: nil, decodedLength: 0)
        }
    }

    @Test("no error, description or mirror shows a signature or the signing key")
    func secrecy() {
        let errors: [AWSChunkedError] = [
            .incompleteBody, .signatureMismatch, .malformedTrailer, .invalidChunkSize(chunk: 2, size: 3),
            .decodedLengthMismatch(expected: 1, provided: 2), .sigV4aNotImplemented, .invalidPayloadHash,
        ]
        let signatures = [Streaming.seedSignature] + Streaming.chunkSignatures + Trailer.chunkSignatures
        for error in errors {
            let shown = error.description + error.details.map(\.value).joined()
            #expect(!signatures.contains { shown.contains($0) })
        }
        var dumped = ""
        dump(Self.seed, to: &dumped)
        for shown in [Self.seed.description, String(reflecting: Self.seed), dumped] {
            #expect(shown.contains("20130524/us-east-1/s3/aws4_request"))
            #expect(!shown.contains(Streaming.seedSignature) && !shown.contains("signingKey"), "\(shown)")
        }
    }

    // MARK: - The async sequence

    static func stream(_ body: [UInt8], split: Int) -> AsyncStream<ByteBuffer> {
        AsyncStream { continuation in
            var start = 0
            while start < body.count {
                let end = min(start + split, body.count)
                continuation.yield(ByteBuffer(bytes: body[start..<end]))
                start = end
            }
            continuation.finish()
        }
    }

    @Test("AWSChunkedBody yields the payload, then hands over the trailer before it ends")
    func asyncBody() async throws {
        final class Received: Sendable {
            let trailers = Mutex<[AWSChunkedDecoder.Trailers]>([])
        }
        let received = Received()
        let seed = SigV4.StreamingSeed(
            credentials: Self.credentials,
            amzDate: Self.amzDate,
            seedSignature: Trailer.seedSignature
        )
        let body = try AWSChunkedBody(
            Self.stream(Trailer.body, split: 1000),
            mode: .signedWithTrailer,
            seed: seed,
            decodedLength: 66560,
            onTrailers: { trailers in received.trailers.withLock { $0.append(trailers) } }
        )
        let _: any Sendable = body
        var payload: [UInt8] = []
        for try await slice in body {
            #expect(received.trailers.withLock { $0.isEmpty })
            payload += slice.readableBytesView
        }
        #expect(payload == [UInt8](repeating: Self.a, count: 66560))
        #expect(received.trailers.withLock { $0.map { $0["x-amz-checksum-crc32c"] } } == ["sOO8/Q=="])
    }

    @Test("AWSChunkedBody throws S3's refusal, a truncated body's at its end, and what onTrailers throws")
    func asyncRefusals() async throws {
        struct ChecksumMismatch: Error {}
        let truncated = try AWSChunkedBody(
            Self.stream(Array(Streaming.body.dropLast(2)), split: 4096),
            mode: .signed,
            seed: Self.seed,
            decodedLength: 66560
        )
        await #expect(throws: AWSChunkedError.incompleteBody) {
            for try await _ in truncated {}
        }
        var tampered = Streaming.body
        tampered[tampered.count - 200] = UInt8(ascii: "b")
        let forged = try AWSChunkedBody(
            Self.stream(tampered, split: 4096),
            mode: .signed,
            seed: Self.seed,
            decodedLength: 66560
        )
        await #expect(throws: AWSChunkedError.signatureMismatch) {
            for try await _ in forged {}
        }
        let rejected = try AWSChunkedBody(
            Self.stream(Self.botocoreSmall, split: 5),
            mode: .unsignedWithTrailer,
            seed: nil,
            decodedLength: 40,
            onTrailers: { _ in throw ChecksumMismatch() }
        )
        await #expect(throws: ChecksumMismatch.self) {
            for try await _ in rejected {}
        }
    }
}
