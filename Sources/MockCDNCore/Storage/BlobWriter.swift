import NIOCore
import _NIOFileSystem

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes a body into an object's temp file in large writes, one write on the thread pool while the next
/// one's bytes are taken in.
///
/// Bodies arrive in slices of a few KiB; one thread-pool hop per slice would dominate the time, so slices are
/// gathered into `capacity`-byte writes, each a `pwrite` in one hop. The body is read, counted and hashed in
/// the caller's task while the previous write copies its bytes into the page cache on a pool thread, so an
/// upload takes about the longer of the two, not their sum. At most one write is in flight, and two buffers
/// take turns: memory stays at two `capacity`s whatever the body's size.
enum BlobWriter {
    /// Writes all of `body` to `handle` from offset 0.
    ///
    /// - Parameters:
    ///   - body: the bytes, as they arrive.
    ///   - handle: the file, open for writing.
    ///   - capacity: bytes gathered per write.
    ///   - take: sees each slice, in order, before it is written; may refuse it by throwing (the size limit).
    /// - Returns: the number of bytes written.
    /// - Throws: what `body` or `take` throws; `FileSystemError` for a failed write (its cause the `pwrite`
    ///   errno). No write is still running when it returns or throws.
    static func write<Body: AsyncSequence>(
        _ body: Body,
        to handle: WriteFileHandle,
        capacity: Int,
        take: (ByteBuffer) throws -> Void
    ) async throws -> Int64 where Body.Element == ByteBuffer {
        try await withThrowingTaskGroup(of: ByteBuffer.self) { writes in
            var buffer = ByteBufferAllocator().buffer(capacity: capacity)
            var spare: ByteBuffer?
            var offset: Int64 = 0
            var inFlight = false
            // Hands `buffer` to the pool once the write before it is done, and takes up the buffer that write
            // gives back.
            func send() async throws {
                if inFlight, var done = try await writes.next() {
                    done.clear()
                    spare = done
                }
                let bytes = buffer
                let at = offset
                writes.addTask {
                    try await handle.withUnsafeDescriptor { try Self.write(bytes, to: $0.rawValue, at: at) }
                    return bytes
                }
                inFlight = true
                offset += Int64(bytes.readableBytes)
                buffer = spare ?? ByteBufferAllocator().buffer(capacity: capacity)
                spare = nil
            }
            for try await chunk in body {
                try take(chunk)
                buffer.writeImmutableBuffer(chunk)
                if buffer.readableBytes >= capacity { try await send() }
            }
            if buffer.readableBytes > 0 { try await send() }
            try await writes.waitForAll()
            return offset
        }
    }

    /// `pwrite`s all of `bytes` at `offset`.
    private static func write(_ bytes: ByteBuffer, to descriptor: CInt, at offset: Int64) throws {
        try bytes.withUnsafeReadableBytes { bytes in
            var written = 0
            while written < bytes.count {
                let count = pwrite(
                    descriptor,
                    bytes.baseAddress! + written,
                    bytes.count - written,
                    off_t(offset) + off_t(written)
                )
                guard count >= 0 else {
                    if errno == EINTR { continue }
                    let code = errno
                    throw FileSystemError(
                        code: code == ENOSPC || code == EDQUOT ? .unavailable : .unknown,
                        message: "cannot write the object's bytes",
                        cause: FileSystemError.SystemCallError(systemCall: "pwrite", errno: Errno(rawValue: code)),
                        location: .init(function: #function, file: #fileID, line: #line)
                    )
                }
                written += count
            }
        }
    }
}
