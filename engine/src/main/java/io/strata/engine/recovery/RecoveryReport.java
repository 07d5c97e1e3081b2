package io.strata.engine.recovery;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.UUID;

/**
 * What opening (or verifying) a database found: each damaged place, what was done about it, and
 * exactly which metrics and time ranges were lost there. Thread-safe; filled while tiers open.
 */
public final class RecoveryReport {

    /** A metric's points that could not be read back, as a closed range of unsigned seconds. */
    public record LostRange(UUID metric, int tier, long firstTime, long lastTime) {
        @Override
        public String toString() {
            return "tier " + tier + " metric " + metric + " [" + firstTime + ", " + lastTime + "]";
        }
    }

    /** One damaged place in one file. */
    public record Finding(String file, long offset, String problem, String action, List<LostRange> lost) {
        public Finding {
            lost = List.copyOf(lost);
        }

        @Override
        public String toString() {
            StringBuilder sb = new StringBuilder();
            sb.append(file).append(" @").append(offset).append(": ").append(problem).append(" -> ").append(action);
            if (!lost.isEmpty()) {
                sb.append("; lost ").append(lost.size()).append(" page(s): ");
                for (int i = 0; i < lost.size() && i < 8; i++) {
                    sb.append(i == 0 ? "" : ", ").append(lost.get(i));
                }
                if (lost.size() > 8) {
                    sb.append(", ...");
                }
            }
            return sb.toString();
        }
    }

    private final List<Finding> findings = new ArrayList<>();
    private final List<String> notes = new ArrayList<>();

    public synchronized void add(Finding f) {
        findings.add(f);
    }

    public void add(String file, long offset, String problem, String action) {
        add(new Finding(file, offset, problem, action, List.of()));
    }

    /** Something repaired or rebuilt without loss (e.g. journal v2 rebuilt from v1). */
    public synchronized void note(String message) {
        notes.add(message);
    }

    public synchronized List<Finding> findings() {
        return Collections.unmodifiableList(new ArrayList<>(findings));
    }

    public synchronized List<String> notes() {
        return Collections.unmodifiableList(new ArrayList<>(notes));
    }

    /** True when no damage was found (notes of repairs without loss do not count). */
    public synchronized boolean intact() {
        return findings.isEmpty();
    }

    /** Every lost range of every finding. */
    public synchronized List<LostRange> lostRanges() {
        List<LostRange> all = new ArrayList<>();
        for (Finding f : findings) {
            all.addAll(f.lost());
        }
        return all;
    }
}
