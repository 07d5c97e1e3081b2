package io.strata.exporting.remotewrite;

import io.strata.exporting.prompb.Types;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The labels of one series as remote write 1.0 requires them: names valid ({@code [a-zA-Z_][a-zA-Z0-9_]*},
 * {@code __name__} first by sorting), sorted by name, each name once, no empty value. Built once per series
 * and kept as the serialized {@code labels} fields of a {@code TimeSeries}, so that a request only appends
 * the samples after them.
 */
public final class LabelSet {

    private final List<String[]> labels;
    private final byte[] serialized;

    private LabelSet(List<String[]> labels) {
        this.labels = labels;
        Types.TimeSeries.Builder ts = Types.TimeSeries.newBuilder();
        for (String[] l : labels) {
            ts.addLabels(Types.Label.newBuilder().setName(l[0]).setValue(l[1]));
        }
        this.serialized = ts.build().toByteArray();
    }

    /** The {@code labels} fields of a {@code TimeSeries} message (field 1, repeated), ready to copy. */
    public byte[] serializedLabels() {
        return serialized;
    }

    /** name, value pairs in order. */
    public List<String[]> labels() {
        return labels;
    }

    public String value(String name) {
        for (String[] l : labels) {
            if (l[0].equals(name)) {
                return l[1];
            }
        }
        return null;
    }

    @Override
    public String toString() {
        StringBuilder b = new StringBuilder("{");
        for (String[] l : labels) {
            b.append(b.length() > 1 ? ", " : "").append(l[0]).append("=\"").append(l[1]).append('"');
        }
        return b.append('}').toString();
    }

    /** Collects labels: the first value given for a name wins, empty values are left out. */
    public static final class Builder {
        private final List<String[]> labels = new ArrayList<>();
        private int duplicates;

        /** Adds {@code name = value} unless the name is taken or the value is empty; the name must be valid. */
        public Builder add(String name, String value) {
            if (!validName(name)) {
                throw new IllegalArgumentException("not a Prometheus label name: '" + name + "'");
            }
            if (value == null || value.isEmpty()) {
                return this;
            }
            for (String[] l : labels) {
                if (l[0].equals(name)) {
                    duplicates++;
                    return this;
                }
            }
            labels.add(new String[] {name, value});
            return this;
        }

        /** Adds each of {@code more} (names made valid the way Netdata makes them) after the labels already added. */
        public Builder addAll(Map<String, String> more) {
            more.entrySet().stream().sorted(Map.Entry.comparingByKey()).forEach(e -> {
                String name = NetdataNames.name(e.getKey());
                if (!name.isEmpty() && name.charAt(0) >= '0' && name.charAt(0) <= '9') {
                    name = "_" + name;
                }
                if (!name.isEmpty() && !name.startsWith("__")) {
                    add(name, NetdataNames.labelValue(e.getValue()));
                }
            });
            return this;
        }

        /** Labels dropped because their name was already taken. */
        public int duplicates() {
            return duplicates;
        }

        public LabelSet build() {
            if (labels.isEmpty() || !labels.stream().anyMatch(l -> l[0].equals("__name__"))) {
                throw new IllegalStateException("a series needs __name__");
            }
            List<String[]> sorted = new ArrayList<>(labels);
            sorted.sort((a, b) -> a[0].compareTo(b[0]));
            return new LabelSet(List.copyOf(sorted));
        }
    }

    static boolean validName(String name) {
        if (name == null || name.isEmpty()) {
            return false;
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            boolean ok = c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (i > 0 && c >= '0' && c <= '9');
            if (!ok) {
                return false;
            }
        }
        return true;
    }
}
