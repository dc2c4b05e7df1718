import Dispatch
import Hummingbird
import MockCDNCore
import NIOCore

@testable import MockCDNServer

/// Input: a Content-Type line, then the body. Drives the upload path as far as it goes without a store:
/// the streaming reader, the part headers, then for each part the sniffer, the declared-type parser and the
/// upload policy on its first bytes. Each must end (events or an error) without crashing, and the reader
/// must never hand out more body bytes than it was given. The body is cut into chunks at a split point the
/// input chooses, so boundaries and header lines fall across chunks.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMultipart(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: start, count: count)
    let newline = bytes.firstIndex(of: UInt8(ascii: "\n")) ?? bytes.count
    let contentType = String(decoding: bytes[..<newline], as: UTF8.self)
    guard let boundary = MultipartReader.boundary(contentType: contentType) else { return 0 }
    let rest = Array(bytes[min(newline + 1, bytes.count)...])
    let chunkLength = max(1, Int(rest.first ?? 1) % 64)
    var chunks: [ByteBuffer] = []
    var offset = 0
    while offset < rest.count {
        chunks.append(ByteBuffer(bytes: rest[offset..<min(offset + chunkLength, rest.count)]))
        offset += chunkLength
    }
    let total = rest.count
    let done = DispatchSemaphore(value: 0)
    Task {
        let body = RequestBody(asyncSequence: chunks.async)
        let reader = MultipartReader(body: body, boundary: boundary, maximumBytes: 64 * 1024)
        var delivered = 0
        var headers = MultipartPartHeaders()
        var prefix: [UInt8] = []
        do {
            while let event = try await reader.next() {
                switch event {
                case .header(let name, let value):
                    headers.add(name: name, value: value)
                case .body(let buffer):
                    delivered += buffer.readableBytes
                    if prefix.count < MediaSniffer.prefixLength { prefix += buffer.readableBytesView.prefix(512) }
                case .partEnd:
                    _ = try? UploadPolicy.contentType(
                        kind: prefix.count % 2 == 0 ? .file : .image,
                        fileName: UploadPolicy.sanitizedFileName(headers.fileName ?? "file"),
                        declaredType: headers.contentType,
                        prefix: Array(prefix.prefix(MediaSniffer.prefixLength)),
                        config: UploadConfig(blockedMimeTypes: ["text/html"])
                    )
                    headers = MultipartPartHeaders()
                    prefix = []
                }
            }
        } catch {}
        precondition(delivered <= total, "more body bytes than the request had")
        done.signal()
    }
    done.wait()
    return 0
}

extension Array where Element == ByteBuffer {
    /// The chunks as an async sequence, as a request body arrives.
    fileprivate var async: AsyncStream<ByteBuffer> {
        AsyncStream { continuation in
            for chunk in self { continuation.yield(chunk) }
            continuation.finish()
        }
    }
}
