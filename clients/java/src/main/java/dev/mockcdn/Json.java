package dev.mockcdn;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;

/**
 * The one place that touches the JSON library (Jackson databind), so the public API speaks plain Java
 * ({@code Map}, {@code List}, {@code String}, {@code Number}, {@code Boolean}) and the library could be swapped.
 */
final class Json {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private Json() {
    }

    /** Encodes maps, lists, strings, numbers, booleans and {@code null} as JSON text. */
    static String write(Object value) {
        try {
            return MAPPER.writeValueAsString(value);
        } catch (IOException error) { // JsonProcessingException; Debian's build also declares IOException
            throw new IllegalArgumentException("cannot encode as JSON: " + value, error);
        }
    }

    /**
     * Decodes JSON text into {@code LinkedHashMap}, {@code ArrayList}, {@code String}, {@code Integer} or
     * {@code Long}, {@code Double}, {@code Boolean} or {@code null}.
     *
     * @throws JsonProcessingException when the text is not JSON
     */
    static Object read(String text) throws JsonProcessingException {
        return MAPPER.readValue(text, Object.class);
    }
}
