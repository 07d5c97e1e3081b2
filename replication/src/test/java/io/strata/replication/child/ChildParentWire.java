package io.strata.replication.child;

import io.netty.buffer.ByteBuf;
import io.netty.channel.embedded.EmbeddedChannel;
import io.strata.engine.StorageEngine;
import io.strata.engine.page.StorageNumber;
import io.strata.streaming.receiver.ReceiverParser;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * What the tests of a child streaming to a parent over an {@link EmbeddedChannel} share: the
 * child's written text, that text fed to the parent's parser line by line, and the points a
 * metric holds, as {@code second - origin = value}.
 */
final class ChildParentWire {

    /** The seconds of these tests' clocks: every point is printed relative to it. */
    static final long T = 1_795_733_190L;

    private ChildParentWire() {
    }

    /** The points of {@code metric} from {@code T - 10} to {@code T + 100}, as {@code second - T = value}. */
    static List<String> points(StorageEngine db, int metric) throws Exception {
        List<String> out = new ArrayList<>();
        db.queryTier0(metric, T - 10, T + 100, (time, sn) -> out.add((time - T) + "=" + StorageNumber.unpack(sn)));
        return out;
    }

    /** Everything the child wrote on {@code channel} since the last call. */
    static String written(EmbeddedChannel channel) {
        StringBuilder sb = new StringBuilder();
        ByteBuf b;
        while ((b = channel.readOutbound()) != null) {
            sb.append(b.toString(StandardCharsets.UTF_8));
            b.release();
        }
        return sb.toString();
    }

    /** Feeds {@code text} to the parent's parser, a line at a time. */
    static void feed(ReceiverParser p, String text) throws Exception {
        for (String l : text.split("\n")) {
            if (l.isEmpty()) {
                continue;
            }
            byte[] b = l.getBytes(StandardCharsets.UTF_8);
            p.line(b, 0, b.length);
        }
    }
}
