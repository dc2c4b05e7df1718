import Foundation

/// Base64 in the three alphabets MockCDN's credentials use. They differ only in the characters that stand
/// for `+`, `/` and the padding `=`, so one mapping onto the standard alphabet serves all three.
public enum Base64 {
    public struct Alphabet: Sendable {
        fileprivate let plus: UInt8
        fileprivate let slash: UInt8
        /// Nil: no padding is written, and none may be read (it is restored before decoding).
        fileprivate let pad: UInt8?
        /// Whether decoding also takes the standard alphabet's `+`, `/` and `=`.
        fileprivate let acceptsStandard: Bool

        /// RFC 4648 section 4, as File Access Tokens and SigV2 signatures use it.
        public static let standard = Alphabet(
            plus: UInt8(ascii: "+"),
            slash: UInt8(ascii: "/"),
            pad: UInt8(ascii: "="),
            acceptsStandard: true
        )
        /// RFC 4648 section 5 without padding, as JWTs use it (RFC 7515); nothing else is read.
        public static let url = Alphabet(
            plus: UInt8(ascii: "-"),
            slash: UInt8(ascii: "_"),
            pad: nil,
            acceptsStandard: false
        )
        /// CloudFront's: `-`, `~` and `_` for `+`, `/` and `=`; the standard alphabet is read too, as
        /// CloudFront does.
        public static let cloudFront = Alphabet(
            plus: UInt8(ascii: "-"),
            slash: UInt8(ascii: "~"),
            pad: UInt8(ascii: "_"),
            acceptsStandard: true
        )
    }

    /// `bytes` in `alphabet`.
    public static func encode(_ bytes: some ContiguousBytesView, _ alphabet: Alphabet) -> String {
        let standard = bytes.withBytes { Data($0).base64EncodedString() }.utf8
        var encoded: [UInt8] = []
        encoded.reserveCapacity(standard.count)
        for byte in standard {
            switch byte {
            case UInt8(ascii: "+"): encoded.append(alphabet.plus)
            case UInt8(ascii: "/"): encoded.append(alphabet.slash)
            case UInt8(ascii: "="): if let pad = alphabet.pad { encoded.append(pad) }
            default: encoded.append(byte)
            }
        }
        return String(decoding: encoded, as: UTF8.self)
    }

    /// The bytes `text` encodes in `alphabet`, or nil when it is not base64 in it.
    public static func decode(_ text: some StringProtocol, _ alphabet: Alphabet) -> [UInt8]? {
        // Byte by byte: mapping Characters walks grapheme clusters, which costs more than an RSA check.
        var standard: [UInt8] = []
        standard.reserveCapacity(text.utf8.count + 3)
        for byte in text.utf8 {
            switch byte {
            case alphabet.plus: standard.append(UInt8(ascii: "+"))
            case alphabet.slash: standard.append(UInt8(ascii: "/"))
            case alphabet.pad: standard.append(UInt8(ascii: "="))
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"):
                standard.append(byte)
            case UInt8(ascii: "+"), UInt8(ascii: "/"), UInt8(ascii: "="):
                guard alphabet.acceptsStandard else { return nil }
                standard.append(byte)
            default:
                return nil
            }
        }
        if alphabet.pad == nil { standard += repeatElement(UInt8(ascii: "="), count: (4 - standard.count % 4) % 4) }
        return Data(base64Encoded: Data(standard)).map { [UInt8]($0) }
    }
}
