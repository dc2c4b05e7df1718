import Foundation
import NIOCore
import _NIOFileSystem

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The small files MockCDN writes and later reads back itself (metadata records, variant files), read with
/// plain system calls from folders where somebody else may have put something: a symbolic link is never
/// followed (`O_NOFOLLOW`), a FIFO never waited on (`O_NONBLOCK`), and nothing is read past a bound.
///
/// Plain calls rather than NIOFileSystem's handles, because opening a data directory reads every record: a
/// few system calls each, instead of a thread-pool round trip per call.
enum RegularFile {
    /// Why a file was not read.
    enum Refusal: Error, CustomStringConvertible {
        case notRegular(FileType)
        case tooLarge
        case unreadable(String)

        var description: String {
            switch self {
            case .notRegular(let type): "not a regular file (\(type))"
            case .tooLarge: "too large"
            case .unreadable(let reason): reason
            }
        }
    }

    /// Reads the regular file at `path` whole.
    ///
    /// - Parameters:
    ///   - path: a name inside `directory`, or any path with the default `AT_FDCWD`.
    ///   - directory: an open folder's descriptor.
    ///   - maximumSize: the most bytes the file may hold.
    /// - Returns: its bytes, as many as `fstat` gave when it was opened.
    /// - Throws: `Refusal`, with the reason.
    static func bytes(at path: String, in directory: CInt = AT_FDCWD, maximumSize: Int) throws(Refusal) -> ByteBuffer {
        let descriptor = openat(directory, path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            // A link opened with O_NOFOLLOW fails with ELOOP.
            if errno == ELOOP { throw .notRegular(.symlink) }
            throw .unreadable(String(cString: strerror(errno)))
        }
        defer { close(descriptor) }
        var status = Self.emptyStatus()
        guard fstat(descriptor, &status) == 0 else { throw .unreadable(String(cString: strerror(errno))) }
        let info = FileInfo(platformSpecificStatus: status)
        guard info.type == .regular else { throw .notRegular(info.type) }
        guard info.size <= Int64(maximumSize) else { throw .tooLarge }
        let size = Int(info.size)
        var bytes = ByteBuffer()
        bytes.reserveCapacity(size)
        while bytes.readableBytes < size {
            let wanted = size - bytes.readableBytes
            var count = 0
            bytes.writeWithUnsafeMutableBytes(minimumWritableBytes: wanted) {
                count = read(descriptor, $0.baseAddress!, wanted)
                return max(count, 0)
            }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { throw .unreadable(String(cString: strerror(errno))) }
            // Shorter than when it was opened: read what there was.
            if count == 0 { break }
        }
        return bytes
    }

    /// The entries of the folder open as `directory`, by name, each with its own type (`fstatat` without
    /// following links: a link is a link); `.unknown` for one gone meanwhile.
    ///
    /// - Parameter directory: the folder's descriptor; it stays open.
    /// - Throws: `Refusal.unreadable` when the folder cannot be listed.
    static func entries(of directory: CInt) throws(Refusal) -> [String: FileType] {
        // fdopendir owns the descriptor it is given, and closedir closes it.
        let listing = dup(directory)
        guard listing >= 0, let stream = fdopendir(listing) else {
            throw .unreadable(String(cString: strerror(errno)))
        }
        defer { closedir(stream) }
        var entries: [String: FileType] = [:]
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(cString: raw.baseAddress!.assumingMemoryBound(to: CChar.self))
            }
            guard name != ".", name != ".." else { continue }
            var status = Self.emptyStatus()
            entries[name] =
                fstatat(directory, name, &status, AT_SYMLINK_NOFOLLOW) == 0
                ? FileInfo(platformSpecificStatus: status).type : .unknown
        }
        return entries
    }

    /// Opens a folder for `entries(of:)` and `bytes(at:in:maximumSize:)`, refusing a link in its place.
    ///
    /// - Returns: its descriptor, for the caller to close.
    static func openFolder(_ path: String) throws(Refusal) -> CInt {
        let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else { throw .unreadable(String(cString: strerror(errno))) }
        return descriptor
    }

    /// A zeroed `stat`, for `fstat` to fill.
    private static func emptyStatus() -> stat {
        withUnsafeTemporaryAllocation(of: stat.self, capacity: 1) { buffer in
            UnsafeMutableRawBufferPointer(buffer).initializeMemory(as: UInt8.self, repeating: 0)
            return buffer[0]
        }
    }
}
