package io.strata.node.config;

import io.strata.streaming.config.IniFile;

import java.nio.file.Path;
import java.util.Locale;
import java.util.Objects;

/**
 * netdata.conf's {@code [logs]} section: how much the node logs and where.
 *
 * <ul>
 * <li>{@code level}: Netdata's level names ({@code emergency}, {@code alert}, {@code critical},
 *     {@code error}, {@code warning}, {@code notice}, {@code info}, {@code debug}), plus
 *     {@code warn} and {@code trace}; default {@code info}.</li>
 * <li>{@code error}: where the node's log goes (Netdata 1.37.1's {@code error}, formerly
 *     {@code [global] error log}): a file, {@code stderr} (the default), {@code stdout},
 *     {@code system} (stderr) or {@code none}.</li>
 * <li>{@code access}: the HTTP API's access log, a line per answered request: a file,
 *     {@code stdout}, {@code stderr}, {@code system} (stdout) or {@code none} (the default).</li>
 * </ul>
 *
 * <p>A relative file is taken from the configuration directory. {@code syslog} stops the start:
 * Strata does not write to syslog, and a log that silently went nowhere would be worse.
 */
public record LogSettings(Level level, Target main, Target access) {

    /** The levels Strata logs at, from the least to the most. */
    public enum Level { OFF, ERROR, WARN, INFO, DEBUG, TRACE }

    /** Where lines go: {@code file} is set only for {@link Kind#FILE}. */
    public record Target(Kind kind, Path file) {
        public enum Kind { NONE, STDOUT, STDERR, FILE }

        public Target {
            Objects.requireNonNull(kind, "kind");
            if ((kind == Kind.FILE) != (file != null)) {
                throw new IllegalArgumentException("a file target, and only a file target, has a file");
            }
        }

        public static Target of(Kind kind) {
            return new Target(kind, null);
        }
    }

    public LogSettings {
        Objects.requireNonNull(level, "level");
        Objects.requireNonNull(main, "main");
        Objects.requireNonNull(access, "access");
    }

    /** INFO to stderr, no access log. */
    public static LogSettings defaults() {
        return new LogSettings(Level.INFO, Target.of(Target.Kind.STDERR), Target.of(Target.Kind.NONE));
    }

    static LogSettings read(IniFile nd, Path netdataConf, Path dir) throws NodeConfig.ConfigException {
        Level level = level(nd.get("logs", "level", "info"), NodeConfig.where(nd, "logs", "level", netdataConf));
        Target main = target(nd.get("logs", "error", "stderr"), "error", Target.Kind.STDERR,
                NodeConfig.where(nd, "logs", "error", netdataConf), dir);
        Target access = target(nd.get("logs", "access", "none"), "access", Target.Kind.STDOUT,
                NodeConfig.where(nd, "logs", "access", netdataConf), dir);
        return new LogSettings(level, main, access);
    }

    /** @param file where the value is written ({@code file:line}), for the message */
    static Level level(String value, String file) throws NodeConfig.ConfigException {
        return switch (value.trim().toLowerCase(Locale.ROOT)) {
            case "emergency", "emerg", "alert", "critical", "crit", "error", "err" -> Level.ERROR;
            case "warning", "warn" -> Level.WARN;
            case "notice", "info" -> Level.INFO;
            case "debug" -> Level.DEBUG;
            case "trace" -> Level.TRACE;
            case "none", "off" -> Level.OFF;
            default -> throw new NodeConfig.ConfigException(file + ": [logs] level = " + value + " is not a level;"
                    + " use one of emergency, alert, critical, error, warning, notice, info, debug");
        };
    }

    static Target target(String value, String key, Target.Kind system, String file, Path dir)
            throws NodeConfig.ConfigException {
        String v = value.trim();
        switch (v) {
            case "", "none", "/dev/null":
                return Target.of(Target.Kind.NONE);
            case "stdout":
                return Target.of(Target.Kind.STDOUT);
            case "stderr":
                return Target.of(Target.Kind.STDERR);
            case "system":
                return Target.of(system);
            case "syslog":
                throw new NodeConfig.ConfigException(file + ": [logs] " + key + " = syslog is not supported;"
                        + " use a file, stdout, stderr or none");
            default:
                return new Target(Target.Kind.FILE, NodeConfig.path(dir, v, file + ": [logs] " + key + " = " + v));
        }
    }
}
