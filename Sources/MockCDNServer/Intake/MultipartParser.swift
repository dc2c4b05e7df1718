import MockCDNCore
import NIOCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A streaming multipart/form-data parser (RFC 2046, RFC 7578) with every bound checked as bytes arrive.
///
/// MockCDN parses multipart itself rather than through multipart-kit 4.7.1, whose parser traps (SIGILL) on
/// a non-ASCII byte in a part header name and buffers a header line of any length before it can be
/// refused; its preamble scan also accepts a boundary anywhere, so no guard placed in front of it could
/// know where headers start. Here a part header line is refused as soon as it passes the bound, header
/// names are RFC 9110 tokens, and no byte sequence can reach a trap: the parser only compares bytes.
///
/// Feed it chunks with `feed(_:into:)`; it appends the events of each chunk, body bytes as slices of the
/// chunk (no copy). `finish()` says whether the body ended where a multipart body may end.
struct MultipartParser {
    enum Event {
        case header(name: String, value: String)
        case body(ByteBuffer)
        case partEnd
    }

    /// Why a body was refused; the message is safe to show to the client.
    struct Failure: CategorizedError, Equatable {
        let message: String

        var category: ErrorCategory { .invalidInput }
        var publicMessage: String { self.message }
    }

    /// The most bytes of part headers accepted per part, line ends included.
    static let maximumHeaderBytes = 16 * 1024
    /// The most bytes before the first boundary (RFC 2046 lets a preamble exist; clients send none).
    static let maximumPreambleBytes = 16 * 1024
    /// The most parts one body may have.
    static let maximumParts = 64

    private enum State {
        /// Looking for the first delimiter; `matched` bytes of it are matched.
        case preamble(matched: Int)
        /// Right after a delimiter: `--` closes the body, optional white space then CRLF opens a part.
        case afterDelimiter(dashes: Int, sawCR: Bool)
        /// Reading a part's header lines.
        case headers(sawCR: Bool)
        /// Reading a part's body; `matched` bytes of the next delimiter are held back, not yet emitted.
        case body(matched: Int)
        /// After the close delimiter: ignored.
        case epilogue
    }

    /// `CRLF--boundary`: every delimiter but the first is preceded by the CRLF that ends the last part.
    private let delimiter: [UInt8]
    private var state = State.preamble(matched: 2)
    private var preambleBytes = 0
    private var headerBytes = 0
    private var parts = 0
    private var line: [UInt8] = []

    /// - Parameter boundary: the boundary parameter of the Content-Type, 1 to 70 characters.
    init(boundary: String) {
        self.delimiter = Array("\r\n--".utf8) + Array(boundary.utf8)
        // The body counts as starting after a CRLF, so a delimiter at offset 0 matches.
    }

    /// Parses the next chunk of the body.
    ///
    /// - Parameters:
    ///   - chunk: the bytes, in order.
    ///   - events: where the chunk's events are appended.
    /// - Throws: `Failure` for a body that is not well-formed multipart or passes a bound.
    mutating func feed(_ chunk: ByteBuffer, into events: inout [Event]) throws(Failure) {
        let bytes = chunk.readableBytesView
        var index = bytes.startIndex
        // Body bytes of this chunk not yet emitted start here (an index into `bytes`).
        var bodyStart: Int?
        if case .body(matched: 0) = self.state { bodyStart = index }

        func emitBody(upTo end: Int) {
            if let start = bodyStart, end > start {
                events.append(.body(chunk.getSlice(at: start, length: end - start)!))
            }
            bodyStart = nil
        }

        while index < bytes.endIndex {
            let byte = bytes[index]
            switch self.state {
            case .preamble(let matched):
                self.preambleBytes += 1
                guard self.preambleBytes <= Self.maximumPreambleBytes + self.delimiter.count else {
                    throw Failure(message: "multipart body has no boundary line")
                }
                if byte == self.delimiter[matched] {
                    self.state =
                        matched + 1 == self.delimiter.count
                        ? .afterDelimiter(dashes: 0, sawCR: false) : .preamble(matched: matched + 1)
                } else {
                    self.state = .preamble(matched: byte == self.delimiter[0] ? 1 : 0)
                }
            case .afterDelimiter(let dashes, let sawCR):
                if sawCR {
                    guard byte == UInt8(ascii: "\n") else {
                        throw Failure(message: "malformed multipart boundary line")
                    }
                    self.parts += 1
                    guard self.parts <= Self.maximumParts else {
                        throw Failure(message: "multipart body has more than \(Self.maximumParts) parts")
                    }
                    self.headerBytes = 0
                    self.state = .headers(sawCR: false)
                } else if byte == UInt8(ascii: "-"), dashes < 2 {
                    if dashes == 1 {
                        self.state = .epilogue
                    } else {
                        self.state = .afterDelimiter(dashes: 1, sawCR: false)
                    }
                } else if dashes == 0, byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") {
                    // Transport padding (RFC 2046 section 5.1.1).
                    self.headerBytes += 1
                    guard self.headerBytes <= Self.maximumHeaderBytes else {
                        throw Failure(message: "malformed multipart boundary line")
                    }
                } else if dashes == 0, byte == UInt8(ascii: "\r") {
                    self.state = .afterDelimiter(dashes: 0, sawCR: true)
                } else {
                    throw Failure(message: "malformed multipart boundary line")
                }
            case .headers(let sawCR):
                self.headerBytes += 1
                guard self.headerBytes <= Self.maximumHeaderBytes else {
                    throw Failure(message: "multipart part headers are larger than \(Self.maximumHeaderBytes) bytes")
                }
                if sawCR {
                    guard byte == UInt8(ascii: "\n") else { throw Failure(message: "malformed multipart part header") }
                    if self.line.isEmpty {
                        self.state = .body(matched: 0)
                        bodyStart = index + 1
                    } else {
                        events.append(try Self.header(self.line))
                        self.line.removeAll(keepingCapacity: true)
                        self.state = .headers(sawCR: false)
                    }
                } else if byte == UInt8(ascii: "\r") {
                    self.state = .headers(sawCR: true)
                } else if byte == UInt8(ascii: "\n") {
                    throw Failure(message: "malformed multipart part header")
                } else {
                    self.line.append(byte)
                }
            case .body(let matched):
                if matched == 0 {
                    // Fast path: search the chunk's contiguous bytes for the whole delimiter, so a part's body
                    // leaves as one slice per chunk however many CRs it holds.
                    switch self.scanBody(chunk, from: index) {
                    case .found(let start):
                        emitBody(upTo: start)
                        events.append(.partEnd)
                        self.headerBytes = 0
                        self.state = .afterDelimiter(dashes: 0, sawCR: false)
                        index = start + self.delimiter.count
                    case .partial(let start):
                        // The chunk ends inside what may be a delimiter: hold those bytes back until the next
                        // chunk tells.
                        emitBody(upTo: start)
                        self.state = .body(matched: bytes.endIndex - start)
                        index = bytes.endIndex
                    case .none:
                        index = bytes.endIndex
                    }
                    continue
                } else if byte == self.delimiter[matched] {
                    if matched + 1 == self.delimiter.count {
                        bodyStart = nil
                        events.append(.partEnd)
                        self.headerBytes = 0
                        self.state = .afterDelimiter(dashes: 0, sawCR: false)
                    } else {
                        self.state = .body(matched: matched + 1)
                    }
                } else {
                    // Not a delimiter: what was held back is body. The delimiter holds CR only at its start,
                    // so matching restarts at this byte.
                    var held = ByteBuffer(bytes: self.delimiter[..<matched])
                    emitBody(upTo: index)
                    events.append(.body(held.readSlice(length: held.readableBytes)!))
                    bodyStart = index
                    self.state = .body(matched: 0)
                    continue
                }
            case .epilogue:
                return
            }
            index += 1
        }
        if case .body(let matched) = self.state, matched == 0 { emitBody(upTo: bytes.endIndex) }
    }

    /// Whether the body may end here: only after the close delimiter (`--boundary--`).
    var isComplete: Bool {
        if case .epilogue = self.state { return true }
        return false
    }

    /// Where the body's search for the delimiter ended in one chunk.
    private enum Scan {
        /// The whole delimiter starts at this absolute index.
        case found(Int)
        /// The chunk ends with the delimiter's first bytes, from this absolute index.
        case partial(Int)
        /// No delimiter starts in the rest of the chunk.
        case none
    }

    /// Searches the chunk from `index` for the delimiter: memchr to each CR, the only byte that starts one,
    /// then memcmp of the delimiter's length. Body bytes are most of an upload, and this is the loop they
    /// pass through; the delimiter holds CR only at its start, so a failed comparison resumes after the CR.
    private func scanBody(_ chunk: ByteBuffer, from index: Int) -> Scan {
        chunk.withUnsafeReadableBytes { bytes in
            self.delimiter.withUnsafeBytes { delimiter in
                guard let base = bytes.baseAddress, let pattern = delimiter.baseAddress else { return .none }
                var offset = index - chunk.readerIndex
                while offset < bytes.count, let found = memchr(base + offset, 0x0D, bytes.count - offset) {
                    let start = UnsafeRawPointer(found) - base
                    let compared = min(delimiter.count, bytes.count - start)
                    if memcmp(base + start, pattern, compared) == 0 {
                        return compared == delimiter.count
                            ? .found(chunk.readerIndex + start) : .partial(chunk.readerIndex + start)
                    }
                    offset = start + 1
                }
                return .none
            }
        }
    }

    private static func header(_ line: [UInt8]) throws(Failure) -> Event {
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > 0,
            line[..<colon].allSatisfy(MediaType.isTokenByte)
        else {
            throw Failure(message: "multipart part header names must be RFC 9110 tokens followed by ':'")
        }
        let value = line[(colon + 1)...].drop { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
        return .header(
            name: String(decoding: line[..<colon], as: UTF8.self),
            value: String(decoding: value, as: UTF8.self)
        )
    }
}
