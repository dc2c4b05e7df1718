import Foundation
import Hummingbird
import MockCDNCore
import Synchronization

/// Every service a server runs with: tenants, storage, the clock, channel membership, link signing, resized
/// variants, and the test-control state (journal, faults, metrics, fixtures). `addSurfaces` hands each surface
/// the ones it uses; only the reset, which touches them all, runs over the whole.
struct ServerServices: Sendable {
    let apps: AppRegistry
    /// The store every surface writes through. Its changes are announced where they are made (`ObjectEvents`:
    /// the intake's event stage, a copy, a sub-resource change, `ObjectRemover`, a reset).
    let store: any ObjectStore
    /// Upload events: the queue, the targets, the webhook deliveries.
    let events: ObjectEvents
    /// Vendor-shaped webhooks on demand, sent through the events' deliveries by each vendor's hook.
    let vendorHooks: VendorWebhooks
    /// Stream's webhook settings (`PATCH /app`).
    let streamHooks: StreamWebhooks
    /// CometChat's webhooks (its management routes).
    let cometChatHooks: CometChatWebhooks
    let clock: MockClock
    /// Channel members and `PATCH /app` settings: in the process, or in the bucket with the S3 store.
    let state: any AppState
    let links: LinkSigner
    let variants: VariantCache
    let journal: Journal
    let faults: FaultInjector
    let metrics: ServerMetrics
    let fixtures: FixtureLoader?
    /// Media read credentials that passed verification.
    let verifiedCredentials: VerifiedCredentialCache
    /// Seconds a connection may sit idle before the server closes it (uploads answer a stall before).
    let idleTimeoutSeconds: Int
    /// Moves on at every reset, so work that started before one can tell.
    let epoch = ResetEpoch()
    /// The open S3 multipart uploads (their parts are in `store`).
    let multipart = MultipartUploads()
    /// This process among the instances that share a store (health names it).
    let instance = SecureBytes.random(count: 6).hexString
    /// Returns the allocator's free memory once no request has arrived for a moment.
    let memoryTrim = IdleMemoryTrim()

    /// Back to the startup state: objects (fixtures reloaded), the buckets CreateBucket made, multipart uploads
    /// and their parts, variants, verified credentials, journal, faults, clock, channel membership and upload
    /// settings, and the event queue, pending deliveries and run-time notification targets. The removed objects then emit their
    /// `ObjectRemoved:Delete` records into the emptied queue (`ObjectEvents.emitRemovals`).
    func reset() async throws {
        // First, so that an upload that commits from now on sees it and removes itself.
        self.epoch.advance()
        self.journal.clear()
        self.faults.clear()
        self.events.clear()
        self.vendorHooks.clear()
        self.clock.reset()
        try await self.state.reset(self.apps.apps)
        try await self.apps.buckets.removeAll()
        await self.variants.removeAll()
        self.verifiedCredentials.removeAll()
        // The parts are objects of the store, under `MultipartUploads.partPrefix`: removed with the others.
        self.multipart.removeAll()
        let removed = try await self.store.list(prefix: "")
        try await self.store.removeAll()
        self.events.emitRemovals(of: removed)
        try await self.loadFixtures()
    }

    /// Stores the fixtures under the default app, when a folder is configured.
    func loadFixtures() async throws {
        // The startup state, not a client's change: no events.
        if let fixtures = self.fixtures, let app = self.apps.apps.first {
            try await fixtures.load(into: self.store, clock: self.clock, app: app)
        }
    }

    /// Posters of the videos in this store.
    var posters: VideoPosters { VideoPosters(store: self.store, clock: self.clock, epoch: self.epoch) }

    /// The one upload path, into this store.
    var uploads: UploadReceiver {
        UploadReceiver(
            store: self.store,
            events: self.events,
            state: self.state,
            clock: self.clock,
            epoch: self.epoch,
            idleTimeoutSeconds: self.idleTimeoutSeconds,
            onBytesRead: { [metrics = self.metrics] in metrics.uploaded(bytes: $0) }
        )
    }
}
