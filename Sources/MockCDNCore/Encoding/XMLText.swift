import Foundation

/// Text written into XML: the answers MockCDN writes (`S3XML`, S3's error envelope, the coverage report's
/// JUnit) and the documents the S3 store sends. Reading XML is `XMLReader`'s.
public enum XMLText {
    /// Text escaped for an element's content or a quoted attribute: `&`, `<`, `>`, `"` and `'` as entities,
    /// and the control characters XML 1.0 cannot carry dropped (tab and newline stay).
    ///
    /// Read as UTF-8 bytes, in two passes linear in the text (a key may be megabytes, and a DeleteObjects
    /// answer names 1,000 of them): every byte escaped or dropped is ASCII, and no byte of a multi-byte UTF-8
    /// sequence is, so the others are copied as they are. Text with nothing to escape is returned as it is.
    ///
    /// - Parameter text: any text.
    /// - Returns: the text as XML can hold it.
    public static func escaped(_ text: String) -> String {
        var text = text
        let length = text.withUTF8 { bytes in
            var (length, changed) = (0, false)
            for byte in bytes {
                let written = Self.escapedLength(byte)
                length += written
                changed = changed || written != 1
            }
            return changed ? length : nil
        }
        guard let length else { return text }
        return text.withUTF8 { bytes in
            String(unsafeUninitializedCapacity: length) { output in
                var index = 0
                func write(_ entity: StaticString) {
                    for byte in UnsafeBufferPointer(start: entity.utf8Start, count: entity.utf8CodeUnitCount) {
                        output[index] = byte
                        index += 1
                    }
                }
                for byte in bytes {
                    switch byte {
                    case UInt8(ascii: "&"): write("&amp;")
                    case UInt8(ascii: "<"): write("&lt;")
                    case UInt8(ascii: ">"): write("&gt;")
                    case UInt8(ascii: "\""): write("&quot;")
                    case UInt8(ascii: "'"): write("&apos;")
                    default:
                        guard Self.escapedLength(byte) == 1 else { continue }
                        output[index] = byte
                        index += 1
                    }
                }
                return index
            }
        }
    }

    /// How many bytes `byte` is written as: an entity's length, 0 for a control character XML 1.0 cannot
    /// carry, else 1.
    private static func escapedLength(_ byte: UInt8) -> Int {
        switch byte {
        case UInt8(ascii: "&"): 5
        case UInt8(ascii: "<"), UInt8(ascii: ">"): 4
        case UInt8(ascii: "\""), UInt8(ascii: "'"): 6
        case UInt8(ascii: "\n"), UInt8(ascii: "\t"): 1
        case 0..<0x20, 0x7f: 0
        default: 1
        }
    }
}
