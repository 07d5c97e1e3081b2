#!/usr/bin/env bash
# run-full.sh TAG PARENT_PID PORT POLLHOST CHILD_URL(or -) : one full-size attack run, with RSS/fd/load sampling
set -uo pipefail
tag=$1; ppid=$2; port=$3; host=$4; child=$5
out=${ATTACK_RUNS:-/tmp/strata-attack/runs}/$tag; mkdir -p $out
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here/../../.."
ulimit -n 20000
fds() { ls /proc/$ppid/fd | wc -l; }
echo $(fds) > $out/fds-before
( for i in $(seq 1 900); do
    echo "$(date +%s) $(awk '/VmRSS/ {print $2}' /proc/$ppid/status) $(fds) $(cut -d' ' -f1 /proc/loadavg)"; sleep 1
  done ) > $out/samples &
sampler=$!
start=$(date +%s)
timeout 1200 ./strata attack --target 127.0.0.1:$port --idle 5000 --slowloris 1000 --pipeliners 50 \
  --not-reading-seconds 70 --storm-children 500 --storm-seconds 60 --source-addresses 100 \
  --wait-seconds 120 --api-key 11111111-2222-3333-4444-555555555555 --host $host \
  --poll-url "/host/$host/api/v1/data?chart=system.cpu&after=-60&points=60" --poll-interval 50 \
  --quiet-seconds 30 --json $out/run.json > $out/attack.out 2>&1
echo "attack rc $?" >> $out/attack.out
end=$(date +%s)
echo "$start $end" > $out/window
# descriptors back: bounded wait of 30 s, as HostilePortIT
before=$(cat $out/fds-before)
for i in $(seq 1 30); do [[ $(fds) -le $((before + 16)) ]] && break; sleep 1; done
echo $(fds) > $out/fds-after
kill $sampler
if [[ $child != - ]]; then
  sleep 5
  python3 "$here/compare.py" $child http://127.0.0.1:$port $host $start $((end - 3)) > $out/compare.json
fi
