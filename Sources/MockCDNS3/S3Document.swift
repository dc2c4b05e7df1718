import Foundation
import MockCDNCore
import NIOCore

/// A small JSON document in the bucket that several instances change: read whole, changed by read, change,
/// write-if-unchanged (`If-Match` on the ETag read, `If-None-Match: *` for the first write), tried again when
/// another instance wrote in between. A store that ignores those conditions makes concurrent changes
/// last-writer-wins.
struct S3Document<Value: Codable & Sendable>: Sendable {
    let client: S3Client
    /// The document's key in the bucket.
    let key: String
    /// What the document holds before its first write.
    let empty: Value
    /// What a refusal names it (`app demo`, `the created buckets`).
    let name: String

    /// The document and its ETag; `empty` and nil when it was never written.
    ///
    /// - Throws: `MockCDNError.storageFailure` when it does not decode; what the bucket throws.
    func read() async throws -> (value: Value, etag: String?) {
        guard let (body, etag) = try await self.client.getSmallObject(self.key) else { return (self.empty, nil) }
        guard let value = try? JSONDecoder().decode(Value.self, from: Data(body.readableBytesView)) else {
            throw MockCDNError.storageFailure("the S3 store holds an unreadable state document for \(self.name)")
        }
        return (value, etag)
    }

    /// Applies `change` to the document, written only if nobody wrote it since it was read.
    ///
    /// - Returns: what `change` returned on the attempt that was written.
    /// - Throws: `MockCDNError.storageFailure` when it kept changing; what the bucket throws.
    @discardableResult
    func change<Result>(_ change: (inout Value) -> Result) async throws -> Result {
        for attempt in 0..<16 {
            let (read, etag) = try await self.read()
            var value = read
            let result = change(&value)
            do {
                try await self.client.putObject(
                    self.key,
                    bytes: ByteBuffer(bytes: try JSONEncoder().encode(value)),
                    contentType: "application/json",
                    ifMatch: etag,
                    ifNoneMatch: etag == nil ? "*" : nil
                )
                return result
            } catch let failure as S3Client.Failure where failure.status == 412 || failure.status == 409 {
                // Another instance wrote first: read again after a short, random pause, so that writers who
                // collided do not collide again.
                try await Task.sleep(for: .milliseconds(Int.random(in: 5...25) * min(attempt + 1, 8)))
            }
        }
        throw MockCDNError.storageFailure("the state of \(self.name) kept changing under an update")
    }
}
