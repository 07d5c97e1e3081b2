package io.strata.node.runtime;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.FileAppender;
import ch.qos.logback.core.joran.spi.ConsoleTarget;
import ch.qos.logback.core.OutputStreamAppender;
import io.strata.node.config.LogSettings;
import io.strata.query.http.ApiRequestHandler;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.StandardOpenOption;

import org.slf4j.ILoggerFactory;
import org.slf4j.LoggerFactory;

/**
 * Applies netdata.conf's {@code [logs]} to Logback, in code rather than in logback.xml so that the
 * node's one configuration file says where its log goes: the root level, the node's log (the
 * root's appender) and the access log (its own logger, not passed on to the root).
 *
 * <p>The jar's logback.xml stays the configuration of the commands that read no netdata.conf
 * ({@code db}, {@code bench}, ...): INFO on stderr, access log off.
 */
public final class NodeLogging {

    static final String MAIN_PATTERN = "%d{yyyy-MM-dd HH:mm:ss.SSS} %-5level [%thread] %logger{20} - %msg%n";
    static final String ACCESS_PATTERN = "%d{yyyy-MM-dd HH:mm:ss.SSS}: %msg%n";
    static final String MAIN_APPENDER = "main";
    static final String ACCESS_APPENDER = "access";

    private NodeLogging() {
    }

    /**
     * Replaces the root's and the access logger's appenders by those {@code settings} name.
     *
     * @throws IOException a log file cannot be opened for appending (the message names it)
     */
    public static void apply(LogSettings settings) throws IOException {
        ILoggerFactory factory = LoggerFactory.getILoggerFactory();
        if (!(factory instanceof LoggerContext context)) {
            return; // another SLF4J binding: it has its own configuration
        }
        checkWritable(settings.main());
        checkWritable(settings.access());
        Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
        root.detachAndStopAllAppenders();
        root.setLevel(level(settings.level()));
        if (settings.main().kind() != LogSettings.Target.Kind.NONE) {
            root.addAppender(appender(context, MAIN_APPENDER, settings.main(), MAIN_PATTERN));
        }
        Logger access = context.getLogger(ApiRequestHandler.ACCESS_LOGGER);
        access.detachAndStopAllAppenders();
        access.setAdditive(false);
        if (settings.access().kind() == LogSettings.Target.Kind.NONE) {
            access.setLevel(Level.OFF);
        } else {
            access.setLevel(Level.INFO);
            access.addAppender(appender(context, ACCESS_APPENDER, settings.access(), ACCESS_PATTERN));
        }
    }

    static Level level(LogSettings.Level level) {
        return switch (level) {
            case OFF -> Level.OFF;
            case ERROR -> Level.ERROR;
            case WARN -> Level.WARN;
            case INFO -> Level.INFO;
            case DEBUG -> Level.DEBUG;
            case TRACE -> Level.TRACE;
        };
    }

    private static void checkWritable(LogSettings.Target target) throws IOException {
        if (target.kind() != LogSettings.Target.Kind.FILE) {
            return;
        }
        try (OutputStream out = Files.newOutputStream(target.file(), StandardOpenOption.CREATE,
                StandardOpenOption.APPEND, StandardOpenOption.WRITE)) {
            out.flush();
        } catch (IOException e) {
            throw new IOException("cannot open the log file " + target.file() + ": " + e, e);
        }
    }

    private static OutputStreamAppender<ILoggingEvent> appender(LoggerContext context, String name,
                                                                LogSettings.Target target, String pattern) {
        PatternLayoutEncoder encoder = new PatternLayoutEncoder();
        encoder.setContext(context);
        encoder.setPattern(pattern);
        encoder.start();
        OutputStreamAppender<ILoggingEvent> appender;
        if (target.kind() == LogSettings.Target.Kind.FILE) {
            FileAppender<ILoggingEvent> file = new FileAppender<>();
            file.setFile(target.file().toString());
            file.setAppend(true);
            appender = file;
        } else {
            ConsoleAppender<ILoggingEvent> console = new ConsoleAppender<>();
            console.setTarget((target.kind() == LogSettings.Target.Kind.STDOUT ? ConsoleTarget.SystemOut : ConsoleTarget.SystemErr).getName());
            appender = console;
        }
        appender.setContext(context);
        appender.setName(name);
        appender.setEncoder(encoder);
        appender.start();
        return appender;
    }
}
