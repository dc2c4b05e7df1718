package dev.mockcdn;

import static dev.mockcdn.TestSupport.FUTURE;
import static dev.mockcdn.TestSupport.SAMPLE;
import static dev.mockcdn.TestSupport.get;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The test-control API through the extension: the run-wide server, reset before each test. */
class ControlApiTest {
    @RegisterExtension
    static final MockCDNExtension MOCKCDN = TestSupport.sharedServer();

    @Test
    void clockIsSetAndAdvanced(MockCDN cdn) {
        assertTrue(Math.abs(cdn.now() - Instant.now().getEpochSecond()) < 5);
        assertWithin(FUTURE, cdn.setClock(FUTURE), 1);
        assertWithin(FUTURE, cdn.now(), 2);
        assertWithin(FUTURE + 86_400, cdn.advance(86_400), 2);
        assertWithin(1_893_456_000L, cdn.setClock(Instant.parse("2030-01-01T00:00:00Z")), 1);
        MockCDNException refused = assertThrows(MockCDNException.class, () -> cdn.setClock(-1));
        assertEquals(400, refused.status());
    }

    @Test
    void fileAccessTokenIsMintedAtTheServerClockAndReadsTheFixture(MockCDN cdn) throws Exception {
        cdn.setClock(FUTURE);
        String fat = cdn.fileAccessToken("alice", 600);
        Map<?, ?> claims = (Map<?, ?>) Json.read(new String(Base64.getDecoder().decode(fat.split("\\.")[0]),
                StandardCharsets.UTF_8));
        assertEquals("alice", claims.get("uid"));
        assertEquals("demo", claims.get("app"));
        long issued = ((Number) claims.get("iat")).longValue();
        assertWithin(FUTURE, issued, 2); // the server's clock, not the machine's
        assertEquals(issued + 600, ((Number) claims.get("exp")).longValue());

        TestSupport.Answer read = get(cdn.url() + SAMPLE, Map.of("fat", fat));
        assertEquals(200, read.status());
        assertArrayEquals(TestSupport.samplePng(), read.body());
        assertEquals(401, get(cdn.url() + SAMPLE, Map.of()).status()); // no credential

        cdn.advance(601);
        TestSupport.Answer expired = get(cdn.url() + SAMPLE, Map.of("fat", fat));
        assertEquals(403, expired.status());
        assertTrue(expired.text().contains("expired"), expired.text());
    }

    @Test
    void otherTokenKindsAndRefusals(MockCDN cdn) {
        assertEquals(2, cdn.token("user", "alice", null, null).chars().filter(c -> c == '.').count()); // a JWT
        assertEquals(2, cdn.token("server", null, "demo", 60).chars().filter(c -> c == '.').count());
        MockCDNException noUser = assertThrows(MockCDNException.class, () -> cdn.token("fat", null, null, null));
        assertEquals(400, noUser.status());
        assertTrue(noUser.serverMessage().contains("user_id"), noUser.serverMessage());
        assertTrue(noUser.getMessage().startsWith("POST /_mockcdn/tokens: 400 "), noUser.getMessage());
        MockCDNException noApp = assertThrows(MockCDNException.class,
                () -> cdn.token("fat", "alice", "no-such-app", null));
        assertEquals(400, noApp.status());
    }

    @Test
    void faultAnswers503UntilRemoved(MockCDN cdn) {
        String fat = cdn.fileAccessToken("alice", 600);
        String id = cdn.addFault(Map.of("match", Map.of("method", "GET", "path", SAMPLE),
                "action", Map.of("status", 503, "body", "try again later")));
        assertTrue(id.startsWith("f"), id);
        assertEquals(List.of(Map.entry(id, 0)), idsAndHits(cdn));

        TestSupport.Answer faulted = get(cdn.url() + SAMPLE, Map.of("fat", fat));
        assertEquals(503, faulted.status());
        assertEquals("try again later", faulted.text());
        assertEquals(503, get(cdn.url() + SAMPLE, Map.of("fat", fat)).status());
        assertEquals(List.of(Map.entry(id, 2)), idsAndHits(cdn));

        cdn.removeFault(id);
        assertEquals(List.of(), cdn.faults());
        assertEquals(200, get(cdn.url() + SAMPLE, Map.of("fat", fat)).status());
        MockCDNException unknown = assertThrows(MockCDNException.class, () -> cdn.removeFault(id));
        assertEquals(404, unknown.status());
        assertTrue(unknown.serverMessage().contains(id), unknown.serverMessage());
    }

    @Test
    void faultRunsOutAfterItsTimesAndAllAreCleared(MockCDN cdn) {
        String fat = cdn.fileAccessToken("alice", 600);
        cdn.addFault(Map.of("match", Map.of("path", SAMPLE), "times", 1, "action", Map.of("status", 500)));
        cdn.addFault(Map.of("match", Map.of("path", "/demo/fixtures/*.jpg"), "action", Map.of("status", 502)));
        assertEquals(500, get(cdn.url() + SAMPLE, Map.of("fat", fat)).status());
        assertEquals(200, get(cdn.url() + SAMPLE, Map.of("fat", fat)).status()); // used up
        assertEquals(502, get(cdn.url() + "/demo/fixtures/sample.jpg", Map.of("fat", fat)).status());
        cdn.clearFaults();
        assertEquals(List.of(), cdn.faults());
        MockCDNException misspelt = assertThrows(MockCDNException.class,
                () -> cdn.addFault(Map.of("match", Map.of("methd", "GET"), "action", Map.of("status", 503))));
        assertEquals(400, misspelt.status());
        assertTrue(misspelt.serverMessage().contains("methd"), misspelt.serverMessage());
    }

    @Test
    void journalRecordsReadsAndFiltersThem(MockCDN cdn) {
        String fat = cdn.fileAccessToken("alice", 600);
        get(cdn.url() + SAMPLE, Map.of("fat", fat));
        get(cdn.url() + SAMPLE, Map.of());
        get(cdn.url() + "/demo/fixtures/sample.pdf", Map.of("fat", fat));

        List<Map<String, Object>> sample = cdn.requests(null, SAMPLE, null);
        assertEquals(List.of(List.of("GET", SAMPLE, 200, "fat-header"), List.of("GET", SAMPLE, 401, "none")),
                sample.stream().map(e -> List.of(e.get("method"), e.get("path"), e.get("status"), e.get("credential")))
                        .toList());
        assertEquals(List.of(SAMPLE), cdn.requests(null, null, 401).stream().map(e -> e.get("path")).toList());
        assertEquals(3, cdn.requests("GET", "/demo/fixtures/", null).size());
        assertEquals(List.of(), cdn.requests("DELETE", null, null));
        assertFalse(Json.write(cdn.requests()).contains(fat)); // credentials never reach the journal

        cdn.clearRequests();
        assertEquals(List.of(), cdn.requests());
        assertEquals(400, assertThrows(MockCDNException.class, () -> cdn.requests(null, null, 99)).status());
    }

    @Test
    void resetRestoresTheStartupState(MockCDN cdn) {
        cdn.setClock(FUTURE);
        cdn.addFault(Map.of("action", Map.of("status", 503)));
        get(cdn.url() + SAMPLE, Map.of());
        assertFalse(cdn.requests().isEmpty());
        assertFalse(cdn.faults().isEmpty());

        cdn.reset();
        assertEquals(List.of(), cdn.requests());
        assertEquals(List.of(), cdn.faults());
        assertTrue(Math.abs(cdn.now() - Instant.now().getEpochSecond()) < 5);
        assertEquals(200, get(cdn.url() + SAMPLE, Map.of("fat", cdn.fileAccessToken("alice", 60))).status());
        assertEquals("ok", cdn.health().get("status"));
    }

    private static List<Map.Entry<Object, Object>> idsAndHits(MockCDN cdn) {
        return cdn.faults().stream().map(rule -> Map.entry(rule.get("id"), rule.get("hits"))).toList();
    }

    private static void assertWithin(long expected, long actual, long slack) {
        assertTrue(actual >= expected && actual <= expected + slack, actual + " is not " + expected + " (+" + slack + ")");
    }
}
