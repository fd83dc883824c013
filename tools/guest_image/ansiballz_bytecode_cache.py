"""Keep the bytecode of the modules Python imports from AnsiballZ payloads (the lab's guests).

An Ansible module run sends its module_utils in a zip, and zipimport compiles every source
it imports from a zip, each time, and keeps nothing. Under QEMU's TCG that compile is about
0.8 s of every module run in a guest. Installed in the guest image with a .pth file that
imports it, this keeps each compiled source in CACHE_DIR under the hash of Python's magic
number, the path inside the zip and the source, and reads it back in later runs, with the
file name of the run at hand. Other zips, and a cache that cannot be read or written
(another user, a full disk), take zipimport's own path.
"""

import marshal
import os
import types
import zipimport

CACHE_DIR = "/var/cache/ansiballz-bytecode"
PAYLOAD_SUFFIX = "_payload.zip"
_compile_source = zipimport._compile_source


def with_filename(code, filename):
    """CODE and the code objects it holds, with co_filename set to FILENAME."""
    consts = tuple(
        with_filename(const, filename) if isinstance(const, types.CodeType) else const
        for const in code.co_consts
    )
    return code.replace(co_filename=filename, co_consts=consts)


def cache_path(pathname, source):
    import hashlib
    import importlib.util

    inner = pathname.rpartition(PAYLOAD_SUFFIX)[2].encode()
    digest = hashlib.sha256(importlib.util.MAGIC_NUMBER + b"\0" + inner + b"\0" + source)
    return os.path.join(CACHE_DIR, digest.hexdigest())


def compile_source(pathname, source):
    """zipimport's compile of SOURCE (bytes), kept for the sources of AnsiballZ payloads."""
    if PAYLOAD_SUFFIX not in pathname:
        return _compile_source(pathname, source)
    path = cache_path(pathname, source)
    try:
        with open(path, "rb") as cached:
            return with_filename(marshal.load(cached), pathname)
    except (OSError, EOFError, ValueError, TypeError):
        pass
    code = _compile_source(pathname, source)
    partial = "%s.%d" % (path, os.getpid())
    try:
        with open(partial, "wb") as out:
            marshal.dump(code, out)
        os.replace(partial, path)
    except OSError:
        try:
            os.unlink(partial)
        except OSError:
            pass
    return code


def install():
    zipimport._compile_source = compile_source
