"""libvirt_host_info's pieces: versions, the O_DIRECT probe, isolation notes."""

import errno
import json
import os

import libvirt
import pytest
from ansible.module_utils.testing import patch_module_args

from ansible_collections.multiattach.cloud.plugins.module_utils.host import libvirt_host
from ansible_collections.multiattach.cloud.plugins.module_utils.host.libvirt_host import (
    version_problems,
)
from ansible_collections.multiattach.cloud.plugins.modules import libvirt_host_info


def test_libvirt_encodes_versions_as_one_number():
    assert libvirt_host.version_tuple(9000000) == (9, 0, 0)
    assert libvirt_host.version_tuple(3010000) == (3, 10, 0)
    assert libvirt_host.version_tuple(7002005) == (7, 2, 5)


@pytest.mark.parametrize(
    "text,expected", [("3.10", (3, 10, 0)), ("2.10.1", (2, 10, 1)), ("9", (9, 0, 0))]
)
def test_versions_given_by_users_are_parsed(text, expected):
    assert libvirt_host.parse_version(text) == expected


@pytest.mark.parametrize("text", ["3.x", "", "1.2.3.4", "v3.10"])
def test_bad_versions_are_refused(text):
    with pytest.raises(ValueError):
        libvirt_host.parse_version(text)


def test_old_libvirt_and_qemu_are_named_with_the_minimum():
    problems = version_problems((3, 9, 0), "QEMU", (2, 9, 0), (3, 10, 0), (2, 10, 0))
    assert len(problems) == 2
    assert "libvirt 3.9.0 is older than 3.10.0" in problems[0]
    assert "QEMU 2.9.0 is older than 2.10.0" in problems[1]
    assert not version_problems((9, 0, 0), "QEMU", (7, 2, 0), (3, 10, 0), (2, 10, 0))


def test_direct_io_works_on_a_real_directory(tmp_path):
    supported, detail = libvirt_host.direct_io_supported(str(tmp_path))
    assert supported, detail
    assert not list(tmp_path.iterdir()), "the probe file must be removed"


def test_a_filesystem_that_refuses_o_direct_is_reported(tmp_path, monkeypatch):
    real_open = os.open

    def refuse_direct(path, flags, *args):
        if flags & os.O_DIRECT:
            raise OSError(errno.EINVAL, "Invalid argument")
        return real_open(path, flags, *args)

    monkeypatch.setattr(libvirt_host.os, "open", refuse_direct)
    supported, detail = libvirt_host.direct_io_supported(str(tmp_path))
    assert not supported and "refuses O_DIRECT" in detail


def test_a_missing_instances_directory_is_reported(tmp_path):
    supported, detail = libvirt_host.direct_io_supported(str(tmp_path / "nope"))
    assert not supported and "does not exist" in detail


def test_the_isolation_note_follows_the_security_driver():
    assert "shared label" in libvirt_host.isolation_note(["selinux"], "enforcing", "absent")
    assert "AppArmor" in libvirt_host.isolation_note(["apparmor"], "absent", "enabled")
    assert "no sVirt" in libvirt_host.isolation_note(["none"], "absent", "absent")


def test_the_root_directory_is_never_probed():
    with pytest.raises(libvirt_host.HostCheckError, match="instances_path is /"):
        libvirt_host.direct_io_supported("/")


def test_check_mode_reads_an_existing_file_and_writes_none(tmp_path):
    (tmp_path / "instance").mkdir()
    (tmp_path / "instance" / "disk").write_bytes(b"\0" * 4096)
    before = sorted(p.name for p in tmp_path.rglob("*"))
    supported, detail = libvirt_host.direct_io_supported(str(tmp_path), write=False)
    assert supported is True and "instance/disk" in detail
    assert sorted(p.name for p in tmp_path.rglob("*")) == before


class BrokenConnection:
    """A libvirt connection whose daemon fails every question after the handshake."""

    def __getattr__(self, name):
        def fail(*_args):
            raise libvirt.libvirtError("internal error: client socket is closed")

        return fail

    def close(self):
        pass


@pytest.mark.parametrize("failing", ["getLibVersion", "getCapabilities"])
def test_a_libvirt_error_is_a_message_never_a_traceback(monkeypatch, capsys, failing):
    conn = BrokenConnection()
    if failing == "getCapabilities":  # the versions answer, the capabilities do not
        monkeypatch.setattr(conn, "getLibVersion", lambda: 9000000, raising=False)
        monkeypatch.setattr(conn, "getType", lambda: "QEMU", raising=False)
        monkeypatch.setattr(conn, "getVersion", lambda: 7002000, raising=False)
    monkeypatch.setattr(libvirt_host, "open_libvirt", lambda uri: conn)
    with patch_module_args({"probe_o_direct": False}), pytest.raises(SystemExit):
        libvirt_host_info.main()
    result = json.loads(capsys.readouterr().out)
    assert result["failed"] is True
    assert (
        "client socket is closed" in result["msg"] and "Check that libvirtd runs" in result["msg"]
    )
    assert "exception" not in result and "Traceback" not in json.dumps(result)
