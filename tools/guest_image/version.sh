#!/usr/bin/env bash
# The guest image's version: the first 12 hex of the sha1 of build-image.sh and the files it
# installs, in this order. The one list of them: the Makefile's guest-image target,
# build-image.sh (its built-<version> stamp) and the full profile's full_compute.yml (which
# checks the stamp) all ask this script, so a file added here rebuilds the image everywhere.
set -euo pipefail
here=$(dirname "$0")
cat "$here/build-image.sh" "$here/config_drive_apply.py" "$here/ansiballz_bytecode_cache.py" \
    | sha1sum | cut -c1-12
