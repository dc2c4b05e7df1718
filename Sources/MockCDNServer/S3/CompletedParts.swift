import Foundation
import MockCDNCore
import NIOCore

/// The parts a CompleteMultipartUpload names (`<CompleteMultipartUpload><Part><PartNumber>1</PartNumber>
/// <ETag>"..."</ETag></Part>...`), and the checks S3 makes of them before it joins anything: each part
/// uploaded with that ETag, ascending part numbers, every part but the last at least 5 MiB; for an upload
/// created with a checksum, each part's `Checksum*` that of the part, and the object's composite checksum.
struct CompletedParts: Equatable {
    /// One `<Part>` of the document.
    struct Entry: Equatable {
        let number: Int
        /// As sent (quoted or not).
        let etag: String
        /// Its `Checksum*` elements (`ChecksumSHA512`, ...), by algorithm, as sent.
        var checksums: [ChecksumAlgorithm: String] = [:]
    }

    /// The most bytes of XML read: 10,000 parts with their checksums, with room to spare.
    static let maximumBodyBytes = 4 << 20
    /// The bounds of the document: the body limit, and the elements 10,000 `<Part>`s may hold (`Part`,
    /// `PartNumber`, `ETag` and a `Checksum*` of each of S3's algorithms) with the root.
    static let limits = XMLReader.Limits(
        maximumBytes: Self.maximumBodyBytes,
        maximumElements: 1 + MultipartUploads.maximumPartNumber * (3 + ChecksumAlgorithm.all.count)
    )

    let entries: [Entry]

    /// Reads a CompleteMultipartUpload body, off the event loops.
    ///
    /// - Parameter body: the request body, read and authenticated.
    /// - Returns: the parts it names.
    /// - Throws: 400 `MalformedXML` for a document that is not a completion S3 would take.
    static func read(_ body: ByteBuffer) async throws -> CompletedParts {
        try CompletedParts(try await S3XML.tree(of: body, root: "CompleteMultipartUpload", limits: Self.limits))
    }

    /// The parts a `<CompleteMultipartUpload>` element names.
    ///
    /// - Parameter root: the root element.
    /// - Throws: 400 `MalformedXML` for no part, more than 10,000, or a part without exactly one whole
    ///   `<PartNumber>` and one `<ETag>`.
    init(_ root: XMLTree) throws(S3Error) {
        // Read through buffer pointers, one pass over each part's children: a completion names up to 10,000
        // parts, and binding an element of the tree (`for part in root.children`) copies it.
        self.entries = try root.children.withUnsafeBufferPointer { parts throws(S3Error) in
            var entries: [Entry] = []
            entries.reserveCapacity(parts.count)
            for index in parts.indices where parts[index].name == "Part" && parts[index].namespace == root.namespace {
                entries.append(
                    try parts[index].children.withUnsafeBufferPointer { children throws(S3Error) in
                        try Self.entry(of: children, namespace: root.namespace)
                    }
                )
            }
            return entries
        }
        guard !self.entries.isEmpty, self.entries.count <= MultipartUploads.maximumPartNumber else {
            throw .malformedXML
        }
    }

    /// The entry of one `<Part>`, from its children.
    ///
    /// - Throws: 400 `MalformedXML` unless it has exactly one whole `<PartNumber>` and one `<ETag>`.
    private static func entry(
        of children: UnsafeBufferPointer<XMLTree>,
        namespace: String?
    ) throws(S3Error) -> Entry {
        var (number, etag): (Int?, Int?) = (nil, nil)
        var (numbers, etags) = (0, 0)
        var checksums: [ChecksumAlgorithm: String] = [:]
        for index in children.indices where children[index].namespace == namespace {
            switch children[index].name {
            case "PartNumber": (number, numbers) = (index, numbers + 1)
            case "ETag": (etag, etags) = (index, etags + 1)
            default:
                // The first of each `Checksum*` element (`ChecksumSHA512` and the others of S3's model).
                guard let algorithm = Self.checksumElements[children[index].name], checksums[algorithm] == nil else {
                    continue
                }
                checksums[algorithm] = String(children[index].trimmedText)
            }
        }
        guard numbers == 1, etags == 1, let number, let etag, let value = Int(children[number].trimmedText) else {
            throw .malformedXML
        }
        return Entry(number: value, etag: children[etag].text, checksums: checksums)
    }

    /// The upload's parts the document names, in its order, checked as S3 checks them.
    ///
    /// - Parameter upload: the upload, with its parts.
    /// - Returns: the parts to join.
    /// - Throws: 400 `InvalidPart`, `InvalidPartOrder` or `EntityTooSmall`, in that order of checks (S3 names
    ///   a part that is not there before it looks at the order).
    func select(from upload: MultipartUploads.Upload) throws(S3Error) -> [MultipartUploads.Part] {
        // Checked by index into the upload's parts, and copied only once every check holds: there are up to
        // 10,000, and each copy of a part touches its strings (a cache miss each).
        let (entries, parts) = (self.entries, upload.parts)
        var positions: [Dictionary<Int, MultipartUploads.Part>.Index] = []
        positions.reserveCapacity(entries.count)
        for index in entries.indices {
            guard let position = parts.index(forKey: entries[index].number),
                Self.same(parts.values[position].etag, entries[index].etag)
            else {
                throw .invalidPart(
                    upload: upload.id,
                    number: entries[index].number,
                    etag: Self.bare(entries[index].etag)
                )
            }
            positions.append(position)
        }
        for index in entries.indices.dropFirst() where entries[index].number <= entries[index - 1].number {
            throw .invalidPartOrder(
                upload: upload.id,
                number: entries[index].number,
                etag: Self.bare(entries[index].etag)
            )
        }
        for position in positions.dropLast() where parts.values[position].size < S3Error.minimumPartSize {
            let part = parts.values[position]
            throw .entityTooSmall(size: part.size, number: part.number, etag: Self.bare(part.etag))
        }
        return positions.map { parts.values[$0] }
    }

    /// The algorithms by the name of their element in a `<Part>` (`ChecksumSHA512`, ...).
    private static let checksumElements = Dictionary(
        uniqueKeysWithValues: ChecksumAlgorithm.all.map { ("Checksum" + $0.name, $0) }
    )

    /// Checks the document's part checksums against the parts', as S3 does for an upload created with a
    /// checksum, and names the object's composite checksum.
    ///
    /// - Parameters:
    ///   - selected: the parts `select(from:)` chose, in the document's order.
    ///   - upload: the upload.
    /// - Returns: the object's `COMPOSITE` checksum (`base64-N`); nil when the upload's checksum is not
    ///   composite (its object's is the CRC of its bytes) or it has none.
    /// - Throws: 400 `InvalidRequest` for a part whose checksum a composite upload's document leaves out;
    ///   400 `InvalidPart` for one that is not the part's.
    func compositeChecksum(
        of selected: [MultipartUploads.Part],
        upload: MultipartUploads.Upload
    ) throws(S3Error) -> String? {
        guard let checksum = upload.checksum else { return nil }
        for (entry, part) in zip(self.entries, selected) {
            guard let claimed = entry.checksums[checksum.algorithm] else {
                // A full-object CRC is the object's own, so its parts' may be left out (s3transfer sends them).
                guard checksum.kind == .composite else { continue }
                throw PayloadDigests.invalidRequest(
                    "The upload was created using a \(checksum.algorithm.name.lowercased()) checksum. The complete "
                        + "request must include the checksum for each part. It was missing for part \(part.number) "
                        + "in the request."
                )
            }
            guard claimed == part.checksum else {
                throw .invalidPart(upload: upload.id, number: part.number, etag: Self.bare(entry.etag))
            }
        }
        guard checksum.kind == .composite else { return nil }
        let parts = selected.compactMap(\.checksum)
        guard parts.count == selected.count else { return nil }
        return MultipartChecksum.composite(checksum.algorithm, ofParts: parts)
    }

    /// The ETag of an object joined from parts: the MD5 of the parts' binary MD5s one after another, in hex,
    /// then `-` and the number of parts, quoted (what S3 gives a multipart upload's object).
    ///
    /// - Parameter etags: the parts' ETags (quoted hex MD5s), in order.
    /// - Returns: the object's quoted ETag.
    static func etag(ofParts etags: [String]) -> String {
        var digests: [UInt8] = []
        for etag in etags { digests += [UInt8](hexString: Self.bare(etag)) ?? [] }
        return "\"" + Digest.md5(digests).hexString + "-" + String(etags.count) + "\""
    }

    /// An ETag without the ASCII whitespace around it, then without its quotes, in lower case (clients send
    /// either).
    static func bare(_ etag: String) -> String {
        var etag = etag
        return etag.withUTF8 { bytes in
            String(decoding: bytes[Self.bareRange(bytes)].map(Self.lowercased), as: UTF8.self)
        }
    }

    /// Whether two ETags are the same once bare: compared as bytes, since a completion names up to 10,000.
    static func same(_ one: String, _ other: String) -> Bool {
        var (one, other) = (one, other)
        return one.withUTF8 { one in
            other.withUTF8 { other in
                let (first, second) = (Self.bareRange(one), Self.bareRange(other))
                guard first.count == second.count else { return false }
                return zip(first, second).allSatisfy { Self.lowercased(one[$0]) == Self.lowercased(other[$1]) }
            }
        }
    }

    /// Where the bare ETag is in `bytes`: the ASCII whitespace around them left out, then the quotes.
    private static func bareRange(_ bytes: UnsafeBufferPointer<UInt8>) -> Range<Int> {
        var (start, end) = (0, bytes.count)
        func trim(_ trimmed: (UInt8) -> Bool) {
            while start < end, trimmed(bytes[start]) { start += 1 }
            while start < end, trimmed(bytes[end - 1]) { end -= 1 }
        }
        trim { $0 == 0x20 || (0x09...0x0d).contains($0) }
        trim { $0 == UInt8(ascii: "\"") }
        return start..<end
    }

    /// An ASCII capital letter in lower case; any other byte as it is.
    private static func lowercased(_ byte: UInt8) -> UInt8 {
        (0x41...0x5a).contains(byte) ? byte | 0x20 : byte
    }
}
