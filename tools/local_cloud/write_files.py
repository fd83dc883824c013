"""Write the local cloud's directories and files in one process.

up.yml renders the templates on the controller and hands everything over as JSON on stdin:
{"directories": [path, ...], "files": [[dest, content], ...], "copies": [[src, dest], ...],
 "keep": [[dest, content], ...], "remove": [path, ...]}.
Directories are made 0700, files written 0600 when their content differs ("keep": only when
missing), "remove" paths deleted when present. One process instead of one Ansible task item
per path: on these 2-core machines each item costs about half a second, some forty of them a
cloud-up. Prints {"changed": [path, ...]};
an error names the path and exits 1 (stderr carries no file content: the files hold secrets).
"""

import json
import os
import sys
import tempfile


def write_if_different(dest, content, keep_existing=False):
    try:
        with open(dest, encoding="utf-8") as handle:
            if keep_existing or handle.read() == content:
                return False
    except FileNotFoundError:
        pass
    directory = os.path.dirname(dest)
    fd, temporary = tempfile.mkstemp(dir=directory, prefix=".write-")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(content)
        os.chmod(temporary, 0o600)
        os.replace(temporary, dest)
    except BaseException:
        os.unlink(temporary)
        raise
    return True


def make_directories(path):
    """Make PATH and its missing parents, each 0700 (os.makedirs gives the parents the umask's
    mode); True when one was made."""
    missing = []
    while path and not os.path.isdir(path):
        missing.append(path)
        path = os.path.dirname(path)
    for directory in reversed(missing):
        os.mkdir(directory, 0o700)
    return bool(missing)


def main():
    wanted = json.load(sys.stdin)
    changed = []
    path = None
    try:
        for path in wanted.get("directories", []):
            if make_directories(path):
                changed.append(path)
        for path, content in wanted.get("files", []):
            if write_if_different(path, content):
                changed.append(path)
        for path, content in wanted.get("keep", []):
            if write_if_different(path, content, keep_existing=True):
                changed.append(path)
        for source, path in wanted.get("copies", []):
            with open(source, encoding="utf-8") as handle:
                content = handle.read()
            if write_if_different(path, content):
                changed.append(path)
        for path in wanted.get("remove", []):
            if os.path.lexists(path):
                os.unlink(path)
                changed.append(path)
    except OSError as error:
        sys.exit("cannot write %s: %s" % (path, error.strerror or error))
    print(json.dumps({"changed": changed}))


if __name__ == "__main__":
    main()
