import Hummingbird
import MultipartKit
import NIOCore

/// Reads a multipart/form-data body part by part while it streams, without holding it in memory.
///
/// multipart-kit's parser pushes events through callbacks; this pulls request chunks on demand and hands
/// the events out one at a time, so a file part can be streamed straight into the store.
final class MultipartReader {
    enum Event {
        case header(name: String, value: String)
        case body(ByteBuffer)
        case partEnd
    }

    /// The most bytes of part headers accepted per part.
    static let maximumHeaderBytes = 16 * 1024

    private var source: RequestBody.AsyncIterator
    private let parser: MultipartParser
    private let maximumBytes: Int
    private var bytesRead = 0
    private var pending: [Event] = []
    private var position = 0
    private var headerBytes = 0
    /// Set by the header callback; one `execute` may parse a part's headers and its body in one go.
    private var headersTooLarge = false
    private var partOpen = false
    private var headerGuard: HeaderNameGuard

    /// - Parameters:
    ///   - body: the request body.
    ///   - boundary: the boundary from the Content-Type header.
    ///   - maximumBytes: the most body bytes read, framing and every part included.
    init(body: RequestBody, boundary: String, maximumBytes: Int) {
        self.source = body.makeAsyncIterator()
        self.maximumBytes = maximumBytes
        self.parser = MultipartParser(boundary: boundary)
        self.headerGuard = HeaderNameGuard(boundary: boundary)
        self.parser.onHeader = { [unowned self] name, value in
            self.headerBytes += name.utf8.count + value.utf8.count
            if self.headerBytes > Self.maximumHeaderBytes { self.headersTooLarge = true }
            self.partOpen = true
            self.pending.append(.header(name: name, value: value))
        }
        self.parser.onBody = { [unowned self] buffer in
            self.headerBytes = 0
            self.partOpen = true
            self.pending.append(.body(buffer))
        }
        self.parser.onPartComplete = { [unowned self] in
            self.headerBytes = 0
            self.partOpen = false
            self.pending.append(.partEnd)
        }
    }

    /// The next event, or nil once the body ended after a complete part.
    ///
    /// - Throws: `UploadFailure.input` for a malformed or truncated body, `.tooLarge` past the bound.
    func next() async throws -> Event? {
        while self.position == self.pending.count {
            self.pending.removeAll(keepingCapacity: true)
            self.position = 0
            guard let chunk = try await self.source.next() else {
                guard !self.partOpen else {
                    throw UploadFailure.input("multipart body ended in the middle of a part")
                }
                return nil
            }
            self.bytesRead += chunk.readableBytes
            guard self.bytesRead <= self.maximumBytes else { throw UploadFailure.tooLarge(limit: self.maximumBytes) }
            guard self.headerGuard.scan(chunk) else {
                throw UploadFailure.input("multipart part header names must be ASCII")
            }
            do {
                try self.parser.execute(chunk)
            } catch {
                throw UploadFailure.input("malformed multipart body")
            }
            guard !self.headersTooLarge else {
                throw UploadFailure.input("multipart part headers are larger than \(Self.maximumHeaderBytes) bytes")
            }
        }
        defer { self.position += 1 }
        return self.pending[self.position]
    }

    /// The boundary parameter of a multipart/form-data Content-Type.
    static func boundary(contentType: String?) -> String? {
        guard let contentType else { return nil }
        let parameters = contentType.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        guard parameters.first?.lowercased() == "multipart/form-data" else { return nil }
        for parameter in parameters.dropFirst() where parameter.lowercased().hasPrefix("boundary=") {
            var value = parameter.dropFirst("boundary=".count)
            if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 { value = value.dropFirst().dropLast() }
            // RFC 2046: 1 to 70 characters.
            return (1...70).contains(value.count) ? String(value) : nil
        }
        return nil
    }
}

/// The headers of one part.
struct MultipartPartHeaders {
    var name: String?
    var fileName: String?
    var contentType: String?

    mutating func add(name headerName: String, value: String) {
        switch headerName.lowercased() {
        case "content-disposition":
            for parameter in Self.splitParameters(value).dropFirst() {
                let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                guard pair.count == 2 else { continue }
                var parameterValue = pair[1]
                if parameterValue.hasPrefix("\""), parameterValue.hasSuffix("\""), parameterValue.count >= 2 {
                    parameterValue = String(parameterValue.dropFirst().dropLast())
                }
                switch pair[0].lowercased() {
                case "name": self.name = parameterValue
                case "filename": self.fileName = parameterValue
                default: break
                }
            }
        case "content-type":
            self.contentType = value
        default:
            break
        }
    }

    /// Splits a header value at the `;` that lie outside double quotes, so `filename="a;b.txt"` stays whole.
    static func splitParameters(_ value: String) -> [Substring] {
        var parts: [Substring] = []
        var start = value.startIndex
        var quoted = false
        for index in value.indices {
            switch value[index] {
            case "\"": quoted.toggle()
            case ";" where !quoted:
                parts.append(value[start..<index])
                start = value.index(after: index)
            default: break
            }
        }
        parts.append(value[start...])
        return parts
    }
}

/// The body of the current part as an async sequence, ending at the part's end.
struct MultipartPartBody: AsyncSequence {
    typealias Element = ByteBuffer
    let reader: MultipartReader
    let first: ByteBuffer?

    struct AsyncIterator: AsyncIteratorProtocol {
        let reader: MultipartReader
        var first: ByteBuffer?
        var done = false

        mutating func next() async throws -> ByteBuffer? {
            if let first {
                self.first = nil
                return first
            }
            guard !self.done else { return nil }
            while let event = try await self.reader.next() {
                switch event {
                case .body(let buffer): return buffer
                case .partEnd:
                    self.done = true
                    return nil
                case .header: continue
                }
            }
            self.done = true
            return nil
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(reader: self.reader, first: self.first) }
}

/// A part body whose first bytes were already read (to sniff its type): yields them, then the rest.
struct ResumedPartBody: AsyncSequence {
    typealias Element = ByteBuffer
    let head: ByteBuffer
    let rest: MultipartPartBody.AsyncIterator

    struct AsyncIterator: AsyncIteratorProtocol {
        var head: ByteBuffer?
        var rest: MultipartPartBody.AsyncIterator

        mutating func next() async throws -> ByteBuffer? {
            if let head {
                self.head = nil
                return head
            }
            return try await self.rest.next()
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(head: self.head, rest: self.rest) }
}

/// Finds non-ASCII bytes in part header names before multipart-kit sees them: its parser (4.7.1) looks such
/// a byte up in a 128-entry table and traps, which would take the whole server down (found by fuzzing).
///
/// Follows the body byte by byte across chunks: outside headers it looks for the delimiter
/// `CRLF--boundary` (the body counts as starting after a CRLF, so the first boundary matches too); after
/// it, each header line's name runs to its `:`, and an empty line ends the headers.
struct HeaderNameGuard {
    private let delimiter: [UInt8]
    private var matched = 0
    private var inHeaders = false
    /// Right after a delimiter: the rest of its line (`--` or nothing) comes before the first header.
    private var onDelimiterLine = false
    private var inName = true
    private var lineLength = 0
    private var previous: UInt8 = 0

    init(boundary: String) {
        self.delimiter = Array("\r\n--".utf8) + Array(boundary.utf8)
        // As if a CRLF came before the body.
        self.matched = 2
    }

    /// Scans the next chunk of the body.
    ///
    /// - Returns: false when a header name holds a byte outside ASCII.
    mutating func scan(_ chunk: ByteBuffer) -> Bool {
        for byte in chunk.readableBytesView {
            if self.inHeaders {
                if byte == UInt8(ascii: "\n"), self.previous == UInt8(ascii: "\r") {
                    // A CRLF alone on its line ends the headers; the part's body follows.
                    if self.onDelimiterLine {
                        self.onDelimiterLine = false
                    } else if self.lineLength == 1 {
                        self.inHeaders = false
                        self.matched = 0
                    }
                    self.inName = true
                    self.lineLength = 0
                } else {
                    if byte == UInt8(ascii: ":") { self.inName = false }
                    if self.inName, !self.onDelimiterLine, byte >= 0x80 { return false }
                    self.lineLength += 1
                }
                self.previous = byte
                continue
            }
            if byte == self.delimiter[self.matched] {
                self.matched += 1
                if self.matched == self.delimiter.count {
                    // The rest of the delimiter line, then the headers.
                    self.inHeaders = true
                    self.onDelimiterLine = true
                    self.inName = true
                    self.lineLength = 0
                    self.matched = 0
                }
            } else {
                self.matched = byte == self.delimiter[0] ? 1 : 0
            }
            self.previous = byte
        }
        return true
    }
}
