import Dispatch
import Hummingbird
import NIOCore

@testable import MockCDNServer

/// Input: a Content-Type line, then the body. The reader must end (events or an error) without crashing,
/// and never hand out more body bytes than it was given.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMultipart(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: start, count: count)
    let newline = bytes.firstIndex(of: UInt8(ascii: "\n")) ?? bytes.count
    let contentType = String(decoding: bytes[..<newline], as: UTF8.self)
    guard let boundary = MultipartReader.boundary(contentType: contentType) else { return 0 }
    let body = ByteBuffer(bytes: bytes[min(newline + 1, bytes.count)...])
    let done = DispatchSemaphore(value: 0)
    let total = body.readableBytes
    Task {
        let reader = MultipartReader(body: RequestBody(buffer: body), boundary: boundary, maximumBytes: 64 * 1024)
        var delivered = 0
        do {
            while let event = try await reader.next() {
                if case .body(let buffer) = event { delivered += buffer.readableBytes }
                if case .header(let name, let value) = event {
                    var headers = MultipartPartHeaders()
                    headers.add(name: name, value: value)
                }
            }
        } catch {}
        precondition(delivered <= total, "more body bytes than the request had")
        done.signal()
    }
    done.wait()
    return 0
}
