#!/usr/bin/env bash
# One phase of make test, timed: its wall seconds and exit status go to .cache/test-times.txt,
# which make test prints at its end, so a slow run shows which phase took the minutes.
#   tools/timed-step.sh LABEL COMMAND...
root=$(cd "$(dirname "$0")/.." && pwd)
record=${TEST_TIMES_FILE:-$root/.cache/test-times.txt}
mkdir -p "$(dirname "$record")"
label=$1
shift
start=$(date +%s)
"$@"
status=$?
printf '%-44s %6ss  exit %s  (ended %s)\n' "$label" "$(($(date +%s) - start))" "$status" "$(date -u +%H:%M:%S)" >> "$record"
exit "$status"
