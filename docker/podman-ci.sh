# Podman as the container engine of the Compose tests (it-tests ComposeClusterIT), for CI machines
# that have no Docker engine and reach no container registry, as root on Debian.
#
# Sourced (bash) from the repository root by .ci/run:
#   . docker/podman-ci.sh && podman_ci_start     # then the tests; podman_ci_stop when they end
# podman_ci_start installs and configures what is missing (an idempotent step costs a check),
# makes the base images docker/Dockerfile names from Debian packages when they are missing
# (kept in Podman's store, so a second run on the same machine reuses them), starts Podman's
# Docker-compatible API on a unix socket of this run and exports what the docker CLI, Docker
# Compose and Testcontainers need to use it. It returns non-zero, saying why, when it cannot;
# the Compose tests then skip with their own reason (no Docker engine).
# podman_ci_stop stops the API service this run started (containers it left are removed first).
#
# Workarounds it carries, each found on these machines:
# - bookworm's crun refuses this kernel's hybrid cgroup layout ("cgroups in hybrid mode not
#   supported"): runc is the runtime;
# - root has no CAP_SYS_RESOURCE here, so Podman's default RLIMIT_NOFILE (1048576) and the nproc
#   the compat API (Compose's path) asks for exceed the hard limits: both default to the hard limit;
# - Podman 4.3 has no `podman compose` and podman-compose names containers differently from
#   Compose v2 (which Testcontainers expects): Compose v2 is a docker CLI plugin, the static binary of
#   Debian trixie's docker-compose package, fetched with this machine's own apt mirror;
# - no registry is reachable: the base images are made with debootstrap + podman import;
# - Maven inside the build reaches Maven Central through TLS that this machine's Java trust store
#   trusts: that store is copied into the build image;
# - /.dockerenv exists on these machines, so Testcontainers would take the Podman bridge's gateway
#   as the engine's address: TESTCONTAINERS_HOST_OVERRIDE=localhost keeps every test connection
#   on loopback; Ryuk is disabled (its image cannot be pulled; the test removes what it starts).

# the names docker/Dockerfile's FROM lines use (short names resolve to docker.io/library)
PODMAN_CI_DEBIAN=docker.io/library/debian:bookworm-slim
PODMAN_CI_BUILD=docker.io/library/maven:3.9-eclipse-temurin-17
PODMAN_CI_JRE=docker.io/library/eclipse-temurin:17-jre
# marks what this script wrote, so that a run can tell its own files from a machine's
PODMAN_CI_MARK="# written by strata docker/podman-ci.sh"

podman_ci_log() { echo "podman-ci: $*" >&2; }

# Whether a Docker engine (a real one, or DOCKER_HOST's) answers.
podman_ci_docker_answers() {
  if command -v docker >/dev/null 2>&1; then
    timeout 20 docker version --format '{{.Server.Version}}' >/dev/null 2>&1
  elif [[ -z "${DOCKER_HOST:-}" && -S /var/run/docker.sock ]] && command -v curl >/dev/null 2>&1; then
    curl -sf --max-time 10 --unix-socket /var/run/docker.sock http://d/_ping >/dev/null 2>&1
  else
    return 1
  fi
}

# The Debian mirror this machine's apt uses (no host is named in this script).
podman_ci_mirror() {
  local m=""
  m=$(awk '/^URIs:/{print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
  [[ -n "$m" ]] || m=$(awk '$1=="deb"{print $2; exit}' /etc/apt/sources.list 2>/dev/null || true)
  echo "${m:-http://deb.debian.org/debian}"
}

podman_ci_packages() {
  local want=(podman buildah runc debootstrap curl) missing=() p
  for p in "${want[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  [[ ${#missing[@]} -eq 0 ]] && return 0
  podman_ci_log "installing ${missing[*]}"
  apt-get update -qq >/dev/null 2>&1 || true
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null 2>&1
}

# /etc/containers/containers.conf: runc, and nofile/nproc defaults within root's hard limits.
podman_ci_containers_conf() {
  local f=/etc/containers/containers.conf nofile nproc text
  nofile=$(ulimit -Hn)
  [[ "$nofile" == unlimited ]] && nofile=1048576
  nproc=$(ulimit -Hu)
  if [[ "$nproc" == unlimited || "$nproc" -gt 32768 ]]; then nproc=32768; fi
  text="$PODMAN_CI_MARK
[containers]
default_ulimits = [\"nofile=$nofile:$nofile\", \"nproc=$nproc:$nproc\"]
[engine]
runtime = \"runc\""
  [[ -f "$f" && "$(cat "$f")" == "$text" ]] && return 0
  mkdir -p /etc/containers
  if [[ -s "$f" ]] && ! grep -qF "$PODMAN_CI_MARK" "$f"; then
    cp -p "$f" "$f.before-strata-ci"
    podman_ci_log "kept the machine's $f as $f.before-strata-ci"
  fi
  printf '%s\n' "$text" > "$f"
}

# Fetches one package of Debian trixie with this machine's apt mirror and extracts it in $2.
podman_ci_trixie_package() {
  local pkg=$1 into=$2 d
  d=$(mktemp -d)
  mkdir -p "$d/lists/partial" "$d/cache/archives/partial"
  printf 'Types: deb\nURIs: %s\nSuites: trixie\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
    "$(podman_ci_mirror)" > "$d/trixie.sources"
  local a=(-o "Dir::Etc::SourceList=$d/trixie.sources" -o Dir::Etc::SourceParts=/dev/null
           -o "Dir::State::Lists=$d/lists" -o "Dir::Cache=$d/cache")
  if apt-get "${a[@]}" update -qq >/dev/null 2>&1 && (cd "$d" && apt-get "${a[@]}" download "$pkg" >/dev/null 2>&1); then
    dpkg -x "$d/${pkg}"_*.deb "$into"
    rm -rf "$d"
  else
    rm -rf "$d"
    return 1
  fi
}

# The docker CLI (when the machine has none) and Docker Compose v2 as its plugin, from trixie.
podman_ci_compose() {
  local x
  if ! command -v docker >/dev/null 2>&1; then
    x=$(mktemp -d)
    podman_ci_trixie_package docker-cli "$x" && install -m 0755 "$x/usr/bin/docker" /usr/local/bin/docker
    rm -rf "$x"
    command -v docker >/dev/null 2>&1 || { podman_ci_log "no docker CLI (Debian trixie's docker-cli could not be had)"; return 1; }
  fi
  docker compose version >/dev/null 2>&1 && return 0
  x=$(mktemp -d)
  podman_ci_trixie_package docker-compose "$x" \
    && install -D -m 0755 "$x/usr/libexec/docker/cli-plugins/docker-compose" /usr/libexec/docker/cli-plugins/docker-compose
  rm -rf "$x"
  docker compose version >/dev/null 2>&1 || { podman_ci_log "no Docker Compose v2 (Debian trixie's docker-compose could not be had)"; return 1; }
}

# debian:bookworm-slim from debootstrap (no registry is reachable).
podman_ci_debian_image() {
  podman image exists "$PODMAN_CI_DEBIAN" && return 0
  local r
  r=$(mktemp -d)
  podman_ci_log "making $PODMAN_CI_DEBIAN with debootstrap"
  if ! debootstrap --variant=minbase bookworm "$r" "$(podman_ci_mirror)" >/dev/null 2>&1; then
    rm -rf "$r"; podman_ci_log "debootstrap bookworm failed"; return 1
  fi
  # the image's apt uses the machine's sources (its mirror), with no leftovers of the bootstrap
  rm -f "$r/etc/apt/sources.list"
  if [[ -f /etc/apt/sources.list.d/debian.sources ]]; then
    cp /etc/apt/sources.list.d/debian.sources "$r/etc/apt/sources.list.d/debian.sources"
  else
    printf 'deb %s bookworm main\n' "$(podman_ci_mirror)" > "$r/etc/apt/sources.list"
  fi
  rm -rf "$r"/var/cache/apt/archives/*.deb "$r"/var/lib/apt/lists/*
  tar -C "$r" --numeric-owner -c . | podman import -q --change 'CMD ["bash"]' \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' - "$PODMAN_CI_DEBIAN" >/dev/null
  local rc=$?
  rm -rf "$r"
  return $rc
}

# The build image (JDK 17 + Maven + the machine's Java trust store) and the runtime image (JRE 17),
# on the Debian image. The build image carries the trust store's digest: a changed store remakes it.
podman_ci_java_images() {
  local b cacerts_sum="none" have
  [[ -f /etc/ssl/certs/java/cacerts ]] && cacerts_sum=$(sha256sum /etc/ssl/certs/java/cacerts | cut -c1-64)
  have=$(podman image inspect --format '{{index .Labels "io.strata.ci.cacerts"}}' "$PODMAN_CI_BUILD" 2>/dev/null || true)
  if podman image exists "$PODMAN_CI_JRE" && [[ "$have" == "$cacerts_sum" ]]; then
    return 0
  fi
  b=$(mktemp -d)
  if [[ "$cacerts_sum" != none ]]; then
    cp /etc/ssl/certs/java/cacerts "$b/cacerts"
  fi
  cat > "$b/build" <<EOF
FROM $PODMAN_CI_DEBIAN
RUN apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends openjdk-17-jdk-headless maven ca-certificates-java \\
 && rm -rf /var/lib/apt/lists/*
ENV JAVA_HOME=/usr/lib/jvm/java-17-openjdk-amd64
EOF
  if [[ "$cacerts_sum" != none ]]; then
    printf 'COPY cacerts /etc/ssl/certs/java/cacerts\n' >> "$b/build"
  fi
  printf 'LABEL io.strata.ci.cacerts=%s\n' "$cacerts_sum" >> "$b/build"
  cat > "$b/jre" <<EOF
FROM $PODMAN_CI_DEBIAN
RUN apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends openjdk-17-jre-headless \\
 && rm -rf /var/lib/apt/lists/*
ENV JAVA_HOME=/usr/lib/jvm/java-17-openjdk-amd64
EOF
  local rc=0
  if [[ "$have" != "$cacerts_sum" ]]; then
    podman_ci_log "making $PODMAN_CI_BUILD"
    podman build -q --pull=never --layers -f "$b/build" -t "$PODMAN_CI_BUILD" "$b" >/dev/null || rc=1
  fi
  if [[ $rc == 0 ]] && ! podman image exists "$PODMAN_CI_JRE"; then
    podman_ci_log "making $PODMAN_CI_JRE"
    podman build -q --pull=never --layers -f "$b/jre" -t "$PODMAN_CI_JRE" "$b" >/dev/null || rc=1
  fi
  rm -rf "$b"
  [[ $rc == 0 ]] || podman_ci_log "the Java base images could not be built"
  return $rc
}

# Podman's Docker-compatible API on a socket of this run; exports DOCKER_HOST and Testcontainers' settings.
podman_ci_service() {
  mkdir -p /run/podman
  PODMAN_CI_SOCKET=/run/podman/strata-ci-$$.sock
  rm -f "$PODMAN_CI_SOCKET"
  podman system service --time=0 "unix://$PODMAN_CI_SOCKET" >"${PODMAN_CI_LOG:-/dev/null}" 2>&1 &
  PODMAN_CI_PID=$!
  local i
  for i in $(seq 100); do
    curl -sf --max-time 2 --unix-socket "$PODMAN_CI_SOCKET" http://d/_ping >/dev/null 2>&1 && break
    kill -0 "$PODMAN_CI_PID" 2>/dev/null || break
    sleep 0.2
  done
  if ! curl -sf --max-time 2 --unix-socket "$PODMAN_CI_SOCKET" http://d/_ping >/dev/null 2>&1; then
    podman_ci_log "podman system service did not answer on $PODMAN_CI_SOCKET"
    podman_ci_stop
    return 1
  fi
  export DOCKER_HOST="unix://$PODMAN_CI_SOCKET"
  export TESTCONTAINERS_RYUK_DISABLED=true TESTCONTAINERS_HOST_OVERRIDE=localhost
}

podman_ci_start() {
  local t0=$SECONDS step
  if [[ "$(id -u)" != 0 ]]; then podman_ci_log "not root: Podman is not set up"; return 1; fi
  if ! command -v apt-get >/dev/null 2>&1 || ! command -v dpkg-query >/dev/null 2>&1; then
    podman_ci_log "no apt (not Debian): Podman is not set up"; return 1
  fi
  for step in podman_ci_packages podman_ci_containers_conf podman_ci_compose podman_ci_debian_image \
              podman_ci_java_images; do
    if ! "$step"; then
      podman_ci_log "$step failed after $((SECONDS - t0)) s: Podman is not set up"
      return 1
    fi
  done
  podman_ci_service || return 1
  podman_ci_log "Podman $(podman version --format '{{.Client.Version}}' 2>/dev/null) ready in $((SECONDS - t0)) s:" \
    "DOCKER_HOST=$DOCKER_HOST, $(docker compose version 2>/dev/null | head -1)"
}

podman_ci_stop() {
  [[ -n "${PODMAN_CI_PID:-}" ]] || return 0
  # containers a failed test left behind (Ryuk is off), then the service
  local left
  left=$(podman ps -aq --filter label=com.docker.compose.project=strata-it 2>/dev/null || true)
  [[ -z "$left" ]] || podman rm -f $left >/dev/null 2>&1 || true
  kill "$PODMAN_CI_PID" 2>/dev/null || true
  wait "$PODMAN_CI_PID" 2>/dev/null || true
  rm -f "${PODMAN_CI_SOCKET:-}"
  PODMAN_CI_PID=""
}
