import NIOCore

/// Decodes an S3 `aws-chunked` request body as it streams in, in whatever pieces it arrives, checking its
/// framing, its length and (in the signed modes) every chunk's and the trailer's signature.
///
/// The body is chunks, then a final empty chunk, then trailer lines and an empty line:
///
///     10000;chunk-signature=<64 hex>\r\n<65536 bytes>\r\n      signed modes
///     400;chunk-signature=<64 hex>\r\n<1024 bytes>\r\n
///     0;chunk-signature=<64 hex>\r\n
///     x-amz-checksum-crc32c:sOO8/Q==\r\n                     -TRAILER modes only
///     x-amz-trailer-signature:<64 hex>\r\n                   STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER only
///     \r\n
///
/// `STREAMING-UNSIGNED-PAYLOAD-TRAILER` chunk lines are a bare hex size (`400\r\n`), any chunk extension after
/// a `;` ignored; botocore's `AwsChunkedWrapper` writes `28\r\n<40 bytes>\r\n0\r\nx-amz-checksum-crc32:..\r\n\r\n`.
///
/// Payload is handed on as it arrives, before its chunk's signature can be checked (a chunk may be as large as
/// the object, so holding it back is no option): a consumer must keep nothing until the body has ended
/// without error (`finish()`, or `AWSChunkedBody` returning nil).
///
/// Rules, with S3's answers (`AWSChunkedError` cites where each was observed):
/// - every chunk but the last must hold at least 8 KiB (`minimumChunkSize`), in every mode: S3 refuses a
///   smaller one with 403 `InvalidChunkSizeError` in the signed modes and, since the SDKs' checksums-by-default
///   change in 2025, in `STREAMING-UNSIGNED-PAYLOAD-TRAILER` as well (aws/aws-sdk-js-v3 #6859 and #6949:
///   Node streams of small chunks refused by S3 itself). MockCDN answers that 403, not a `SignatureDoesNotMatch`,
///   since the signatures may well hold;
/// - the chunks must add up to `x-amz-decoded-content-length`: 400 `IncompleteBody` with both numbers, as soon
///   as a chunk's size line overruns it, or at the final chunk when short;
/// - a chunk-size line is at most `maximumChunkLineLength` bytes, its size at most 16 hex digits and at most
///   `Int64.max`; anything else in the framing is 400 `IncompleteBody`;
/// - the trailer is at most `maximumTrailerLength` bytes of `name:value` lines, the signature last: else 400
///   `MalformedTrailerError`;
/// - a chunk or trailer signature that does not match (compared in constant time): 403 `SignatureDoesNotMatch`.
///
/// One decoder reads one body: copies share the hash of the chunk in progress.
public struct AWSChunkedDecoder {
    /// The smallest chunk S3 takes, except for the last one holding data.
    public static let minimumChunkSize: Int64 = 8192
    /// The longest chunk-size line, its CRLF included. A signed one takes at most 99 bytes (16 hex digits,
    /// `;chunk-signature=` and 64 hex digits); the rest is room for an unsigned line's extensions.
    public static let maximumChunkLineLength = 4096
    /// The most bytes the trailer may take, its lines and the empty line that ends it.
    public static let maximumTrailerLength = 16 * 1024

    /// The trailer fields of a body, `x-amz-trailer-signature` left out (the decoder has checked it).
    public struct Trailers: Sendable, Equatable {
        /// One trailer field.
        public struct Field: Sendable, Equatable {
            /// The name, lower-cased.
            public let name: String
            /// The value, without the spaces around it.
            public let value: String

            /// A field named `name` (lower-cased here) with `value`.
            ///
            /// - Parameters:
            ///   - name: the field name.
            ///   - value: the field value.
            public init(name: String, value: String) {
                self.name = name.lowercased()
                self.value = value
            }
        }

        /// The fields, in the order sent, each name at most once.
        public let fields: [Field]

        /// The value of the field named `name`, in any case.
        ///
        /// - Parameter name: the field name.
        public subscript(name: String) -> String? {
            let name = name.lowercased()
            return self.fields.first { $0.name == name }?.value
        }
    }

    private enum State: Equatable {
        /// Reading a chunk-size line into `line`.
        case chunkLine
        /// Passing a chunk's data on.
        case data(remaining: Int64)
        /// Reading the CRLF after a chunk's data.
        case dataEnd(carriageReturnSeen: Bool)
        /// Reading a trailer line into `line`.
        case trailerLine
        /// The empty line after the trailer has been read.
        case done
    }

    private static let carriageReturn = UInt8(ascii: "\r")
    private static let lineFeed = UInt8(ascii: "\n")
    private static let signaturePrefix = Array(";chunk-signature=".utf8)
    private static let trailerSignatureName = "x-amz-trailer-signature"

    /// The mode the body is framed in.
    public let mode: AWSChunkedMode
    /// The length the decoded data must have: `x-amz-decoded-content-length`.
    public let decodedLength: Int64
    private let seed: SigV4.StreamingSeed?
    private var state = State.chunkLine
    /// The line read so far, when a buffer ended inside it.
    private var line: [UInt8] = []
    /// The data bytes the chunk-size lines so far announced.
    private var announced: Int64 = 0
    private var chunkCount = 0
    private var lastChunkSize: Int64?
    private var previousSignature: String
    private var providedSignature: [UInt8] = []
    private var hasher: SHA256Hasher?
    private var trailerLength = 0
    private var fields: [Trailers.Field] = []
    private var trailerSignature: [UInt8]?
    private var failure: AWSChunkedError?

    /// A decoder for a body in `mode`.
    ///
    /// - Parameters:
    ///   - mode: the mode the request's `x-amz-content-sha256` names (`AWSChunkedMode.streaming(payloadHash:)`).
    ///   - seed: the header signature's seed (`SigV4.SignedRequest.streamingSeed`); required in the signed modes.
    ///   - decodedLength: `x-amz-decoded-content-length` (`decodedLength(_:)` reads it).
    /// - Throws: `AWSChunkedError.unseededSignedBody` for a signed mode without a seed,
    ///   `AWSChunkedError.invalidDecodedLength` for a negative length.
    public init(mode: AWSChunkedMode, seed: SigV4.StreamingSeed?, decodedLength: Int64) throws(AWSChunkedError) {
        try Self.validate(mode: mode, seed: seed, decodedLength: decodedLength)
        self.init(validatedMode: mode, seed: seed, decodedLength: decodedLength)
    }

    init(validatedMode mode: AWSChunkedMode, seed: SigV4.StreamingSeed?, decodedLength: Int64) {
        self.mode = mode
        self.seed = seed
        self.decodedLength = decodedLength
        self.previousSignature = seed?.seedSignature ?? ""
    }

    static func validate(
        mode: AWSChunkedMode,
        seed: SigV4.StreamingSeed?,
        decodedLength: Int64
    ) throws(AWSChunkedError) {
        guard decodedLength >= 0 else { throw .invalidDecodedLength }
        guard seed != nil || !mode.hasChunkSignatures else { throw .unseededSignedBody }
    }

    /// The length an `x-amz-decoded-content-length` header declares.
    ///
    /// - Parameter header: the header's value, nil when the request has none.
    /// - Returns: the length in bytes.
    /// - Throws: `AWSChunkedError.missingDecodedLength` (411 `MissingContentLength`, S3's answer to a body of
    ///   unknown length) without one; `AWSChunkedError.invalidDecodedLength` when it is not 1 to 19 decimal digits.
    public static func decodedLength(_ header: String?) throws(AWSChunkedError) -> Int64 {
        guard let header else { throw .missingDecodedLength }
        guard (1...19).contains(header.utf8.count), header.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
            let length = Int64(header)
        else { throw .invalidDecodedLength }
        return length
    }

    /// Decodes the next piece of the body, of any length, and returns the payload it holds.
    ///
    /// - Parameter buffer: the piece; all of it is read (a line it ends inside of is kept for the next piece).
    /// - Returns: the payload, as slices of `buffer` (no copy); empty when the piece held only framing.
    /// - Throws: `AWSChunkedError` with S3's code for the first rule the body breaks (see the type's rules); every
    ///   later call throws it again.
    public mutating func decode(_ buffer: inout ByteBuffer) throws(AWSChunkedError) -> [ByteBuffer] {
        if let failure = self.failure { throw failure }
        var payload: [ByteBuffer] = []
        do throws(AWSChunkedError) {
            while buffer.readableBytes > 0 {
                switch self.state {
                case .chunkLine:
                    guard
                        let line = try self.readLine(
                            from: &buffer,
                            limit: Self.maximumChunkLineLength,
                            tooLong: .incompleteBody
                        )
                    else { return payload }
                    try self.startChunk(line)
                case .data(let remaining):
                    let count = Int(min(remaining, Int64(buffer.readableBytes)))
                    let slice = buffer.readSlice(length: count)!
                    self.hasher?.update(slice)
                    payload.append(slice)
                    if remaining > Int64(count) {
                        self.state = .data(remaining: remaining - Int64(count))
                    } else {
                        try self.endChunkData()
                        self.state = .dataEnd(carriageReturnSeen: false)
                    }
                case .dataEnd(let carriageReturnSeen):
                    let byte = buffer.readInteger(as: UInt8.self)!
                    guard byte == (carriageReturnSeen ? Self.lineFeed : Self.carriageReturn) else {
                        throw .incompleteBody
                    }
                    self.state = carriageReturnSeen ? .chunkLine : .dataEnd(carriageReturnSeen: true)
                case .trailerLine:
                    guard
                        let line = try self.readLine(
                            from: &buffer,
                            limit: Self.maximumTrailerLength - self.trailerLength,
                            tooLong: .malformedTrailer
                        )
                    else { return payload }
                    self.trailerLength += line.count + 1
                    try self.takeTrailerLine(line)
                case .done:
                    // Bytes after the empty line that ends the body.
                    throw .incompleteBody
                }
            }
        } catch {
            self.failure = error
            throw error
        }
        return payload
    }

    /// The trailer fields, once the whole body has been decoded; call it when the input ends.
    ///
    /// - Returns: the trailer fields (none for `STREAMING-AWS4-HMAC-SHA256-PAYLOAD`), their signature checked in
    ///   `STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER`; the caller checks any `x-amz-checksum-*` among them.
    /// - Throws: the error `decode(_:)` threw; `AWSChunkedError.incompleteBody` when the body ended before its
    ///   final chunk and the empty line after its trailer.
    public func finish() throws(AWSChunkedError) -> Trailers {
        if let failure = self.failure { throw failure }
        guard self.state == .done else { throw .incompleteBody }
        return Trailers(fields: self.fields)
    }

    // MARK: - Lines

    /// The next line up to its LF (left out, a CR before it kept), or nil when the buffer ends first: the line
    /// so far is kept for the next buffer.
    private mutating func readLine(
        from buffer: inout ByteBuffer,
        limit: Int,
        tooLong: AWSChunkedError
    ) throws(AWSChunkedError) -> [UInt8]? {
        // The bytes the line may still take, its LF included; only those are searched.
        let room = limit - self.line.count
        let view = buffer.readableBytesView
        if let end = view.prefix(max(room, 0)).firstIndex(of: Self.lineFeed) {
            self.line.append(contentsOf: view[view.startIndex..<end])
            buffer.moveReaderIndex(forwardBy: end - view.startIndex + 1)
            let line = self.line
            self.line.removeAll(keepingCapacity: true)
            return line
        }
        guard view.count < room else { throw tooLong }
        self.line.append(contentsOf: view)
        buffer.moveReaderIndex(forwardBy: view.count)
        return nil
    }

    // MARK: - Chunks

    /// Reads a chunk-size line (its CR still on): the size, and in the signed modes the chunk's signature.
    private mutating func startChunk(_ line: [UInt8]) throws(AWSChunkedError) {
        guard line.last == Self.carriageReturn else { throw .incompleteBody }
        let text = line.dropLast()
        let sizeEnd = text.firstIndex(of: UInt8(ascii: ";")) ?? text.endIndex
        guard let size = Self.chunkSize(text[..<sizeEnd]) else { throw .incompleteBody }
        let extensions = text[sizeEnd...]
        if self.mode.hasChunkSignatures {
            guard extensions.starts(with: Self.signaturePrefix),
                extensions.count == Self.signaturePrefix.count + 64,
                let signature = [UInt8](
                    hexString: String(decoding: extensions.dropFirst(Self.signaturePrefix.count), as: UTF8.self)
                )
            else { throw .incompleteBody }
            self.providedSignature = signature
        }
        // Unsigned chunk lines may carry extensions (RFC 9112, 7.1.1); none means anything here.

        self.chunkCount += 1
        if size > 0, let last = self.lastChunkSize, last < Self.minimumChunkSize {
            throw .invalidChunkSize(chunk: self.chunkCount, size: last)
        }
        guard size <= self.decodedLength - self.announced else {
            let (provided, overflow) = self.announced.addingReportingOverflow(size)
            throw .decodedLengthMismatch(expected: self.decodedLength, provided: overflow ? .max : provided)
        }
        self.announced += size
        self.lastChunkSize = size
        if size > 0 {
            if self.mode.hasChunkSignatures { self.hasher = SHA256Hasher() }
            self.state = .data(remaining: size)
            return
        }
        // The final chunk: its (empty) data is signed too, and the length must be complete.
        if self.mode.hasChunkSignatures { try self.verifyChunk(dataHash: Self.emptyHash) }
        guard self.announced == self.decodedLength else {
            throw .decodedLengthMismatch(expected: self.decodedLength, provided: self.announced)
        }
        self.state = .trailerLine
    }

    /// A chunk size: 1 to 16 hex digits, at most `Int64.max`.
    private static func chunkSize(_ digits: ArraySlice<UInt8>) -> Int64? {
        guard (1...16).contains(digits.count) else { return nil }
        var value: UInt64 = 0
        for digit in digits {
            let nibble: UInt8
            switch digit {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = digit - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = digit - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): nibble = digit - UInt8(ascii: "A") + 10
            default: return nil
            }
            value = value << 4 | UInt64(nibble)
        }
        return value <= UInt64(Int64.max) ? Int64(value) : nil
    }

    private static let emptyHash = Digest.sha256([UInt8]())

    /// Checks a data chunk's signature once all of its data has passed.
    private mutating func endChunkData() throws(AWSChunkedError) {
        guard let hasher = self.hasher else { return }
        self.hasher = nil
        try self.verifyChunk(dataHash: hasher.finalize())
    }

    /// Checks the signature the chunk-size line carried against the chain, and moves the chain on.
    private mutating func verifyChunk(dataHash: [UInt8]) throws(AWSChunkedError) {
        guard let seed = self.seed else { throw .unseededSignedBody }
        let expected = seed.chunkSignatureBytes(previous: self.previousSignature, dataHash: dataHash)
        guard SecureBytes.constantTimeEqual(expected, self.providedSignature) else { throw .signatureMismatch }
        self.previousSignature = expected.hexString
    }

    // MARK: - Trailer

    /// Takes one trailer line (a CR before its LF optional, as some clients end trailer lines with a bare LF);
    /// the empty line ends the body.
    private mutating func takeTrailerLine(_ line: [UInt8]) throws(AWSChunkedError) {
        let text = line.last == Self.carriageReturn ? line.dropLast() : line[...]
        if text.isEmpty {
            try self.endTrailer()
            self.state = .done
            return
        }
        // Nothing may follow the signature: it covers the fields before it.
        guard self.mode.hasTrailer, self.trailerSignature == nil, let colon = text.firstIndex(of: UInt8(ascii: ":"))
        else { throw .malformedTrailer }
        let name = Self.trimmed(text[..<colon])
        let value = Self.trimmed(text[(colon + 1)...])
        guard !name.isEmpty, name.allSatisfy(Self.isTokenCharacter),
            value.allSatisfy({ $0 == 0x09 || (0x20...0x7e).contains($0) })
        else { throw .malformedTrailer }
        let field = Trailers.Field(
            name: String(decoding: name, as: UTF8.self),
            value: String(decoding: value, as: UTF8.self)
        )
        if field.name == Self.trailerSignatureName {
            guard self.mode == .signedWithTrailer, value.count == 64,
                let signature = [UInt8](hexString: field.value)
            else { throw .malformedTrailer }
            self.trailerSignature = signature
            return
        }
        guard !self.fields.contains(where: { $0.name == field.name }) else { throw .malformedTrailer }
        self.fields.append(field)
    }

    /// Checks the trailer's signature, in the mode that has one: over the fields sorted by name, each
    /// `name:value` and a line feed, as SigV4 canonicalizes headers.
    private func endTrailer() throws(AWSChunkedError) {
        guard self.mode == .signedWithTrailer else { return }
        guard let provided = self.trailerSignature, let seed = self.seed else { throw .malformedTrailer }
        let canonical = self.fields.sorted { $0.name < $1.name }.map { $0.name + ":" + $0.value + "\n" }.joined()
        let expected = seed.trailerSignatureBytes(
            previous: self.previousSignature,
            trailerHash: Digest.sha256(canonical)
        )
        guard SecureBytes.constantTimeEqual(expected, provided) else { throw .signatureMismatch }
    }

    private static func trimmed(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        let isSpace = { (byte: UInt8) in byte == 0x20 || byte == 0x09 }
        guard let first = bytes.firstIndex(where: { !isSpace($0) }) else { return [] }
        let last = bytes.lastIndex(where: { !isSpace($0) })!
        return bytes[first...last]
    }

    /// An RFC 9110 `tchar`, of which field names are made.
    private static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default: Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
        }
    }
}
