package dev.mockcdn.testcontainers;

import dev.mockcdn.MockCDN;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What {@code MockCDNContainer} (the Testcontainers module) sets up, as plain Java that needs neither Testcontainers
 * nor a container engine: the image's port and health route, the admin token, where fixtures are copied, and the
 * start script that gives the server its public URL once the mapped port is known.
 *
 * <p>Why a start script: Docker picks the mapped host port when the container starts, after its environment is
 * fixed. So the container's entrypoint waits for {@link #STARTER_SCRIPT}; once the port is mapped the module copies
 * in {@link #starterScript(String, int)}, which exports {@code MOCKCDN_PUBLIC_URL=http://HOST:MAPPED_PORT} and
 * runs {@code mockcdn serve}. Signed links then point back through the mapping whatever {@code Host} a request
 * carried (a request from another container, say). Turn it off with {@link #withPublicUrlFromMapping(boolean)} when
 * clients reach the container by other names (the Android emulator's {@code 10.0.2.2}): MockCDN then builds links
 * from each request's {@code Host}.
 *
 * <p>Immutable; each {@code with} method returns a copy.
 */
public final class MockCDNContainerSettings {
    /** The port the image's server listens on. */
    public static final int PORT = 8080;
    /** The route answered without the admin token once the server listens with its fixtures loaded. */
    public static final String HEALTH_PATH = "/_mockcdn/health";
    /** Where {@code withFixtures} copies a folder of media, preloaded under the default app at {@code fixtures/}. */
    public static final String FIXTURES_PATH = "/var/lib/mockcdn/fixtures";
    /** The start script the entrypoint waits for. */
    public static final String STARTER_SCRIPT = "/tmp/mockcdn-start.sh";
    /** The image {@code docker/Dockerfile} builds ({@code docker build -f docker/Dockerfile -t mockcdn .}). */
    public static final String DEFAULT_IMAGE = "mockcdn";

    /** The start script's last line, which tells the entrypoint the copy is complete. */
    public static final String SCRIPT_END = "# end of the MockCDN start script";

    private static final int MINIMUM_TOKEN_LENGTH = 16;

    private final String adminToken;
    private final boolean fixtures;
    private final boolean publicUrlFromMapping;

    /** A generated admin token, the image's own fixtures, and the public URL taken from the port mapping. */
    public MockCDNContainerSettings() {
        this(generatedToken(), false, true);
    }

    private MockCDNContainerSettings(String adminToken, boolean fixtures, boolean publicUrlFromMapping) {
        this.adminToken = adminToken;
        this.fixtures = fixtures;
        this.publicUrlFromMapping = publicUrlFromMapping;
    }

    /**
     * These settings with a chosen admin token: at least 16 characters, no whitespace (the server's own rule).
     *
     * @throws IllegalArgumentException for a token the server would refuse
     */
    public MockCDNContainerSettings withAdminToken(String token) {
        if (token == null || token.length() < MINIMUM_TOKEN_LENGTH || token.chars().anyMatch(Character::isWhitespace)) {
            throw new IllegalArgumentException("the admin token needs at least " + MINIMUM_TOKEN_LENGTH
                    + " characters and no whitespace");
        }
        return new MockCDNContainerSettings(token, fixtures, publicUrlFromMapping);
    }

    /** These settings with fixtures copied to {@link #FIXTURES_PATH} (true) or the image's own (false). */
    public MockCDNContainerSettings withFixtures(boolean copied) {
        return new MockCDNContainerSettings(adminToken, copied, publicUrlFromMapping);
    }

    /** These settings with or without {@code MOCKCDN_PUBLIC_URL} set from the port mapping (see the class comment). */
    public MockCDNContainerSettings withPublicUrlFromMapping(boolean fromMapping) {
        return new MockCDNContainerSettings(adminToken, fixtures, fromMapping);
    }

    /** The admin token the control routes need inside a container, where the server binds {@code 0.0.0.0}. */
    public String adminToken() {
        return adminToken;
    }

    /** Whether fixtures are copied in. */
    public boolean fixtures() {
        return fixtures;
    }

    /** Whether the entrypoint waits for the start script that sets the public URL. */
    public boolean publicUrlFromMapping() {
        return publicUrlFromMapping;
    }

    /** The container's environment: the admin token, and the fixtures folder when fixtures are copied in. */
    public Map<String, String> environment() {
        Map<String, String> environment = new LinkedHashMap<>();
        environment.put("MOCKCDN_ADMIN_TOKEN", adminToken);
        if (fixtures) {
            environment.put("MOCKCDN_FIXTURES", FIXTURES_PATH);
        }
        return environment;
    }

    /**
     * The entrypoint that waits for {@link #STARTER_SCRIPT} to be copied in whole (its last line is
     * {@value #SCRIPT_END}, so a half-written copy is never run), then runs it.
     */
    public List<String> waitingEntrypoint() {
        return waitingEntrypoint(STARTER_SCRIPT);
    }

    /** {@link #waitingEntrypoint()} for a script at another path (the tests run it outside a container). */
    List<String> waitingEntrypoint(String script) {
        String quoted = shellQuoted(script);
        return List.of("sh", "-c", "until grep -qx " + shellQuoted(SCRIPT_END) + " " + quoted
                + " 2>/dev/null; do sleep 0.1; done; exec sh " + quoted);
    }

    /** {@code http://HOST:PORT} for a host and mapped port, an IPv6 address in brackets. */
    public String baseUrl(String host, int mappedPort) {
        boolean bareIpv6 = host.contains(":") && !host.startsWith("[");
        return "http://" + (bareIpv6 ? "[" + host + "]" : host) + ":" + mappedPort;
    }

    /** The start script: exports {@code MOCKCDN_PUBLIC_URL} for the mapping and replaces itself with the server. */
    public String starterScript(String host, int mappedPort) {
        return "#!/bin/sh\n"
                + "MOCKCDN_PUBLIC_URL=" + shellQuoted(baseUrl(host, mappedPort)) + "\n"
                + "export MOCKCDN_PUBLIC_URL\n"
                + "exec mockcdn serve\n"
                + SCRIPT_END + "\n";
    }

    /** A client of the container's control routes, with the admin token. */
    public MockCDN client(String host, int mappedPort) {
        return MockCDN.connect(baseUrl(host, mappedPort), adminToken);
    }

    private static String shellQuoted(String value) {
        return "'" + value.replace("'", "'\\''") + "'";
    }

    private static String generatedToken() {
        byte[] random = new byte[24];
        new SecureRandom().nextBytes(random);
        return HexFormat.of().formatHex(random);
    }
}
