#!/usr/bin/env bash
# Install the Debian packages named as arguments that are not installed yet.
# Debian's start scripts must not start MariaDB or RabbitMQ on their standard
# ports: the local cloud starts its own. A policy-rc.d that refuses every start
# is put in place for the install and removed afterwards if we added it.
set -euo pipefail
missing=()
for package in "$@"; do
    dpkg-query -W -f='${Status}\n' "$package" 2>/dev/null | grep -q '^install ok installed$' \
        || missing+=("$package")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "Installing Debian packages: ${missing[*]}"
added_policy=false
if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d
    chmod +x /usr/sbin/policy-rc.d
    added_policy=true
fi
trap '$added_policy && rm -f /usr/sbin/policy-rc.d' EXIT
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
