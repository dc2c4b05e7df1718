import Hummingbird
import MockCDNCore

/// A header-signed S3 GetObject or HeadObject as a media read credential: what boto3, the AWS CLI and
/// every S3 SDK send by default. A read carries no body, so its signed payload hash must be the empty
/// body's or `UNSIGNED-PAYLOAD`.
struct S3HeaderReadCheck: ReadCredentialCheck {
    var appendableParameters: Set<String> { [] }

    func find(in request: Request, query: QueryItems) throws -> ReadCredential? {
        if HeaderSignature.isSigV2(request) {
            return ReadCredential(source: .headerSigV2, cacheKey: nil) { app, now throws(AccessDenied) in
                try HeaderSignature.verifySigV2(request, app: app, query: query, now: now)
                return Validity(expiresAt: now + 1)
            }
        }
        guard HeaderSignature.isPresent(in: request) else { return nil }
        // Each signature names its own second, so remembering one would seldom help: checked every time.
        return ReadCredential(source: .headerSigV4, cacheKey: nil) { app, now throws(AccessDenied) in
            let signed = try HeaderSignature.verifyBodiless(request, app: app, query: query, now: now)
            return signed.validity
        }
    }
}
