import MockCDNCore
import NIOCore

/// Resized variants in the bucket under `PREFIX/variants/`, so that a variant one instance rendered serves
/// every instance (`--s3-variants true`). Each object holds a variant in its stored form (content type,
/// newline, bytes). Nothing bounds their number here: an object's delete removes its variants, a reset
/// removes everything under the prefix, and a bucket lifecycle rule on `variants/` can expire the rest.
public struct S3VariantStore: SharedVariantStore {
    let client: S3Client
    /// The largest variant read back; a larger object there is not one MockCDN wrote.
    let largest = 64 << 20

    public init(client: S3Client) {
        self.client = client
    }

    func key(_ name: String) -> String { self.client.location.prefix + "variants/" + name }

    public func load(_ name: String) async -> ImageVariant? {
        guard let found = try? await self.client.getSmallObject(self.key(name), limit: self.largest) else {
            return nil
        }
        return ImageVariant(stored: found.body)
    }

    public func save(_ variant: ImageVariant, as name: String) async {
        _ = try? await self.client.putObject(self.key(name), bytes: variant.stored)
    }

    public func remove(namesStartingWith prefix: String) async {
        for key in (try? await self.client.listKeys(prefix: self.key(prefix))) ?? [] {
            try? await self.client.deleteObject(key)
        }
    }
}
