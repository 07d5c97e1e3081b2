package io.strata.node.collect;

import io.strata.streaming.child.ChartSink;
import io.strata.streaming.child.ProcChart;
import java.nio.file.Path;
import java.util.UUID;

/**
 * One source of charts (Netdata: one function of the proc plugin, e.g. {@code do_proc_stat}),
 * called once per pass by {@link ProcCollector}. A module reads its files, defines the charts it
 * finds the first time it finds them, and collects them; a file it cannot read makes it skip
 * the pass (the file logs one WARN), never throw.
 */
public abstract class ProcModule implements AutoCloseable {

    /** What every module needs: the host its charts belong to, where /proc and /sys are, where charts go. */
    public record Context(UUID host, Path root, int updateEvery, ChartSink sink) {
        /** {@code absolute} below the root (e.g. "/proc/stat"). */
        public Path path(String absolute) {
            return root.resolve(absolute.startsWith("/") ? absolute.substring(1) : absolute);
        }
    }

    protected final Context ctx;

    protected ProcModule(Context ctx) {
        this.ctx = ctx;
    }

    /** Netdata's module name, e.g. "/proc/stat" (the charts' {@code _collect_module}). */
    public abstract String name();

    /** One pass at {@code nowMicros} (unix microseconds, on the second boundary in live use). */
    public abstract void collect(long nowMicros);

    protected final ProcChart.Builder chart(String type, String id) {
        return ProcChart.builder(ctx.host(), type, id).module(name()).updateEvery(ctx.updateEvery());
    }

    protected final void define(ProcChart c) {
        ctx.sink().define(c);
    }

    protected final void done(ProcChart c, long nowMicros) {
        ctx.sink().collect(c, nowMicros);
    }

    @Override
    public void close() {
    }
}
