package io.strata.streaming.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import io.strata.engine.netdata.SimplePattern;
import io.strata.streaming.config.IniException;
import io.strata.streaming.config.IniFile;
import io.strata.streaming.handshake.Capabilities;
import io.strata.streaming.handshake.HandshakeReplies;
import io.strata.streaming.handshake.StreamRequest;
import io.strata.streaming.handshake.StreamRequestException;

import java.nio.charset.StandardCharsets;
import java.util.Random;

import io.strata.testsupport.Fuzz;
import org.junit.jupiter.api.Test;

/**
 * Seeded fuzzing one level up from the parsers: whatever stream.conf parses builds a
 * {@link StreamConfig}, and whatever request parses gets a {@link StreamAuthorizer.Decision} (never an
 * exception) whose reply a 1.37.1 child reads as the decision's kind. Random simple patterns never throw.
 * Inputs and seed: {@link Fuzz} ({@code -Dstrata.fuzz.inputs=N}, {@code -Dstrata.fuzz.seed=S}).
 */
class StreamAuthorizerFuzzTest {

    static final long SEED = 0x1371_5EEDL;

    private static final String CONF = String.join("\n",
            "[stream]", "enabled = yes", "destination = gp", "api key = 11111111-2222-3333-4444-555555555555",
            "[11111111-2222-3333-4444-555555555555]", "enabled = yes", "allow from = 10.* 127.*",
            "default history = 10", "health enabled by default = auto", "enable compression = yes",
            "[5b8185c0-e5a4-11f1-9d33-02fc00000001]", "update every = 2", "allow from = !10.0.0.66 *",
            "memory mode = ram", "enable compression = no", "");

    private static final String PATTERN_ALPHABET = "*!\\ \tab.10*";

    @Test
    void configsAndDecisionsNeverThrow() throws Exception {
        StreamAuthorizer baseline = new StreamAuthorizer(StreamConfig.from(IniFile.parse(CONF, "stream.conf")), true,
                Capabilities.NETDATA_1_37_1, "aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee", 0);
        byte[] plain = read("01-child-to-fakeparent-plain/handshake_request.txt");
        Fuzz.run("StreamConfig and StreamAuthorizer.decide", SEED, in -> {
            Random random = in.random();
            StreamAuthorizer authorizer = baseline;
            String text = CONF;
            if (in.index() % 2 == 0) {
                text = mutateConf(random, CONF);
                in.show(text);
                try {
                    StreamConfig conf = StreamConfig.from(IniFile.parse(text, "stream.conf"));
                    assertNotNull(conf.warnings());
                    authorizer = new StreamAuthorizer(conf, random.nextBoolean(), Capabilities.NETDATA_1_37_1,
                            "aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee", random.nextInt(3));
                } catch (IniException expected) {
                    return;
                }
            }
            byte[] request = mutateRequest(random, plain);
            in.show(shown(text, request));
            StreamRequest parsed;
            try {
                parsed = StreamRequest.parse(request, request.length);
            } catch (StreamRequestException expected) {
                return;
            }
            String ip = random.nextBoolean() ? "10.0.0." + random.nextInt(100) : "127.0.0.1";
            long now = 1_795_262_950_000L + random.nextInt(100_000);
            long last = random.nextInt(3) == 0 ? now - random.nextInt(60_000) : -1;
            StreamAuthorizer.Decision d = authorizer.decide(parsed, ip, now, guid -> last);
            HandshakeReplies.Reply asChildSees = HandshakeReplies.parseReply(d.reply(), d.reply().length);
            assertEquals(d.accepted(), asChildSees.accepted(), d.logMessage());
            assertEquals(d.accepted(), d.settings() != null, d.logMessage());
            assertNotNull(d.logMessage());
        });
    }

    @Test
    void simplePatternsNeverThrow() {
        Fuzz.run("SimplePattern", SEED ^ 0x5157L, in -> {
            Random random = in.random();
            String pattern = randomString(random, PATTERN_ALPHABET, 12);
            String text = randomString(random, "ab.10*! ", 10);
            in.show("pattern '" + pattern + "' on '" + text + "'");
            SimplePattern p = SimplePattern.parse(pattern);
            p.matches(text);
            p.isEmpty();
        });
    }

    /** The input as a failure shows it, rendered only then. */
    private static Object shown(String conf, byte[] request) {
        return new Object() {
            @Override
            public String toString() {
                return conf + "\n--- request:\n" + new String(request, StandardCharsets.ISO_8859_1);
            }
        };
    }

    private static String randomString(Random random, String alphabet, int maxLength) {
        int length = random.nextInt(maxLength + 1);
        StringBuilder out = new StringBuilder(length);
        for (int i = 0; i < length; i++) {
            out.append(alphabet.charAt(random.nextInt(alphabet.length())));
        }
        return out.toString();
    }

    private static String mutateConf(Random random, String original) {
        String alphabet = "[]=#\n \tab*!yesno0x19-";
        StringBuilder text = new StringBuilder(original);
        int mutations = 1 + random.nextInt(4);
        for (int m = 0; m < mutations; m++) {
            int at = random.nextInt(text.length());
            if (random.nextBoolean()) {
                text.setCharAt(at, alphabet.charAt(random.nextInt(alphabet.length())));
            } else {
                text.delete(at, Math.min(text.length() - 1, at + random.nextInt(20)));
            }
        }
        return text.toString();
    }

    private static byte[] mutateRequest(Random random, byte[] original) {
        String text = new String(original, StandardCharsets.ISO_8859_1);
        String[] replacements = {
            "key=11111111-2222-3333-4444-555555555555", "key=bad",
            "key=22222222-2222-3333-4444-555555555555", "machine_guid=aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee",
            "ver=1", "ver=2", "ver=5", "ver=32", "ver=0x3ff8", "hostname=", "machine_guid=x", "update_every=0",
        };
        int changes = random.nextInt(3);
        for (int c = 0; c < changes; c++) {
            String replacement = replacements[random.nextInt(replacements.length)];
            String name = replacement.substring(0, replacement.indexOf('=') + 1);
            int at = text.indexOf(name);
            if (at >= 0) {
                int end = text.indexOf('&', at);
                text = text.substring(0, at) + replacement + text.substring(end);
            }
        }
        return text.getBytes(StandardCharsets.ISO_8859_1);
    }

    private static byte[] read(String relative) {
        return io.strata.streaming.handshake.Vectors.read(relative);
    }
}
