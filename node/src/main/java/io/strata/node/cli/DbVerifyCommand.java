package io.strata.node.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.strata.engine.DiskFormat;
import io.strata.engine.io.FileChannelIo;
import io.strata.engine.verify.DbVerifier;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import io.strata.node.config.NodeConfig;
import io.strata.engine.EngineConfig;

/**
 * {@code strata db verify [DIR] [--config CONFIG_DIR] [--json]}: checks a database directory
 * without changing it ({@link DbVerifier}) and prints what each tier holds and every problem
 * found. With the node's configuration, the tiers are verified where {@code [db] dbengine tier N
 * directory} puts them (and DIR defaults to the node's database).
 */
@Command(name = "verify",
        mixinStandardHelpOptions = true,
        description = {
                "Checks a database directory without changing it.",
                "Reads every superblock, journal v1 transaction, journal v2 index, extent checksum and page "
                        + "encoding, and the metadata log; prints per tier the datafiles, journals, extents, pages, "
                        + "points and bytes on disk, and every problem found."},
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
                "0:the database is intact",
                "1:damage was found (or a file could not be read)",
                "2:usage error, or DIR is not a database directory"})
public final class DbVerifyCommand implements Callable<Integer> {

    static final int INTACT = 0;
    static final int DAMAGED = 1;
    static final int USAGE = 2;

    @Spec
    CommandSpec spec;

    @Parameters(index = "0", arity = "0..1", paramLabel = "DIR",
            description = "the database directory (default with --config: the node's cache/dbengine)")
    Path dir;

    @Option(names = "--config", paramLabel = "CONFIG_DIR",
            description = "the node's configuration directory (netdata.conf): tiers whose files live elsewhere "
                    + "([db] dbengine tier N directory) are verified where they are")
    Path config;

    @Option(names = "--json", description = "print one JSON object instead of text")
    boolean json;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        try {
            Path[] tierDirs = null;
            if (config != null) {
                NodeConfig nc;
                try {
                    nc = NodeConfig.load(config);
                } catch (NodeConfig.ConfigException | IOException e) {
                    err.println("strata db verify: --config " + config + ": " + e.getMessage());
                    return USAGE;
                }
                EngineConfig ec = nc.engineConfig();
                if (dir == null) {
                    dir = ec.dir();
                }
                tierDirs = new Path[ec.tiers()];
                for (int t = 0; t < ec.tiers(); t++) {
                    tierDirs[t] = ec.tierDir(t);
                }
            }
            if (dir == null) {
                err.println("strata db verify: give the database directory DIR, or the node's --config");
                return USAGE;
            }
            if (!Files.exists(dir)) {
                err.println("strata db verify: " + dir + ": no such directory");
                return USAGE;
            }
            if (!Files.isDirectory(dir)) {
                err.println("strata db verify: " + dir + ": not a directory");
                return USAGE;
            }
            if (tierDirs == null && !looksLikeDatabase(dir)) {
                err.println("strata db verify: " + dir + ": not a Strata database (no " + DiskFormat.METADATA_FILE
                        + " and no tier0..tier4 directories)");
                return USAGE;
            }
            DbVerifier.Result r;
            try {
                r = DbVerifier.verify(FileChannelIo.INSTANCE, dir, tierDirs);
            } catch (IOException e) {
                err.println("strata db verify: " + dir + ": could not be read: " + e);
                return DAMAGED;
            }
            if (json) {
                out.println(toJson(r));
            } else {
                printText(out, r);
            }
            return r.intact() ? INTACT : DAMAGED;
        } finally {
            out.flush();
            err.flush();
        }
    }

    private static boolean looksLikeDatabase(Path dir) {
        if (Files.exists(dir.resolve(DiskFormat.METADATA_FILE))) {
            return true;
        }
        for (int t = 0; t < 5; t++) {
            if (Files.isDirectory(dir.resolve("tier" + t))) {
                return true;
            }
        }
        return false;
    }

    static String toJson(DbVerifier.Result r) {
        ObjectMapper mapper = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
        ObjectNode root = mapper.createObjectNode();
        root.put("dir", r.dir().toString());
        root.put("intact", r.intact());
        root.put("hosts", r.hosts());
        root.put("charts", r.charts());
        root.put("dimensions", r.dimensions());
        ArrayNode tiers = root.putArray("tiers");
        for (DbVerifier.TierSummary t : r.tiers()) {
            ObjectNode o = tiers.addObject();
            o.put("tier", t.tier());
            o.put("datafiles", t.datafiles());
            o.put("journals_v1", t.journalsV1());
            o.put("journals_v2", t.journalsV2());
            o.put("extents", t.extents());
            o.put("pages", t.pages());
            o.put("points", t.points());
            o.put("gap_points", t.gapPoints());
            o.put("bytes_on_disk", t.bytesOnDisk());
            o.put("datafile_bytes", t.datafileBytes());
            o.put("bytes_per_sample", Math.round(t.bytesPerSample() * 1000) / 1000.0);
        }
        ArrayNode errors = root.putArray("errors");
        r.errors().forEach(errors::add);
        ArrayNode notes = root.putArray("notes");
        r.notes().forEach(notes::add);
        try {
            return mapper.writeValueAsString(root);
        } catch (IOException e) {
            throw new IllegalStateException("cannot serialize the verify result", e);
        }
    }

    static void printText(PrintWriter out, DbVerifier.Result r) {
        out.println("database  " + r.dir());
        out.println("metadata  " + plural(r.hosts(), "host") + ", " + plural(r.charts(), "chart") + ", "
                + plural(r.dimensions(), "dimension"));
        if (r.tiers().isEmpty()) {
            out.println("tiers     none");
        }
        for (DbVerifier.TierSummary t : r.tiers()) {
            String head = String.format(Locale.ROOT, "tier %-5d", t.tier());
            String pad = " ".repeat(head.length());
            out.println(head + plural(t.datafiles(), "datafile") + ", " + t.journalsV1() + " journal(s) v1, "
                    + t.journalsV2() + " journal(s) v2");
            out.println(pad + plural(t.extents(), "extent") + ", " + plural(t.pages(), "page") + ", "
                    + plural(t.points(), "point") + " (" + t.gapPoints() + " gap point(s))");
            out.println(pad + t.bytesOnDisk() + " bytes on disk (" + human(t.bytesOnDisk()) + ", datafiles "
                    + human(t.datafileBytes()) + "), "
                    + String.format(Locale.ROOT, "%.3f", t.bytesPerSample()) + " bytes per sample");
        }
        list(out, "notes", r.notes());
        list(out, "errors", r.errors());
        out.println(r.intact() ? "result    INTACT" : "result    DAMAGED (" + plural(r.errors().size(), "error") + ")");
    }

    private static void list(PrintWriter out, String title, List<String> items) {
        if (items.isEmpty()) {
            out.println(String.format(Locale.ROOT, "%-10s", title) + "none");
            return;
        }
        out.println(title + " (" + items.size() + "):");
        for (String s : items) {
            out.println("  - " + s);
        }
    }

    private static String plural(long n, String what) {
        return n + " " + what + (n == 1 ? "" : "s");
    }

    private static String human(long bytes) {
        if (bytes < 1024) {
            return bytes + " B";
        }
        String[] units = {"KiB", "MiB", "GiB", "TiB"};
        double v = bytes;
        int u = -1;
        while (v >= 1024 && u < units.length - 1) {
            v /= 1024;
            u++;
        }
        return String.format(Locale.ROOT, "%.1f %s", v, units[u]);
    }
}
