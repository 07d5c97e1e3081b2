package io.strata.streaming.config;

/**
 * A line of a Netdata-style configuration file that cannot be understood. The message starts with
 * {@code file:line: } so an operator can go straight to it.
 */
public final class IniException extends Exception {

    private static final long serialVersionUID = 1L;

    private final String file;
    private final int line;

    public IniException(String file, int line, String problem) {
        super(file + ":" + line + ": " + problem);
        this.file = file;
        this.line = line;
    }

    /** The file name given to the parser (a path or a label such as {@code stream.conf}). */
    public String file() {
        return file;
    }

    /** 1-based line number. */
    public int line() {
        return line;
    }
}
