import Foundation
import Testing

@testable import MockCDNCore

/// Keys as S3 writes them under `encoding-type=url`: the values S3 answered in a recorded measurement
/// (brekkylab/backlot#178, `s3.ap-northeast-2.amazonaws.com`), the API reference's own example, and what
/// botocore's `unquote_plus` gives back.
@Suite("Form-encoded keys")
struct PercentEncodingFormTests {
    @Test(
        "S3's recorded answers: a space is +, a + is %2B, / stays, every other byte outside -_.* is %XX",
        arguments: [
            ("a b.txt", "a+b.txt"),
            ("a+b.txt", "a%2Bb.txt"),
            ("100%.csv", "100%25.csv"),
            ("한글/x.txt", "%ED%95%9C%EA%B8%80/x.txt"),
            ("run books/", "run+books/"),
            ("test_file(3).png", "test_file%283%29.png"),
            ("t/foo/", "t/foo/"),
            ("tilde~star*-_.|", "tilde%7Estar*-_.%7C"),
        ]
    )
    func encoded(key: String, expected: String) {
        #expect(PercentEncoding.formEncodedKey(key) == expected)
        // botocore decodes with `unquote_plus`: the key comes back byte for byte.
        let decoded = expected.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
        #expect(decoded == key)
    }
}
