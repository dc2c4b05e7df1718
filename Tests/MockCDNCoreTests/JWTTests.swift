import Foundation
import MockCDNCore
import Testing

@Suite("Stream JWTs: claim types, dates and headers")
struct JWTTests {
    static let secret = "demo-secret-for-local-testing-only-32b"
    static let key = HMACKey(secret)
    static let now: Int64 = 1000

    /// A token over raw header and payload JSON, signed with `secret`: `JWT.sign` takes a dictionary, which
    /// cannot say `"exp":"1000"` or repeat a member.
    ///
    /// - Parameters:
    ///   - payload: the payload JSON, as sent.
    ///   - header: the header JSON, as sent.
    ///   - secret: the HMAC key.
    /// - Returns: `header.payload.signature`.
    static func token(
        _ payload: String,
        header: String = #"{"alg":"HS256","typ":"JWT"}"#,
        secret: String = Self.secret
    ) -> String {
        token(payload: Array(payload.utf8), header: header, secret: secret)
    }

    /// As `token(_:header:secret:)`, over payload bytes that need not be UTF-8.
    ///
    /// - Parameters:
    ///   - payload: the payload bytes.
    ///   - header: the header JSON.
    ///   - secret: the HMAC key.
    /// - Returns: `header.payload.signature`.
    static func token(payload: [UInt8], header: String, secret: String) -> String {
        let input = Base64.encode(Array(header.utf8), .url) + "." + Base64.encode(payload, .url)
        return input + "." + Base64.encode(HMAC.sha256(input, key: secret), .url)
    }

    @Test(
        "exp, nbf and iat must be JSON numbers: any other kind is malformed, naming the claim",
        arguments: [
            (#"{"user_id":"alice","exp":"1000"}"#, "exp must be a number"),
            (#"{"user_id":"alice","exp":"99999999999"}"#, "exp must be a number"),
            (#"{"user_id":"alice","exp":null}"#, "exp must be a number"),
            (#"{"user_id":"alice","exp":{}}"#, "exp must be a number"),
            (#"{"user_id":"alice","exp":[2000]}"#, "exp must be a number"),
            (#"{"user_id":"alice","exp":true}"#, "exp must be a number"),
            (#"{"user_id":"alice","exp":false}"#, "exp must be a number"),
            (#"{"user_id":"alice","nbf":"1"}"#, "nbf must be a number"),
            (#"{"user_id":"alice","nbf":null}"#, "nbf must be a number"),
            (#"{"user_id":"alice","nbf":true}"#, "nbf must be a number"),
            (#"{"user_id":"alice","iat":"1"}"#, "iat must be a number"),
            (#"{"user_id":"alice","iat":{"t":1}}"#, "iat must be a number"),
            (#"{"user_id":"alice","iat":false}"#, "iat must be a number"),
            (#"{"server":true,"exp":"1000"}"#, "exp must be a number"),
            (#"{"user_id":"alice","exp":1e400}"#, "exp is a number out of range"),
            (#"{"user_id":"alice","nbf":-1e400}"#, "nbf is a number out of range"),
        ]
    )
    func claimKinds(_ payload: String, _ message: String) {
        let error = #expect(throws: JWTError.self) {
            try JWT.verify(Self.token(payload), key: Self.key, now: Self.now)
        }
        #expect(error?.kind == .malformed)
        #expect(error?.message == "JWTAuth error: " + message)
    }

    @Test(
        "server must be a boolean and user_id a non-empty string: other kinds are refused, never a server token",
        arguments: [
            (#"{"server":1}"#, "server must be true or false"), (#"{"server":"true"}"#, "server must be true or false"),
            (#"{"server":1.0}"#, "server must be true or false"),
            (#"{"server":[true]}"#, "server must be true or false"),
            (#"{"server":{"a":true}}"#, "server must be true or false"),
            (#"{"server":null}"#, "server must be true or false"),
            (#"{"server":1,"user_id":"alice"}"#, "server must be true or false"),
            (#"{"user_id":""}"#, "user_id must be a non-empty string"),
            (#"{"user_id":1}"#, "user_id must be a non-empty string"),
            (#"{"user_id":null}"#, "user_id must be a non-empty string"),
            (#"{"server":true,"user_id":["a"]}"#, "user_id must be a non-empty string"),
        ]
    )
    func claimTypes(_ payload: String, _ message: String) {
        let error = #expect(throws: JWTError.self) {
            try JWT.verify(Self.token(payload), key: Self.key, now: Self.now)
        }
        #expect(error?.kind == .malformed)
        #expect(error?.message == "JWTAuth error: " + message)
    }

    @Test(
        "as on Stream, a token naming no user is a server token unless it says server:false",
        arguments: [
            (#"{}"#, true), (#"{"iat":1000}"#, true), (#"{"server":true}"#, true), (#"{"user_id":"alice"}"#, false),
            (#"{"server":true,"user_id":"alice"}"#, true), (#"{"server":false,"user_id":"alice"}"#, false),
        ]
    )
    func serverTokens(_ payload: String, _ isServer: Bool) throws {
        #expect(try JWT.verify(Self.token(payload), key: Self.key, now: Self.now).isServer == isServer)
    }

    @Test("server:false with no user_id has no subject")
    func noSubject() {
        let error = #expect(throws: JWTError.self) {
            try JWT.verify(Self.token(#"{"server":false}"#), key: Self.key, now: Self.now)
        }
        #expect(error?.kind == .noSubject)
    }

    @Test(
        "dates: fractional, saturating, with a few seconds of leeway for nbf and iat",
        arguments: [
            (#"{"server":true}"#, JWTClaims(isServer: true)),
            (#"{"server":true,"user_id":"alice"}"#, JWTClaims(isServer: true, userID: "alice")),
            (#"{"user_id":"alice","exp":1001}"#, JWTClaims(userID: "alice", expiresAt: 1001)),
            (#"{"user_id":"alice","exp":1000.25}"#, JWTClaims(userID: "alice", expiresAt: 1001)),
            (#"{"user_id":"alice","exp":1e30}"#, JWTClaims(userID: "alice", expiresAt: .max)),
            (#"{"user_id":"alice","exp":1.7e308}"#, JWTClaims(userID: "alice", expiresAt: .max)),
            (#"{"user_id":"alice","exp":9223372036854775807}"#, JWTClaims(userID: "alice", expiresAt: .max)),
            (#"{"user_id":"alice","exp":99999999999999999999}"#, JWTClaims(userID: "alice", expiresAt: .max)),
            (#"{"user_id":"alice","nbf":1005}"#, JWTClaims(userID: "alice", notBefore: 1005)),
            (#"{"user_id":"alice","nbf":-1e30}"#, JWTClaims(userID: "alice", notBefore: .min)),
            (
                #"{"user_id":"alice","nbf":1004.5,"iat":1005}"#,
                JWTClaims(userID: "alice", issuedAt: 1005, notBefore: 1005)
            ),
            (#"{"user_id":"alice","iat":999.5}"#, JWTClaims(userID: "alice", issuedAt: 1000)),
            (#"{"user_id":"alice","role":{"a":[1,{"b":null}]}}"#, JWTClaims(userID: "alice")),
        ]
    )
    func accepted(_ payload: String, _ claims: JWTClaims) throws {
        #expect(try JWT.verify(Self.token(payload), key: Self.key, now: Self.now) == claims)
    }

    @Test(
        "exp is the first second the token is refused; nbf and iat refuse a token from the future",
        arguments: [
            (#"{"user_id":"alice","exp":1000}"#, JWTError.Kind.expired, "token has expired"),
            (#"{"user_id":"alice","exp":999.5}"#, .expired, "token has expired"),
            (#"{"user_id":"alice","exp":-1e30}"#, .expired, "token has expired"),
            (#"{"user_id":"alice","exp":-99999999999999999999}"#, .expired, "token has expired"),
            (#"{"user_id":"alice","nbf":1006}"#, .notYetValid, "token is not valid yet (nbf)"),
            (#"{"user_id":"alice","nbf":1005.5}"#, .notYetValid, "token is not valid yet (nbf)"),
            (#"{"user_id":"alice","nbf":1e30}"#, .notYetValid, "token is not valid yet (nbf)"),
            (#"{"server":true,"nbf":2000,"iat":900}"#, .notYetValid, "token is not valid yet (nbf)"),
            (#"{"user_id":"alice","iat":1006}"#, .notYetValid, "token used before issue at (iat)"),
            (#"{"user_id":"alice","iat":1005.01}"#, .notYetValid, "token used before issue at (iat)"),
        ]
    )
    func dates(_ payload: String, _ kind: JWTError.Kind, _ message: String) {
        let error = #expect(throws: JWTError.self) {
            try JWT.verify(Self.token(payload), key: Self.key, now: Self.now)
        }
        #expect(error?.kind == kind)
        #expect(error?.message == "JWTAuth error: " + message)
        // Only an expiry carries the `exp` to the journal's `expired_at`.
        #expect((error?.expiredAt != nil) == (kind == .expired))
    }

    @Test("a clock at the end of time neither overflows nor refuses a token issued before it")
    func clockAtTheEnd() throws {
        let claims = try JWT.verify(Self.token(#"{"server":true,"iat":5,"nbf":5}"#), key: Self.key, now: .max)
        #expect(claims == JWTClaims(isServer: true, issuedAt: 5, notBefore: 5))
    }

    @Test(
        "headers: HS256 only, and any crit is refused since no extension is understood",
        arguments: [
            (#"{"alg":"HS256","crit":["exp"],"exp":1}"#, JWTError.Kind.malformed),
            (#"{"alg":"HS256","crit":["b64"],"b64":false}"#, .malformed),
            (#"{"alg":"HS256","crit":[]}"#, .malformed),
            (#"{"alg":"HS256","crit":null}"#, .malformed),
            (#"{"alg":"none"}"#, .unsupportedAlgorithm),
            (#"{"alg":"hs256"}"#, .unsupportedAlgorithm),
            (#"{"alg":["HS256"]}"#, .unsupportedAlgorithm),
            (#"{"typ":"JWT"}"#, .unsupportedAlgorithm),
        ]
    )
    func headers(_ header: String, _ kind: JWTError.Kind) {
        let error = #expect(throws: JWTError.self) {
            try JWT.verify(Self.token(#"{"server":true}"#, header: header), key: Self.key, now: Self.now)
        }
        #expect(error?.kind == kind)
        if header.contains("crit") {
            #expect(error?.message == "JWTAuth error: the crit header names extensions this server does not support")
        }
    }

    @Test(
        "a repeated member name is refused, however it is spelled, rather than one reading picked",
        arguments: [
            #"{"user_id":"alice","user_id":"bob"}"#,
            #"{"user_id":"alice","\u0075ser_id":"bob"}"#,
            #"{"exp":2000,"user_id":"alice","exp":null}"#,
            #"{"server":false,"user_id":"alice","server":true}"#,
        ]
    )
    func duplicates(_ payload: String) {
        let error = #expect(throws: JWTError.self) {
            try JWT.verify(Self.token(payload), key: Self.key, now: Self.now)
        }
        #expect(error?.message == "JWTAuth error: the payload repeats a member name")
    }

    @Test("names and colons inside strings and nested values are not members of their own")
    func nestedColons() throws {
        let payload = #"{"user_id":"a:b\":{","x":{"y":1,"z":[":",{"w":2}]},"k\\":"v"}"#
        #expect(try JWT.verify(Self.token(payload), key: Self.key, now: Self.now).userID == #"a:b":{"#)
    }

    @Test("a payload that is not one UTF-8 JSON object is malformed")
    func notAnObject() {
        var utf16 = [UInt8]()
        for unit in #"{"server":true}"#.utf16 { utf16 += [UInt8(unit & 0xff), UInt8(unit >> 8)] }
        for token in [
            Self.token(#"[{"server":true}]"#), Self.token(#""server""#), Self.token(#"{"server":true"#),
            Self.token(payload: utf16, header: #"{"alg":"HS256"}"#, secret: Self.secret),
            Self.token(payload: [0xFF, 0xFE] + utf16, header: #"{"alg":"HS256"}"#, secret: Self.secret),
        ] {
            let error = #expect(throws: JWTError.self) { try JWT.verify(token, key: Self.key, now: Self.now) }
            #expect(error?.kind == .malformed)
        }
    }

    @Test("the claims are read only once the signature holds: a forged token learns nothing from them")
    func signatureFirst() {
        let forged = Self.token(#"{"user_id":"alice","exp":"1000"}"#, secret: "another-secret-entirely-32-bytes!!")
        let error = #expect(throws: JWTError.self) { try JWT.verify(forged, key: Self.key, now: Self.now) }
        #expect(error?.kind == .signatureMismatch)
    }

    @Test("JWT.sign still makes tokens that verify")
    func signRoundTrip() throws {
        let token = JWT.sign(["user_id": "alice", "exp": 1001, "iat": 999], secret: Self.secret)
        #expect(
            try JWT.verify(token, key: Self.key, now: Self.now)
                == JWTClaims(userID: "alice", expiresAt: 1001, issuedAt: 999)
        )
    }
}
