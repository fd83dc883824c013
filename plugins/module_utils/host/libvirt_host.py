# -*- coding: utf-8 -*-
# Copyright: multiattach.cloud developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What a compute host's libvirt, QEMU, filesystem and security modules allow."""

from __future__ import annotations

import errno
import mmap
import os
import traceback
from xml.etree import ElementTree

from ansible_collections.multiattach.cloud.plugins.module_utils.change import Reading
from ansible_collections.multiattach.cloud.plugins.module_utils.module import ModuleFailure
from ansible_collections.multiattach.cloud.plugins.module_utils.versions import (
    version_text,
    version_tuple,
)

try:
    import libvirt
except ImportError:
    libvirt = None
    LIBVIRT_IMPORT_ERROR = traceback.format_exc()
else:
    LIBVIRT_IMPORT_ERROR = None

DIRECT_IO_BLOCK = 4096
SELINUX_ENFORCE = "/sys/fs/selinux/enforce"
APPARMOR_ENABLED = "/sys/module/apparmor/parameters/enabled"


def parse_version(text):
    parts = str(text).strip().split(".")
    if not 1 <= len(parts) <= 3 or not all(part.isdigit() for part in parts):
        raise ValueError("%r is not a version like 3.10 or 3.10.0" % (text,))
    return tuple(int(part) for part in parts + ["0"] * (3 - len(parts)))


def open_libvirt(uri, read_only=True):
    """A libvirt connection; LibvirtUnavailable says why there is none."""
    if libvirt is None:
        raise LibvirtUnavailable(
            "the Python module libvirt (libvirt-python) is missing on this host; install "
            "python3-libvirt (Debian) or libvirt-python (pip) for the Python that runs Ansible "
            "modules, or let the compute_shareable_disks role install libvirt"
        )
    try:
        return libvirt.openReadOnly(uri) if read_only else libvirt.open(uri)
    except libvirt.libvirtError as error:
        raise LibvirtUnavailable(
            "cannot connect to libvirt at %s: %s. Start libvirtd (and virtlogd) or fix the URI"
            % (uri, libvirt_error_text(error))
        ) from None


class LibvirtUnavailable(ModuleFailure):
    """No libvirt connection: the message says what is missing and what to do."""


class HostCheckError(ModuleFailure):
    """A check that cannot be made as asked; the message names the fix."""


def libvirt_error_text(error):
    """A libvirtError as one line: libvirt's own message, then the exception's."""
    return error.get_error_message() or str(error)


def libvirt_versions(conn):
    """(libvirt version, hypervisor name, hypervisor version) of a connection."""
    return (version_tuple(conn.getLibVersion()), conn.getType(), version_tuple(conn.getVersion()))


def security_models(conn):
    """Security drivers libvirt uses for guests (e.g. selinux, apparmor, none)."""
    capabilities = ElementTree.fromstring(conn.getCapabilities())
    return sorted(
        {model.text for model in capabilities.findall("./host/secmodel/model") if model.text}
    )


def selinux_state():
    try:
        with open(SELINUX_ENFORCE, encoding="ascii") as handle:
            return "enforcing" if handle.read().strip() == "1" else "permissive"
    except OSError:
        return "absent"


def apparmor_state():
    try:
        with open(APPARMOR_ENABLED, encoding="ascii") as handle:
            return "enabled" if handle.read().strip().upper().startswith("Y") else "disabled"
    except OSError:
        return "absent"


def direct_io_supported(directory, write=True):
    """(True, detail) when DIRECTORY's filesystem takes O_DIRECT; (None, detail) when
    it was not probed.

    cache='none' opens the disk with O_DIRECT; a filesystem without it (tmpfs on
    older kernels, some FUSE and network filesystems) makes QEMU fail to start
    the guest with the shared disk. With WRITE, one 4 KiB probe file is written,
    read and removed; without it (check mode) only an existing file is read.
    """
    if not os.path.isdir(directory):
        return False, "%s does not exist or is not a directory" % directory
    if os.path.realpath(directory) == "/":
        raise HostCheckError(
            "instances_path is /, and the O_DIRECT probe writes a file there: "
            "give Nova's instances directory (nova.conf [DEFAULT] "
            "instances_path) or set probe_o_direct: false"
        )
    if not write:
        return _direct_read_probe(directory)
    path = os.path.join(directory, ".multiattach-odirect-probe.%d" % os.getpid())
    try:
        _direct_io(path, os.O_CREAT | os.O_RDWR, write=True)
    except OSError as error:
        return _refusal(directory, error)
    finally:
        try:
            os.unlink(path)
        except OSError:
            pass
    return True, (
        "an O_DIRECT write and read of %d bytes in %s worked" % (DIRECT_IO_BLOCK, directory)
    )


def _direct_io(path, flags, write):
    """Open PATH with O_DIRECT and FLAGS; with WRITE write one block first; read one block."""
    buffer = mmap.mmap(-1, DIRECT_IO_BLOCK)  # page aligned, as O_DIRECT needs
    try:
        if write:
            buffer.write(b"multiattach" * (DIRECT_IO_BLOCK // 11) + b"\0" * (DIRECT_IO_BLOCK % 11))
        descriptor = os.open(path, flags | os.O_DIRECT, 0o600)
        try:
            if write:
                os.write(descriptor, buffer)
                os.lseek(descriptor, 0, os.SEEK_SET)
            os.readv(descriptor, [buffer])
        finally:
            os.close(descriptor)
    finally:
        buffer.close()


def _refusal(directory, error):
    if error.errno == errno.EINVAL:
        return False, (
            "the filesystem of %s refuses O_DIRECT (EINVAL); QEMU cannot open a "
            "disk there with cache='none'" % directory
        )
    return False, "O_DIRECT probe in %s failed: %s" % (directory, error.strerror or error)


def _readable_file(directory):
    """A regular file of at least one block in DIRECTORY or one level below (an
    instance's disk or console log), or None."""
    candidates = []
    for entry in sorted(os.listdir(directory)):
        path = os.path.join(directory, entry)
        candidates.append(path)
        if os.path.isdir(path) and not os.path.islink(path):
            candidates.extend(os.path.join(path, name) for name in sorted(os.listdir(path)))
    for path in candidates:
        if (
            os.path.isfile(path)
            and not os.path.islink(path)
            and os.path.getsize(path) >= DIRECT_IO_BLOCK
        ):
            return path
    return None


def _direct_read_probe(directory):
    try:
        path = _readable_file(directory)
    except OSError as error:
        return None, "not probed: cannot list %s (%s)" % (directory, error.strerror or error)
    if path is None:
        return None, (
            "not probed: check mode writes no probe file, and %s holds no file of "
            "%d bytes or more to read with O_DIRECT" % (directory, DIRECT_IO_BLOCK)
        )
    try:
        _direct_io(path, os.O_RDONLY, write=False)
    except OSError as error:
        return _refusal(directory, error)
    return True, "an O_DIRECT read of %d bytes of %s worked" % (DIRECT_IO_BLOCK, path)


def isolation_note(models, selinux, apparmor):
    """What sharing a disk means for sVirt isolation on this host, in one sentence."""
    if "selinux" in models and selinux == "enforcing":
        return (
            "SELinux (sVirt) is enforcing: libvirt gives a shareable disk a shared label "
            "(s0) that every guest may access, so this disk is not isolated between guests"
        )
    if "apparmor" in models and apparmor == "enabled":
        return (
            "AppArmor confines each guest: libvirt adds the shareable disk to every "
            "profile that uses it, so the guests sharing it are not isolated from each "
            "other on that disk"
        )
    return (
        "no sVirt security driver confines the guests on this host; nothing isolates "
        "guests from each other's disks, shared or not"
    )


def version_problems(found_libvirt, hypervisor, found_hypervisor, min_libvirt, min_qemu):
    problems = []
    if found_libvirt < min_libvirt:
        problems.append(
            "libvirt %s is older than %s, the first with shareable disks for "
            "multiattach; upgrade libvirt"
            % (version_text(found_libvirt), version_text(min_libvirt))
        )
    if hypervisor.upper() == "QEMU" and found_hypervisor < min_qemu:
        problems.append(
            "QEMU %s is older than %s, the first with share-rw disks; upgrade QEMU"
            % (version_text(found_hypervisor), version_text(min_qemu))
        )
    return problems


class LibvirtHostReading(Reading):
    """The libvirt_host_info module. The O_DIRECT probe writes (and removes) a file of its own
    only outside check mode; in check mode it reads one."""

    def __init__(
        self,
        open_libvirt_read_only,
        *,
        instances_path,
        probe_o_direct,
        min_libvirt_version,
        min_qemu_version,
        fail_when_unsupported,
    ):
        try:
            self.min_libvirt = parse_version(min_libvirt_version)
            self.min_qemu = parse_version(min_qemu_version)
        except ValueError as error:
            raise HostCheckError("min_libvirt_version/min_qemu_version: %s" % error) from None
        self.open_libvirt = open_libvirt_read_only
        self.instances_path = instances_path
        self.probe_o_direct = probe_o_direct
        self.fail_when_unsupported = fail_when_unsupported

    def read(self, check_mode):
        if self.probe_o_direct:
            direct_ok, direct_detail = direct_io_supported(
                self.instances_path, write=not check_mode
            )
        else:
            direct_ok, direct_detail = None, "not probed (probe_o_direct: false)"
        conn = self.open_libvirt()
        try:
            found_libvirt, hypervisor, found_hypervisor = libvirt_versions(conn)
            models = security_models(conn)
        finally:
            conn.close()
        problems = version_problems(
            found_libvirt, hypervisor, found_hypervisor, self.min_libvirt, self.min_qemu
        )
        if direct_ok is False:
            problems.append(
                direct_detail + "; put instances_path on a filesystem with O_DIRECT (ext4, xfs)"
            )
        selinux, apparmor = selinux_state(), apparmor_state()
        report = dict(
            supported=not problems,
            problems=problems,
            libvirt_version=version_text(found_libvirt),
            hypervisor=hypervisor,
            hypervisor_version=version_text(found_hypervisor),
            o_direct=dict(supported=direct_ok, detail=direct_detail),
            selinux=selinux,
            apparmor=apparmor,
            security_models=models,
            isolation=isolation_note(models, selinux, apparmor),
        )
        if problems and self.fail_when_unsupported:
            raise ModuleFailure(
                "this host cannot give guests a shareable disk: %s" % "; ".join(problems),
                changed=False,
                **report,
            )
        return report
