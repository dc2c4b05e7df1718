import Foundation
import Synchronization

/// The buckets created at run time, in this process, and written to `file` (JSON, replaced whole by a rename)
/// when there is one: the disk store's data directory keeps them beside the objects they hold.
public final class LocalBucketDirectory: BucketDirectory {
    private let file: URL?
    private let records: Mutex<[String: BucketRecord]>

    /// - Parameter file: where to keep the buckets across restarts; nil to keep them in memory only.
    /// - Throws: `MockCDNError.storageFailure` when the file is there but cannot be read.
    public init(file: URL? = nil) throws {
        self.file = file
        var records: [String: BucketRecord] = [:]
        if let file, FileManager.default.fileExists(atPath: file.path) {
            guard let data = try? Data(contentsOf: file),
                let decoded = try? JSONDecoder().decode([BucketRecord].self, from: data)
            else {
                throw MockCDNError.storageFailure("cannot read the created buckets in \(file.path)")
            }
            for record in decoded { records[record.name] = record }
        }
        self.records = Mutex(records)
    }

    public var isShared: Bool { false }

    public func load() async throws -> [BucketRecord] {
        self.records.withLock { Array($0.values) }
    }

    public func insert(_ record: BucketRecord) async throws -> BucketRecord? {
        try await self.change { records in
            if let kept = records[record.name] { return kept }
            records[record.name] = record
            return nil
        }
    }

    public func remove(_ name: String) async throws {
        try await self.change { $0[name] = nil }
    }

    public func removeAll() async throws {
        try await self.change { $0.removeAll() }
    }

    /// Changes the records and, with a file, writes them before anyone sees the change; with a file, on NIO's
    /// thread pool (`BlockingWork`).
    private func change<Result: Sendable>(
        _ body: @escaping @Sendable (inout [String: BucketRecord]) -> Result
    ) async throws -> Result {
        guard self.file != nil else { return try self.changeNow(body) }
        return try await BlockingWork.run { try self.changeNow(body) }
    }

    private func changeNow<Result>(_ body: (inout [String: BucketRecord]) -> Result) throws -> Result {
        try self.records.withLock { records in
            var changed = records
            let result = body(&changed)
            if let file = self.file, changed != records {
                let data = try JSONEncoder().encode(changed.values.sorted { $0.name < $1.name })
                do {
                    try data.write(to: file, options: .atomic)
                } catch {
                    throw MockCDNError.storageFailure("cannot write the created buckets to \(file.path)")
                }
            }
            records = changed
            return result
        }
    }
}
