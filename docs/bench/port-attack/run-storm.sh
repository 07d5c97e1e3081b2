#!/usr/bin/env bash
# run-storm.sh TAG PARENT_PID PORT HOST CHILD_URL: the reconnect storm alone (500 children, 60 s), curl beside
set -uo pipefail
tag=$1; ppid=$2; port=$3; host=$4; child=$5
out=${ATTACK_RUNS:-/tmp/strata-attack/runs}/$tag; mkdir -p $out
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here/../../.."
ulimit -n 20000
fds() { ls /proc/$ppid/fd | wc -l; }
echo $(fds) > $out/fds-before
( for i in $(seq 1 300); do
    echo "$(date +%s) $(awk '/VmRSS/ {print $2}' /proc/$ppid/status) $(fds) $(cut -d' ' -f1 /proc/loadavg)"; sleep 1
  done ) > $out/samples &
sampler=$!
url="http://127.0.0.1:$port/host/$host/api/v1/data?chart=system.cpu&after=-60&points=60"
( for i in $(seq 1 4000); do
    echo "$(date +%s.%N) $(curl -s -o /dev/null -m 10 -w '%{http_code} %{time_total}' "$url")"; sleep 0.05
  done ) > $out/curl &
curler=$!
start=$(date +%s)
timeout 600 ./strata attack --target 127.0.0.1:$port --idle 0 --slowloris 0 --pipeliners 0 --not-reading-seconds 0 \
  --storm-children 500 --storm-seconds 60 --source-addresses 100 --wait-seconds 10 \
  --api-key 11111111-2222-3333-4444-555555555555 --host $host \
  --poll-url "/host/$host/api/v1/data?chart=system.cpu&after=-60&points=60" --poll-interval 50 \
  --quiet-seconds 20 --json $out/run.json 2>&1 | while IFS= read -r l; do echo "$(date +%s.%N) $l"; done > $out/attack.out
echo "attack rc ${PIPESTATUS[0]}" >> $out/attack.out
end=$(date +%s)
kill $curler $sampler
echo "$start $end" > $out/window
before=$(cat $out/fds-before)
for i in $(seq 1 30); do [[ $(fds) -le $((before + 16)) ]] && break; sleep 1; done
echo $(fds) > $out/fds-after
sleep 5
python3 "$here/compare.py" $child http://127.0.0.1:$port $host $start $((end - 3)) > $out/compare.json
