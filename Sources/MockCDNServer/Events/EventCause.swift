/// What the store writes of the current task mean as events, set by the route that makes them: the one
/// funnel (`EventingObjectStore`) reads it, so a route names its event once instead of emitting it itself.
///
/// A write with no cause set is `ObjectCreated:Put` and a delete `ObjectRemoved:Delete`; posters and
/// fixtures run `silently`, since they are MockCDN's own objects and not a client's change.
enum EventCause {
    /// The event a store write of this task emits.
    @TaskLocal static var creation: ObjectEventName = .put
    /// True while MockCDN writes or removes objects of its own (posters, fixtures): no event.
    @TaskLocal static var silent = false
    /// The event a metadata change of this task emits (`ObjectTagging:Put`, `ObjectAcl:Put`); nil, the
    /// default, for none: MockCDN's own metadata edits (a video's poster) are no client's change.
    @TaskLocal static var change: ObjectEventName? = nil

    /// Runs `body` with its store writes emitted as `name`.
    ///
    /// - Parameters:
    ///   - name: the `ObjectCreated:*` event of the route.
    ///   - body: the work that writes.
    /// - Returns: what `body` returns.
    /// - Throws: what `body` throws.
    static func creating<T: Sendable>(
        as name: ObjectEventName,
        _ body: () async throws -> T
    ) async rethrows -> T {
        try await Self.$creation.withValue(name, operation: body)
    }

    /// Runs `body` with its metadata changes (`ObjectStore.updateMetadata`) emitted as `name`.
    ///
    /// - Parameters:
    ///   - name: the event of the route (`ObjectTagging:Put`, `ObjectTagging:Delete`, `ObjectAcl:Put`).
    ///   - body: the work that changes metadata.
    /// - Returns: what `body` returns.
    /// - Throws: what `body` throws.
    @discardableResult
    static func changing<T: Sendable>(
        as name: ObjectEventName,
        _ body: () async throws -> T
    ) async rethrows -> T {
        try await Self.$change.withValue(name, operation: body)
    }

    /// Runs `body` with none of its store changes emitted.
    ///
    /// - Parameter body: the work that writes or removes MockCDN's own objects.
    /// - Returns: what `body` returns.
    /// - Throws: what `body` throws.
    static func silently<T: Sendable>(_ body: () async throws -> T) async rethrows -> T {
        try await Self.$silent.withValue(true, operation: body)
    }
}
