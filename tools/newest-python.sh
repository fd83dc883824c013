#!/usr/bin/env bash
# Print the path of a Python for the newest ansible-core (3.13, else 3.12) that can make a venv:
# on PATH, else under pyenv's root. Exit 1, printing nothing on stdout, when the machine has
# neither (a plain Debian 12 has only 3.11).
pyenv_root=${PYENV_ROOT:-$HOME/.pyenv}
for version in 3.13 3.12; do
    for candidate in "python$version" "$pyenv_root"/versions/"$version".*/bin/python"$version"; do
        if "$candidate" -c 'import sys, venv, ensurepip; print(sys.executable)' 2>/dev/null; then
            exit 0
        fi
    done
done
echo "no Python 3.13 or 3.12 on PATH or under $pyenv_root/versions" >&2
exit 1
