#!/usr/bin/env bash
# Run a command against the local cloud. A cloud that is up in the asked profile
# (LOCAL_CLOUD_PROFILE) is used as it is; otherwise the cloud is started (or restarted in
# that profile) first and stopped afterwards, also when the command fails. So a test
# target runs alone, and `make test` keeps one cloud up for the steps of a profile.
# The cloud's own start and stop messages go to stderr: a target that sends the command's
# stdout to a report file gets the report alone.
set -uo pipefail
ready="${LOCAL_CLOUD_STATE:?run this through make, which sets LOCAL_CLOUD_STATE}/ready.json"
profile="${LOCAL_CLOUD_PROFILE:-default}"
if [ -e "$ready" ] && grep -q "\"profile\": \"$profile\"" "$ready" \
        && make --no-print-directory -s cloud-status >/dev/null 2>&1; then
    exec "$@"
fi
make --no-print-directory cloud-up CLOUD_PROFILE="$profile" >&2 || { make --no-print-directory cloud-down >&2; exit 1; }
status=0
"$@" || status=$?
make --no-print-directory cloud-down >&2
exit "$status"
