package io.strata.streaming.handshake;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Random;

import io.strata.testsupport.Fuzz;
import org.junit.jupiter.api.Test;

/**
 * Seeded fuzzing of the handshake parsers: random heads, mutated captured requests and random
 * queries. Only {@link StreamRequestException} may come out of {@link StreamRequest#parse}; whatever
 * parses must re-encode to bytes that parse again; {@link HandshakeReplies#parseReply} never throws.
 * Inputs and seed: {@link Fuzz} ({@code -Dstrata.fuzz.inputs=N}, {@code -Dstrata.fuzz.seed=S}).
 */
class StreamRequestFuzzTest {

    static final long SEED = 0x1371_5EEDL;

    private static final String NAMES_ALPHABET = "key hostname registry_hostname machine_guid update_every os timezone"
            + " abbrev_timezone utc_offset hops ml_capable ml_enabled mc_version tags ver NETDATA_PROTOCOL_VERSION"
            + " NETDATA_SYSTEM_OS_NAME NETDATA_X x";
    private static final String VALUE_ALPHABET = "%&=+ :/0x-9aFzé%41%zz%";
    private static final byte[] SPECIAL = "%&=+ \r\n:/0x-9aFzé\u0000HTTP/STREAM ".getBytes(StandardCharsets.UTF_8);

    private static final byte[][] VECTORS = {
        Vectors.read(Vectors.PLAIN + "handshake_request.txt"),
        Vectors.read(Vectors.LZ4 + "handshake_request.txt"),
    };

    @Test
    void onlyDeclaredExceptionsEscape() {
        long[] parsed = {0};
        Fuzz.Result run = Fuzz.run("StreamRequest.parse", SEED, in -> {
            Random random = in.random();
            byte[] input;
            switch ((int) (in.index() % 4)) {
                case 0:
                    input = randomHead(random);
                    break;
                case 1:
                case 2:
                    input = mutate(random, VECTORS[random.nextInt(VECTORS.length)]);
                    break;
                default:
                    input = randomQuery(random);
                    break;
            }
            in.show(input);
            if (check(input)) {
                parsed[0]++;
            }
        });
        // a sanity bound: most mutated vectors and random queries still parse
        if (run.inputs() >= 1000 && parsed[0] < run.inputs() / 4) {
            fail("only " + parsed[0] + " of " + run.inputs() + " inputs parsed; the generators are not exercising parse");
        }
    }

    private static boolean check(byte[] input) {
        StreamRequest request;
        try {
            request = StreamRequest.parse(input, input.length);
        } catch (StreamRequestException expected) {
            assertNotNull(expected.getMessage());
            return false;
        } catch (Throwable t) {
            throw new AssertionError("parse threw " + t, t);
        }
        try {
            byte[] again;
            try {
                again = request.toBuilder().build().encode();
            } catch (IllegalStateException refused) {
                return true; // a parsed value that cannot be sent raw (documented)
            }
            StreamRequest.parse(again, again.length);
        } catch (Throwable t) {
            throw new AssertionError("re-encoding failed with " + t, t);
        }
        return true;
    }

    @Test
    void replyParsingNeverThrows() {
        byte[] prompt = HandshakeReplies.PROMPT_VERSION.getBytes(StandardCharsets.US_ASCII);
        Fuzz.run("HandshakeReplies.parseReply", SEED ^ 0xABCDL, in -> {
            Random random = in.random();
            byte[] reply;
            if (random.nextBoolean()) {
                reply = new byte[random.nextInt(100)];
                random.nextBytes(reply);
            } else {
                reply = Arrays.copyOf(prompt, prompt.length + random.nextInt(40));
                for (int j = prompt.length; j < reply.length; j++) {
                    reply[j] = SPECIAL[random.nextInt(SPECIAL.length)];
                }
            }
            in.show(reply);
            assertNotNull(HandshakeReplies.parseReply(reply, reply.length).kind());
        });
    }

    private static byte[] randomHead(Random random) {
        int length = random.nextInt(10) == 0 ? 8000 + random.nextInt(400) : random.nextInt(600);
        byte[] body = new byte[length];
        random.nextBytes(body);
        String prefix = random.nextInt(4) == 0 ? "" : "STREAM ";
        String suffix = random.nextInt(4) == 0 ? "" : " HTTP/1.1\r\n\r\n";
        return concat(prefix.getBytes(StandardCharsets.US_ASCII), body, suffix.getBytes(StandardCharsets.US_ASCII));
    }

    private static byte[] randomQuery(Random random) {
        String[] names = NAMES_ALPHABET.split(" ");
        StringBuilder query = new StringBuilder();
        int pairs = random.nextInt(40);
        for (int p = 0; p < pairs; p++) {
            if (p > 0) {
                query.append('&');
            }
            query.append(names[random.nextInt(names.length)]);
            if (random.nextInt(8) != 0) {
                query.append('=');
            }
            int valueLength = random.nextInt(20);
            for (int c = 0; c < valueLength; c++) {
                query.append(VALUE_ALPHABET.charAt(random.nextInt(VALUE_ALPHABET.length())));
            }
        }
        String headers = random.nextBoolean() ? "User-Agent: x/" + random.nextInt() + "\r\n" : "";
        return ("STREAM " + query + " HTTP/1.1\r\n" + headers + "\r\n").getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] mutate(Random random, byte[] original) {
        byte[] data = original.clone();
        int mutations = 1 + random.nextInt(8);
        for (int m = 0; m < mutations && data.length > 0; m++) {
            int at = random.nextInt(data.length);
            switch (random.nextInt(5)) {
                case 0:
                    data[at] = (byte) random.nextInt(256);
                    break;
                case 1:
                    data[at] = SPECIAL[random.nextInt(SPECIAL.length)];
                    break;
                case 2: {
                    int end = Math.min(data.length, at + random.nextInt(50));
                    data = concat(Arrays.copyOf(data, at), Arrays.copyOfRange(data, end, data.length));
                    break;
                }
                case 3: {
                    int end = Math.min(data.length, at + random.nextInt(200));
                    byte[] piece = Arrays.copyOfRange(data, at, end);
                    data = concat(Arrays.copyOf(data, end), piece, Arrays.copyOfRange(data, end, data.length));
                    break;
                }
                default:
                    data = Arrays.copyOf(data, at);
                    if (random.nextBoolean()) {
                        data = concat(data, " HTTP/1.1\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                    }
                    break;
            }
        }
        return data;
    }

    private static byte[] concat(byte[]... parts) {
        int length = 0;
        for (byte[] part : parts) {
            length += part.length;
        }
        byte[] out = new byte[length];
        int at = 0;
        for (byte[] part : parts) {
            System.arraycopy(part, 0, out, at, part.length);
            at += part.length;
        }
        return out;
    }
}
