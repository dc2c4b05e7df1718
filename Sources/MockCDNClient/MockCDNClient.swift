import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The companion client of MockCDN (its secure-media, upload and request helpers arrive with the client issue).
public enum MockCDNClient {
    /// The version of the wire contract this client speaks.
    public static let contractVersion = 1
}
