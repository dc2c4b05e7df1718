import CMockCDNMemory
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
/// gathered until they hold `capacity` bytes, and each gathering is one `pwritev` in one hop. The slices are
/// written where they are, not copied into a buffer of the writer's: a copy cost the caller's task a memmove of
/// the whole body and, as its buffers were replaced, page faults on fresh memory. The body is read, counted and
/// hashed in the caller's task while the previous write copies its bytes into the page cache on a pool thread,
/// so an upload takes about the longer of the two, not their sum. At most one write is in flight, and a
/// gathering ends once the storage its slices keep alive reaches `capacity` (a small slice of a large buffer
/// counts as the large buffer): memory stays at about two `capacity`s whatever the body's size.
enum BlobWriter {
    /// Writes all of `body` to `handle` from offset 0.
    ///
    /// - Parameters:
    ///   - body: the bytes, as they arrive.
    ///   - handle: the file, open for writing.
    ///   - capacity: bytes gathered per write.
    ///   - take: sees each slice, in order, before it is written; may refuse it by throwing (the size limit).
    /// - Returns: the number of bytes written.
    /// - Throws: what `body` or `take` throws; `FileSystemError` for a failed write (its cause the `pwritev`
    ///   errno). No write is still running when it returns or throws.
    static func write<Body: AsyncSequence>(
        _ body: Body,
        to handle: WriteFileHandle,
        capacity: Int,
        take: (ByteBuffer) throws -> Void
    ) async throws -> Int64 where Body.Element == ByteBuffer {
        try await withThrowingTaskGroup(of: Void.self) { writes in
            var gathered: [ByteBuffer] = []
            var gatheredBytes = 0
            var heldBytes = 0
            var offset: Int64 = 0
            var inFlight = false
            // Where the writeback started so far ends.
            var writtenBack: Int64 = 0
            // Hands the gathered slices to the pool once the write before them is done.
            func send() async throws {
                if inFlight { try await writes.next() }
                let (pieces, at) = (gathered, offset)
                let end = offset + Int64(gatheredBytes)
                let writeback: (offset: Int64, length: Int64)? =
                    end - writtenBack >= Self.writebackStride ? (writtenBack, end - writtenBack) : nil
                if writeback != nil { writtenBack = end }
                writes.addTask {
                    try await handle.withUnsafeDescriptor { descriptor in
                        try Self.write(pieces, to: descriptor.rawValue, at: at)
                        if let writeback {
                            _ = CMockCDNMemory_startWriteback(descriptor.rawValue, writeback.offset, writeback.length)
                        }
                    }
                }
                inFlight = true
                offset = end
                gathered = []
                gatheredBytes = 0
                heldBytes = 0
            }
            for try await chunk in body {
                try take(chunk)
                guard chunk.readableBytes > 0 else { continue }
                gathered.append(chunk)
                gatheredBytes += chunk.readableBytes
                heldBytes += chunk.storageCapacity
                if heldBytes >= capacity || gathered.count >= Self.maximumPieces { try await send() }
            }
            if gatheredBytes > 0 { try await send() }
            try await writes.waitForAll()
            return offset
        }
    }

    /// Bytes written between two starts of the file's writeback to disk: a large body's pages go to disk as it
    /// arrives, and its fsync waits only for the last few MiB rather than for the whole body (a 100 MiB upload's
    /// fsync took 43 to 53 ms without, 2 ms with, under strace). A body smaller than this is left to the fsync alone.
    static let writebackStride: Int64 = 8 * 1024 * 1024

    /// Slices per `pwritev`: Linux's IOV_MAX, the most one call takes.
    private static let maximumPieces = 1024

    /// `pwritev`s all of `pieces`, one after another, at `offset`.
    private static func write(_ pieces: [ByteBuffer], to descriptor: CInt, at offset: Int64) throws {
        var vectors: [iovec] = []
        vectors.reserveCapacity(pieces.count)
        // The pointers stay good after each closure: `pieces` holds every buffer until this returns, and a
        // ByteBuffer's storage moves only when it is written to, which nothing here does.
        for piece in pieces {
            piece.withUnsafeReadableBytes { bytes in
                vectors.append(
                    iovec(iov_base: UnsafeMutableRawPointer(mutating: bytes.baseAddress), iov_len: bytes.count)
                )
            }
        }
        try vectors.withUnsafeMutableBufferPointer { vectors in
            var first = 0
            var at = off_t(offset)
            while first < vectors.count {
                let count = pwritev(descriptor, vectors.baseAddress! + first, CInt(vectors.count - first), at)
                guard count >= 0 else {
                    if errno == EINTR { continue }
                    let code = errno
                    throw FileSystemError(
                        code: code == ENOSPC || code == EDQUOT ? .unavailable : .unknown,
                        message: "cannot write the object's bytes",
                        cause: FileSystemError.SystemCallError(systemCall: "pwritev", errno: Errno(rawValue: code)),
                        location: .init(function: #function, file: #fileID, line: #line)
                    )
                }
                at += off_t(count)
                // A short write: skip what went, and start again inside the piece it stopped in.
                var left = count
                while first < vectors.count, left >= vectors[first].iov_len {
                    left -= vectors[first].iov_len
                    first += 1
                }
                if left > 0 {
                    vectors[first].iov_base = vectors[first].iov_base! + left
                    vectors[first].iov_len -= left
                }
            }
        }
    }
}
