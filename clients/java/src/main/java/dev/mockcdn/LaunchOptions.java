package dev.mockcdn;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * How {@link MockCDN#start(LaunchOptions)} runs {@code mockcdn serve}. Immutable; each {@code with} method returns
 * a copy. Two equal options describe the same server, which is how {@link MockCDNExtension} shares one server per
 * run between test classes that ask for the same thing.
 *
 * @param binary the executable, or {@code null} to look it up ({@code $MOCKCDN_BINARY}, then
 *     {@code $MOCKCDN_HOME/bin/mockcdn}, then {@code mockcdn} on {@code PATH})
 * @param args more {@code serve} flags after {@code --port 0 --log-level warning}; later flags win
 * @param env variables set over this JVM's environment for the server ({@code MOCKCDN_FIXTURES}, ...)
 * @param adminToken the admin token, when the server reads it from a config file; one the server prints, or one
 *     given by {@code --admin-token} or {@code MOCKCDN_ADMIN_TOKEN}, is found without it; {@code null} otherwise
 * @param timeout how long to wait for the ready line
 */
public record LaunchOptions(Path binary, List<String> args, Map<String, String> env, String adminToken,
                            Duration timeout) {

    /** Checks and freezes the fields: {@code args} and {@code env} are copied, {@code timeout} must be positive. */
    public LaunchOptions {
        args = List.copyOf(args);
        env = Map.copyOf(env);
        Objects.requireNonNull(timeout, "timeout");
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timeout must be positive: " + timeout);
        }
    }

    /** The binary looked up, no extra flags or variables, 30 s to become ready. */
    public static LaunchOptions defaults() {
        return new LaunchOptions(null, List.of(), Map.of(), null, Duration.ofSeconds(30));
    }

    /** These options with the given executable instead of the looked-up one. */
    public LaunchOptions withBinary(Path path) {
        return new LaunchOptions(path, args, env, adminToken, timeout);
    }

    /** These options with {@code more} flags appended, e.g. {@code withArgs("--fixtures", "none")}. */
    public LaunchOptions withArgs(String... more) {
        List<String> all = new ArrayList<>(args);
        all.addAll(Arrays.asList(more));
        return new LaunchOptions(binary, all, env, adminToken, timeout);
    }

    /** These options with one more environment variable for the server (replacing one of the same name). */
    public LaunchOptions withEnv(String name, String value) {
        Map<String, String> all = new HashMap<>(env);
        all.put(name, value);
        return new LaunchOptions(binary, args, all, adminToken, timeout);
    }

    /** These options with the admin token to send, for a server that reads it from its config file. */
    public LaunchOptions withAdminToken(String token) {
        return new LaunchOptions(binary, args, env, token, timeout);
    }

    /** These options with another wait for the ready line. */
    public LaunchOptions withTimeout(Duration wait) {
        return new LaunchOptions(binary, args, env, adminToken, wait);
    }
}
