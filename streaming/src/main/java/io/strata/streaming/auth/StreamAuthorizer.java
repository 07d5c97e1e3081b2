package io.strata.streaming.auth;

import io.strata.engine.meta.HostInfo;
import io.strata.engine.netdata.SimplePattern;
import io.strata.streaming.handshake.Capabilities;
import io.strata.streaming.handshake.HandshakeReplies;
import io.strata.streaming.handshake.StreamRequest;
import io.strata.streaming.server.LogText;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Collection;
import java.util.HexFormat;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.HashMap;
import java.util.HashSet;

/**
 * The parent's decision on a {@code STREAM} request, in Netdata 1.37.1's order (docs/protocol/netdata-stream.md §2.2):
 * <ol>
 *   <li>{@code key}, {@code hostname}, {@code machine_guid} present; key and machine GUID are UUIDs;</li>
 *   <li>the API-key section: {@code type} is {@code api}, {@code enabled = yes}, {@code allow from}
 *       matches the client IP;</li>
 *   <li>the machine-GUID section (optional): {@code type} is {@code machine}, not {@code enabled = no},
 *       {@code allow from} matches;</li>
 *   <li>the rate limit ({@code [web] accept a streaming request every seconds});</li>
 *   <li>a receiver for the same machine GUID that got data in the last 30 s refuses the newcomer; an
 *       older one is replaced;</li>
 *   <li>the parent's own machine GUID is refused;</li>
 *   <li>(Strata's, not Netdata's) a machine GUID new to the API key is refused when the key has had
 *       {@code max hosts per api key} hosts: the hosts it brought since this parent started and,
 *       counted at start by {@link #countStoredHosts}, the stored hosts that last streamed in with it.</li>
 * </ol>
 * The web-server level {@code [web] allow streaming from} check comes before all this and is the
 * listener's job. The child only ever sees Netdata's fixed texts; {@link Decision#logMessage()} says
 * precisely why, for the operator.
 *
 * <p>Thread-safe: {@link #decide} may be called concurrently (the rate limit is shared).
 */
public final class StreamAuthorizer {

    /** Seconds without data after which a receiver for the same GUID is replaced instead of refusing. */
    public static final int DUPLICATE_RECEIVER_STALE_SECONDS = 30;

    /** What the parent knows about receivers that are running now. */
    public interface LiveReceivers {
        /** Wall-clock millis of the last data received for this machine GUID, or -1 when none is live. */
        long lastDataMillis(String machineGuid);

        /** The {@code hops} of the live receiver of this machine GUID, -1 when none is live or unknown. */
        default int liveHops(String machineGuid) {
            return -1;
        }
    }

    /**
     * What the API-key and machine-GUID sections (over the parent's defaults) say for the accepted host.
     *
     * @param updateEvery    the GUID section's {@code update every}, else the child's {@code update_every},
     *                       else the parent's own; at least 1
     * @param history        at least 5, as in Netdata
     * @param compression    {@code [stream] enable compression} AND the key's AND the GUID's
     * @param proxyEnabled   true only when enabled and both destination and api key are non-empty
     * @param hostTags       the GUID section's {@code host tags}, else the request's {@code tags}
     *                       (Netdata 1.37.1 itself only uses the request's)
     * @param maxChartsPerHost     {@code max charts per host} of the GUID section, else of the key's (≤ 0: none)
     * @param maxDimensionsPerHost {@code max dimensions per host} likewise
     */
    public record EffectiveSettings(int updateEvery, long history, String memoryMode, HealthSetting health,
            long postponeAlarmsOnConnectSeconds, boolean compression, boolean replication, long secondsToReplicate,
            long secondsPerReplicationStep, boolean proxyEnabled, String proxyDestination, String proxyApiKey,
            String proxySendChartsMatching, String hostTags, long maxChartsPerHost, long maxDimensionsPerHost) {

        /** Settings with Strata's default per-host totals. */
        public EffectiveSettings(int updateEvery, long history, String memoryMode, HealthSetting health,
                long postponeAlarmsOnConnectSeconds, boolean compression, boolean replication,
                long secondsToReplicate, long secondsPerReplicationStep, boolean proxyEnabled,
                String proxyDestination, String proxyApiKey, String proxySendChartsMatching, String hostTags) {
            this(updateEvery, history, memoryMode, health, postponeAlarmsOnConnectSeconds, compression, replication,
                    secondsToReplicate, secondsPerReplicationStep, proxyEnabled, proxyDestination, proxyApiKey,
                    proxySendChartsMatching, hostTags, StreamConfig.DEFAULT_MAX_CHARTS_PER_HOST,
                    StreamConfig.DEFAULT_MAX_DIMENSIONS_PER_HOST);
        }
    }

    /**
     * The outcome of {@link #decide}.
     *
     * @param accepted                whether the stream may start
     * @param reply                   the exact bytes to write, in one write, before anything else
     * @param closeAfterReply         true for every refusal: write the reply, then close
     * @param negotiatedCaps          the capabilities in force for the stream (0 when refused)
     * @param replaceExistingReceiver accepted while a stale receiver for the same GUID exists: shut it down
     * @param settings                the host's settings when accepted, {@code null} when refused
     * @param logMessage              one line for the operator saying what was decided and why
     */
    public record Decision(boolean accepted, byte[] reply, boolean closeAfterReply, long negotiatedCaps,
            boolean replaceExistingReceiver, EffectiveSettings settings, String logMessage) {

        /** How a 1.37.1 child reads {@link #reply()}. */
        public HandshakeReplies.Kind kind() {
            return HandshakeReplies.parseReply(reply, reply.length).kind();
        }
    }

    private final StreamConfig conf;
    private final boolean globalCompression;
    private final long parentCapabilities;
    private final String localMachineGuid;
    private final int acceptEverySeconds;
    /** Per client address, the second of its last accepted stream (within the rate-limit window only). */
    private final HashMap<String, Long> lastAcceptedSecondByAddress = new HashMap<>();
    /**
     * Per API key (by its {@link #streamKeyDigest}), the machine GUIDs that last came in with it: the
     * stored ones counted at start and those accepted since, for {@code max hosts per api key}. A set
     * grows past its key's limit only when the limit was lowered over stored hosts; keys without a
     * limit get no set for new hosts. A GUID is in one set at most. Guarded by itself.
     */
    private final HashMap<String, HashSet<String>> hostsByKey = new HashMap<>();
    /** Bound on the addresses remembered; past it, stale ones are dropped and, if none is stale, new ones wait. */
    static final int MAX_RATE_LIMITED_ADDRESSES = 65_536;

    /**
     * @param conf               the parent's stream.conf
     * @param globalCompression  the parent's {@code [stream] enable compression} (normally
     *                           {@code conf.sender().enableCompression()})
     * @param parentCapabilities what this parent implements, normally {@link Capabilities#NETDATA_1_37_1}
     * @param localMachineGuid   the parent's own machine GUID
     * @param acceptEverySeconds {@code [web] accept a streaming request every seconds}, per client address
     *                           (Netdata: one slot for everyone, so one busy client locks all others out);
     *                           0 = unlimited
     */
    public StreamAuthorizer(StreamConfig conf, boolean globalCompression, long parentCapabilities,
            String localMachineGuid, int acceptEverySeconds) {
        this.conf = Objects.requireNonNull(conf, "conf");
        this.globalCompression = globalCompression;
        this.parentCapabilities = parentCapabilities;
        this.localMachineGuid = Uuids.canonical(Objects.requireNonNull(localMachineGuid, "localMachineGuid"));
        if (acceptEverySeconds < 0) {
            throw new IllegalArgumentException("acceptEverySeconds must be >= 0, got " + acceptEverySeconds);
        }
        this.acceptEverySeconds = acceptEverySeconds;
    }

    /**
     * Decides on one request.
     *
     * @param remoteIp  the client address as text, matched against {@code allow from}
     * @param nowMillis wall-clock time (the rate limit and the 30 s rule work in whole seconds, as Netdata)
     * @param live      the receivers running now
     */
    public Decision decide(StreamRequest req, String remoteIp, long nowMillis, LiveReceivers live) {
        Objects.requireNonNull(req, "req");
        Objects.requireNonNull(live, "live");
        String who = "STREAM '" + LogText.escape(req.hostname()) + "' from [" + LogText.escape(remoteIp)
                + "] machine_guid '" + LogText.escape(req.machineGuid()) + "' api key '" + LogText.maskKey(req.key())
                + "'";
        // one canonical form before any lookup or comparison (sections, own GUID, live receivers)
        String key = Uuids.canonical(req.key());
        String guid = Uuids.canonical(req.machineGuid());

        if (key.isEmpty()) {
            return notPermitted(who, "the request has no API key (key=)");
        }
        if (req.hostname().isEmpty()) {
            return notPermitted(who, "the request has no hostname");
        }
        if (guid.isEmpty()) {
            return notPermitted(who, "the request has no machine_guid");
        }
        if (!Uuids.isUuid(key)) {
            return notPermitted(who, "the API key is not a UUID (generate one with uuidgen)");
        }
        if (!Uuids.isUuid(guid)) {
            return notPermitted(who, "the machine_guid is not a UUID");
        }

        StreamConfig.KeySection keySection = conf.apiKey(key).orElse(null);
        if (keySection != null && !keySection.type().equals("api")) {
            return notPermitted(who, "section [" + LogText.maskKey(key) + "] (" + keySection.location() + ") has type = '"
                    + keySection.type() + "', not 'api', so it cannot be used as an API key");
        }
        if (keySection == null) {
            return notPermitted(who, "the API key has no section in " + conf.ini().fileName()
                    + " (a key needs its section with enabled = yes)");
        }
        if (!keySection.enabled()) {
            return notPermitted(who, "API key section [" + LogText.maskKey(key) + "] (" + keySection.location()
                    + ") is not enabled (it needs enabled = yes)");
        }
        if (!allowed(keySection.allowFromPattern(), remoteIp)) {
            return notPermitted(who, "API key [" + LogText.maskKey(key) + "] is not allowed from " + remoteIp
                    + " (allow from = '" + keySection.allowFrom() + "' in the section at " + keySection.location()
                    + ")");
        }

        StreamConfig.MachineSection machine = conf.machine(guid).orElse(null);
        if (key.equals(guid) && !keySection.typeExplicit()) {
            // Netdata reads the key's type with the default "api" and so writes that default into the
            // shared section; the machine-GUID check then finds "api"
            return notPermitted(who, "the API key and the machine GUID are the same string; section [" + guid
                    + "] (" + keySection.location() + ") then counts as an API key and cannot be a machine GUID");
        }
        if (machine != null && !machine.type().equals("machine")) {
            return notPermitted(who, "section [" + guid + "] (" + machine.location() + ") has type = '"
                    + machine.type() + "', not 'machine', so it cannot be used as a machine GUID");
        }
        if (machine != null && !machine.enabled()) {
            return notPermitted(who, "machine GUID section [" + guid + "] (" + machine.location()
                    + ") disables this child (enabled = no)");
        }
        if (machine != null && !allowed(machine.allowFromPattern(), remoteIp)) {
            return notPermitted(who, "machine GUID [" + guid + "] is not allowed from " + remoteIp
                    + " (allow from = '" + machine.allowFrom() + "' in the section at " + machine.location() + ")");
        }

        long nowSecond = Math.floorDiv(nowMillis, 1000L);
        if (acceptEverySeconds > 0) {
            synchronized (lastAcceptedSecondByAddress) {
                Long last = lastAcceptedSecondByAddress.get(remoteIp);
                if (last != null && nowSecond - last < acceptEverySeconds) {
                    long wait = acceptEverySeconds - (nowSecond - last);
                    return refused(HandshakeReplies.Kind.BUSY, who, "rate limit: one new stream every "
                            + acceptEverySeconds + " s from an address ([web] accept a streaming request every"
                            + " seconds); next in " + wait + " s");
                }
                if (last == null && lastAcceptedSecondByAddress.size() >= MAX_RATE_LIMITED_ADDRESSES) {
                    lastAcceptedSecondByAddress.values().removeIf(s -> nowSecond - s >= acceptEverySeconds);
                    if (lastAcceptedSecondByAddress.size() >= MAX_RATE_LIMITED_ADDRESSES) {
                        return refused(HandshakeReplies.Kind.BUSY, who, "rate limit: " + MAX_RATE_LIMITED_ADDRESSES
                                + " addresses got a stream in the last " + acceptEverySeconds + " s");
                    }
                }
                lastAcceptedSecondByAddress.put(remoteIp, nowSecond);
            }
        }

        boolean replace = false;
        int hopsReplace = 0;
        long lastData = live.lastDataMillis(guid);
        long age = 0;
        if (lastData >= 0) {
            age = nowSecond - Math.floorDiv(lastData, 1000L);
            int liveHops = live.liveHops(guid);
            if (age > DUPLICATE_RECEIVER_STALE_SECONDS) {
                replace = true;
            } else if (liveHops > 0 && req.hops() > 0 && req.hops() < liveHops) {
                // The host itself (or a parent nearer to it) while another parent forwards it: the
                // nearer stream wins. In a cluster this is the child failing over from a dead parent
                // whose forwarded copy of it may not have been closed yet here.
                replace = true;
                hopsReplace = liveHops;
            } else {
                return refused(HandshakeReplies.Kind.ALREADY_STREAMING, who, "a receiver for this machine GUID is"
                        + " live (last data " + age + " s ago, within " + DUPLICATE_RECEIVER_STALE_SECONDS
                        + " s)");
            }
        }

        if (guid.equals(localMachineGuid)) {
            return refused(HandshakeReplies.Kind.LOCALHOST, who, "the machine GUID is this parent's own (a copied"
                    + " machine GUID, or a streaming loop)");
        }

        long maxHosts = keySection.maxHostsPerApiKey();
        String digest = streamKeyDigest(key);
        synchronized (hostsByKey) {
            HashSet<String> hosts = hostsByKey.get(digest);
            if (hosts == null || !hosts.contains(guid)) {
                int held = hosts == null ? 0 : hosts.size();
                if (maxHosts > 0 && held >= maxHosts) {
                    return notPermitted(who, "API key [" + LogText.maskKey(key) + "] already has " + held
                            + " hosts, its limit (" + StreamConfig.MAX_HOSTS_PER_API_KEY + " = " + maxHosts
                            + "; section at " + keySection.location() + "); a new machine GUID is refused"
                            + " (remove an obsolete host with DELETE /api/v1/manage/host?host=...)");
                }
                // the host now counts under this key only, as its stored metadata will say
                forgetHostLocked(guid);
                if (maxHosts > 0) {
                    hostsByKey.computeIfAbsent(digest, k -> new HashSet<>()).add(guid);
                }
            }
        }

        EffectiveSettings settings = settings(req, keySection, Optional.ofNullable(machine));
        long offered = req.offeredVersion();
        long offeredNormalised = Capabilities.normalise(offered);
        long negotiated = Capabilities.negotiateAsParent(offered, parentCapabilities);
        if (!settings.compression()) {
            negotiated &= ~Capabilities.COMPRESSIONS;
        }
        byte[] reply = HandshakeReplies.accepted(negotiated, offeredNormalised);
        StringBuilder log = new StringBuilder(who).append(": accepted; offered ")
                .append(req.ver() >= 0 ? "ver=" + req.ver() : "no ver (version " + offered + ")")
                .append(" [").append(Capabilities.names(offeredNormalised)).append("], negotiated ")
                .append(negotiated).append(" [").append(Capabilities.names(negotiated)).append(']');
        if ((offeredNormalised & Capabilities.COMPRESSIONS) != 0 && !settings.compression()) {
            log.append("; compression disabled by stream.conf");
        }
        if (hopsReplace > 0) {
            log.append("; replacing the receiver of this machine GUID forwarded with hops=").append(hopsReplace)
                    .append(" by this one with hops=").append(req.hops());
        } else if (replace) {
            log.append("; replacing the previous receiver of this machine GUID (last data ").append(age)
                    .append(" s ago)");
        }
        return new Decision(true, reply, false, negotiated, replace, settings, log.toString());
    }

    /**
     * Forgets a machine GUID in every API key's count of hosts (the host was removed): a new host may
     * take its place.
     */
    public void forgetHost(String machineGuid) {
        String guid = Uuids.canonical(machineGuid);
        synchronized (hostsByKey) {
            forgetHostLocked(guid);
        }
    }

    private void forgetHostLocked(String guid) {
        hostsByKey.values().removeIf(hosts -> hosts.remove(guid) && hosts.isEmpty());
    }

    /**
     * Counts the hosts this parent holds from before its start under the API key each last streamed
     * in with ({@link HostInfo#streamKeyDigest()}), so that a restart does not reset
     * {@code max hosts per api key}. Hosts without a digest (the parent's own, or stored before the
     * digest was) count under no key. Call once at start, before the port opens.
     *
     * @return how many stored hosts were counted
     */
    public int countStoredHosts(Collection<HostInfo> storedHosts) {
        int counted = 0;
        synchronized (hostsByKey) {
            for (HostInfo h : storedHosts) {
                if (!h.streamKeyDigest().isEmpty()) {
                    String guid = Uuids.canonical(h.machineGuid().toString());
                    forgetHostLocked(guid);
                    hostsByKey.computeIfAbsent(h.streamKeyDigest(), k -> new HashSet<>()).add(guid);
                    counted++;
                }
            }
        }
        return counted;
    }

    /** Machine GUIDs counted against {@code max hosts per api key} for this key. */
    public int hostsOfKey(String apiKey) {
        synchronized (hostsByKey) {
            HashSet<String> hosts = hostsByKey.get(streamKeyDigest(apiKey));
            return hosts == null ? 0 : hosts.size();
        }
    }

    /**
     * What the metadata stores of the API key a host streamed in with ({@link HostInfo#streamKeyDigest()},
     * docs/format/metadata.md): the lowercase hex of the first 16 bytes of the SHA-256 of the key's
     * canonical text. The key is a credential: a copy of the metadata must not carry it.
     */
    public static String streamKeyDigest(String apiKey) {
        byte[] sha;
        try {
            sha = MessageDigest.getInstance("SHA-256").digest(Uuids.canonical(apiKey).getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
        return HexFormat.of().formatHex(sha, 0, 16);
    }

    private EffectiveSettings settings(StreamRequest req, StreamConfig.KeySection key,
            Optional<StreamConfig.MachineSection> machine) {
        HostDefaults defaults = conf.hostDefaults();
        long childUpdateEvery = req.updateEvery() > 0 ? req.updateEvery() : defaults.updateEvery();
        // C truncates the configured number to int, then only fixes negative values; 0 is fixed here too
        int updateEvery = (int) (long) machine.flatMap(m -> boxed(m.updateEvery())).orElse(childUpdateEvery);
        if (updateEvery < 1) {
            updateEvery = 1;
        }
        long history = machine.flatMap(m -> boxed(m.history())).orElse(key.defaultHistory());
        if (history < 5) {
            history = 5;
        }
        String memoryMode = machine.flatMap(StreamConfig.MachineSection::memoryMode).orElse(key.defaultMemoryMode());
        HealthSetting health = machine.flatMap(StreamConfig.MachineSection::healthEnabled)
                .orElse(key.healthEnabledByDefault());
        long postpone = machine.flatMap(m -> boxed(m.postponeAlarmsOnConnectSeconds()))
                .orElse(key.defaultPostponeAlarmsOnConnectSeconds());
        boolean proxyConfigured = machine.flatMap(StreamConfig.MachineSection::proxyEnabled)
                .orElse(key.defaultProxyEnabled());
        String proxyDestination = machine.flatMap(StreamConfig.MachineSection::proxyDestination)
                .orElse(key.defaultProxyDestination());
        String proxyApiKey = machine.flatMap(StreamConfig.MachineSection::proxyApiKey)
                .orElse(key.defaultProxyApiKey());
        String proxyCharts = machine.flatMap(StreamConfig.MachineSection::proxySendChartsMatching)
                .orElse(key.defaultProxySendChartsMatching());
        boolean replication = machine.flatMap(StreamConfig.MachineSection::enableReplication)
                .orElse(key.enableReplication());
        long secondsToReplicate = machine.flatMap(m -> boxed(m.secondsToReplicate())).orElse(key.secondsToReplicate());
        long step = machine.flatMap(m -> boxed(m.secondsPerReplicationStep())).orElse(key.secondsPerReplicationStep());
        boolean compression = globalCompression
                && machine.flatMap(StreamConfig.MachineSection::enableCompression).orElse(key.enableCompression());
        String hostTags = machine.flatMap(StreamConfig.MachineSection::hostTags).orElse(req.tags());
        boolean proxyEnabled = proxyConfigured && !proxyDestination.isEmpty() && !proxyApiKey.isEmpty();
        long maxCharts = machine.flatMap(m -> boxed(m.maxChartsPerHost())).orElse(key.maxChartsPerHost());
        long maxDimensions = machine.flatMap(m -> boxed(m.maxDimensionsPerHost())).orElse(key.maxDimensionsPerHost());
        return new EffectiveSettings(updateEvery, history, memoryMode, health, postpone, compression, replication,
                secondsToReplicate, step, proxyEnabled, proxyDestination, proxyApiKey, proxyCharts, hostTags,
                maxCharts, maxDimensions);
    }

    private static Optional<Long> boxed(OptionalLong value) {
        return value.isPresent() ? Optional.of(value.getAsLong()) : Optional.empty();
    }

    /* Netdata skips the check when the pattern list is empty (simple_pattern_create returns NULL). */
    /**
     * Whether a peer parent at {@code remoteIp} presenting {@code apiKey} may read back the stored past
     * of host {@code machineGuid} (the peer replay endpoint, docs/format/peer-replay.md): exactly when
     * the key would let that host's stream in from that address, i.e. the checks of {@link #decide}
     * on the key and the machine-GUID sections (an enabled {@code api} section, its {@code allow
     * from}, the host's section neither disabling it nor refusing the address). The stream's own
     * state (a live receiver, the host count, the rate limit) plays no part.
     *
     * @return null when allowed, else the reason for the log (the key masked)
     */
    public String peerReadRefusal(String apiKey, String machineGuid, String remoteIp) {
        String key = Uuids.canonical(apiKey == null ? "" : apiKey);
        String guid = Uuids.canonical(machineGuid == null ? "" : machineGuid);
        if (key.isEmpty()) {
            return "the request has no API key (Authorization: Bearer <api key>)";
        }
        if (!Uuids.isUuid(key)) {
            return "the API key is not a UUID";
        }
        if (!Uuids.isUuid(guid)) {
            return "the host is not named by its machine GUID";
        }
        StreamConfig.KeySection keySection = conf.apiKey(key).orElse(null);
        if (keySection == null || !keySection.type().equals("api") || !keySection.enabled()) {
            return "API key [" + LogText.maskKey(key) + "] has no enabled api section in " + conf.ini().fileName();
        }
        if (!allowed(keySection.allowFromPattern(), remoteIp)) {
            return "API key [" + LogText.maskKey(key) + "] is not allowed from " + remoteIp + " (allow from = '"
                    + keySection.allowFrom() + "' in the section at " + keySection.location() + ")";
        }
        if (key.equals(guid) && !keySection.typeExplicit()) {
            return "the API key and the machine GUID are the same string";
        }
        StreamConfig.MachineSection machine = conf.machine(guid).orElse(null);
        if (machine != null && (!machine.type().equals("machine") || !machine.enabled())) {
            return "machine GUID section [" + guid + "] (" + machine.location() + ") does not let this host in";
        }
        if (machine != null && !allowed(machine.allowFromPattern(), remoteIp)) {
            return "machine GUID [" + guid + "] is not allowed from " + remoteIp + " (allow from = '"
                    + machine.allowFrom() + "' in the section at " + machine.location() + ")";
        }
        return null;
    }

    private static boolean allowed(SimplePattern pattern, String remoteIp) {
        return pattern.isEmpty() || pattern.matches(remoteIp);
    }

    private static Decision notPermitted(String who, String reason) {
        return refused(HandshakeReplies.Kind.NOT_PERMITTED, who, reason);
    }

    private static Decision refused(HandshakeReplies.Kind kind, String who, String reason) {
        return new Decision(false, HandshakeReplies.refusal(kind), true, 0, false, null,
                who + ": refused (" + kind + "): " + reason);
    }
}
