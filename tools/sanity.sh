#!/usr/bin/env bash
# ansible-test sanity on this checkout, without Docker, with the ansible-core of VENV:
#   tools/sanity.sh VENV WORK_DIR
# ansible-test wants the collection under ansible_collections/NS/NAME and reads the real path,
# so WORK_DIR gets a copy of the files git tracks or would track (one WORK_DIR per leg: the
# legs of the ansible-core matrix run at once). Each new sanity venv bootstraps pip with the
# get-pip.py that ansible-test downloads from a host this machine cannot reach: the stand-in
# (tools/ansible_test_get_pip.py) is put where ansible-test looks, under the pip version that
# this ansible-test pins.
set -euo pipefail
venv=$1
tree=$2/ansible_collections/multiattach/cloud
root=$(cd "$(dirname "$0")/.." && pwd)
python=$("$venv/bin/python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
pins=$(ls "$venv"/lib/python*/site-packages/ansible_test/_internal/python_requirements.py)
pip_version=$(sed -n "s/^ *pip='\([0-9.]*\)',.*/\1/p" "$pins" | head -1)
if [ -z "$pip_version" ]; then
    echo "tools/sanity.sh: no pip='X.Y' pin in $pins: this ansible-test bootstraps pip another way; update the stand-in" >&2
    exit 1
fi
mkdir -p ~/.ansible/test/cache
install -m 0644 "$root/tools/ansible_test_get_pip.py" ~/.ansible/test/cache/get_pip_${pip_version//./_}.py
rm -rf "$tree" && mkdir -p "$tree"
cd "$root"
git ls-files -z --cached --others --exclude-standard |
    tar --null -T - --ignore-failed-read -cf - | tar -C "$tree" -xf -
cd "$tree"
git init -q && git add -A
exec "$venv/bin/ansible-test" sanity --local --python "$python" --color no
