extension PercentEncoding {
    /// Encodes a key as S3 writes one in a listing under `encoding-type=url` and in an event record:
    /// `application/x-www-form-urlencoded` (a space is `+`) with `/` left as it is; ASCII letters and digits
    /// and `-_.*` stay, every other UTF-8 byte is `%XX` in upper case.
    ///
    /// S3 answered `a+b.txt` for the key `a b.txt`, `a%2Bb.txt` for `a+b.txt` and `run+books/` for the common
    /// prefix `run books/` in a measurement recorded in brekkylab/backlot#178; its API reference writes
    /// `test_file(3).png` as `test_file%283%29.png`. botocore reads the text back with `unquote_plus`, which
    /// gives the key again byte for byte.
    ///
    /// - Parameter key: the key (or prefix, delimiter, marker), as stored or sent.
    /// - Returns: the encoded text.
    public static func formEncodedKey(_ key: some StringProtocol) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(key.utf8.count)
        for byte in key.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."),
                UInt8(ascii: "*"), UInt8(ascii: "/"):
                out.append(byte)
            case UInt8(ascii: " "):
                out.append(UInt8(ascii: "+"))
            default:
                out += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0f)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
