#!/usr/bin/env bash
# One phase of make test, timed: its wall seconds, how busy the CPUs were meanwhile (the share
# of all cores' time not idle, from /proc/stat) and its exit status go to .cache/test-times.txt,
# which make test prints at its end: a slow run shows which phase took the minutes, and the CPU
# share shows which phases mostly wait (room to run other work beside them).
#   tools/timed-step.sh LABEL COMMAND...
root=$(cd "$(dirname "$0")/.." && pwd)
record=${TEST_TIMES_FILE:-$root/.cache/test-times.txt}
mkdir -p "$(dirname "$record")"
label=$1
shift
cpu_times() { awk '/^cpu / { print $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9, $5 + $6 }' /proc/stat; }
read -r total_before idle_before < <(cpu_times)
start=$(date +%s)
"$@"
status=$?
read -r total_after idle_after < <(cpu_times)
busy=$(awk -v t=$((total_after - total_before)) -v i=$((idle_after - idle_before)) \
	'BEGIN { printf "%d", (t > 0) ? 100 * (t - i) / t : 0 }')
printf '%-50s %6ss  CPU %3s%% busy  exit %s  (ended %s)\n' "$label" "$(($(date +%s) - start))" \
	"$busy" "$status" "$(date -u +%H:%M:%S)" >> "$record"
exit "$status"
