package io.strata.query.api;

import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.strata.query.http.ApiError;
import io.strata.query.http.ApiRequest;
import io.strata.query.http.ApiResponse;
import io.strata.query.http.ContentTypes;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Locale;
import java.util.Map;

/**
 * The dashboard's static files from the web directory, so that Netdata's dashboard loads from the
 * same origin as the API: {@code /} is {@code index.html}, a directory its {@code index.html}.
 * A path never leaves the directory and never names a dotfile: segments starting with {@code .}
 * (so {@code ..} too), NUL and backslashes are refused before
 * the path is resolved, and the resolved path must still lie under the directory.
 */
public final class StaticFiles {

    /** Larger files are refused (the whole file is read into memory; the dashboard's largest is ~400 KB). */
    static final long MAX_FILE_BYTES = 32L << 20;

    private static final Map<String, String> TYPES = Map.ofEntries(
            Map.entry("html", ContentTypes.TEXT_HTML),
            Map.entry("htm", ContentTypes.TEXT_HTML),
            Map.entry("js", ContentTypes.JAVASCRIPT),
            Map.entry("css", "text/css; charset=utf-8"),
            Map.entry("json", ContentTypes.JSON),
            Map.entry("map", ContentTypes.JSON),
            Map.entry("txt", ContentTypes.TEXT_PLAIN),
            Map.entry("xml", "text/xml; charset=utf-8"),
            Map.entry("svg", ContentTypes.SVG),
            Map.entry("png", "image/png"),
            Map.entry("jpg", "image/jpeg"),
            Map.entry("jpeg", "image/jpeg"),
            Map.entry("gif", "image/gif"),
            Map.entry("ico", "image/x-icon"),
            Map.entry("woff", "application/font-woff"),
            Map.entry("woff2", "application/font-woff2"),
            Map.entry("ttf", "application/x-font-truetype"),
            Map.entry("otf", "application/x-font-opentype"),
            Map.entry("eot", "application/vnd.ms-fontobject"));

    private StaticFiles() {
    }

    public static ApiResponse serve(ApiRequest req) throws IOException {
        Path root = req.context().webDirectory();
        String path = req.path();
        Path file = resolve(root, path);
        if (file != null && Files.isDirectory(file)) {
            file = file.resolve("index.html");
        }
        if (file == null || !Files.isRegularFile(file) || !Files.isReadable(file)) {
            throw notFound(path);
        }
        long size = Files.size(file);
        if (size > MAX_FILE_BYTES) {
            throw new ApiError(HttpResponseStatus.FORBIDDEN, ContentTypes.TEXT_HTML,
                    "File is too big to be served: " + htmlEscape(path));
        }
        ByteBuf buf = req.alloc().buffer((int) size);
        boolean ok = false;
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            long position = 0;
            while (position < size) {
                int n = buf.writeBytes(ch, position, (int) Math.min(size - position, 1 << 20));
                if (n < 0) {
                    break;
                }
                position += n;
            }
            ok = true;
        } finally {
            if (!ok) {
                buf.release();
            }
        }
        return ApiResponse.ok(contentType(file), buf, ApiResponse.Caching.PUBLIC);
    }

    /** The file {@code urlPath} names under {@code root}, or null when the path is not acceptable. */
    static Path resolve(Path root, String urlPath) {
        if (root == null) {
            return null;
        }
        String p = urlPath;
        if (p.indexOf('\0') >= 0 || p.indexOf('\\') >= 0) {
            return null;
        }
        while (p.startsWith("/")) {
            p = p.substring(1);
        }
        if (p.isEmpty()) {
            p = "index.html";
        }
        for (String segment : p.split("/")) {
            // dotfiles and dot-directories (.htpasswd, .git, .well-known) are never part of the dashboard
            if (segment.startsWith(".")) {
                return null;
            }
        }
        Path base = root.toAbsolutePath().normalize();
        // symbolic links inside the directory are the administrator's choice and are followed
        Path file = base.resolve(p).normalize();
        return file.startsWith(base) ? file : null;
    }

    static String contentType(Path file) {
        String name = file.getFileName().toString();
        int dot = name.lastIndexOf('.');
        String ext = dot < 0 ? "" : name.substring(dot + 1).toLowerCase(Locale.ROOT);
        return TYPES.getOrDefault(ext, ContentTypes.OCTET_STREAM);
    }

    static ApiError notFound(String path) {
        return new ApiError(HttpResponseStatus.NOT_FOUND, ContentTypes.TEXT_HTML,
                "File does not exist, or is not accessible: " + htmlEscape(path));
    }

    /** Netdata escapes what it echoes into an HTML answer; so do we, or a URL could inject markup. */
    public static String htmlEscape(String s) {
        StringBuilder sb = new StringBuilder(s.length() + 16);
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '&' -> sb.append("&amp;");
                case '<' -> sb.append("&lt;");
                case '>' -> sb.append("&gt;");
                case '"' -> sb.append("&quot;");
                case '\'' -> sb.append("&#39;");
                case '/' -> sb.append("&#x2F;");
                default -> sb.append(c);
            }
        }
        return sb.toString();
    }
}
