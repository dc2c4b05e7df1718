package dev.mockcdn;

import java.time.Duration;
import java.util.Optional;
import java.util.OptionalInt;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * JUnit 5 extension giving tests a {@link MockCDN} parameter (in test, lifecycle and constructor methods), reset
 * ({@code POST /_mockcdn/reset}) before each test.
 *
 * <p>{@code @ExtendWith(MockCDNExtension.class)} starts one server per test class with {@link LaunchOptions#defaults()}
 * (the server reads its settings from the environment: {@code MOCKCDN_FIXTURES}, {@code MOCKCDN_CONFIG}, ...) and
 * stops it after the class. To pass flags, or to share one server between all the classes of a run, register it:
 *
 * <pre>{@code
 * @RegisterExtension
 * static final MockCDNExtension MOCKCDN =
 *         new MockCDNExtension(LaunchOptions.defaults().withArgs("--fixtures", "none"), MockCDNExtension.Sharing.RUN);
 * }</pre>
 *
 * <p>A shared server lives in the root context's store, keyed by its {@link LaunchOptions}: classes asking for equal
 * options get the same server, which is stopped when the run ends. A server that does not exit cleanly on SIGTERM
 * fails the class (or the run) that owned it.
 *
 * <p>When the variable {@code MOCKCDN_URL} (or the JUnit configuration parameter {@code mockcdn.url}) is set, no
 * server is started: every class attaches to that one, with {@code MOCKCDN_ADMIN_TOKEN} (or
 * {@code mockcdn.admin-token}) as its admin token, after waiting up to 30 s for its health route. Tests that reset a
 * shared server must not run in parallel.
 *
 * <p>A coverage gate for the whole run, read from JUnit configuration parameters ({@code -Dmockcdn.report=...} or
 * {@code junit-platform.properties}): {@code mockcdn.report} (else the variable {@code MOCKCDN_REPORT}) names a
 * file that receives the contract coverage report of every request the run sent ({@code .xml} JUnit, {@code .md}
 * Markdown, else JSON); {@code mockcdn.report.failUnder} (0-100) fails the run when that sum covers a smaller share of
 * the contract's rows; {@code mockcdn.report.surfaces} ({@code stream,media}: of {@code stream}, {@code cometchat},
 * {@code media}, {@code s3}, {@code cloudfront}, {@code control}) counts only those surfaces' rows. The report is
 * taken before each reset and when each server closes, and summed across the run; below the gate, the run fails
 * when it ends (the Jupiter engine's container fails, so the console launcher exits 1) with a message saying the
 * share. An invalid value fails each class, naming the parameter.
 */
public final class MockCDNExtension implements ParameterResolver, BeforeAllCallback, BeforeEachCallback {
    /** How long an attached server (a container still starting) is waited for. */
    private static final Duration ATTACH_WAIT = Duration.ofSeconds(30);
    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(MockCDNExtension.class);

    /** Which tests share one started server. */
    public enum Sharing {
        /** One server per test class (and its {@code @Nested} classes), stopped after the class. */
        CLASS,
        /** One server for every class of the run that asks for the same {@link LaunchOptions}, stopped at the end. */
        RUN
    }

    private final LaunchOptions options;
    private final Sharing sharing;

    /** One server per class, started with {@link LaunchOptions#defaults()}; what {@code @ExtendWith} uses. */
    public MockCDNExtension() {
        this(LaunchOptions.defaults(), Sharing.CLASS);
    }

    /** A server started with {@code options}, shared as {@code sharing} says; for {@code @RegisterExtension}. */
    public MockCDNExtension(LaunchOptions options, Sharing sharing) {
        this.options = options;
        this.sharing = sharing;
    }

    /** Reads the run's coverage settings, so an invalid one fails the class before any test. */
    @Override
    public void beforeAll(ExtensionContext context) {
        coverage(context);
    }

    /**
     * Resets the server before each test: fixtures reloaded, journal and faults empty, clock at system time. With a
     * coverage report or gate set, the journal's report is taken first.
     */
    @Override
    public void beforeEach(ExtensionContext context) {
        RunCoverage coverage = coverage(context);
        MockCDN server = server(context);
        coverage.take(server);
        server.reset();
    }

    /** Resolves parameters of type {@link MockCDN}. */
    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        return parameter.getParameter().getType() == MockCDN.class;
    }

    /** The server for this test's class or run, started (or attached to) on first use. */
    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        return server(context);
    }

    private MockCDN server(ExtensionContext context) {
        RunCoverage coverage = coverage(context);
        Optional<String> url = setting(context, "mockcdn.url", "MOCKCDN_URL");
        if (url.isPresent()) {
            String token = setting(context, "mockcdn.admin-token", "MOCKCDN_ADMIN_TOKEN").orElse(null);
            return context.getRoot().getStore(NAMESPACE).getOrComputeIfAbsent("attached:" + url.get(),
                    key -> new ServerResource(MockCDN.connect(url.get(), token).awaitHealthy(ATTACH_WAIT), coverage),
                    ServerResource.class).server;
        }
        ExtensionContext owner = sharing == Sharing.RUN ? context.getRoot() : classContext(context);
        // Keyed by sharing too: a store lookup also sees the ancestors' stores, and a class-scoped server must not
        // pick up the run's.
        return owner.getStore(NAMESPACE).getOrComputeIfAbsent(new StoreKey(sharing, options),
                key -> new ServerResource(MockCDN.start(options), coverage), ServerResource.class).server;
    }

    /**
     * The run's coverage settings and sum, one for the run in the root context's store, whose closing (after every
     * class) judges the gate.
     */
    private static RunCoverage coverage(ExtensionContext context) {
        return context.getRoot().getStore(NAMESPACE).getOrComputeIfAbsent(RunCoverage.class,
                key -> RunCoverage.from(context), RunCoverage.class);
    }

    /** The context of the test class (the method's parent for a test); its store is closed after the class. */
    private static ExtensionContext classContext(ExtensionContext context) {
        ExtensionContext current = context;
        while (current.getTestMethod().isPresent() && current.getParent().isPresent()) {
            current = current.getParent().get();
        }
        return current;
    }

    /** A non-empty JUnit configuration parameter (also a system property), else a non-empty environment variable. */
    private static Optional<String> setting(ExtensionContext context, String parameter, String variable) {
        return context.getConfigurationParameter(parameter).filter(value -> !value.isEmpty())
                .or(() -> Optional.ofNullable(System.getenv(variable)).filter(value -> !value.isEmpty()));
    }

    /** What a started server is stored under: equal keys share the server. */
    private record StoreKey(Sharing sharing, LaunchOptions options) {
    }

    /**
     * A server in an extension store: JUnit closes it with the store, taking its last coverage report (when the run
     * keeps them) and stopping a server that was started.
     */
    private static final class ServerResource implements ExtensionContext.Store.CloseableResource {
        private final MockCDN server;
        private final RunCoverage coverage;

        private ServerResource(MockCDN server, RunCoverage coverage) {
            this.server = server;
            this.coverage = coverage;
            coverage.opened(server);
        }

        @Override
        public void close() {
            RuntimeException failure = null;
            try {
                coverage.closing(server);
            } catch (RuntimeException error) {
                failure = error;
            }
            OptionalInt code = server.stop();
            if (code.isPresent() && code.getAsInt() != 0) {
                MockCDNException stopped = new MockCDNException(
                        "mockcdn exited with code " + code.getAsInt() + " when stopped", "");
                if (failure != null) {
                    stopped.addSuppressed(failure);
                }
                throw stopped;
            }
            if (failure != null) {
                throw failure;
            }
        }
    }
}
