package dev.mockcdn;

import com.fasterxml.jackson.core.JsonProcessingException;
import java.util.Map;

/**
 * A MockCDN call failed: the server answered an error status, could not be reached, or the {@code mockcdn}
 * process could not be started or stopped. Unchecked, so test code needs no {@code throws} clauses; the only other
 * failures this library throws are {@link VerificationError}, an unmet expectation of {@link MockCDN#verify}, and,
 * from {@link MockCDNExtension}, an {@code AssertionError} for a run below its coverage gate and JUnit's
 * {@code ExtensionConfigurationException} for an invalid setting of it.
 */
public class MockCDNException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final int status;
    private final String body;

    /** A failure without an HTTP answer (status 0), such as a server that did not start; {@code body} says why. */
    public MockCDNException(String message, String body) {
        this(message, 0, body, null);
    }

    /**
     * @param message what failed, for the stack trace
     * @param status the HTTP status the server answered, or 0 when there was no answer
     * @param body the answer's body as text (empty when there was none), or what went wrong starting the process
     * @param cause the underlying exception, or {@code null}
     */
    public MockCDNException(String message, int status, String body, Throwable cause) {
        super(message, cause);
        this.status = status;
        this.body = body == null ? "" : body;
    }

    /** The HTTP status the server answered, or 0 when there was no answer. */
    public int status() {
        return status;
    }

    /** The answer's body as text; empty when there was none; the server's last stderr lines when it did not start. */
    public String body() {
        return body;
    }

    /**
     * The server's own error message, {@code error.message} of a {@code {"error":{"message":...}}} body, so tests
     * can assert on it; the whole body when it carries none.
     */
    public String serverMessage() {
        return serverMessageOf(body);
    }

    /** {@link #serverMessage()} for a body not yet wrapped in an exception (used to build the exception's message). */
    static String serverMessageOf(String body) {
        try {
            if (Json.read(body) instanceof Map<?, ?> parsed && parsed.get("error") instanceof Map<?, ?> error
                    && error.get("message") != null) {
                return String.valueOf(error.get("message"));
            }
        } catch (JsonProcessingException notJson) {
            return body;
        }
        return body;
    }
}
