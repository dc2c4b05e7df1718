import MockCDNCore
import Synchronization

/// Credentials that passed verification, so that the next read with the same credential, for the same
/// resource, skips the parsing, the MAC and the RSA signature.
///
/// An entry is found by the SHA-256 of everything the verification read but the clock: the credential's own
/// bytes (FAT; SigV4 query and signed headers; CloudFront signature and policy), the app, and the request
/// parts it was checked against (method, path, host, the resource URLs, the client address). So a hit is
/// exactly a request that verification would judge the same way, except for time, and every hit checks
/// time again: the validity the verification returned must hold at the clock's now, and a CloudFront key pair
/// must still be active. A hit that fails either check verifies again in full, so an expired or not-yet-valid
/// credential is refused with the same answer as without the cache. Failures are never remembered.
///
/// Digests, not credentials, are the keys: looking one up compares hashes, never the secret bytes, and no
/// credential is kept in memory. The cache holds at most `capacity` entries (`--credential-cache-size`) and
/// drops the least recently used quarter when it is full. A reset empties it.
final class VerifiedCredentialCache: Sendable {
    struct Entry {
        let validity: Validity
        /// The CloudFront key pair that signed the link, checked again at each hit.
        let keyPairID: String?
        var lastUse: UInt64
    }

    private struct State {
        var entries: [[UInt8]: Entry] = [:]
        var tick: UInt64 = 0
    }

    let capacity: Int
    private let state = Mutex(State())
    /// Told of each read authorised from the cache (for `/metrics`).
    private let onHit: @Sendable () -> Void

    init(capacity: Int, onHit: @escaping @Sendable () -> Void = {}) {
        self.capacity = max(4, capacity)
        self.onHit = onHit
    }

    /// Passes when the credential described by `parts` verified before and still holds at `now`;
    /// otherwise runs `verify` and, when it passes, remembers its validity.
    ///
    /// - Parameters:
    ///   - parts: every input of the verification but the clock; the first names the credential kind.
    ///   - now: the clock's now.
    ///   - keyHolds: whether a key pair is still active (CloudFront).
    ///   - verify: the full verification; returns the validity and the key pair it used.
    /// - Throws: what `verify` throws.
    func check(
        _ parts: [String],
        now: Int64,
        keyHolds: (String) -> Bool = { _ in true },
        verify: () throws(AccessDenied) -> (Validity, keyPairID: String?)
    ) throws(AccessDenied) {
        let digest = Self.digest(parts)
        let remembered = self.state.withLock { state -> Entry? in
            guard var entry = state.entries[digest] else { return nil }
            state.tick += 1
            entry.lastUse = state.tick
            state.entries[digest] = entry
            return entry
        }
        if let remembered, remembered.validity.holds(at: now), remembered.keyPairID.map(keyHolds) ?? true {
            self.onHit()
            return
        }
        let (validity, keyPairID) = try verify()
        self.state.withLock { state in
            state.tick += 1
            state.entries[digest] = Entry(validity: validity, keyPairID: keyPairID, lastUse: state.tick)
            if state.entries.count > self.capacity {
                // The least recently used quarter goes: one sort per capacity/4 insertions.
                let oldest = state.entries.sorted { $0.value.lastUse < $1.value.lastUse }.prefix(self.capacity / 4)
                for (key, _) in oldest { state.entries[key] = nil }
            }
        }
    }

    func removeAll() {
        self.state.withLock { $0.entries.removeAll() }
    }

    var count: Int { self.state.withLock { $0.entries.count } }

    /// SHA-256 over the parts, each preceded by its length, so that no two lists of parts share a digest.
    static func digest(_ parts: [String]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(parts.reduce(0) { $0 + $1.utf8.count + 4 })
        for part in parts {
            let count = UInt32(truncatingIfNeeded: part.utf8.count)
            withUnsafeBytes(of: count.littleEndian) { bytes.append(contentsOf: $0) }
            bytes.append(contentsOf: part.utf8)
        }
        return Digest.sha256(bytes)
    }
}
