import MockCDNCore
import MockCDNS3

extension S3Client.Failure: CategorizedError {
    /// The S3 store refused or failed an operation: the store cannot serve now; a 5xx store answer is
    /// retried inside the client before it gets here.
    public var category: ErrorCategory { .unavailable }
    public var publicMessage: String { "the S3 store answered \(self.code)" }
}
