package dev.mockcdn;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A running {@code mockcdn serve}: its process, the base URL to reach it at, and its admin token (the one it
 * printed or was given; {@code null} on a loopback bind, which needs none). Its stderr goes on to this JVM's
 * stderr, and its last lines are kept for error messages.
 */
final class ServerProcess {
    /** The first stdout line of {@code mockcdn serve}. */
    static final Pattern READY_LINE = Pattern.compile("mockcdn ready on http://([^:/\\s]+|\\[[^\\]]+\\]):(\\d+)");
    private static final Pattern LOOPBACK = Pattern.compile("127\\.\\d+\\.\\d+\\.\\d+|\\[::1\\]|localhost");
    private static final int TAIL_LINES = 50;
    /**
     * How long a server that did not become ready is given, once it has exited or been killed, for its stderr to
     * be read to the end. Its stderr ends with the process, so this is a bound, not a wait: it only runs out when a
     * child of the server holds the pipe open.
     */
    private static final Duration STDERR_DRAIN = Duration.ofSeconds(10);

    final Process process;
    final String url;
    final String adminToken;
    private final Deque<String> stderrTail;

    private ServerProcess(Process process, String url, String adminToken, Deque<String> stderrTail) {
        this.process = process;
        this.url = url;
        this.adminToken = adminToken;
        this.stderrTail = stderrTail;
    }

    /**
     * Runs {@code BINARY serve --port 0 --log-level warning ARGS} with the options' variables over this JVM's
     * environment, and waits for its ready line. Off loopback, without a token given, it also reads the generated
     * {@code admin_token=} line the server prints before its closing {@code apps=} line.
     *
     * @throws MockCDNException when the binary is missing, or the server exits or stays silent instead of
     *     becoming ready (the message carries its last stderr lines)
     */
    static ServerProcess launch(LaunchOptions options) {
        Map<String, String> environment = new HashMap<>(System.getenv());
        environment.putAll(options.env());
        Path binary = BinaryLocator.find(options.binary(), environment);
        List<String> command = new ArrayList<>(List.of(binary.toString(), "serve", "--port", "0", "--log-level", "warning"));
        command.addAll(options.args());

        ProcessBuilder builder = new ProcessBuilder(command);
        builder.environment().putAll(options.env());
        Process process;
        try {
            process = builder.start();
        } catch (IOException error) {
            throw new MockCDNException("could not run " + binary + ": " + error.getMessage(), 0, "", error);
        }
        try {
            process.getOutputStream().close();
        } catch (IOException alreadyClosed) {
            // The server reads no input: a stdin that is already gone is what we want.
        }

        BlockingQueue<Optional<String>> stdout = new LinkedBlockingQueue<>();
        Deque<String> tail = new ArrayDeque<>();
        Thread stdoutPump = pump(process.getInputStream(), process.pid() + "-stdout",
                line -> stdout.add(Optional.of(line)), () -> stdout.add(Optional.empty()));
        Thread stderrPump = pump(process.getErrorStream(), process.pid() + "-stderr", line -> {
            synchronized (tail) {
                if (tail.size() == TAIL_LINES) {
                    tail.removeFirst();
                }
                tail.addLast(line);
            }
            System.err.println(line);
        }, () -> { });
        stdoutPump.start();
        stderrPump.start();

        long deadline = System.nanoTime() + options.timeout().toNanos();
        Optional<String> first = nextLine(stdout, deadline);
        if (first == null) {
            throw failed(process, command, stderrPump, tail,
                    interruptedOr("no ready line within " + options.timeout().toSeconds() + " s"));
        }
        if (first.isEmpty()) {
            // The end of stdout is normally the server exiting; it may still be writing its reason to stderr.
            boolean exited = waitFor(process, Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
            throw failed(process, command, stderrPump, tail,
                    exited ? "exited before it was ready" : interruptedOr("closed its stdout without a ready line"));
        }
        Matcher ready = READY_LINE.matcher(first.get());
        if (!ready.lookingAt()) {
            throw failed(process, command, stderrPump, tail, "unexpected first line '" + first.get() + "'");
        }
        String host = ready.group(1);
        String token = options.adminToken() != null ? options.adminToken()
                : adminTokenFrom(options.args(), environment);
        if (token == null && !LOOPBACK.matcher(host).matches()) {
            token = printedAdminToken(stdout, deadline);
        }
        // A wildcard bind is reached on loopback.
        host = switch (host) {
            case "0.0.0.0" -> "127.0.0.1";
            case "[::]" -> "[::1]";
            default -> host;
        };
        return new ServerProcess(process, "http://" + host + ":" + ready.group(2), token, tail);
    }

    /**
     * Sends SIGTERM ({@link Process#destroy()}) and waits for the exit; returns the exit code, 0 for a clean
     * stop. Calling it again returns the same code.
     *
     * @throws MockCDNException when the server is still running {@code timeout} after SIGTERM (it is then killed)
     */
    int stop(Duration timeout) {
        if (process.isAlive()) {
            // Signalled through its handle: Process.destroy() would also close its stderr, and what the server
            // writes on its way out would not reach the pump.
            process.toHandle().destroy();
            if (!waitFor(process, timeout)) {
                process.toHandle().destroyForcibly();
                waitFor(process, Duration.ofSeconds(10));
                throw new MockCDNException("mockcdn (pid " + process.pid() + ") did not exit within "
                        + timeout.toSeconds() + " s of SIGTERM", tailText(stderrTail));
            }
        }
        return process.exitValue();
    }

    /**
     * The admin token given on the command line ({@code --admin-token X} or {@code --admin-token=X}, the last one
     * winning, as in the server) or in the environment ({@code MOCKCDN_ADMIN_TOKEN}); {@code null} when neither.
     */
    static String adminTokenFrom(List<String> args, Map<String, String> environment) {
        String token = null;
        for (int index = 0; index < args.size(); index++) {
            String arg = args.get(index);
            if (arg.equals("--admin-token") && index + 1 < args.size()) {
                token = args.get(index + 1);
            } else if (arg.startsWith("--admin-token=")) {
                token = arg.substring("--admin-token=".length());
            }
        }
        if (token == null || token.isEmpty()) {
            token = environment.get("MOCKCDN_ADMIN_TOKEN");
        }
        return token == null || token.isEmpty() ? null : token;
    }

    /** Reads the lines after the ready line up to {@code apps=...} for the generated {@code admin_token=...}. */
    private static String printedAdminToken(BlockingQueue<Optional<String>> stdout, long deadline) {
        while (true) {
            Optional<String> line = nextLine(stdout, deadline);
            if (line == null || line.isEmpty() || line.get().startsWith("apps=")) {
                return null;
            }
            if (line.get().startsWith("admin_token=")) {
                return line.get().substring("admin_token=".length()).strip();
            }
        }
    }

    /**
     * The next stdout line; empty at the end of the output; {@code null} when the deadline passed first or the
     * thread was interrupted (its interrupt status is then set).
     */
    private static Optional<String> nextLine(BlockingQueue<Optional<String>> stdout, long deadline) {
        try {
            return stdout.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    /** A daemon thread handing each line of {@code stream} to {@code onLine}, then calling {@code onEnd}. */
    private static Thread pump(InputStream stream, String name, Consumer<String> onLine, Runnable onEnd) {
        Thread thread = new Thread(() -> {
            try (BufferedReader reader = new BufferedReader(new InputStreamReader(stream, StandardCharsets.UTF_8))) {
                for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                    onLine.accept(line);
                }
            } catch (IOException closed) {
                // Closed on this side (the shutdown hook's Process.destroy()): the end marker below is all a reader
                // needs.
            } finally {
                onEnd.run();
            }
        }, "mockcdn-" + name);
        thread.setDaemon(true);
        return thread;
    }

    /** {@code reason}, or that the wait was interrupted when the thread's interrupt status is set. */
    private static String interruptedOr(String reason) {
        return Thread.currentThread().isInterrupted() ? "interrupted while waiting for the ready line" : reason;
    }

    /**
     * Kills a server that did not become ready, when it still runs, and describes why, with its stderr read to the
     * end. The kill goes through the process's handle: {@link Process#destroyForcibly()} also closes the process's
     * streams, even those of a process that has already exited, and the pump then lost what it had not read yet,
     * the server's reason among it (in about one refused start in twenty, more often on a loaded machine). The
     * waits here are bounded and go on through an interrupt, since the reason is what the caller needs; the
     * interrupt status is set again after them.
     */
    private static MockCDNException failed(Process process, List<String> command, Thread stderrPump,
                                           Deque<String> tail, String reason) {
        boolean interrupted = Thread.interrupted();
        boolean killed = process.isAlive() && process.toHandle().destroyForcibly();
        long deadline = System.nanoTime() + STDERR_DRAIN.toNanos();
        while (true) {
            try {
                if (process.waitFor(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
                    stderrPump.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
                }
                break;
            } catch (InterruptedException again) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        String detail = tailText(tail);
        String end = process.isAlive() ? "still running" : killed ? "killed" : "exit code " + process.exitValue();
        return new MockCDNException(String.join(" ", command) + ": " + reason + " (" + end + ")"
                + (detail.isEmpty() ? "" : "\n" + detail), detail);
    }

    private static String tailText(Deque<String> tail) {
        synchronized (tail) {
            return String.join("\n", tail);
        }
    }

    private static boolean waitFor(Process process, Duration timeout) {
        try {
            return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            return !process.isAlive();
        }
    }
}
