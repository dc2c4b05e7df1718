import MockCDNCore

/// The size limits of S3-addressed writes. An object is held to the app's `s3_size_limit` when it has one,
/// else to the app's upload policy for the key's kind, as Stream's and CometChat's uploads are. One request's
/// body (PutObject, UploadPart, a POST form's file) is also held to S3's own 5 GiB.
enum S3Limits {
    /// S3's largest PutObject, part and POST upload: 5 GiB.
    static let largestRequest = 5 << 30

    /// The largest object an S3-addressed write may make at `key`.
    ///
    /// - Parameters:
    ///   - key: the object's key (`{app}/...`).
    ///   - app: the app.
    ///   - uploads: where the app's upload policy is read.
    /// - Returns: bytes.
    static func object(at key: ObjectKey, app: MediaApp, uploads: UploadReceiver) async throws -> Int {
        if let limit = app.configuration.s3SizeLimit { return limit }
        return try await uploads.policy(for: key, app: app).limit
    }

    /// The most bytes one request may bring to an object at `key`: `object(at:app:uploads:)`, and 5 GiB.
    ///
    /// - Parameters:
    ///   - key: the object's key (`{app}/...`).
    ///   - app: the app.
    ///   - uploads: where the app's upload policy is read.
    /// - Returns: bytes.
    static func request(to key: ObjectKey, app: MediaApp, uploads: UploadReceiver) async throws -> Int {
        min(try await self.object(at: key, app: app, uploads: uploads), self.largestRequest)
    }

    /// The most bytes a request may bring to the app before its key is known (a POST form names the key
    /// in its body): the largest any key of the app allows.
    ///
    /// - Parameter app: the app.
    /// - Returns: bytes.
    static func request(to app: MediaApp) -> Int {
        min(app.configuration.s3SizeLimit ?? UploadPolicy.defaultSizeLimit, self.largestRequest)
    }
}
