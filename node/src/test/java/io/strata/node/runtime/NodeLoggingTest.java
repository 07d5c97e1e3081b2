package io.strata.node.runtime;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import io.strata.node.config.LogSettings;
import io.strata.node.config.LogSettings.Target;
import io.strata.query.http.ApiRequestHandler;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code [logs]} applied to Logback: the level, the node's log file and the access log. */
class NodeLoggingTest {

    @TempDir
    Path tmp;

    @AfterEach
    void backToTheDefaults() throws IOException {
        NodeLogging.apply(LogSettings.defaults());
    }

    @Test
    void theNodesLogGoesToTheFileAtTheLevelConfigured() throws Exception {
        Path file = tmp.resolve("strata.log");
        NodeLogging.apply(new LogSettings(LogSettings.Level.WARN, new Target(Target.Kind.FILE, file),
                Target.of(Target.Kind.NONE)));
        org.slf4j.Logger log = LoggerFactory.getLogger("io.strata.test");
        log.info("an info line");
        log.warn("a warning line");
        List<String> lines = Files.readAllLines(file);
        assertEquals(1, lines.size(), lines.toString());
        assertTrue(lines.get(0).matches("\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d\\.\\d{3} WARN  \\[.*\\] "
                + "io\\.strata\\.test - a warning line"), lines.get(0));
    }

    @Test
    void theAccessLogIsOffUnlessATargetIsNamed() throws Exception {
        NodeLogging.apply(LogSettings.defaults());
        Logger access = (Logger) LoggerFactory.getLogger(ApiRequestHandler.ACCESS_LOGGER);
        assertFalse(access.isInfoEnabled());

        Path file = tmp.resolve("access.log");
        Path main = tmp.resolve("main.log");
        NodeLogging.apply(new LogSettings(LogSettings.Level.INFO, new Target(Target.Kind.FILE, main),
                new Target(Target.Kind.FILE, file)));
        assertEquals(Level.INFO, access.getLevel());
        access.info("127.0.0.1 'GET' (sent 2 bytes, total 0.10 ms) 200 '/api/v1/info'");
        List<String> lines = Files.readAllLines(file);
        assertEquals(1, lines.size());
        assertTrue(lines.get(0).endsWith(": 127.0.0.1 'GET' (sent 2 bytes, total 0.10 ms) 200 '/api/v1/info'"),
                lines.get(0));
        assertEquals(List.of(), Files.readAllLines(main), "access lines stay out of the node's log");
    }

    @Test
    void aLogFileThatCannotBeOpenedStopsTheStartNamingIt() throws Exception {
        Path notADir = Files.writeString(tmp.resolve("file"), "x");
        Path file = notADir.resolve("strata.log");
        IOException e = assertThrows(IOException.class, () -> NodeLogging.apply(new LogSettings(
                LogSettings.Level.INFO, new Target(Target.Kind.FILE, file), Target.of(Target.Kind.NONE))));
        assertTrue(e.getMessage().startsWith("cannot open the log file " + file), e.getMessage());
    }
}
