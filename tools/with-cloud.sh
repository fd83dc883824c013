#!/usr/bin/env bash
# Run a command against the local cloud. A cloud that is up is used as it is; otherwise
# the cloud is started first and stopped afterwards, also when the command fails. So a
# test target runs alone, and `make test` keeps one cloud up for all of its steps.
set -uo pipefail
if [ -e "${LOCAL_CLOUD_STATE:?run this through make, which sets LOCAL_CLOUD_STATE}/ready.json" ] && make --no-print-directory -s cloud-status >/dev/null 2>&1; then
    exec "$@"
fi
make --no-print-directory cloud-up || { make --no-print-directory cloud-down; exit 1; }
status=0
"$@" || status=$?
make --no-print-directory cloud-down
exit "$status"
