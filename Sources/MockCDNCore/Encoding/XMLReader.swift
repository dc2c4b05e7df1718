import CMockCDNXML
import Foundation
import NIOCore
import NIOPosix

/// Reads the XML documents MockCDN is sent (DeleteObjects, CompleteMultipartUpload, a notification
/// configuration) and the ones an S3 store answers, into an `XMLTree`, with libxml2 (through `CMockCDNXML`).
///
/// libxml2 reads in time linear in the document, and the reader keeps to the few things those documents
/// are: no DTD (a `<!DOCTYPE` is refused, so no entity is ever declared, let alone expanded; only the five
/// predefined entities and character references are read), UTF-8 only, comments skipped, CDATA read as
/// text, nesting and the number of elements and bytes bounded by `Limits`, and a start tag to 16 attributes
/// and 4 KiB (libxml2 2.9's check of a tag's attributes grows with their square). Any other error libxml2 finds
/// (bytes that are not UTF-8, an undeclared entity, a tag left open) refuses the whole document.
public enum XMLReader {
    /// The bounds of one document.
    public struct Limits: Sendable, Equatable {
        /// The most bytes read.
        public var maximumBytes: Int
        /// The deepest nesting taken, the root being 1. S3's documents are a few levels deep.
        public var maximumDepth: Int
        /// The most elements taken: what keeps the tree's memory in proportion to what the document may hold.
        public var maximumElements: Int

        /// Bounds.
        ///
        /// - Parameters:
        ///   - maximumBytes: the most bytes read.
        ///   - maximumDepth: the deepest nesting taken (16: S3's documents are at most 7 deep).
        ///   - maximumElements: the most elements taken.
        public init(maximumBytes: Int, maximumDepth: Int = 16, maximumElements: Int) {
            self.maximumBytes = maximumBytes
            self.maximumDepth = maximumDepth
            self.maximumElements = maximumElements
        }
    }

    /// How much of a document one job on the thread pool parses: small enough that other work on the pool
    /// and a cancelled request wait at most a few milliseconds, large enough that the hops cost nothing.
    static let sliceBytes = 256 * 1024

    /// Reads a document on `pool`, a slice at a time, off the event loops and off Swift's cooperative pool
    /// (whose two threads, on a two-core machine, every request shares).
    ///
    /// - Parameters:
    ///   - body: the document's bytes.
    ///   - limits: its bounds.
    ///   - pool: where libxml2 runs.
    /// - Returns: the root element.
    /// - Throws: `XMLRefusal`; `CancellationError` when the task is cancelled between slices.
    public static func read(
        _ body: ByteBuffer,
        limits: Limits,
        on pool: NIOThreadPool = .singleton
    ) async throws -> XMLTree {
        let session = try Session(limits: limits)
        var offset = body.readerIndex
        repeat {
            try Task.checkCancellation()
            let length = min(Self.sliceBytes, body.writerIndex - offset)
            let slice = body.getSlice(at: offset, length: length) ?? ByteBuffer()
            offset += length
            let last = offset == body.writerIndex
            if let root = try await pool.runIfActive({ try session.feed(slice, last: last) }) { return root }
        } while true
    }

    /// Reads a document on the calling thread: for tests, the fuzzer and other small documents.
    ///
    /// - Parameters:
    ///   - body: the document's bytes.
    ///   - limits: its bounds.
    /// - Returns: the root element.
    /// - Throws: `XMLRefusal`.
    public static func parse(_ body: ByteBuffer, limits: Limits) throws(XMLRefusal) -> XMLTree {
        let session = try Session(limits: limits)
        // Fed in the same slices as `read`, so a test reads a document as the server does.
        var offset = body.readerIndex
        while true {
            let length = min(Self.sliceBytes, body.writerIndex - offset)
            let slice = body.getSlice(at: offset, length: length) ?? ByteBuffer()
            offset += length
            if let root = try session.feed(slice, last: offset == body.writerIndex) { return root }
        }
    }
}

extension XMLReader {
    /// One document being read: libxml2's parser and the tree built from its events. Used by one thread at a
    /// time (the awaits of `read` order its jobs on the pool), hence `@unchecked Sendable`.
    final class Session: @unchecked Sendable {
        private let reader: OpaquePointer
        private let limits: Limits
        private var bytes = 0
        private var elements = 0
        /// The elements open, outermost first.
        private var open: [XMLTree] = []
        private var root: XMLTree?
        /// Names and namespaces of more than 15 bytes already made into strings: a document has a handful, met
        /// thousands of times.
        private var names: [String] = []
        /// Their bytes, compared with each name read.
        private var nameBytes: [[UInt8]] = []

        init(limits: Limits) throws(XMLRefusal) {
            guard let reader = CMockCDNXML_reader_new(UInt32(clamping: limits.maximumDepth)) else {
                throw .noMemory
            }
            self.reader = reader
            self.limits = limits
        }

        deinit {
            CMockCDNXML_reader_free(self.reader)
        }

        /// Parses the next slice (the last one when `last`).
        ///
        /// - Returns: the root element after the last slice; nil before.
        /// - Throws: `XMLRefusal`.
        func feed(_ slice: ByteBuffer, last: Bool) throws(XMLRefusal) -> XMLTree? {
            self.bytes += slice.readableBytes
            guard self.bytes <= self.limits.maximumBytes else { throw .tooLarge(self.limits.maximumBytes) }
            let status = slice.withUnsafeReadableBytes { bytes in
                CMockCDNXML_reader_feed(self.reader, bytes.baseAddress, bytes.count, last ? 1 : 0)
            }
            // The events before a refusal are read first: the element budget may have been passed before it.
            try self.takeEvents()
            try self.check(status)
            guard last else { return nil }
            guard let root = self.root, self.open.isEmpty else { throw .malformed(code: 0, line: 0) }
            return root
        }

        private func check(_ status: Int32) throws(XMLRefusal) {
            switch CMockCDNXMLStatus(rawValue: UInt32(status)) {
            case CMOCKCDN_XML_OK: return
            case CMOCKCDN_XML_DOCTYPE: throw .doctype
            case CMOCKCDN_XML_TOO_DEEP: throw .tooDeep(self.limits.maximumDepth)
            case CMOCKCDN_XML_NOT_UTF8: throw .notUTF8
            case CMOCKCDN_XML_TAG_TOO_LARGE: throw .tagTooLarge
            case CMOCKCDN_XML_NO_MEMORY: throw .noMemory
            default:
                var line: Int32 = 0
                let code = CMockCDNXML_reader_error_code(self.reader, &line)
                throw .malformed(code: Int(code), line: Int(line))
            }
        }

        /// Builds the tree from the events of the last slice.
        private func takeEvents() throws(XMLRefusal) {
            var start: UnsafePointer<UInt8>?
            let count = CMockCDNXML_reader_events(self.reader, &start)
            defer { CMockCDNXML_reader_clear_events(self.reader) }
            guard let start, count > 0 else { return }
            let events = UnsafeRawBufferPointer(start: start, count: count)
            var offset = 0
            func string() -> UnsafeRawBufferPointer {
                let length = Int(events.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
                defer { offset += 4 + length }
                return UnsafeRawBufferPointer(rebasing: events[(offset + 4)..<(offset + 4 + length)])
            }
            // The open elements and the count are worked on as local values, put back at the end: a completion
            // of 10,000 parts is 40,000 elements, and each access to a property of this class is checked.
            var open: [XMLTree] = []
            swap(&open, &self.open)
            var elements = self.elements
            defer {
                swap(&open, &self.open)
                self.elements = elements
            }
            let maximumElements = self.limits.maximumElements
            while offset < count {
                let kind = Int(events[offset])
                offset += 1
                switch kind {
                case CMOCKCDN_XML_EVENT_START:
                    elements += 1
                    guard elements <= maximumElements else { throw .tooManyElements(maximumElements) }
                    let namespace = string()
                    let name = self.interned(string())
                    open.append(XMLTree(name, namespace: namespace.isEmpty ? nil : self.interned(namespace)))
                case CMOCKCDN_XML_EVENT_END:
                    let element = open.removeLast()
                    if open.isEmpty {
                        self.root = element
                    } else {
                        open[open.count - 1].children.append(element)
                    }
                default:
                    let text = string()
                    // libxml2 reports no text outside the root element.
                    guard !open.isEmpty else { continue }
                    open[open.count - 1].text += String(decoding: text, as: UTF8.self)
                }
            }
        }

        private func interned(_ bytes: UnsafeRawBufferPointer) -> String {
            // A name of up to 15 bytes is a small string, held in the value itself: made without an allocation,
            // and compared by its bits.
            if bytes.count <= 15 { return String(decoding: bytes, as: UTF8.self) }
            for index in self.nameBytes.indices where self.nameBytes[index].count == bytes.count {
                let equal = self.nameBytes[index].withUnsafeBytes {
                    memcmp($0.baseAddress!, bytes.baseAddress!, bytes.count) == 0
                }
                if equal { return self.names[index] }
            }
            let name = String(decoding: bytes, as: UTF8.self)
            if self.names.count < 64 {
                self.names.append(name)
                self.nameBytes.append(Array(bytes))
            }
            return name
        }
    }
}
