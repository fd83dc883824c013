"""What happens to the files of one directory, seen through Linux inotify."""

import ctypes
import os
import struct

IN_ATTRIB, IN_MOVED_TO, IN_CREATE = 0x004, 0x080, 0x100
IN_ANY_CHANGE = IN_ATTRIB | IN_MOVED_TO | IN_CREATE | 0x002 | 0x200  # + modify, delete


class DirectoryEvents:
    """Linux inotify on one directory: (name, mask) of every create, rename-in,
    write, delete and attribute change, in order."""

    def __init__(self, directory):
        self.libc = ctypes.CDLL(None, use_errno=True)
        self.directory = directory
        self.descriptor = None

    def __enter__(self):
        self.descriptor = self.libc.inotify_init1(os.O_NONBLOCK)
        assert self.descriptor >= 0
        watch = self.libc.inotify_add_watch(
            self.descriptor, os.fsencode(self.directory), IN_ANY_CHANGE
        )
        assert watch >= 0
        return self

    def read(self):
        data = b""
        while True:
            try:
                chunk = os.read(self.descriptor, 65536)
            except BlockingIOError:
                break
            data += chunk
        events, offset = [], 0
        while offset < len(data):
            _wd, mask, _cookie, length = struct.unpack_from("iIII", data, offset)
            name = data[offset + 16 : offset + 16 + length].rstrip(b"\0").decode()
            events.append((name, mask))
            offset += 16 + length
        return events

    def __exit__(self, *exc):
        os.close(self.descriptor)
