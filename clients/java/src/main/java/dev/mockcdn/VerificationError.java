package dev.mockcdn;

import java.util.Map;

/**
 * An expectation {@link MockCDN#verify} found unmet ({@code POST /_mockcdn/verify} answered 409). The message is the
 * server's near-miss report: each unmet expectation, what fell short, and the journal entries that came closest with
 * what differed ("credential `fat-query` where `fat-header` was expected"). An {@link AssertionError}, so JUnit
 * reports it as a failed assertion.
 */
public final class VerificationError extends AssertionError {
    private static final long serialVersionUID = 1L;

    private final transient Map<String, Object> result;

    /**
     * @param report the server's report, the message
     * @param result the server's whole answer
     */
    public VerificationError(String report, Map<String, Object> result) {
        super(report);
        this.result = result;
    }

    /** The server's report (the message). */
    public String report() {
        return getMessage();
    }

    /**
     * The server's whole answer: {@code met}, {@code expectations} (each with {@code matched}, {@code problem} and
     * {@code near_misses}) and {@code report}.
     */
    public Map<String, Object> result() {
        return result;
    }
}
