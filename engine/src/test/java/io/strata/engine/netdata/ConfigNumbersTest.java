package io.strata.engine.netdata;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.OptionalLong;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ConfigNumbersTest {

    @Test
    void wholeNumbersWithWhiteSpaceAroundThem() {
        assertEquals(OptionalLong.of(64), ConfigNumbers.wholeNumber(" 64 "));
        assertEquals(OptionalLong.of(-5), ConfigNumbers.wholeNumber("-5"));
        assertEquals(OptionalLong.of(7), ConfigNumbers.wholeNumber("+7"));
        assertEquals(OptionalLong.of(Long.MAX_VALUE), ConfigNumbers.wholeNumber("9223372036854775807"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", " ", "lots", "1.5", "0x10", "10 MB", "9223372036854775808"})
    void anythingElseIsNotAWholeNumber(String text) {
        assertEquals(OptionalLong.empty(), ConfigNumbers.wholeNumber(text), "'" + text + "'");
    }

    @Test
    void nullIsNotANumber() {
        assertEquals(OptionalLong.empty(), ConfigNumbers.wholeNumber(null));
        assertEquals(OptionalLong.empty(), ConfigNumbers.durationSeconds(null));
    }

    @Test
    void durationsInEveryUnit() {
        assertEquals(OptionalLong.of(3600), ConfigNumbers.durationSeconds("3600"));
        assertEquals(OptionalLong.of(90), ConfigNumbers.durationSeconds("90s"));
        assertEquals(OptionalLong.of(300), ConfigNumbers.durationSeconds("5m"));
        assertEquals(OptionalLong.of(7200), ConfigNumbers.durationSeconds("2h"));
        assertEquals(OptionalLong.of(14 * 86_400L), ConfigNumbers.durationSeconds("14d"));
        assertEquals(OptionalLong.of(14 * 86_400L), ConfigNumbers.durationSeconds("2w"));
        assertEquals(OptionalLong.of(90 * 86_400L), ConfigNumbers.durationSeconds("3mo"));
        assertEquals(OptionalLong.of(365 * 86_400L), ConfigNumbers.durationSeconds(" 1 Y "));
        assertEquals(OptionalLong.of(0), ConfigNumbers.durationSeconds("0"), "0: no limit");
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "d", "soon", "2 fortnights", "1.5d", "-1d", "1000000000000s", "999999999999y"})
    void anythingElseIsNotADuration(String text) {
        assertEquals(OptionalLong.empty(), ConfigNumbers.durationSeconds(text), "'" + text + "'");
    }
}
