package dev.mockcdn;

import static dev.mockcdn.TestSupport.SAMPLE;
import static dev.mockcdn.TestSupport.get;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@link MockCDN#verify}: the ids of met expectations, and an unmet one failing with the near-miss report. */
class VerifyTest {
    @RegisterExtension
    static final MockCDNExtension MOCKCDN = TestSupport.sharedServer();

    @Test
    void metExpectationsReturnTheMatchingIds(MockCDN cdn) {
        String fat = cdn.fileAccessToken("alice", 600);
        assertEquals(200, get(cdn.url() + SAMPLE, Map.of("fat", fat)).status());
        assertEquals(200, get(cdn.url() + SAMPLE + "?fat=" + fat, Map.of()).status());
        List<Map<String, Object>> journal = cdn.requests();
        List<List<String>> matched = cdn.verify(List.of(
                Map.of("method", "GET", "path", "/demo/**", "credential", "fat-header", "status", 200),
                Map.of("path", "/demo/fixtures/*.png", "credential", "fat-query", "count", Map.of("min", 1, "max", 1)),
                Map.of("status", "4xx", "count", 0)), true, null);
        assertEquals(List.of(List.of(journal.get(0).get("id")), List.of(journal.get(1).get("id")), List.of()),
                matched);
    }

    @Test
    void anUnmetExpectationFailsWithTheNearMissReport(MockCDN cdn) {
        String fat = cdn.fileAccessToken("alice", 60);
        assertEquals(200, get(cdn.url() + SAMPLE + "?fat=" + fat, Map.of()).status());
        VerificationError unmet = assertThrows(VerificationError.class,
                () -> cdn.verify(List.of(Map.of("method", "GET", "path", SAMPLE, "credential", "fat-header"))));
        assertTrue(unmet.getMessage().startsWith("MockCDN verify: 1 of 1 expectations not met\n"), unmet.getMessage());
        assertTrue(unmet.getMessage().contains(
                "method and path matched, but credential `fat-query` where `fat-header` was expected"), unmet.getMessage());
        assertEquals(Boolean.FALSE, unmet.result().get("met"));
        // An expired FAT: how long before the request it expired, by the server's clock.
        cdn.advance(60 + 120);
        assertEquals(403, get(cdn.url() + SAMPLE, Map.of("fat", fat)).status());
        VerificationError expired = assertThrows(VerificationError.class,
                () -> cdn.verify(List.of(Map.of("path", SAMPLE, "status", 200, "count", 2))));
        assertTrue(expired.report().contains("status 403 where 200 was expected: the credential expired 2 min"),
                expired.report());
    }

    @Test
    void aBadDocumentIsAMockCDNExceptionNamingTheMember(MockCDN cdn) {
        MockCDNException refused = assertThrows(MockCDNException.class,
                () -> cdn.verify(List.of(Map.of("status", "6xx"))));
        assertEquals(400, refused.status());
        assertEquals("expectations[0].status: must be a status 100-599 or a class such as 4xx", refused.serverMessage());
    }
}
