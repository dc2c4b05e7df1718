import MockCDNCore

/// Input: two bytes of object size, then the Range header. A partial answer must lie inside the object.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRange(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: start, count: count)
    guard bytes.count >= 2 else { return 0 }
    let size = Int(bytes[0]) << 8 | Int(bytes[1])
    let header = String(decoding: bytes.dropFirst(2), as: UTF8.self)
    switch RangeRequest.parse(header, size: size) {
    case .partial(let range):
        precondition(range.lowerBound >= 0 && range.upperBound <= size && !range.isEmpty, "range outside the object")
    case .whole, .multiple, .unsatisfiable:
        break
    }
    return 0
}
