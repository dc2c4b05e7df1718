import Foundation
import NIOCore
import _NIOFileSystem

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension DiskObjectStore {
    /// An entry of the data directory that opening the store left alone, and why.
    public struct SkippedEntry: Sendable, Equatable, CustomStringConvertible {
        /// The entry's path inside the data directory, such as `meta/x.json`.
        public let path: String
        /// Why it was not used, such as `not a regular file (fifo)`.
        public let reason: String

        public init(path: String, reason: String) {
            self.path = path
            self.reason = reason
        }

        public var description: String { "\(self.path): \(self.reason)" }
    }

    /// Metadata records are a few hundred bytes; the bound keeps a stray large file from being read whole.
    static let maximumRecordLength = 64 * 1024

    /// What opening the store found: the objects, and the entries it left alone.
    struct Contents {
        var records: [ObjectKey: Record] = [:]
        var skipped: [SkippedEntry] = []
    }

    /// A metadata file that cannot be used, with the reason.
    private struct Unusable: Error {
        let reason: String
    }

    /// Creates the folders, clears `tmp/`, loads the metadata and removes what a crash left behind.
    ///
    /// Only the folders themselves can make this fail. Inside them, an entry that is not what the store
    /// writes is skipped and reported; it is never followed, waited on, or read past a small bound.
    ///
    /// - Parameters:
    ///   - blobs: the folder of object bytes.
    ///   - meta: the folder of metadata files.
    ///   - temporary: the folder of writes in progress.
    /// - Returns: the objects, and the skipped entries.
    /// - Throws: a `FileSystemError` when a folder cannot be created or listed.
    static func openContents(blobs: FilePath, meta: FilePath, temporary: FilePath) async throws -> Contents {
        let fileSystem = FileSystem.shared
        var contents = Contents()
        for folder in [blobs, meta] {
            try await fileSystem.createDirectory(at: folder, withIntermediateDirectories: true)
        }
        // Anything in tmp/ is a write that never committed. New temp names are random, so what cannot be
        // removed is in nobody's way.
        do {
            try await fileSystem.removeItem(at: temporary, recursively: true)
        } catch let error as FileSystemError {
            contents.skipped.append(SkippedEntry(path: "tmp", reason: "cannot be cleared (\(error.code))"))
        }
        try await fileSystem.createDirectory(at: temporary, withIntermediateDirectories: true)

        let blobEntries = try Self.entries(in: blobs)
        var blobFiles = Set<String>()
        for (name, type) in blobEntries {
            if type == .regular {
                blobFiles.insert(name)
            } else {
                contents.skipped.append(SkippedEntry(path: "blobs/" + name, reason: "not a regular file (\(type))"))
            }
        }

        try Self.loadRecords(in: meta, into: &contents)
        for (key, record) in contents.records where !blobFiles.contains(record.blob) {
            contents.records[key] = nil
            let name = Self.metaName(for: key)
            if blobEntries[record.blob] == nil {
                // Metadata whose blob is gone (damage from outside the store) would serve nothing: drop it.
                await Self.removeLeftover(meta.appending(name))
            } else {
                let reason = "its blob \(record.blob) is not a regular file"
                contents.skipped.append(SkippedEntry(path: "meta/" + name, reason: reason))
            }
        }
        // A skipped metadata file may name a blob (a record behind a link, say): while one is there, nothing
        // is collected, so putting it right and restarting brings the object back.
        guard !contents.skipped.contains(where: { $0.path.hasPrefix("meta/") }) else { return contents }
        let referenced = Set(contents.records.values.map(\.blob))
        for name in blobFiles where !referenced.contains(name) {
            await Self.removeLeftover(blobs.appending(name))
        }
        return contents
    }

    /// The entries of `folder` by name, with their type; a symbolic link is reported as one, not followed.
    private static func entries(in folder: FilePath) throws -> [String: FileType] {
        let descriptor = try Self.openFolder(folder)
        defer { close(descriptor) }
        return try Self.listing(folder) { try RegularFile.entries(of: descriptor) }
    }

    /// Reads every usable metadata file of `folder` into `contents.records`, and every other entry into
    /// `contents.skipped`.
    private static func loadRecords(in folder: FilePath, into contents: inout Contents) throws {
        let descriptor = try Self.openFolder(folder)
        defer { close(descriptor) }
        let entries = try Self.listing(folder) { try RegularFile.entries(of: descriptor) }
        for (name, type) in entries {
            do {
                let (key, record) = try Self.loadRecord(name, type: type, in: descriptor)
                contents.records[key] = record
            } catch let unusable as Unusable {
                contents.skipped.append(SkippedEntry(path: "meta/" + name, reason: unusable.reason))
            }
        }
    }

    /// A folder of the store, opened without following a link in its place.
    private static func openFolder(_ folder: FilePath) throws -> CInt {
        try Self.listing(folder) { try RegularFile.openFolder(folder.string) }
    }

    /// `body`, with a refusal to open or list `folder` as the store's failure to open.
    private static func listing<T>(_ folder: FilePath, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch {
            throw MockCDNError.storageFailure("cannot list \(folder) in the data directory: \(error)")
        }
    }

    /// Reads and checks one metadata file.
    ///
    /// The listing's type is checked before the open, so a FIFO or device is never opened; the open
    /// (relative to the folder, non-blocking, and without following a link) is checked again with `fstat`,
    /// in case the entry was swapped in between.
    ///
    /// - Parameters:
    ///   - name: the entry's name in `meta/`.
    ///   - type: its type, from the listing.
    ///   - directory: a descriptor of `meta/`.
    /// - Returns: the record and its key, which names this file.
    /// - Throws: `Unusable` with the reason.
    private static func loadRecord(_ name: String, type: FileType, in directory: CInt) throws -> (ObjectKey, Record) {
        guard name.hasSuffix(".json") else { throw Unusable(reason: "not a metadata file") }
        guard type == .regular else { throw Unusable(reason: "not a regular file (\(type))") }
        let bytes: ByteBuffer
        do {
            bytes = try RegularFile.bytes(at: name, in: directory, maximumSize: Self.maximumRecordLength)
        } catch .notRegular(let type) {
            throw Unusable(reason: "not a regular file (\(type))")
        } catch .tooLarge {
            throw Unusable(reason: "larger than \(Self.maximumRecordLength) bytes")
        } catch .unreadable(let reason) {
            throw Unusable(reason: "cannot be read (\(reason))")
        }
        guard let record = try? JSONDecoder().decode(Record.self, from: Data(bytes.readableBytesView)) else {
            throw Unusable(reason: "not a metadata record")
        }
        guard let key = try? ObjectKey(record.metadata.key) else { throw Unusable(reason: "invalid object key") }
        // A copy under another name would bring the object back after a delete, which unlinks only this name.
        guard name == Self.metaName(for: key) else { throw Unusable(reason: "file name does not match its key") }
        // The blob name is joined to the blobs/ path: only names the store makes, never `../`.
        guard record.blob.utf8.count == 32, record.blob.utf8.allSatisfy(Self.isLowerHexDigit) else {
            throw Unusable(reason: "invalid blob name")
        }
        return (key, record)
    }

    private static func isLowerHexDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
    }
}
