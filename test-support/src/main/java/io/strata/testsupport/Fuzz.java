package io.strata.testsupport;

import java.nio.charset.StandardCharsets;
import java.util.Random;

/**
 * The seeded fuzz harness every fuzz test runs on. Input {@code i} of a run is generated from its
 * own seed, {@code base + i}, so one failing input replays alone with
 * {@code -Dstrata.fuzz.seed=<its seed> -Dstrata.fuzz.inputs=1}.
 *
 * <ul>
 * <li>{@code -Dstrata.fuzz.inputs=N}: inputs per fuzz test (the build passes 20 000; the
 *     {@code fuzz} profile 10 000 000).</li>
 * <li>{@code -Dstrata.fuzz.seed=S}: the base seed (each test has its own default).</li>
 * </ul>
 *
 * <p>A run prints its name, input count and base seed when it starts, a progress line every tenth
 * of a long run (so a hang is located by the last one and a thread dump), and a summary at the end.
 * A failing input (an assertion, or any exception the target lets escape) fails the test with the
 * input's seed, the replay flags and the input as the target described it.
 */
public final class Fuzz {

    public static final String INPUTS = "strata.fuzz.inputs";
    public static final String SEED = "strata.fuzz.seed";
    /** What a normal build runs when neither property is set. */
    public static final long DEFAULT_INPUTS = 20_000;
    /** Inputs described in a failure message are cut here. */
    private static final int MAX_SHOWN_CHARS = 4000;

    private Fuzz() {
    }

    /** Inputs per fuzz test, from {@code -Dstrata.fuzz.inputs}. */
    public static long inputs() {
        String v = System.getProperty(INPUTS);
        if (v == null || v.isBlank() || v.startsWith("${")) {
            return DEFAULT_INPUTS;
        }
        long n = Long.parseLong(v.trim().replace("_", ""));
        if (n < 1) {
            throw new IllegalArgumentException(INPUTS + " must be at least 1, not " + v);
        }
        return n;
    }

    /** {@link #inputs()} as an int (for the older fuzz tests that count in ints). */
    public static int inputsAsInt() {
        return (int) Math.min(Integer.MAX_VALUE, inputs());
    }

    /** The base seed: {@code -Dstrata.fuzz.seed} (decimal or 0x hex) or the test's default. */
    public static long seed(long defaultSeed) {
        String v = System.getProperty(SEED);
        if (v == null || v.isBlank() || v.startsWith("${")) {
            return defaultSeed;
        }
        String s = v.trim().replace("_", "");
        if (s.startsWith("0x") || s.startsWith("0X")) {
            return Long.parseUnsignedLong(s.substring(2), 16);
        }
        return Long.parseLong(s);
    }

    /** Prints the line a fuzz test that does not run on {@link #run} prints when it starts. */
    public static void announce(String name, long inputs, long seed) {
        System.out.println("[fuzz] " + name + ": " + inputs + " inputs, seed " + seed + " (replay: -D" + SEED + "="
                + seed + " -D" + INPUTS + "=" + inputs + ")");
    }

    /** One fuzz target: generates input from {@link Input#random()}, runs it, asserts its invariant. */
    @FunctionalInterface
    public interface Target {
        void run(Input input) throws Exception;
    }

    /** The input being run: its random source, seed and index, and its description for a failure. */
    public static final class Input {
        private final Random random = new Random();
        private long seed;
        private long index;
        private Object shown;

        /** Generates this input; seeded with {@link #seed()}. */
        public Random random() {
            return random;
        }

        public long seed() {
            return seed;
        }

        public long index() {
            return index;
        }

        /**
         * Names what this input is (the bytes or text fed in), printed if it fails. Cheap: the
         * description is rendered only on failure ({@code byte[]} as escaped text, else toString).
         */
        public void show(Object description) {
            shown = description;
        }

        void reset(long seed, long index) {
            this.seed = seed;
            this.index = index;
            this.shown = null;
            random.setSeed(seed);
        }
    }

    /** What a run did. */
    public record Result(String name, long inputs, long seed, long nanos) {
        public double seconds() {
            return nanos / 1e9;
        }
    }

    /** Runs {@link #inputs()} inputs of {@code target} from the base seed {@link #seed(long)}. */
    public static Result run(String name, long defaultSeed, Target target) {
        return run(name, defaultSeed, inputs(), target);
    }

    /** Runs {@code inputs} inputs (a test whose inputs cost more may scale {@link #inputs()} down: say so). */
    public static Result run(String name, long defaultSeed, long inputs, Target target) {
        long base = seed(defaultSeed);
        announce(name, inputs, base);
        Input input = new Input();
        long step = inputs >= 100_000 ? inputs / 10 : Long.MAX_VALUE;
        long start = System.nanoTime();
        for (long i = 0; i < inputs; i++) {
            long seed = base + i;
            input.reset(seed, i);
            try {
                target.run(input);
            } catch (Throwable t) {
                String message = "[fuzz] " + name + ": input " + i + " of " + inputs + " failed, seed " + seed
                        + " (replay: -D" + SEED + "=" + seed + " -D" + INPUTS + "=1): " + t
                        + "\n[fuzz] input: " + describe(input.shown);
                System.out.println(message);
                throw new AssertionError(message, t);
            }
            if ((i + 1) % step == 0 && i + 1 < inputs) {
                System.out.printf("[fuzz] %s: %d of %d inputs, %.1f s%n", name, i + 1, inputs,
                        (System.nanoTime() - start) / 1e9);
            }
        }
        Result result = new Result(name, inputs, base, System.nanoTime() - start);
        System.out.printf("[fuzz] %s: %d inputs passed in %.1f s, seed %d%n", name, inputs, result.seconds(), base);
        return result;
    }

    /** A failure's input as printable text: bytes as ISO-8859-1 with escapes, cut at 4000 characters. */
    public static String describe(Object shown) {
        if (shown == null) {
            return "(not described by the test; replay the seed)";
        }
        String text = shown instanceof byte[] b ? new String(b, StandardCharsets.ISO_8859_1)
                : String.valueOf(shown);
        StringBuilder out = new StringBuilder(Math.min(text.length(), MAX_SHOWN_CHARS) + 16);
        for (int i = 0; i < text.length() && out.length() < MAX_SHOWN_CHARS; i++) {
            char c = text.charAt(i);
            if (c == '\\') {
                out.append("\\\\");
            } else if (c >= 0x20 && c < 0x7F) {
                out.append(c);
            } else if (c == '\n') {
                out.append("\\n");
            } else {
                out.append(String.format("\\u%04x", (int) c));
            }
        }
        if (out.length() >= MAX_SHOWN_CHARS) {
            out.append("... (").append(text.length()).append(" chars)");
        }
        return out.toString();
    }
}
