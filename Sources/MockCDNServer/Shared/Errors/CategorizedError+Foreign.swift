import Hummingbird
import MockCDNCore
import MockCDNS3
import NIOCore
import NIOHTTP1
import _NIOFileSystem

// The errors of the libraries MockCDN builds on that can reach a route's edge, each given its category here,
// in one place.

extension HTTPParserError: CategorizedError {
    /// The body's framing broke mid-request (a bad chunk size, a chunk longer than announced, a missing CRLF):
    /// the client's fault, and nothing of the body is kept.
    public var category: ErrorCategory { .invalidInput }
    public var publicMessage: String { "malformed request body framing (\(self))" }
}

extension FileSystemError: CategorizedError {
    /// Disk full, an I/O error, a permission taken away: the store cannot keep or serve the object now.
    public var category: ErrorCategory { self.code == .unavailable ? .insufficientStorage : .unavailable }
    public var publicMessage: String { "the store cannot be used right now (\(self.code))" }
}

extension CancellationError: CategorizedError {
    public var category: ErrorCategory { .unavailable }
    public var publicMessage: String { "the request was cancelled" }
}

extension DecodingError: CategorizedError {
    public var category: ErrorCategory { .invalidInput }
    public var publicMessage: String { "the request body is not the JSON expected" }
}

extension S3Client.Failure: CategorizedError {
    /// The S3 store refused or failed an operation: the store cannot serve now; a 5xx store answer is
    /// retried inside the client before it gets here.
    public var category: ErrorCategory { .unavailable }
    public var publicMessage: String { "the S3 store answered \(self.code)" }
}
