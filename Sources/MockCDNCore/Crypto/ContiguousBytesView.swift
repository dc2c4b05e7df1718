import NIOCore

/// Bytes stored contiguously, readable without a copy: `[UInt8]`, `ArraySlice<UInt8>`, `String`'s UTF-8,
/// `ByteBuffer`. Lets the crypto wrappers take any of them.
public protocol ContiguousBytesView {
    func withBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result
}

extension Array: ContiguousBytesView where Element == UInt8 {
    public func withBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try self.withUnsafeBytes(body)
    }
}

extension ArraySlice: ContiguousBytesView where Element == UInt8 {
    public func withBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try self.withUnsafeBytes(body)
    }
}

extension String: ContiguousBytesView {
    public func withBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        var copy = self
        return try copy.withUTF8 { try body(UnsafeRawBufferPointer($0)) }
    }
}

extension Substring: ContiguousBytesView {
    public func withBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        var copy = self
        return try copy.withUTF8 { try body(UnsafeRawBufferPointer($0)) }
    }
}

extension ByteBuffer: ContiguousBytesView {
    public func withBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try self.withUnsafeReadableBytes(body)
    }
}
