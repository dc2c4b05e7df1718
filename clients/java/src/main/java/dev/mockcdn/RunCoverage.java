package dev.mockcdn;

import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The contract coverage of a whole JUnit run, kept by {@link MockCDNExtension} in the root context's store when
 * {@code mockcdn.report} (or {@code MOCKCDN_REPORT}) or {@code mockcdn.report.failUnder} is set.
 *
 * <p>Each reset empties the server's journal, so the extension takes the server's JSON report before every reset
 * it performs and when a server's resource closes (a started server before it stops), and adds it to the run's
 * sum through the server's own merge ({@code POST /_mockcdn/report}). The file is rewritten with the sum each time
 * a server's resource closes (a server must render it: {@code .xml} JUnit, {@code .md} Markdown, else the report's
 * JSON, which {@code mockcdn report --from} reads). When the root store closes, after every class, the sum is
 * judged against {@code mockcdn.report.failUnder}: below it, {@link #close()} throws, which fails the Jupiter
 * engine's container and so the run (the console launcher exits 1).
 */
final class RunCoverage implements ExtensionContext.Store.CloseableResource {
    /** The file to write: a configuration parameter, else {@link #REPORT_VARIABLE}. */
    static final String REPORT = "mockcdn.report";
    /** The environment variable {@link #REPORT} falls back to, as the Swift helper reads it. */
    static final String REPORT_VARIABLE = "MOCKCDN_REPORT";
    /** The gate: the least share of rows, percent (0-100), the run must cover. */
    static final String FAIL_UNDER = "mockcdn.report.failUnder";
    /** The surfaces the gate counts, comma-separated; every row when unset. */
    static final String SURFACES = "mockcdn.report.surfaces";
    /** The surfaces of the report ({@code surfaces[].id}). */
    static final List<String> SURFACE_IDS = List.of("stream", "cometchat", "media", "s3", "cloudfront", "control");

    /** What names the file in messages: {@code mockcdn.report=PATH} or {@code MOCKCDN_REPORT=PATH}; null when unset. */
    private final String pathSetting;
    private final Path path;
    private final Double failUnder;
    private final List<String> surfaces;
    /** The servers whose last report is still to be taken. */
    private final Set<MockCDN> open = Collections.newSetFromMap(new IdentityHashMap<>());
    /** The sum of the reports taken so far, a JSON report itself; null before the first. */
    private Map<String, Object> sum;

    private RunCoverage(String pathSetting, Path path, Double failUnder, List<String> surfaces) {
        this.pathSetting = pathSetting;
        this.path = path;
        this.failUnder = failUnder;
        this.surfaces = surfaces;
    }

    /**
     * Reads the settings of the run.
     *
     * @throws ExtensionConfigurationException naming the parameter, for a gate outside 0-100 or a surface list that
     *         names no surface or an unknown one
     */
    static RunCoverage from(ExtensionContext context) {
        String pathSetting = null;
        Path path = null;
        Optional<String> parameter = context.getConfigurationParameter(REPORT).filter(value -> !value.isEmpty());
        Optional<String> file = parameter.or(() -> Optional.ofNullable(System.getenv(REPORT_VARIABLE))
                .filter(value -> !value.isEmpty()));
        if (file.isPresent()) {
            pathSetting = (parameter.isPresent() ? REPORT : REPORT_VARIABLE) + "=" + file.get();
            try {
                path = Path.of(file.get());
            } catch (RuntimeException invalid) {
                throw new ExtensionConfigurationException(pathSetting + " is not a file path: " + invalid.getMessage(),
                        invalid);
            }
        }
        Double failUnder = context.getConfigurationParameter(FAIL_UNDER).map(RunCoverage::parseFailUnder)
                .orElse(null);
        List<String> surfaces = context.getConfigurationParameter(SURFACES).map(RunCoverage::parseSurfaces)
                .orElse(null);
        return new RunCoverage(pathSetting, path, failUnder, surfaces);
    }

    private static double parseFailUnder(String text) {
        double mark;
        try {
            mark = Double.parseDouble(text.trim());
        } catch (NumberFormatException notANumber) {
            mark = Double.NaN;
        }
        if (!(mark >= 0 && mark <= 100)) {
            throw new ExtensionConfigurationException(
                    FAIL_UNDER + " must be a number from 0 to 100, not '" + text + "'");
        }
        return mark;
    }

    private static List<String> parseSurfaces(String text) {
        List<String> names = Arrays.stream(text.split(",")).map(String::trim).filter(name -> !name.isEmpty())
                .toList();
        if (names.isEmpty()) {
            // No surface at all would be a share of nothing: 100%, a gate that always passes.
            throw new ExtensionConfigurationException(SURFACES + " names no surface; name one or more, "
                    + "comma-separated: " + String.join(",", SURFACE_IDS));
        }
        for (String name : names) {
            if (!SURFACE_IDS.contains(name)) {
                throw new ExtensionConfigurationException(SURFACES + ": " + name
                        + " is not a surface; the surfaces are " + String.join(", ", SURFACE_IDS));
            }
        }
        return names;
    }

    /** Whether the run's reports are kept: to write them, or to gate on them. */
    boolean enabled() {
        return path != null || failUnder != null;
    }

    /** A server the extension started or attached to: its last report is taken when it closes or the run ends. */
    synchronized void opened(MockCDN server) {
        if (enabled()) {
            open.add(server);
        }
    }

    /** Adds the server's report of its journal as it stands (before a reset empties it) to the run's sum. */
    synchronized void take(MockCDN server) {
        if (!enabled()) {
            return;
        }
        Map<String, Object> report = server.report();
        if (sum == null) {
            sum = report;
        } else if (((Number) report.get("entries")).longValue() > 0) {
            // An empty journal covers no row: nothing to add.
            sum = server.mergeReports(List.of(sum, report));
        }
    }

    /**
     * Takes the server's last report and rewrites the file with the sum so far, while the server can still render
     * it; does nothing the second time.
     */
    synchronized void closing(MockCDN server) {
        if (!open.remove(server)) {
            return;
        }
        take(server);
        if (path == null) {
            return;
        }
        String text = server.mergeReportsText(List.of(sum), format(path.getFileName().toString()));
        try {
            Path absolute = path.toAbsolutePath();
            Path temporary = Files.createTempFile(absolute.getParent(), "." + absolute.getFileName(), ".tmp");
            try {
                Files.writeString(temporary, text, StandardCharsets.UTF_8);
                try {
                    Files.move(temporary, absolute, StandardCopyOption.ATOMIC_MOVE,
                            StandardCopyOption.REPLACE_EXISTING);
                } catch (AtomicMoveNotSupportedException notAtomic) {
                    Files.move(temporary, absolute, StandardCopyOption.REPLACE_EXISTING);
                }
            } finally {
                Files.deleteIfExists(temporary);
            }
        } catch (IOException | RuntimeException error) {
            throw new MockCDNException(pathSetting + ": the coverage report could not be written: " + error, 0, "",
                    error);
        }
    }

    /**
     * At the end of the run: takes the last report of the servers still open (a run-wide server whose resource
     * closes after this one), then fails the run when the sum is below {@code mockcdn.report.failUnder}.
     *
     * @throws AssertionError saying the share, the gate and the surfaces counted, when the run is below the gate
     */
    @Override
    public synchronized void close() {
        for (MockCDN server : new ArrayList<>(open)) {
            closing(server);
        }
        if (failUnder == null || sum == null) {
            return;
        }
        double percent = percent(sum, surfaces);
        if (percent < failUnder) {
            String counted = surfaces == null ? "" : " of " + String.join(",", surfaces);
            throw new AssertionError("MockCDN contract coverage: " + percent + "% of rows" + counted
                    + " covered, below " + FAIL_UNDER + " "
                    + BigDecimal.valueOf(failUnder).stripTrailingZeros().toPlainString());
        }
    }

    /**
     * The share of rows a JSON report covers, percent to one decimal, as the server, {@code mockcdn report} and the
     * pytest plugin count it: of every row, or of the rows of {@code surfaces}.
     */
    static double percent(Map<String, ?> report, List<String> surfaces) {
        if (surfaces == null || surfaces.isEmpty()) {
            return ((Number) report.get("percent")).doubleValue();
        }
        long total = 0;
        long covered = 0;
        for (Object item : (List<?>) report.get("surfaces")) {
            Map<?, ?> surface = (Map<?, ?>) item;
            if (surfaces.contains(String.valueOf(surface.get("id")))) {
                total += ((Number) surface.get("rows_total")).longValue();
                covered += ((Number) surface.get("rows_covered")).longValue();
            }
        }
        // Halves rounded up, as the server rounds.
        return total == 0 ? 100.0 : Math.floor(covered * 1000.0 / total + 0.5) / 10;
    }

    /** The report format a file name asks for: {@code .xml} JUnit, {@code .md} Markdown, else JSON. */
    static String format(String fileName) {
        if (fileName.endsWith(".xml")) {
            return "junit";
        }
        return fileName.endsWith(".md") ? "markdown" : "json";
    }
}
