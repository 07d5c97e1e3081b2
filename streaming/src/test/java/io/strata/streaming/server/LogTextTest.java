package io.strata.streaming.server;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LogTextTest {

    @Test
    void controlBytesAndLineSeparatorsAreWrittenAsEscapes() {
        assertEquals("plain host-1.example", LogText.escape("plain host-1.example"));
        assertEquals("evil\\x0a2026-01-01 ERROR forged\\x1b[31m\\x0d\\x00\\x7f\\x85\\u2028\\\\",
                LogText.escape("evil\n2026-01-01 ERROR forged\u001b[31m\r\0\u007f\u0085\u2028\\"));
        assertEquals("über", LogText.escape("über"));
        assertEquals("null", LogText.escape(null));
    }

    @Test
    void longTextIsCut() {
        String s = LogText.escape("x".repeat(LogText.MAX_CHARS + 10));
        assertTrue(s.endsWith("...(10 more chars)"), s);
        assertEquals(LogText.MAX_CHARS + "...(10 more chars)".length(), s.length());
    }

    @Test
    void keysShowOnlyTheirFirstEightCharacters() {
        assertEquals("11111111-****", LogText.maskKey("11111111-2222-3333-4444-555555555555"));
        assertEquals("ab-****", LogText.maskKey("abcd"));
        assertEquals("", LogText.maskKey(""));
        assertEquals("\\x0a\\x0a-****", LogText.maskKey("\n\n\n\n"));
    }
}
