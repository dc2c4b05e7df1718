import MockCDNCore

/// Input: a policy document. A parsed policy must serialise and parse back to itself.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPolicy(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = [UInt8](UnsafeRawBufferPointer(start: start, count: count))
    guard let policy = try? CloudFrontPolicy.parse(bytes) else { return 0 }
    let again = try? CloudFrontPolicy.parse(Array(policy.json.utf8))
    precondition(again == policy, "a policy does not survive its own JSON")
    _ = policy.covers("http://127.0.0.1:8080/demo/a.png")
    _ = policy.allows(address: "127.0.0.1")
    return 0
}
