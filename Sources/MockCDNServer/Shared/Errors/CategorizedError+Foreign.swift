import Hummingbird
import MockCDNCore
import NIOCore
import NIOHTTP1
import _NIOFileSystem

// The errors of the libraries MockCDN builds on that can reach a route's edge, each given its category here,
// in one place (the S3 store client's is beside the store's assembly, `S3Client+CategorizedError.swift`).

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
