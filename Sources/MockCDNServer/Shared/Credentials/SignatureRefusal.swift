import MockCDNCore

/// An S3 query signature refused on a request that needs one (a presigned PUT): the `AccessDenied` with S3's
/// code and details, set apart from a refused FAT so that an API can answer each in its own words.
struct SignatureRefusal: CategorizedError {
    let denial: AccessDenied

    var category: ErrorCategory { self.denial.category }
    var publicMessage: String { self.denial.message }
}
