package io.strata.node.cli;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.HelpCommand;

/**
 * The {@code strata} command line. Each subcommand is a class of this package; exit codes are
 * those of the subcommand (0 success, 1 failure or damage found, 2 usage error).
 */
@Command(name = "strata",
        // ---- subcommands: add new top-level commands to this list ------------------------
        subcommands = {
                DbCommand.class,
                BenchCommand.class,
                DiskCheckCommand.class,
                NodeCommand.class,
                LoadCommand.class,
                CompareCommand.class,
                AttackCommand.class,
                DemoCommand.class,
                ChaosCommand.class,
                HelpCommand.class,
        },
        // -----------------------------------------------------------------------------------
        mixinStandardHelpOptions = true,
        versionProvider = StrataMain.Version.class,
        description = "Strata: a metrics store in the design of Netdata's DBENGINE, streaming and replication.")
public final class StrataMain {

    public static void main(String[] args) {
        // Chronicle Bytes announces itself on stdout unless told not to; stdout belongs to the
        // commands (db verify --json prints exactly one JSON object there).
        setIfAbsent("chronicle.announcer.disable", "true");
        setIfAbsent("chronicle.analytics.disable", "true");
        int code = new CommandLine(new StrataMain()).execute(args);
        System.exit(code);
    }

    private static void setIfAbsent(String key, String value) {
        if (System.getProperty(key) == null) {
            System.setProperty(key, value);
        }
    }

    /** The version Maven recorded in the jar, or "development build" when run from classes. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String v = StrataMain.class.getPackage().getImplementationVersion();
            if (v == null) {
                try (InputStream in = StrataMain.class.getResourceAsStream(
                        "/META-INF/maven/io.strata/strata-node/pom.properties")) {
                    if (in != null) {
                        Properties p = new Properties();
                        p.load(in);
                        v = p.getProperty("version");
                    }
                } catch (IOException e) {
                    v = null;
                }
            }
            return new String[]{"strata " + (v != null ? v : "(development build)")};
        }
    }
}
