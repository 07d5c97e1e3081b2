package io.strata.query;

import io.netty.buffer.PooledByteBufAllocator;
import io.strata.engine.EngineConfig;
import io.strata.engine.StorageEngine;
import io.strata.query.http.ApiError;
import io.strata.query.http.ApiResponse;
import io.strata.query.http.ApiRouter;
import io.strata.query.http.ApiServices;
import io.strata.testsupport.Fuzz;
import io.strata.testsupport.GuardPerClass;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import java.util.Set;
import java.util.UUID;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Seeded fuzzing of the static file handler's paths: traversal ({@code ..}, encoded and doubly
 * encoded dots and slashes, backslashes), overlong UTF-8, NUL, dotfiles, {@code /host/} prefixes,
 * absolute-form targets. The web directory holds public files and dotfiles; beside it lie a secret
 * file and a sibling directory whose name starts like the web directory's. Invariant: the answer
 * is a 200 whose body is one of the public files, or a 3xx/4xx; never a byte of a dotfile or of a
 * file outside the directory, never a 5xx, never an exception other than the router's
 * {@link ApiError}. Most inputs go through {@link ApiRouter#route} as the HTTP handler calls it;
 * a share goes as raw request lines over a socket to the real HTTP pipeline.
 */
@GuardPerClass("one engine, context and server serve every input of the class")
class StaticFilesFuzzTest {

    static final long SEED = 0x5747_1C_F11EL;
    static final UUID HOST = UUID.fromString("2b6a0f42-0000-4000-8000-00000000f022");

    /** Public files: path under the web directory → content. */
    static final String[][] PUBLIC = {
        {"index.html", "PUBLIC-index"}, {"app.js", "PUBLIC-app"}, {"sub/index.html", "PUBLIC-sub-index"},
        {"sub/page.html", "PUBLIC-sub-page"}, {"a b.css", "PUBLIC-space"}, {"x+y.txt", "PUBLIC-plus"},
    };
    /** Never served: dotfiles inside, files outside the directory. Every content says SECRET. */
    static final String[][] SECRET_INSIDE = {
        {".htpasswd", "SECRET-htpasswd"}, {".git/config", "SECRET-git"}, {"sub/.hidden", "SECRET-sub-dot"},
        {".well-known/x.txt", "SECRET-well-known"},
    };
    static final String[][] SECRET_OUTSIDE = {
        {"secret.txt", "SECRET-outside"}, {"www2/index.html", "SECRET-sibling"}, {"www.txt", "SECRET-prefix"},
    };

    private static final String[] SEGMENTS = {"", ".", "..", "...", "....", ".git", ".htpasswd", ".hidden",
        ".well-known", "sub", "index.html", "app.js", "page.html", "www", "www2", "www.txt", "secret.txt", "config",
        "x.txt", "a b.css", "a%20b.css", "x+y.txt", "x%2By.txt", "%2e", "%2e%2e", "%2E%2e", ".%2e", "%2e.", "%252e%252e",
        "..%2f", "..%2F..", "%2e%2e%2f", "..%5c", "..\\", "\\", "%5c", "%00", "index.html%00", "index.html%00.js",
        "%c0%ae%c0%ae", "%c0%ae", "%e0%80%ae%e0%80%ae", "%c0%af", "%e0%80%af", "%c1%9c", "%ef%bc%8f", "%u002e",
        "%", "%2", "%zz", "%ff", "host", "api", "v1", "%3f", "%23", ";", ";.htpasswd", "~", "%7e", "é", "%C3%A9",
        "\u2024\u2024", "index.html.", "index.html ", "INDEX.HTML", ".Git", "..;", "...%2f", "./.git", "%2e/.git"};
    private static final String[] JOINS = {"/", "/", "/", "/", "//", "%2f", "%2F", "\\", "%5C", "/./", "/%2e/"};

    @TempDir
    static Path dir;
    static StorageEngine engine;
    static ApiContext api;
    static ApiServices services;
    static TestServer server;
    static Path web;

    @BeforeAll
    static void start() throws Exception {
        web = dir.resolve("www");
        write(web, PUBLIC);
        write(web, SECRET_INSIDE);
        write(dir, SECRET_OUTSIDE);
        engine = StorageEngine.open(EngineConfig.defaults(dir.resolve("db")));
        api = ApiContext.create(engine, HOST, "static-fuzz", web);
        services = ApiServices.of(api);
        server = new TestServer(api);
    }

    @AfterAll
    static void stop() throws IOException {
        if (server != null) {
            server.close();
        }
        if (api != null) {
            api.close();
        }
        if (engine != null) {
            engine.close();
        }
    }

    private static void write(Path base, String[][] files) throws IOException {
        for (String[] f : files) {
            Path p = base.resolve(f[0]);
            Files.createDirectories(p.getParent());
            Files.writeString(p, f[1]);
        }
    }

    /** A request target: joined segments, mostly from the pool, sometimes with a query, host prefix or absolute form. */
    static String target(Random r) {
        StringBuilder sb = new StringBuilder();
        switch (r.nextInt(12)) {
            case 0 -> sb.append("/host/").append(r.nextBoolean() ? HOST.toString() : "static-fuzz");
            case 1 -> sb.append("http://127.0.0.1:19999");
            case 2 -> sb.append("/host/").append(SEGMENTS[r.nextInt(SEGMENTS.length)]);
            default -> { }
        }
        int segments = r.nextInt(8);
        for (int i = 0; i < segments; i++) {
            sb.append(i == 0 && r.nextInt(8) != 0 ? "/" : JOINS[r.nextInt(JOINS.length)]);
            if (r.nextInt(10) == 0) {
                int n = 1 + r.nextInt(6);
                for (int c = 0; c < n; c++) {
                    sb.append((char) (r.nextInt(6) == 0 ? r.nextInt(0x800) : 0x20 + r.nextInt(0x5F)));
                }
            } else {
                sb.append(SEGMENTS[r.nextInt(SEGMENTS.length)]);
            }
        }
        if (sb.length() == 0 || r.nextInt(10) == 0) {
            sb.append('/');
        }
        if (r.nextInt(10) == 0) {
            sb.append(r.nextBoolean() ? "?" : "#").append(SEGMENTS[r.nextInt(SEGMENTS.length)]);
        }
        return sb.toString();
    }

    @Test
    void staticPathsNeverLeaveTheWebDirectory() throws Exception {
        long inputs = Fuzz.inputs();
        long bySocket = Math.min(inputs / 100, 2000);
        long[] served = {0};
        Set<String> publicContents = Set.of(PUBLIC[0][1], PUBLIC[1][1], PUBLIC[2][1], PUBLIC[3][1], PUBLIC[4][1],
                PUBLIC[5][1]);
        Fuzz.Result run = Fuzz.run("static file paths", SEED, inputs, in -> {
            Random r = in.random();
            String target = target(r);
            in.show(target);
            int status;
            String body;
            if (in.index() < bySocket) {
                String[] answer = overSocket(target);
                if (answer == null) {
                    return; // a target the request line cannot carry (space, CR, LF): the router part covers it
                }
                status = Integer.parseInt(answer[0]);
                body = answer[1];
            } else {
                int q = target.indexOf('?');
                String path = q < 0 ? target : target.substring(0, q);
                int hash = path.indexOf('#');
                path = hash < 0 ? path : path.substring(0, hash);
                if (!path.startsWith("/")) {
                    int slash = path.indexOf('/', path.indexOf("://") + 3);
                    path = slash < 0 ? "/" : path.substring(slash);
                }
                try {
                    ApiResponse resp = ApiRouter.route(api, services, path, q < 0 ? null : target.substring(q + 1),
                            PooledByteBufAllocator.DEFAULT, "fuzz", null);
                    try {
                        status = resp.status().code();
                        body = resp.body().toString(StandardCharsets.UTF_8);
                    } finally {
                        resp.body().release();
                    }
                } catch (ApiError e) {
                    status = e.status().code();
                    body = e.getMessage();
                    assertTrue(!body.isEmpty(), "an error with a message");
                }
            }
            assertTrue(status == 200 || status >= 300 && status < 500, target + " -> " + status + " " + body);
            assertTrue(!body.contains("SECRET"), target + " -> " + status + " served a file it must not: " + body);
            if (status == 200 && !path(target).contains("/api/")) {
                // anything but the API: a static file, and then one of the public ones
                assertTrue(publicContents.contains(body), target + " -> 200 with " + body);
                served[0]++;
            }
        });
        assertTrue(served[0] > run.inputs() / 50, "the fuzzer should reach public files too, got " + served[0]);
    }

    private static String path(String target) {
        int q = target.indexOf('?');
        return ApiRouter.routedPath(q < 0 ? target : target.substring(0, q));
    }

    /** {status, body} of a raw GET over a socket, or null when the target cannot go in a request line. */
    private static String[] overSocket(String target) throws IOException {
        for (int i = 0; i < target.length(); i++) {
            char c = target.charAt(i);
            if (c == ' ' || c == '\r' || c == '\n' || c > 0xFF) {
                return null;
            }
        }
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", server.port()), 5000);
            s.setSoTimeout(10_000);
            OutputStream out = s.getOutputStream();
            out.write(("GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            InputStream inStream = s.getInputStream();
            String response = new String(inStream.readAllBytes(), StandardCharsets.ISO_8859_1);
            assertTrue(response.startsWith("HTTP/1.1 "), target + " -> " + response);
            int end = response.indexOf("\r\n\r\n");
            assertTrue(end > 0, target + " -> " + response);
            return new String[] {response.substring(9, 12), response.substring(end + 4)};
        }
    }
}
