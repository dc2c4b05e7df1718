/// A second home for resized variants that several instances share (an S3 bucket's `variants/` prefix):
/// `VariantCache` looks there before it renders and keeps what it renders there. A variant's name holds its
/// object's key, ETag and transform, and an ETag is a hash of the bytes, so a name always means the same
/// variant: one left behind by a delete is garbage, never a wrong answer.
public protocol SharedVariantStore: Sendable {
    /// The variant stored under `name`, or nil, also when the store cannot be read (the caller renders).
    func load(_ name: String) async -> ImageVariant?
    /// Keeps `variant` under `name`; a failure is ignored (another instance renders it again).
    func save(_ variant: ImageVariant, as name: String) async
    /// Removes every variant whose name starts with `prefix` (one object's), as far as the store answers.
    func remove(namesStartingWith prefix: String) async
}
