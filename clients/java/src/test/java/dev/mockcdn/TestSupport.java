package dev.mockcdn;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/** What the suite's classes share: the repository's fixtures, one run-wide server, and plain reads. */
final class TestSupport {
    /** The fixture every read test uses. */
    static final String SAMPLE = "/demo/fixtures/sample.png";
    /** 2033-05-18, far from the machine's clock, so a token minted there cannot pass for one minted now. */
    static final long FUTURE = 2_000_000_000L;
    /** The repository's sample media: {@code $MOCKCDN_FIXTURES}, else {@code Fixtures/media} two folders up. */
    static final Path FIXTURES = Path.of(System.getenv().getOrDefault("MOCKCDN_FIXTURES", "../../Fixtures/media"))
            .toAbsolutePath().normalize();
    /** The server the control-API classes share for the whole run. */
    static final LaunchOptions SHARED = LaunchOptions.defaults().withArgs("--fixtures", FIXTURES.toString());

    private static final HttpClient HTTP = HttpClient.newBuilder()
            .proxy(HttpClient.Builder.NO_PROXY)
            .version(HttpClient.Version.HTTP_1_1)
            .build();

    private TestSupport() {
    }

    /** The extension giving a class the run-wide server of {@link #SHARED}. */
    static MockCDNExtension sharedServer() {
        return new MockCDNExtension(SHARED, MockCDNExtension.Sharing.RUN);
    }

    /** An answer's status and body, whatever the status. */
    record Answer(int status, byte[] body) {
        /** The body as UTF-8 text, for messages and substring checks. */
        String text() {
            return new String(body, StandardCharsets.UTF_8);
        }
    }

    /** GETs {@code url} with the given headers. */
    static Answer get(String url, Map<String, String> headers) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10));
        headers.forEach(request::header);
        return send(request.build());
    }

    /** Sends any request (an upload, a vendor's set-up call) and returns the answer, whatever its status. */
    static Answer send(HttpRequest request) {
        try {
            HttpResponse<byte[]> response = HTTP.send(request, HttpResponse.BodyHandlers.ofByteArray());
            return new Answer(response.statusCode(), response.body());
        } catch (IOException error) {
            throw new UncheckedIOException(error);
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(interrupted);
        }
    }

    /** The bytes of {@link #SAMPLE} as the fixtures folder holds them. */
    static byte[] samplePng() {
        try {
            return Files.readAllBytes(FIXTURES.resolve("sample.png"));
        } catch (IOException error) {
            throw new UncheckedIOException(error);
        }
    }

    /** The binary the library would run, for the CLI calls some tests make. */
    static Path binary() {
        return BinaryLocator.find(null, System.getenv());
    }
}
