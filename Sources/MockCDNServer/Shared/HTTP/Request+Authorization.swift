import Hummingbird

extension Request {
    /// The credential of the `Authorization` header, without its `Bearer ` prefix (any case), and whether it
    /// had one; nil when the header is missing or empty. Stream tolerates a bare JWT; the control routes
    /// want the prefix.
    var authorization: (credential: String, isBearer: Bool)? {
        guard let value = self.headers[.authorization], !value.isEmpty else { return nil }
        let isBearer = value.utf8.count >= 7 && value.prefix(7).lowercased() == "bearer "
        return (isBearer ? String(value.dropFirst(7)) : value, isBearer)
    }
}
