import Foundation
import MockCDNCore

/// The open multipart uploads with the store their parts live in: frees the parts an upload leaves behind
/// (completed, aborted, replaced, or untouched for `MultipartUploads.lifetime`).
struct PartStore: Sendable {
    let uploads: MultipartUploads
    let store: any ObjectStore
    let clock: MockClock

    /// Frees the uploads untouched for their lifetime, and, at most once an hour, the parts in the store that
    /// no open upload names and that are as old (an earlier process's, or another instance's that it let
    /// expire). Every multipart request runs it first: nothing else keeps time.
    func freeExpired() async {
        let now = self.clock.now
        await self.delete(self.uploads.expire(now: now))
        guard self.uploads.claimOrphanSweep(now: now) else { return }
        guard let parts = try? await self.store.list(prefix: MultipartUploads.partPrefix) else { return }
        for part in parts where now.timeIntervalSince(part.created) > MultipartUploads.lifetime {
            guard let id = MultipartUploads.uploadID(ofPart: part.key), !self.uploads.isOpen(id) else { continue }
            if let key = try? ObjectKey(part.key) { _ = try? await self.store.delete(key) }
        }
    }

    /// Deletes parts from the store; one that cannot be deleted now is left for a reset or the orphan sweep.
    func delete(_ keys: [ObjectKey]) async {
        for key in keys { _ = try? await self.store.delete(key) }
    }
}
