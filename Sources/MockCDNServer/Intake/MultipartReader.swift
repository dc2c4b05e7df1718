import Foundation
import Hummingbird
import NIOCore

/// Reads a multipart/form-data body part by part while it streams, without holding it in memory.
///
/// Pulls request chunks on demand through `MultipartParser` and hands its events out one at a time, so a
/// file part can be streamed straight into the store.
final class MultipartReader {
    typealias Event = MultipartParser.Event

    private var source: RequestBody.AsyncIterator
    private var parser: MultipartParser
    private let maximumBytes: Int
    private var bytesRead = 0
    private var pending: [Event] = []
    private var position = 0

    /// - Parameters:
    ///   - body: the request body.
    ///   - boundary: the boundary from the Content-Type header.
    ///   - maximumBytes: the most body bytes read, framing and every part included.
    init(body: RequestBody, boundary: String, maximumBytes: Int) {
        self.source = body.makeAsyncIterator()
        self.maximumBytes = maximumBytes
        self.parser = MultipartParser(boundary: boundary)
    }

    /// The next event, or nil once the body ended after its close delimiter.
    ///
    /// - Throws: `UploadFailure.input` for a malformed or truncated body, `.tooLarge` past the bound.
    func next() async throws -> Event? {
        while self.position == self.pending.count {
            self.pending.removeAll(keepingCapacity: true)
            self.position = 0
            guard let chunk = try await self.source.next() else {
                guard self.parser.isComplete else {
                    throw UploadFailure.input("multipart body ended in the middle of a part")
                }
                return nil
            }
            self.bytesRead += chunk.readableBytes
            guard self.bytesRead <= self.maximumBytes else { throw UploadFailure.tooLarge(limit: self.maximumBytes) }
            do {
                try self.parser.feed(chunk, into: &self.pending)
            } catch {
                throw UploadFailure.input(error.message)
            }
        }
        defer { self.position += 1 }
        return self.pending[self.position]
    }

    /// The next part: its headers, and its body to read (or read past) before asking for the next one.
    ///
    /// - Returns: the part, or nil once the body ended after its close delimiter.
    /// - Throws: what `next` throws.
    func nextPart() async throws -> (headers: MultipartPartHeaders, body: MultipartPartBody.AsyncIterator)? {
        var headers = MultipartPartHeaders()
        while let event = try await self.next() {
            let first: ByteBuffer?
            switch event {
            case .header(let name, let value):
                headers.add(name: name, value: value)
                continue
            case .body(let buffer): first = buffer
            case .partEnd: first = nil
            }
            var body = MultipartPartBody(reader: self, first: first).makeAsyncIterator()
            if first == nil { body.done = true }
            return (headers, body)
        }
        return nil
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

/// A body whose first bytes were already read (to sniff its type): yields them, then the rest.
struct ResumedBody<Rest: AsyncIteratorProtocol>: AsyncSequence where Rest.Element == ByteBuffer {
    typealias Element = ByteBuffer
    let head: ByteBuffer
    let rest: Rest

    struct AsyncIterator: AsyncIteratorProtocol {
        var head: ByteBuffer?
        var rest: Rest

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
