import MockCDNCore
import NIOCore
import NIOPosix
import Testing

/// The XML reader (libxml2 through `CMockCDNXML`) on the documents real clients send, and on each document it
/// must refuse: a DOCTYPE and its entities, nesting past the bound, bytes that are not UTF-8, another encoding,
/// and what libxml2 finds not well-formed.
@Suite("XML reader")
struct XMLReaderTests {
    static let s3 = "http://s3.amazonaws.com/doc/2006-03-01/"
    static let limits = XMLReader.Limits(maximumBytes: 8 << 20, maximumElements: 100_000)

    static func parse(_ text: String, limits: XMLReader.Limits = Self.limits) throws(XMLRefusal) -> XMLTree {
        try XMLReader.parse(ByteBuffer(string: text), limits: limits)
    }

    static func parse(bytes: [UInt8], limits: XMLReader.Limits = Self.limits) throws(XMLRefusal) -> XMLTree {
        try XMLReader.parse(ByteBuffer(bytes: bytes), limits: limits)
    }

    static func refusal(_ text: String, limits: XMLReader.Limits = Self.limits) -> XMLRefusal? {
        Self.refusal(bytes: Array(text.utf8), limits: limits)
    }

    static func refusal(bytes: [UInt8], limits: XMLReader.Limits = Self.limits) -> XMLRefusal? {
        do {
            _ = try Self.parse(bytes: bytes, limits: limits)
            return nil
        } catch {
            return error
        }
    }

    // MARK: - Real documents

    @Test("boto3's DeleteObjects body (botocore 1.43 serializer): S3's namespace, escaped keys, Quiet")
    func boto3Delete() throws {
        let body =
            #"<Delete xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Object><Key>photos/2024/a b&amp;c.jpg</Key>"#
            + #"</Object><Object><Key>notes/&lt;draft&gt;.txt</Key></Object><Quiet>true</Quiet></Delete>"#
        let object = { (key: String) in
            XMLTree("Object", namespace: Self.s3, children: [XMLTree("Key", namespace: Self.s3, text: key)])
        }
        #expect(
            try Self.parse(body)
                == XMLTree(
                    "Delete",
                    namespace: Self.s3,
                    children: [
                        object("photos/2024/a b&c.jpg"), object("notes/<draft>.txt"),
                        XMLTree("Quiet", namespace: Self.s3, text: "true"),
                    ]
                )
        )
    }

    @Test("the AWS CLI's CompleteMultipartUpload (aws-cli 1.45, captured): parts with their CRC32s")
    func awsCLICompletion() throws {
        let body =
            #"<CompleteMultipartUpload xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Part><ETag>"#
            + #""5d41402abc4b2a76b9719d911017c592"</ETag><PartNumber>1</PartNumber><ChecksumCRC32>NhCmhg=="#
            + #"</ChecksumCRC32></Part><Part><ETag>"7d793037a0760186574b0282f2f435e7"</ETag><PartNumber>2"#
            + #"</PartNumber><ChecksumCRC32>DZAXAQ==</ChecksumCRC32></Part></CompleteMultipartUpload>"#
        let root = try Self.parse(body)
        let parts = root.children(named: "Part")
        #expect(parts.map { $0.child(named: "PartNumber")?.text } == ["1", "2"])
        #expect(
            parts.map { $0.child(named: "ETag")?.text }
                == ["\"5d41402abc4b2a76b9719d911017c592\"", "\"7d793037a0760186574b0282f2f435e7\""]
        )
        #expect(parts.map { $0.child(named: "ChecksumCRC32")?.text } == ["NhCmhg==", "DZAXAQ=="])
    }

    @Test("the notification configuration AWS's key-filtering guide shows, indented, without a namespace")
    func awsNotificationConfiguration() throws {
        let body = """
            <NotificationConfiguration>
              <QueueConfiguration>
                  <Id>1</Id>
                  <Filter>
                      <S3Key>
                          <FilterRule>
                              <Name>prefix</Name>
                              <Value>images/</Value>
                          </FilterRule>
                          <FilterRule>
                              <Name>suffix</Name>
                              <Value>.jpg</Value>
                          </FilterRule>
                      </S3Key>
                 </Filter>
                 <Queue>arn:aws:sqs:us-west-2:444455556666:s3notificationqueue</Queue>
                 <Event>s3:ObjectCreated:Put</Event>
              </QueueConfiguration>
            </NotificationConfiguration>
            """
        let root = try Self.parse(body)
        #expect(root.name == "NotificationConfiguration" && root.namespace == nil)
        let queue = try #require(root.child(named: "QueueConfiguration"))
        #expect(queue.child(named: "Queue")?.text == "arn:aws:sqs:us-west-2:444455556666:s3notificationqueue")
        let rules = queue.child(named: "Filter")?.child(named: "S3Key")?.children(named: "FilterRule") ?? []
        #expect(
            rules.map { [$0.child(named: "Name")?.text, $0.child(named: "Value")?.text] } == [
                ["prefix", "images/"], ["suffix", ".jpg"],
            ]
        )
    }

    // MARK: - What is text

    @Test("a commented-out element is no element, and its key no key")
    func commentsAreSkipped() throws {
        let root = try Self.parse(
            "<Delete><!-- <Object><Key>keep-me</Key></Object> --><Object><Key>gone<!-- not this --></Key></Object></Delete>"
        )
        #expect(root.children(named: "Object").map { $0.child(named: "Key")?.text } == ["gone"])
    }

    @Test("a CDATA section is text, markup and entities in it as written")
    func cdataIsText() throws {
        let root = try Self.parse("<Delete><Object><Key><![CDATA[a<b>&amp;]]>c&amp;</Key></Object></Delete>")
        #expect(root.child(named: "Object")?.child(named: "Key")?.text == "a<b>&amp;c&")
    }

    @Test("the five predefined entities and character references are decoded; whitespace is kept")
    func entitiesAndWhitespace() throws {
        let root = try Self.parse("<K>  &lt;&gt;&amp;&quot;&apos;&#65;&#x1F600;&#13;\r\n </K>")
        #expect(root.text == "  <>&\"'A\u{1F600}\r\n ")
        #expect(root.trimmedText == "<>&\"'A\u{1F600}")
        // Only XML's four whitespace characters are trimmed, and a multi-byte character at either end stays whole.
        #expect(XMLTree("n", text: "\t\r\n 2 \r\n").trimmedText == "2")
        #expect(XMLTree("n", text: " é\u{301} \u{A0}").trimmedText == "é\u{301} \u{A0}")
        #expect(XMLTree("n", text: " \n ").trimmedText == "" && XMLTree("n").trimmedText == "")
    }

    @Test("a processing instruction and a byte-order mark are not text")
    func instructionsAndMarks() throws {
        #expect(try Self.parse(bytes: [0xEF, 0xBB, 0xBF] + Array("<K><?pi x?>k</K>".utf8)).text == "k")
    }

    @Test("a prefixed S3 namespace is S3's; a child in another namespace is not found by name")
    func namespaces() throws {
        let prefixed = try Self.parse(#"<s3:Delete xmlns:s3="\#(Self.s3)"><s3:Quiet>true</s3:Quiet></s3:Delete>"#)
        #expect(prefixed.namespace == Self.s3 && prefixed.child(named: "Quiet")?.text == "true")
        let foreign = try Self.parse(#"<Delete xmlns="\#(Self.s3)"><Quiet xmlns="urn:other">true</Quiet></Delete>"#)
        #expect(foreign.child(named: "Quiet") == nil && foreign.children.count == 1)
    }

    @Test("a document longer than one slice, a multi-byte character across the slices' boundary, reads whole")
    func acrossSlices() async throws {
        // 262,143 bytes before the key's text, so that é's two bytes are split by the 256 KiB slice.
        let prefix = "<Delete>" + String(repeating: " ", count: 262_143 - 8 - 13) + "<Object><Key>"
        let body = prefix + "é" + String(repeating: "x", count: 300_000) + "</Key></Object></Delete>"
        #expect(prefix.utf8.count == 262_143)
        let expected = "é" + String(repeating: "x", count: 300_000)
        #expect(try Self.parse(body).child(named: "Object")?.child(named: "Key")?.text == expected)
        let read = try await XMLReader.read(ByteBuffer(string: body), limits: Self.limits)
        #expect(read.child(named: "Object")?.child(named: "Key")?.text == expected)
    }

    @Test("the document is read on the thread pool it is given, not on the caller's thread")
    func readsOnThePool() async throws {
        let pool = NIOThreadPool(numberOfThreads: 1)
        // Not started: a pool that takes no work cancels it (NIO's async runIfActive), so the read is the pool's.
        await #expect(throws: CancellationError.self) {
            try await XMLReader.read(ByteBuffer(string: "<a/>"), limits: Self.limits, on: pool)
        }
        pool.start()
        #expect(try await XMLReader.read(ByteBuffer(string: "<a/>"), limits: Self.limits, on: pool).name == "a")
        try await pool.shutdownGracefully()
    }

    @Test("nesting up to the bound is read")
    func depthAtTheBound() throws {
        let body = String(repeating: "<a>", count: 16) + String(repeating: "</a>", count: 16)
        var depth = 0
        var element: XMLTree? = try Self.parse(body)
        while let current = element {
            depth += 1
            element = current.children.first
        }
        #expect(depth == 16)
    }

    // MARK: - Refusals

    struct Refused: Sendable, CustomTestStringConvertible {
        let name: String
        let bytes: [UInt8]
        let refusal: XMLRefusal
        var testDescription: String { self.name }

        init(_ name: String, _ text: String, _ refusal: XMLRefusal) {
            self.init(name, Array(text.utf8), refusal)
        }

        init(_ name: String, _ bytes: [UInt8], _ refusal: XMLRefusal) {
            (self.name, self.bytes, self.refusal) = (name, bytes, refusal)
        }
    }

    static let refused: [Refused] = [
        .init(
            "a DOCTYPE with an internal entity (billion laughs)",
            #"<!DOCTYPE d [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]><Delete>&b;</Delete>"#,
            .doctype
        ),
        .init(
            "a DOCTYPE with an external entity",
            #"<!DOCTYPE d [<!ENTITY x SYSTEM "file:///etc/passwd">]><Delete><Object><Key>&x;</Key></Object></Delete>"#,
            .doctype
        ),
        .init("an external DTD", #"<!DOCTYPE Delete SYSTEM "http://127.0.0.1:1/s3.dtd"><Delete/>"#, .doctype),
        // XML_ERR_UNDECLARED_ENTITY
        .init(
            "an undeclared entity",
            "<Delete><Object><Key>&x;</Key></Object></Delete>",
            .malformed(code: 26, line: 1)
        ),
        // XML_ERR_INVALID_CHAR
        .init(
            "a key of x and the byte 0xFF",
            Array("<Delete><Object><Key>x".utf8) + [0xFF] + Array("</Key></Object></Delete>".utf8),
            .malformed(code: 9, line: 1)
        ),
        .init("a character reference to NUL", "<Delete>&#0;</Delete>", .malformed(code: 9, line: 1)),
        .init(
            "an ISO-8859-1 document",
            Array(#"<?xml version="1.0" encoding="ISO-8859-1"?><Delete><Key>x"#.utf8) + [0xFF]
                + Array("</Key></Delete>".utf8),
            .notUTF8
        ),
        .init("a UTF-16 document", [0xFF, 0xFE] + "<Delete/>".utf8.flatMap { [$0, 0] }, .notUTF8),
        // XML_ERR_DOCUMENT_END: what the push parser reports for input left over or missing at the end.
        .init("two root elements", "<Delete/><Delete/>", .malformed(code: 5, line: 1)),
        .init("no document", "", .malformed(code: 5, line: 1)),
        .init("a tag left open", "<Delete><Object><Key>k</Key></Object>", .malformed(code: 5, line: 1)),
        // XML_NS_ERR_UNDEFINED_NAMESPACE
        .init("an undefined prefix", "<s3:Delete><Key>k</Key></s3:Delete>", .malformed(code: 201, line: 1)),
        .init(
            "10,000-deep nesting",
            String(repeating: "<a>", count: 10_000) + String(repeating: "</a>", count: 10_000),
            .tooDeep(16)
        ),
        .init(
            "one level past the bound",
            String(repeating: "<a>", count: 17) + String(repeating: "</a>", count: 17),
            .tooDeep(16)
        ),
    ]

    @Test("refused, with the reason", arguments: refused)
    func refusals(_ case: Refused) async {
        #expect(Self.refusal(bytes: `case`.bytes) == `case`.refusal)
        // The server's path, on the thread pool, refuses the same.
        await #expect(throws: `case`.refusal) {
            try await XMLReader.read(ByteBuffer(bytes: `case`.bytes), limits: Self.limits)
        }
    }

    @Test("a start tag may have 16 attributes and 4 KiB; markup-like text in comments and CDATA is no tag")
    func startTags() throws {
        let attributes = { (count: Int) in (0..<count).map { #" a\#($0)="'>""# }.joined() }
        #expect(try Self.parse("<Delete" + attributes(16) + "/>").name == "Delete")
        #expect(Self.refusal("<Delete" + attributes(17) + "/>") == .tagTooLarge)
        #expect(Self.refusal(#"<Delete xmlns:a="x" xmlns:b="y""# + attributes(15) + "/>") == .tagTooLarge)
        let value = String(repeating: ">", count: 4_096 - 14)
        #expect(try Self.parse(#"<Delete a=""# + value + #""/>"#).name == "Delete")
        #expect(Self.refusal(#"<Delete a=""# + value + #">"/>"#) == .tagTooLarge)
        let markup = "<x" + attributes(40) + ">"
        let root = try Self.parse(
            "<Delete><!--" + markup + "--><?pi " + markup + "?><Key><![CDATA[" + markup + "]]></Key></Delete>"
        )
        #expect(root.child(named: "Key")?.text == markup)
        // A tag split across slices keeps its count.
        let long = "<Delete>" + String(repeating: " ", count: 262_144 - 20) + "<Key" + attributes(17) + "/></Delete>"
        #expect(Self.refusal(long) == .tagTooLarge)
    }

    @Test("more elements or bytes than the limits allow are refused while reading")
    func budgets() {
        let objects = String(repeating: "<Object><Key>k</Key></Object>", count: 501)
        let limits = XMLReader.Limits(maximumBytes: 1 << 20, maximumElements: 1_001)
        #expect(Self.refusal("<Delete>" + objects + "</Delete>", limits: limits) == .tooManyElements(1_001))
        #expect(Self.refusal("<Delete>" + objects.dropLast(29) + "</Delete>", limits: limits) == nil)
        let small = XMLReader.Limits(maximumBytes: 100, maximumElements: 10)
        #expect(Self.refusal("<a>" + String(repeating: " ", count: 94) + "</a>", limits: small) == .tooLarge(100))
        #expect(Self.refusal("<a>" + String(repeating: " ", count: 93) + "</a>", limits: small) == nil)
    }
}
