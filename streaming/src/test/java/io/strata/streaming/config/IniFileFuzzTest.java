package io.strata.streaming.config;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.Random;

import io.strata.testsupport.Fuzz;

import org.junit.jupiter.api.Test;

/**
 * Seeded fuzzing of {@link IniFile#parse}: random text over a configuration-shaped alphabet and
 * mutations of a realistic stream.conf. Only {@link IniException} may escape, always with
 * {@code file:line}; whatever parses can be read back without errors.
 * Inputs and seed: {@link Fuzz} ({@code -Dstrata.fuzz.inputs=N}, {@code -Dstrata.fuzz.seed=S}).
 */
class IniFileFuzzTest {

    static final long SEED = 0x1371_5EEDL;

    private static final String ALPHABET = "[]=#\n\n\r \t\u000B\f abcXYZ019-_.:*!\\é\u0000\uFEFF\u2028";

    static final String SAMPLE = String.join("\n",
            "# netdata stream.conf",
            "[stream]",
            "    enabled = yes",
            "    destination = 10.0.0.1:19999 parent:SSL",
            "    api key = 11111111-2222-3333-4444-555555555555",
            "    timeout seconds = 60",
            "    send charts matching = system.* !apps.*",
            "",
            "[11111111-2222-3333-4444-555555555555]",
            "    type = api",
            "    enabled = yes",
            "    allow from = 10.* !10.0.0.66",
            "    default memory mode = dbengine",
            "    health enabled by default = auto",
            "",
            "[5b8185c0-e5a4-11f1-9d33-02fc00000001]",
            "    enabled = yes",
            "    update every = 2",
            "    host tags = a=b",
            "");

    @Test
    void onlyIniExceptionEscapes() {
        long[] parsed = {0};
        Fuzz.Result run = Fuzz.run("IniFile.parse", SEED, in -> {
            Random random = in.random();
            String text = (in.index() % 2 == 0) ? randomText(random) : mutate(random, SAMPLE);
            in.show(text);
            try {
                IniFile ini = IniFile.parse(text, "fuzz.conf");
                for (String section : ini.sections()) {
                    for (IniFile.Entry entry : ini.entries(section)) {
                        ini.get(section, entry.name(), "");
                        ini.getBoolean(section, entry.name(), false);
                        ini.getLong(section, entry.name(), 0);
                    }
                }
                assertTrue(ini.unusedEntries().isEmpty(), "every entry was read");
                parsed[0]++;
            } catch (IniException expected) {
                assertTrue(expected.getMessage().startsWith("fuzz.conf:" + expected.line() + ": "),
                        expected.getMessage());
            }
        });
        if (run.inputs() >= 1000 && parsed[0] < run.inputs() / 10) {
            fail("only " + parsed[0] + " of " + run.inputs() + " texts parsed; the generators are not exercising parse");
        }
    }

    private static String randomText(Random random) {
        int length = random.nextInt(300);
        StringBuilder text = new StringBuilder(length + 8);
        if (random.nextBoolean()) {
            text.append("[s]\n");
        }
        for (int i = 0; i < length; i++) {
            text.append(ALPHABET.charAt(random.nextInt(ALPHABET.length())));
        }
        return text.toString();
    }

    static String mutate(Random random, String original) {
        StringBuilder text = new StringBuilder(original);
        int mutations = 1 + random.nextInt(6);
        for (int m = 0; m < mutations && text.length() > 0; m++) {
            int at = random.nextInt(text.length());
            switch (random.nextInt(4)) {
                case 0:
                    text.setCharAt(at, ALPHABET.charAt(random.nextInt(ALPHABET.length())));
                    break;
                case 1:
                    text.insert(at, ALPHABET.charAt(random.nextInt(ALPHABET.length())));
                    break;
                case 2:
                    text.delete(at, Math.min(text.length(), at + random.nextInt(30)));
                    break;
                default: {
                    int end = Math.min(text.length(), at + random.nextInt(60));
                    text.insert(end, text.substring(at, end));
                    break;
                }
            }
        }
        return text.toString();
    }
}
