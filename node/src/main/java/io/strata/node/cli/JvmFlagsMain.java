package io.strata.node.cli;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.jar.Attributes;
import java.util.jar.JarFile;

/**
 * Prints the JVM flags of jvm.properties that the build wrote into this jar's manifest, for the
 * launchers that have the jar and not the source tree (the container's entrypoint):
 * {@code java -cp strata-node.jar io.strata.node.cli.JvmFlagsMain [node]} prints
 * {@code Strata-Jvm-Flags}, and with {@code node} also {@code Strata-Jvm-Node-Flags}, on one line.
 * A plain main class, not a command of the CLI: it runs without the flags it prints, so it loads
 * nothing but the manifest.
 */
public final class JvmFlagsMain {

    static final String FLAGS = "Strata-Jvm-Flags";
    static final String NODE_FLAGS = "Strata-Jvm-Node-Flags";

    private JvmFlagsMain() {
    }

    public static void main(String[] args) throws IOException, URISyntaxException {
        boolean node = args.length > 0 && args[0].equals("node");
        Path jar = Path.of(JvmFlagsMain.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        Attributes main;
        try (JarFile f = new JarFile(jar.toFile())) {
            main = f.getManifest() == null ? null : f.getManifest().getMainAttributes();
        } catch (IOException e) {
            main = null; // not run from a jar (a build's classes directory): there is no manifest
        }
        String flags = main == null ? null : main.getValue(FLAGS);
        if (flags == null) {
            System.err.println("strata: " + jar + " has no " + FLAGS + " in its manifest");
            System.exit(2);
        }
        String nodeFlags = main.getValue(NODE_FLAGS);
        System.out.println(node && nodeFlags != null ? flags + " " + nodeFlags : flags);
    }
}
