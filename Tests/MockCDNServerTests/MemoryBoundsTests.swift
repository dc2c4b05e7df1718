import Foundation
import Logging
import MockCDNCore
import Synchronization
import Testing

@testable import MockCDNServer

/// What a busy server holds has a ceiling (`docs/guides/configure-apps.md`): the journal keeps
/// `--journal-size` entries of bounded text, and a quiet server gives the allocator's free memory back.
@Suite("Memory bounds: the journal's ring and text, the trim of a quiet server")
struct MemoryBoundsTests {
    static func record(in journal: Journal, path: String, query: String? = nil) -> Journal.Entry {
        journal.record(
            method: "GET",
            path: path,
            query: QueryItems(query),
            clock: 0,
            state: .init(credential: .none, status: 0, bytesIn: 0, bytesOut: 0, durationMilliseconds: 0, fault: nil)
        )
    }

    @Test("the journal keeps the last --journal-size requests, oldest first", arguments: [1, 3, 1000])
    func ring(capacity: Int) {
        let journal = Journal(capacity: capacity)
        for index in 1...(capacity + 5) { _ = Self.record(in: journal, path: "/demo/\(index)") }
        let paths = journal.entries.map(\.path)
        #expect(paths == (6...(capacity + 5)).map { "/demo/\($0)" })
    }

    /// Text as the journal keeps it: (the text, the bytes kept before the ellipsis).
    static let texts: [(String, Int)] = [
        ("/" + String(repeating: "a", count: 2047), 2048),  // at the bound: kept whole
        ("/" + String(repeating: "a", count: 3000), 2048),
        ("/" + String(repeating: "\u{E9}", count: 2000), 2047),  // two bytes each: cut before the one that crosses
        ("/" + String(repeating: "\u{20AC}", count: 2000), 2047),  // three bytes each
        ("/" + String(repeating: "\u{1F600}", count: 1000), 2045),  // four bytes each
        ("/e" + String(repeating: "\u{301}", count: 3000), 2048),  // one character of 6,001 bytes
    ]

    @Test("an entry keeps at most 2,048 bytes of path and of query, cut between Unicode scalars", arguments: texts)
    func boundedText(text: String, kept: Int) {
        let bounded = Journal.bounded(text)
        if text.utf8.count <= Journal.maximumTextLength {
            #expect(bounded == text)
        } else {
            #expect(bounded.hasSuffix("…"))
            let body = bounded.dropLast()
            #expect(body.utf8.count == kept)
            #expect(text.unicodeScalars.starts(with: body.unicodeScalars))
        }
        let entry = Self.record(in: Journal(capacity: 1), path: text, query: "q=" + text.dropFirst())
        #expect(entry.path.utf8.count <= Journal.maximumTextLength + "…".utf8.count)
        #expect(entry.query.utf8.count <= Journal.maximumTextLength + "…".utf8.count)
    }

    @Test("a server's journal holds as many requests as --journal-size says")
    func journalSizedBySetting() async throws {
        var configuration = try ServerConfiguration.resolve(
            flags: ServeSettings(flags: [.journalSize: "7"]),
            environment: [:]
        )
        configuration.logLevel = .warning
        let services = try await makeServices(configuration, logger: Logger(label: "test"))
        #expect(services.journal.capacity == 7)
        let byDefault = try await makeServices(ServerConfiguration(logLevel: .warning), logger: Logger(label: "test"))
        #expect(byDefault.journal.capacity == 1000)
    }

    @Test("a server's variant cache holds as many bytes as --variant-cache-mb says")
    func variantCacheSizedBySetting() async throws {
        var configuration = try ServerConfiguration.resolve(
            flags: ServeSettings(flags: [.variantCacheMB: "3"]),
            environment: [:]
        )
        configuration.logLevel = .warning
        let services = try await makeServices(configuration, logger: Logger(label: "test"))
        #expect(services.variants.memoryLimit == 3 * 1024 * 1024)
    }

    @Test("a quiet server trims once per quiet spell, and not before it is quiet", .timeLimit(.minutes(1)))
    func trimWhenQuiet() async throws {
        // The test hands out the trim's ticks itself, and reads the count once the trim is waiting for the next
        // one, so each step is done: no real time is waited on (a loaded runner once starved a 10 ms tick for
        // more than 10 s).
        let (ticks, tick) = AsyncStream<Void>.makeStream()
        let (waits, waiting) = AsyncStream<Void>.makeStream()
        let iterator = Mutex(ticks.makeAsyncIterator())
        let trims = Atomic<Int>(0)
        let trim = IdleMemoryTrim(
            quietPeriod: .milliseconds(40),
            tick: .milliseconds(10),
            sleep: { _ in
                waiting.yield()
                var next = iterator.withLock { $0 }
                guard await next.next() != nil else { throw CancellationError() }
            },
            trim: { trims.add(1, ordering: .relaxed) }
        )
        var waited = waits.makeAsyncIterator()
        /// Hands out `count` ticks, one at a time, each once the trim has dealt with the one before and waits.
        func advance(_ count: Int) async {
            for _ in 0..<count {
                tick.yield()
                _ = await waited.next()
            }
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await trim.run() }
            _ = await waited.next()  // the trim waits for its first tick
            // Four quiet ticks make the quiet period: a fresh server's first quiet spell trims once then (what
            // loading the fixtures freed), and not a tick before.
            await advance(3)
            #expect(trims.load(ordering: .relaxed) == 0)
            await advance(1)
            #expect(trims.load(ordering: .relaxed) == 1)
            // Quiet on for five more quiet periods: no second trim without a request between.
            await advance(20)
            #expect(trims.load(ordering: .relaxed) == 1)
            // A request starts a new spell: its first tick sees the arrival, then four quiet ones trim.
            trim.requestArrived()
            await advance(4)
            #expect(trims.load(ordering: .relaxed) == 1)
            await advance(1)
            #expect(trims.load(ordering: .relaxed) == 2)
            tick.finish()
            group.cancelAll()
        }
    }
}
