package io.strata.query.http;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PrintableUriTest {

    @Test
    void controlCharactersOfARequestTargetCannotForgeLogLines() {
        assertEquals("/api/v1/data?chart=x", ApiRequestHandler.printable("/api/v1/data?chart=x"));
        assertEquals("/x\\x1b[31m\\x0a\\x7f\\u2028ü", ApiRequestHandler.printable("/x\u001b[31m\n\u007f\u2028ü"));
        String long_ = ApiRequestHandler.printable("/" + "a".repeat(1000));
        assertTrue(long_.endsWith("...") && long_.length() == 515, long_.length() + "");
    }
}
