import HTTPTypes
import Hummingbird
import NIOCore

/// How a fault shapes a response body.
struct BodyShape: Sendable {
    var throttle: Int?
    var resetAfter: Int?
    var truncateAfter: Int?

    /// The byte count after which the connection is cut, if any.
    var cutAfter: Int? {
        switch (self.resetAfter, self.truncateAfter) {
        case (let reset?, let truncate?): Swift.min(reset, truncate)
        case (let reset?, nil): reset
        case (nil, let truncate?): truncate
        case (nil, nil): nil
        }
    }
}

/// The connection is cut on purpose (a `reset_after_bytes` or `truncate_after_bytes` fault).
struct FaultCut: Error {}

/// Writes a response body through a fault's shape, counting what goes out.
struct ShapedWriter: ResponseBodyWriter {
    var inner: any ResponseBodyWriter
    let shape: BodyShape
    let sent: ByteCount
    var pacer: Pacer?

    init(inner: any ResponseBodyWriter, shape: BodyShape, sent: ByteCount) {
        self.inner = inner
        self.shape = shape
        self.sent = sent
        self.pacer = shape.throttle.map(Pacer.init)
    }

    mutating func write(_ buffer: ByteBuffer) async throws {
        var buffer = buffer
        if let cut = self.shape.cutAfter {
            let allowed = max(0, cut - self.sent.value)
            if buffer.readableBytes > allowed {
                if allowed > 0 { try await self.send(buffer.readSlice(length: allowed)!) }
                throw FaultCut()
            }
        }
        try await self.send(buffer)
    }

    private mutating func send(_ buffer: ByteBuffer) async throws {
        guard var pacer = self.pacer else {
            try await self.inner.write(buffer)
            self.sent.add(buffer.readableBytes)
            return
        }
        var buffer = buffer
        while buffer.readableBytes > 0 {
            let piece = buffer.readSlice(length: Swift.min(pacer.pieceLength, buffer.readableBytes))!
            try await pacer.wait(for: piece.readableBytes)
            try await self.inner.write(piece)
            self.sent.add(piece.readableBytes)
        }
        self.pacer = pacer
    }

    consuming func finish(_ trailingHeaders: HTTPFields?) async throws {
        // A cut that falls exactly at the end of the body still cuts: the client must see it.
        if let cut = self.shape.cutAfter, self.sent.value >= cut,
            self.shape.truncateAfter != nil || self.shape.resetAfter != nil
        {
            throw FaultCut()
        }
        try await self.inner.finish(trailingHeaders)
    }
}
