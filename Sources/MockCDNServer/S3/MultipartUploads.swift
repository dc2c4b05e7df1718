import Foundation
import MockCDNCore
import Synchronization

/// The open S3 multipart uploads, in memory: what each will store and where its parts are. The parts' bytes
/// live in the object store under `_mockcdn/multipart/` (`partPrefix`), which no app's listing or read can
/// reach: an app's keys start with its id, and no app id may be `_mockcdn` (a route prefix). Every method
/// takes the clock's time: an upload untouched for `lifetime` is freed by the next call to `expire`.
/// `POST /_mockcdn/reset` empties it (`removeAll`) as it empties the store.
final class MultipartUploads: Sendable {
    /// How long an upload no request touched stays open: 24 hours of the MockCDN clock, after which its parts
    /// are freed and its id is `NoSuchUpload` (S3 keeps them until a lifecycle rule aborts them).
    static let lifetime: TimeInterval = 24 * 60 * 60
    /// Where parts are stored: under the control routes' segment, which no app id may take.
    static let partPrefix = "_mockcdn/multipart/"
    /// The most parts an upload may have, and the highest part number, as on S3.
    static let maximumPartNumber = ObjectParts.maximumNumber

    /// One uploaded part.
    struct Part: Sendable, Equatable {
        let number: Int
        /// Where its bytes are in the store: a key of its own per attempt, so a re-sent part replaces the
        /// earlier one only once it is complete.
        let storeKey: ObjectKey
        /// The quoted hex MD5 of its bytes.
        let etag: String
        let size: Int
        let lastModified: Date
        /// Its checksum in base64: of the upload's algorithm when the upload has one (ListParts shows it, and
        /// the composite checksum is made of it), else CRC64NVME's.
        var checksum: String? = nil
    }

    /// One open upload.
    struct Upload: Sendable {
        let id: String
        let app: String
        /// The key the object will have, within the app (`{app}/...`).
        let key: ObjectKey
        /// The object's declared `Content-Type`, from CreateMultipartUpload.
        let contentType: String?
        /// The headers stored with the object (`x-amz-meta-*` and the others of `ObjectHeaders`).
        let extras: [String: String]
        let initiated: Date
        /// The checksum it was created with; nil when none (its object gets a full-object CRC64NVME).
        var checksum: MultipartChecksum? = nil
        /// The last time a request used it, for `lifetime`.
        var touched: Date
        var parts: [Int: Part] = [:]
        /// A CompleteMultipartUpload is joining its parts: nothing may change them meanwhile.
        var completing = false

        /// The key within the bucket, as S3 names it.
        var bucketKey: String { String(self.key.rawValue.dropFirst(self.app.utf8.count + 1)) }
    }

    private let uploads = Mutex<[String: Upload]>([:])
    /// When the store was last searched for parts no open upload names (left by an earlier process).
    private let lastOrphanSweep = Mutex<Date?>(nil)

    /// A new upload.
    ///
    /// - Parameters:
    ///   - app: the bucket's app id.
    ///   - key: the object's key.
    ///   - contentType: its declared type.
    ///   - extras: the headers to store with it.
    ///   - checksum: the checksum it was created with, if any.
    ///   - now: the clock's time.
    /// - Returns: the upload, with a fresh id.
    func create(
        app: String,
        key: ObjectKey,
        contentType: String?,
        extras: [String: String],
        checksum: MultipartChecksum? = nil,
        now: Date
    ) -> Upload {
        // Random, so an id cannot be guessed, and hex, so it is a key segment as it is.
        let upload = Upload(
            id: SecureBytes.random(count: 24).hexString,
            app: app,
            key: key,
            contentType: contentType,
            extras: extras,
            initiated: now,
            checksum: checksum,
            touched: now
        )
        self.uploads.withLock { $0[upload.id] = upload }
        return upload
    }

    /// The upload `id` of `key`, touched.
    ///
    /// - Throws: 404 `NoSuchUpload` when there is none for that key.
    func upload(_ id: String, key: ObjectKey, now: Date) throws(S3Error) -> Upload {
        try self.uploads.withLock { uploads throws(S3Error) in
            guard var upload = uploads[id], upload.key == key else { throw .noSuchUpload(id) }
            upload.touched = now
            uploads[id] = upload
            return upload
        }
    }

    /// Records a part that is in the store now.
    ///
    /// - Parameters:
    ///   - part: the part.
    ///   - id: its upload.
    ///   - key: the upload's key.
    ///   - now: the clock's time.
    /// - Returns: the store key of the part it replaces, for the caller to delete.
    /// - Throws: 404 `NoSuchUpload` when the upload ended meanwhile, 409 `OperationAborted` while it is
    ///   being completed; the caller deletes the part then.
    func record(_ part: Part, in id: String, key: ObjectKey, now: Date) throws(S3Error) -> ObjectKey? {
        try self.uploads.withLock { uploads throws(S3Error) in
            guard var upload = uploads[id], upload.key == key else { throw .noSuchUpload(id) }
            guard !upload.completing else { throw .operationAborted() }
            let replaced = upload.parts.updateValue(part, forKey: part.number)
            upload.touched = now
            uploads[id] = upload
            return replaced?.storeKey
        }
    }

    /// Marks the upload as being completed, so that its parts stay as they are until `endCompletion`.
    ///
    /// - Returns: the upload, with its parts.
    /// - Throws: 404 `NoSuchUpload`; 409 `OperationAborted` when another completion is under way.
    func beginCompletion(_ id: String, key: ObjectKey, now: Date) throws(S3Error) -> Upload {
        try self.uploads.withLock { uploads throws(S3Error) in
            guard var upload = uploads[id], upload.key == key else { throw .noSuchUpload(id) }
            guard !upload.completing else { throw .operationAborted() }
            upload.completing = true
            upload.touched = now
            uploads[id] = upload
            return upload
        }
    }

    /// Whether the upload is still being completed: false once a reset or an abort removed it.
    func isCompleting(_ id: String) -> Bool {
        self.uploads.withLock { $0[id]?.completing ?? false }
    }

    /// Ends a completion: a completed upload is gone, with its parts; one that failed is open again.
    ///
    /// - Parameters:
    ///   - id: the upload.
    ///   - completed: whether the object was stored.
    /// - Returns: the store keys of the parts to delete.
    func endCompletion(_ id: String, completed: Bool) -> [ObjectKey] {
        self.uploads.withLock { uploads in
            guard var upload = uploads[id] else { return [] }
            if completed {
                uploads[id] = nil
                return upload.parts.values.map(\.storeKey)
            }
            upload.completing = false
            uploads[id] = upload
            return []
        }
    }

    /// Ends an upload without an object.
    ///
    /// - Returns: the store keys of its parts, to delete.
    /// - Throws: 404 `NoSuchUpload`; 409 `OperationAborted` while it is being completed.
    func abort(_ id: String, key: ObjectKey) throws(S3Error) -> [ObjectKey] {
        try self.uploads.withLock { uploads throws(S3Error) in
            guard let upload = uploads[id], upload.key == key else { throw .noSuchUpload(id) }
            guard !upload.completing else { throw .operationAborted() }
            uploads[id] = nil
            return upload.parts.values.map(\.storeKey)
        }
    }

    /// The open uploads of an app, by key (UTF-8 order), then by when they started.
    func uploads(of app: String) -> [Upload] {
        self.uploads.withLock { uploads in
            uploads.values.filter { $0.app == app }.sorted { lhs, rhs in
                if lhs.key != rhs.key { return lhs.key.rawValue.utf8.lexicographicallyPrecedes(rhs.key.rawValue.utf8) }
                return (lhs.initiated, lhs.id) < (rhs.initiated, rhs.id)
            }
        }
    }

    /// Whether `id` is an open upload (for parts in the store that no upload names any more).
    func isOpen(_ id: String) -> Bool {
        self.uploads.withLock { $0[id] != nil }
    }

    /// Removes the uploads untouched for `lifetime`; one being completed stays.
    ///
    /// - Parameter now: the clock's time.
    /// - Returns: the store keys of their parts, to delete.
    func expire(now: Date) -> [ObjectKey] {
        self.uploads.withLock { uploads in
            let stale = uploads.values.filter { !$0.completing && now.timeIntervalSince($0.touched) > Self.lifetime }
            for upload in stale { uploads[upload.id] = nil }
            return stale.flatMap { $0.parts.values.map(\.storeKey) }
        }
    }

    /// Whether it is time to search the store for parts no open upload names: at the first use, then at most
    /// once an hour of the clock.
    func claimOrphanSweep(now: Date) -> Bool {
        self.lastOrphanSweep.withLock { last in
            if let last, abs(now.timeIntervalSince(last)) < 60 * 60 { return false }
            last = now
            return true
        }
    }

    /// Forgets every upload (`/_mockcdn/reset`, which empties the store, parts included).
    func removeAll() {
        self.uploads.withLock { $0.removeAll() }
    }

    /// The store key of a new attempt at part `number` of upload `id`.
    static func storeKey(upload id: String, part number: Int) throws -> ObjectKey {
        try ObjectKey(Self.partPrefix + id + "/" + String(number) + "-" + SecureBytes.random(count: 8).hexString)
    }

    /// The upload a part's store key belongs to, or nil for a key that is no part's.
    static func uploadID(ofPart storeKey: String) -> String? {
        guard storeKey.hasPrefix(Self.partPrefix) else { return nil }
        return storeKey.dropFirst(Self.partPrefix.count).split(separator: "/").first.map(String.init)
    }
}
