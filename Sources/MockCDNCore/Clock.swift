import Foundation
import Synchronization

/// The one clock every expiry decision reads (JWT, FAT, presigned and CloudFront links).
///
/// It follows the system clock, shifted by an offset that tests set or advance through the
/// `/_mockcdn/clock` routes; shifting never stops time, so timeouts elsewhere keep working.
public final class MockClock: Sendable {
    private let offset = Mutex<TimeInterval>(0)

    public init() {}

    /// The current time as MockCDN sees it.
    public var now: Date { Date().addingTimeInterval(self.offset.withLock { $0 }) }

    /// The current time in whole Unix seconds, as it appears on the wire.
    public var unixSeconds: Int64 { Int64(self.now.timeIntervalSince1970.rounded(.down)) }

    /// Makes `now` read `date` (time keeps running from there).
    ///
    /// - Parameter date: the new current time.
    public func set(_ date: Date) {
        self.offset.withLock { $0 = date.timeIntervalSinceNow }
    }

    /// Moves time forward (or back, with a negative interval).
    ///
    /// - Parameter seconds: how far to move.
    public func advance(by seconds: TimeInterval) {
        self.offset.withLock { $0 += seconds }
    }

    /// Back to the system time.
    public func reset() {
        self.offset.withLock { $0 = 0 }
    }
}
