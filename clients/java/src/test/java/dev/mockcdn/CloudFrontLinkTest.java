package dev.mockcdn;

import static dev.mockcdn.TestSupport.FUTURE;
import static dev.mockcdn.TestSupport.SAMPLE;
import static dev.mockcdn.TestSupport.get;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A CloudFront link signed at the server's clock by the CLI ({@code mockcdn sign cloudfront URL --server BASE}),
 * read, then expired by a clock jump. Shares the run-wide server with {@link ControlApiTest}.
 */
class CloudFrontLinkTest {
    @RegisterExtension
    static final MockCDNExtension MOCKCDN = TestSupport.sharedServer();

    @Test
    void signedLinkExpiresAfterAClockJump(MockCDN cdn) throws Exception {
        cdn.setClock(FUTURE);
        String link = signCloudFront(cdn.url() + SAMPLE, cdn.url(), 60);
        Matcher expires = Pattern.compile("[?&]Expires=(\\d+)").matcher(link);
        assertTrue(expires.find(), link);
        long expiry = Long.parseLong(expires.group(1));
        assertTrue(expiry >= FUTURE + 60 && expiry <= FUTURE + 62, "signed at the server clock: " + link);

        TestSupport.Answer fresh = get(link, Map.of());
        assertEquals(200, fresh.status(), fresh.text());
        assertArrayEquals(TestSupport.samplePng(), fresh.body());

        cdn.advance(120);
        TestSupport.Answer expired = get(link, Map.of());
        assertEquals(403, expired.status(), expired.text());
        assertTrue(expired.text().contains("AccessDenied"), expired.text());
        assertEquals(List.of(200, 403), cdn.requests(null, SAMPLE, null).stream().map(e -> e.get("status")).toList());
    }

    /** Runs {@code mockcdn sign cloudfront URL --server BASE --ttl TTL} and returns the link it prints. */
    private static String signCloudFront(String url, String server, int ttl) throws IOException, InterruptedException {
        Process sign = new ProcessBuilder(TestSupport.binary().toString(), "sign", "cloudfront", url,
                "--server", server, "--ttl", String.valueOf(ttl))
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
        String output = new String(sign.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        assertTrue(sign.waitFor(20, TimeUnit.SECONDS), "mockcdn sign did not finish");
        assertEquals(0, sign.exitValue(), output);
        return output;
    }
}
