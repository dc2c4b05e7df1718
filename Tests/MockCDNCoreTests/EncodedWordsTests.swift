import Foundation
import Testing

@testable import MockCDNCore

/// RFC 2047 encoded-words as S3 writes user metadata past ASCII: the answers recorded from S3, RFC 2047's
/// own examples, and round trips.
@Suite("RFC 2047 encoded-words")
struct EncodedWordsTests {
    @Test(
        "S3's encoding: ASCII as it is, Q for mostly ASCII, B otherwise",
        arguments: [
            ("Hello World", "Hello World"),
            ("tab\tand =?words?= stay", "tab\tand =?words?= stay"),
            ("Hello Worldé", "=?UTF-8?Q?Hello_World=C3=A9?="),
            // boto/boto3#3063: a value of one non-ASCII character, base64.
            ("™", "=?UTF-8?B?4oSi?="),
            // The user guide's example, whose value was UTF-8 read as Latin-1 before it was sent.
            ("Ã\u{84}MÃ\u{84}ZÃ\u{95}Ã\u{91} S3", "=?UTF-8?B?w4PChE3Dg8KEWsODwpXDg8KRIFMz?="),
            ("a_b=c?d", "a_b=c?d"),
            ("é_=?", "=?UTF-8?Q?=C3=A9=5F=3D=3F?="),
            ("éé_", "=?UTF-8?B?w6nDqV8=?="),
            ("ab_=?é", "=?UTF-8?Q?ab=5F=3D=3F=C3=A9?="),
        ]
    )
    func encoded(text: String, expected: String) {
        #expect(EncodedWords.encode(text) == expected)
        #expect(EncodedWords.decode(expected) == text)
    }

    @Test("a long value is cut into words of at most 75 characters, separated by spaces, as S3 sent one")
    func longValue() {
        // aws-amplify/aws-sdk-ios#241 recorded S3's answer for a value that starts so: its first words, and the
        // start of the fourth, are these. The cuts halve the value (JavaMail's), so they fall here for a value
        // of 202 characters, this one.
        let text =
            "Workout Completed: Congratulations!  You just completed the \u{201C}Finding Vocal Freedom Workout"
            + "\u{201D}.  Make sure you drink some water, rest your voice, and review your lesson in your vocal "
            + "journal.  Make comment"
        #expect(text.utf16.count == 202)
        let encoded = EncodedWords.encode(text)
        let words = encoded.split(separator: " ")
        #expect(words.allSatisfy { $0.count <= 75 && $0.hasPrefix("=?UTF-8?Q?") && $0.hasSuffix("?=") })
        #expect(
            Array(words.prefix(3)) == [
                "=?UTF-8?Q?Workout_Completed:_Congratulations!__You_just_comp?=",
                "=?UTF-8?Q?leted_the_=E2=80=9CFinding_Vocal_?=", "=?UTF-8?Q?Freedom_Workout=E2=80=9D.__Make_su?=",
            ]
        )
        #expect(words.dropFirst(3).first?.hasPrefix("=?UTF-8?Q?re_you_") == true)
        #expect(EncodedWords.decode(encoded) == text)
        // Past ASCII throughout: base64 words, a surrogate pair never cut.
        let emoji = String(repeating: "📈🎉", count: 40)
        let base64 = EncodedWords.encode(emoji)
        #expect(base64.split(separator: " ").allSatisfy { $0.count <= 75 && $0.hasPrefix("=?UTF-8?B?") })
        #expect(EncodedWords.decode(base64) == emoji)
    }

    @Test(
        "decoding: RFC 2047's examples, charsets, and words that are not words stay as they are",
        arguments: [
            // RFC 2047 section 8: white space between adjacent words goes, around them it stays.
            ("(=?ISO-8859-1?Q?a?=)", "(a)"),
            ("(=?ISO-8859-1?Q?a?= b)", "(a b)"),
            ("(=?ISO-8859-1?Q?a?= =?ISO-8859-1?Q?b?=)", "(ab)"),
            ("(=?ISO-8859-1?Q?a?=  \t =?ISO-8859-1?Q?b?=)", "(ab)"),
            ("(=?ISO-8859-1?Q?a_b?=)", "(a b)"),
            ("=?ISO-8859-1?Q?Andr=E9?= Pirard", "André Pirard"),
            ("=?utf-8?b?SGVsbG8gV29ybGTDqQ==?=", "Hello Worldé"),
            ("=?UTF-8*en?Q?100%_sure?=", "100% sure"),
            ("=?US-ASCII?Q?Keith_Moore?=", "Keith Moore"),
            // Unknown charset, bad base64, a broken escape, invalid UTF-8: kept as sent.
            ("=?KOI8-R?Q?a?=", "=?KOI8-R?Q?a?="),
            ("=?UTF-8?B?***?=", "=?UTF-8?B?***?="),
            ("=?UTF-8?Q?a=Z1?=", "=?UTF-8?Q?a=Z1?="),
            ("=?UTF-8?Q?=C3?=", "=?UTF-8?Q?=C3?="),
            ("just =? text", "just =? text"),
        ]
    )
    func decoded(value: String, expected: String) {
        #expect(EncodedWords.decode(value) == expected)
    }
}
