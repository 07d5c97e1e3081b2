#!/bin/sh
# Starts a Strata node in a container. A netdata.conf mounted in /etc/strata is used as it is;
# otherwise netdata.conf and stream.conf are written from the environment at every start (so that
# changing the environment changes the node), into /var/lib/strata/config:
#   STRATA_ROLE        parent | child (required)
#   STRATA_HOSTNAME    the node's hostname (default: the container's)
#   STRATA_API_KEY     the key children send and parents accept (a GUID)
#   STRATA_PARENTS     child: its parents in failover order, e.g. "parent-a:19999 parent-b:19999"
#   STRATA_PEERS       parent: where it forwards every host it receives (the other parents), may be empty
#   STRATA_DISK_MB     tier 0 disk space in MB (default 256 for a parent, 64 for a child)
#   STRATA_JAVA_OPTS   extra JVM options
#   STRATA_DATA        where the node keeps its data and the written configuration (default /var/lib/strata)
#   STRATA_CONFIG_ONLY yes: write the configuration, print its directory and stop (the network-namespace
#                      test of the Compose topology runs the nodes it configures this way)
# Arguments run another strata command instead of the node, e.g. "db verify /var/lib/strata/cache/dbengine".
set -eu

jar=/opt/strata/strata-node.jar
# the JVM flags of jvm.properties (every JVM's and the node's memory options), which the build
# wrote into the jar's manifest; read only when a JVM is started (not for STRATA_CONFIG_ONLY)
jvm_flags() {
  flags="$(java -cp "$jar" io.strata.node.cli.JvmFlagsMain node)"
  # eclipse-temurin:17-jre is a current 17.0.x, which has the native-heap trim (17.0.9 on); probed anyway
  if java -XX:TrimNativeHeapInterval=5000 -version >/dev/null 2>&1; then
    flags="$flags -XX:TrimNativeHeapInterval=5000"
  fi
}
# (jvm.properties says why the memory options; STRATA_JAVA_OPTS comes after them and wins)
if [ "$#" -gt 0 ]; then
  jvm_flags
  # shellcheck disable=SC2086 # the flags are words
  exec java $flags ${STRATA_JAVA_OPTS:-} -jar "$jar" "$@"
fi

data="${STRATA_DATA:-/var/lib/strata}"
if [ -f /etc/strata/netdata.conf ]; then
  conf=/etc/strata
else
  conf="$data/config"
  mkdir -p "$conf"
  role="${STRATA_ROLE:?set STRATA_ROLE to parent or child, or mount a netdata.conf in /etc/strata}"
  host="${STRATA_HOSTNAME:-$(hostname)}"
  key="${STRATA_API_KEY:?set STRATA_API_KEY (a GUID shared by the children and the parents)}"
  case "$role" in
    parent) tiers=2; disk="${STRATA_DISK_MB:-256}" ;;
    child)  tiers=1; disk="${STRATA_DISK_MB:-64}" ;;
    *) echo "strata: STRATA_ROLE is '$role'; it must be parent or child" >&2; exit 2 ;;
  esac
  cat > "$conf/netdata.conf" <<CONF
# written by the container's entrypoint from its environment
[global]
	hostname = $host
[db]
	mode = dbengine
	storage tiers = $tiers
	dbengine multihost disk space MB = $disk
[web]
	bind to = *:19999
[directories]
	cache = $data/cache
	lib = $data/lib
CONF
  if [ "$role" = parent ]; then
    {
      printf '[stream]\n\tenabled = no\n\treconnect delay seconds = 1\n\n'
      printf '[%s]\n\tenabled = yes\n\tallow from = *\n' "$key"
      if [ -n "${STRATA_PEERS:-}" ]; then
        printf '\tdefault proxy enabled = yes\n\tdefault proxy destination = %s\n\tdefault proxy api key = %s\n' \
          "$STRATA_PEERS" "$key"
      fi
    } > "$conf/stream.conf"
  else
    parents="${STRATA_PARENTS:?a child needs STRATA_PARENTS, e.g. \"parent-a:19999 parent-b:19999\"}"
    printf '[stream]\n\tenabled = yes\n\tdestination = %s\n\tapi key = %s\n\treconnect delay seconds = 1\n' \
      "$parents" "$key" > "$conf/stream.conf"
    printf '[plugins]\n\tproc = yes\n' >> "$conf/netdata.conf"
  fi
fi
if [ "${STRATA_CONFIG_ONLY:-no}" = yes ]; then
  echo "$conf"
  exit 0
fi

# exec: the JVM is PID 1 and gets docker stop's SIGTERM (it stops accepting, flushes and closes its files)
jvm_flags
# shellcheck disable=SC2086 # the flags are words
exec java $flags ${STRATA_JAVA_OPTS:-} -jar "$jar" node --config "$conf"
