#!/usr/bin/env bash
# A leg of the test matrix that this machine cannot run: say so where it cannot be missed and
# note it in .cache/skipped-legs.txt, which `make test` prints at its end.
#   tools/skipped-leg.sh TARGET WHY
root=$(cd "$(dirname "$0")/.." && pwd)
record=${SKIPPED_LEGS_FILE:-$root/.cache/skipped-legs.txt}
mkdir -p "$(dirname "$record")"
line="SKIPPED make $1: $2"
printf '\n%s\n%s\n%s\n\n' "$(printf '!%.0s' {1..72})" "$line" "$(printf '!%.0s' {1..72})" >&2
echo "$line" >> "$record"
