package io.strata.node.collect;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** Looks up where a block device is mounted, in {@code /proc/self/mountinfo} (read when a new disk appears). */
final class Mountinfo {

    private Mountinfo() {
    }

    /** The mount point of the first mount of {@code major:minor}, or null (not mounted, or no file). */
    static String mountPointOf(Path mountinfo, long major, long minor) {
        String wanted = major + ":" + minor;
        try {
            for (String line : Files.readAllLines(mountinfo, StandardCharsets.UTF_8)) {
                // "27 1 254:0 / / rw,relatime - ext4 /dev/vda rw": id, parent, major:minor, root, mount point
                String[] f = line.split(" ");
                if (f.length > 4 && f[2].equals(wanted)) {
                    return unescape(f[4]);
                }
            }
        } catch (IOException e) {
            return null;
        }
        return null;
    }

    /** The kernel writes space, tab, newline and backslash in paths as octal escapes (\040). */
    static String unescape(String s) {
        if (s.indexOf('\\') < 0) {
            return s;
        }
        StringBuilder b = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '\\' && isOctal(s, i + 1) && isOctal(s, i + 2) && isOctal(s, i + 3)) {
                b.append((char) Integer.parseInt(s.substring(i + 1, i + 4), 8));
                i += 3;
            } else {
                b.append(c);
            }
        }
        return b.toString();
    }

    private static boolean isOctal(String s, int i) {
        return i < s.length() && s.charAt(i) >= '0' && s.charAt(i) <= '7';
    }
}
