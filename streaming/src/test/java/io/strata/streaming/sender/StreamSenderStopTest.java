package io.strata.streaming.sender;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A sender stopped at a random moment of its connection attempts to a closed port, many times:
 * no socket may outlive it. {@code -Dstrata.senderStop.iterations=N} runs it longer (the default
 * found the leak within a few hundred attempts).
 */
class StreamSenderStopTest {

    private static final int ITERATIONS = Integer.getInteger("strata.senderStop.iterations", 100);

    private static List<String> sockets() throws IOException {
        List<String> out = new ArrayList<>();
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            for (Path fd : (Iterable<Path>) fds::iterator) {
                try {
                    String t = Files.readSymbolicLink(fd).toString();
                    if (t.startsWith("socket:")) {
                        out.add(t);
                    }
                } catch (IOException e) {
                    // closed meanwhile
                }
            }
        }
        return out;
    }

    @Test
    void stoppingAtAnyMomentOfAConnectionAttemptLeavesNoSocket() throws Exception {
        int down = FakeParent.closedPort();
        int before = sockets().size();
        for (int i = 0; i < ITERATIONS; i++) {
            DestinationList list = DestinationList.parse("127.0.0.1:" + down, 19999, System::currentTimeMillis);
            StreamSender sender = new StreamSender("child", list, new StreamSenderTest.TestHandshake(), caps -> null,
                    new StreamSenderTest.Recorder(),
                    new StreamSender.Config(Duration.ofSeconds(2), Duration.ofSeconds(2), Duration.ofMillis(1), 1 << 20),
                    null);
            sender.start();
            Thread.sleep(ThreadLocalRandom.current().nextInt(4));
            sender.close();
            assertEquals(before, sockets().size(), "iteration " + i + ": " + sockets());
        }
    }
}
