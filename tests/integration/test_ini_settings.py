"""multiattach.cloud.ini_settings through ansible-playbook, on files like cinder.conf."""

import ast
import os
import stat
import subprocess

import pytest
from harness.ansible_runner import ROOT, run_module, run_playbook
from harness.file_events import IN_ATTRIB, IN_CREATE, IN_MOVED_TO, DirectoryEvents

MODULE = "multiattach.cloud.ini_settings"
CONF = "# keep me\n[DEFAULT]\ndebug = true\n\n[lvm]\nvolume_group = vg\n"


def test_sets_options_keeps_the_rest_and_reruns_unchanged(tmp_path):
    conf = tmp_path / "cinder.conf"
    conf.write_text(CONF)
    args = {
        "path": str(conf),
        "settings": {
            "DEFAULT": {"enabled_backends": ["lvm"]},
            "lvm": {"volume_backend_name": "lvm"},
        },
    }

    first = run_module(MODULE, args)
    second = run_module(MODULE, args)

    assert first["changed"] is True and len(first["changes"]) == 2
    assert conf.read_text() == (
        "# keep me\n[DEFAULT]\ndebug = true\nenabled_backends = lvm\n\n"
        "[lvm]\nvolume_group = vg\nvolume_backend_name = lvm\n"
    )
    assert second["changed"] is False and second["changes"] == []


def test_check_mode_with_diff_writes_nothing_and_masks_secrets(tmp_path):
    conf = tmp_path / "cinder.conf"
    conf.write_text(CONF)

    result = run_module(
        MODULE,
        {"path": str(conf), "settings": {"lvm": {"san_password": "hunter2"}}},
        check=True,
        diff=True,
    )

    assert result["changed"] is True and conf.read_text() == CONF
    assert "hunter2" not in str(result)
    assert "san_password = ********" in result["diff"]["after"]


def test_a_missing_file_is_refused_without_create_and_made_0640_with_it(tmp_path):
    refused = run_module(
        MODULE,
        {"path": str(tmp_path / "a.conf"), "create": False, "settings": {"DEFAULT": {"x": 1}}},
    )
    created = run_module(
        MODULE, {"path": str(tmp_path / "b.conf"), "settings": {"DEFAULT": {"x": 1}}}
    )

    assert refused["failed"] and "does not exist" in refused["msg"]
    assert not (tmp_path / "a.conf").exists()
    assert created["changed"] and (tmp_path / "b.conf").read_text() == "[DEFAULT]\nx = 1\n"
    assert stat.S_IMODE(os.stat(tmp_path / "b.conf").st_mode) == 0o640


def test_bad_settings_fail_with_a_message_and_leave_the_file(tmp_path):
    conf = tmp_path / "cinder.conf"
    conf.write_text(CONF)
    for settings, expected in [
        ({"lvm": "not a dict"}, "must be a dict"),
        ({"lvm": {"bad=name": 1}}, "cannot be written"),
        ({"lvm": {"x": "a\nb"}}, "line break"),
    ]:
        result = run_module(MODULE, {"path": str(conf), "settings": settings})
        assert result["failed"] and expected in result["msg"], result["msg"]
        assert conf.read_text() == CONF


def test_the_file_keeps_its_mode(tmp_path):
    conf = tmp_path / "cinder.conf"
    conf.write_text(CONF)
    conf.chmod(0o600)
    run_module(MODULE, {"path": str(conf), "settings": {"DEFAULT": {"x": 1}}})
    assert stat.S_IMODE(os.stat(conf).st_mode) == 0o600


URL_CONF = (
    "[DEFAULT]\n# transport_url = rabbit://guest:Comm3nted-Secret@old-host:5672/\n"
    "transport_url = rabbit://cinder:Rabb1t-Secret@127.0.0.1:5672/\n"
    "[database]\nconnection = mysql+pymysql://cinder:Db-Secret-1@127.0.0.1/cinder\n"
)


def test_passwords_inside_urls_never_show_in_changes_diff_or_vvv(tmp_path):
    conf = tmp_path / "cinder.conf"
    conf.write_text(URL_CONF)
    settings = {
        "DEFAULT": {"transport_url": "rabbit://cinder:N3w-Rabbit-Pw@127.0.0.1:5672/"},
        "database": {"connection": "mysql+pymysql://cinder:N3w-Db-Pw@127.0.0.1/cinder"},
        "keystone_authtoken": {"password": "Keyst0ne-Pw"},
    }
    task = {
        "name": "set",
        "multiattach.cloud.ini_settings": {"path": str(conf), "settings": settings},
    }
    log = tmp_path / "ansible.log"

    result = run_module(MODULE, {"path": str(conf), "settings": settings}, check=True, diff=True)
    _none, verbose = run_playbook(
        [task], diff=True, verbosity=3, extra_env={"ANSIBLE_LOG_PATH": str(log)}
    )

    shown = str(result) + verbose.stdout + verbose.stderr + log.read_text()
    for secret in (
        "Comm3nted-Secret",
        "Rabb1t-Secret",
        "Db-Secret-1",
        "N3w-Rabbit-Pw",
        "N3w-Db-Pw",
        "Keyst0ne-Pw",
    ):
        assert secret not in shown, secret
    assert "ESTABLISH LOCAL CONNECTION" in shown  # -vvv was on
    assert {
        "section": "DEFAULT",
        "option": "transport_url",
        "before": "rabbit://cinder:********@127.0.0.1:5672/",
        "after": "rabbit://cinder:********@127.0.0.1:5672/",
    } in result["changes"]
    assert (
        "connection = mysql+pymysql://cinder:********@127.0.0.1/cinder" in result["diff"]["after"]
    )
    # the file itself holds the real values
    assert "N3w-Db-Pw" in conf.read_text() and "Keyst0ne-Pw" in conf.read_text()


# Issue 50: three forms that were printed in clear, 12 times each in one run at -vvv --diff
# and again with --check: later hosts without credentials, and oslo.cache's name:value pairs.
def test_multi_host_urls_and_backend_arguments_never_show_at_vvv_diff_and_check(tmp_path):
    conf = tmp_path / "nova.conf"
    conf.write_text(
        "[DEFAULT]\ntransport_url = rabbit://nova:Old-Rabbit-Pw@h1,h2/\n"
        "[cache]\nbackend_argument = password:Old-Cache-Pw\n"
    )
    settings = {
        "DEFAULT": {"transport_url": "rabbit://nova:New-Rabbit-Pw@h1:5672,h2:5672/"},
        "coordination": {"backend_url": "kazoo://nova:Kazoo-Pw@zk1:2181,zk2:2181"},
        "cache": {"backend_argument": "password:New-Cache-Pw"},
    }
    task = {
        "name": "set",
        "multiattach.cloud.ini_settings": {"path": str(conf), "settings": settings},
    }
    shown = ""
    for check in (True, False):
        log = tmp_path / ("ansible-%s.log" % check)
        _none, verbose = run_playbook(
            [task],
            check=check,
            diff=True,
            verbosity=3,
            extra_env={"ANSIBLE_LOG_PATH": str(log)},
        )
        shown += verbose.stdout + verbose.stderr + log.read_text()
        assert verbose.returncode == 0, shown[-3000:]

    for secret in ("Old-Rabbit-Pw", "New-Rabbit-Pw", "Kazoo-Pw", "Old-Cache-Pw", "New-Cache-Pw"):
        assert secret not in shown, secret
    assert "ESTABLISH LOCAL CONNECTION" in shown  # -vvv was on
    # masked where it stood, not dropped: the diff still shows what changed
    assert "kazoo://nova:********@zk1:2181,zk2:2181" in shown
    assert "backend_argument = password:********" in shown
    assert "New-Cache-Pw" in conf.read_text() and "Kazoo-Pw" in conf.read_text()


def test_check_mode_reports_a_mode_change_and_makes_none(tmp_path):
    conf = tmp_path / "cinder.conf"
    conf.write_text(CONF)
    conf.chmod(0o644)
    args = {"path": str(conf), "settings": {"DEFAULT": {"debug": True}}, "mode": "0640"}

    checked = run_module(MODULE, args, check=True)
    assert checked["changed"] is True, checked
    assert stat.S_IMODE(os.stat(conf).st_mode) == 0o644
    applied = run_module(MODULE, args)
    assert applied["changed"] is True and stat.S_IMODE(os.stat(conf).st_mode) == 0o640
    assert run_module(MODULE, args, check=True)["changed"] is False


def test_a_new_file_never_exists_with_a_wider_mode(tmp_path):
    """inotify sees every change of the new file's attributes: none after it appears under
    its name (atomic_move made it 0644 first, then the module chmod-ed it to 0640)."""
    directory = tmp_path / "etc"
    directory.mkdir()
    with DirectoryEvents(directory) as events:
        created = run_module(
            MODULE,
            {"path": str(directory / "cinder.conf"), "settings": {"database": {"connection": "x"}}},
        )
        seen = events.read()
    assert created["changed"] is True, created
    appeared = [
        i
        for i, (name, mask) in enumerate(seen)
        if name == "cinder.conf" and mask & (IN_CREATE | IN_MOVED_TO)
    ]
    assert appeared, seen
    later_attribute_changes = [
        (name, mask)
        for name, mask in seen[appeared[0] :]
        if name == "cinder.conf" and mask & IN_ATTRIB
    ]
    assert later_attribute_changes == [], seen
    assert stat.S_IMODE(os.stat(directory / "cinder.conf").st_mode) == 0o640
    assert [p.name for p in directory.iterdir()] == ["cinder.conf"]  # no temporary file left


OSLO_READ = """
import sys
from oslo_config import cfg
path, section, option = sys.argv[1:]
conf = cfg.ConfigOpts()
conf.register_opt(cfg.StrOpt(option), group=None if section == "DEFAULT" else section)
conf([], default_config_files=[path], project="probe")
value = getattr(conf, option) if section == "DEFAULT" else getattr(getattr(conf, section), option)
print(repr(value))
"""


def oslo_reads(path, section, option):
    """What oslo.config itself (the cloud's venv) reads for [SECTION] OPTION of PATH."""
    done = subprocess.run(
        [str(ROOT / ".venv-cloud" / "bin" / "python"), "-c", OSLO_READ, str(path), section, option],
        capture_output=True,
        text=True,
        check=True,
    )
    return ast.literal_eval(done.stdout.strip())


@pytest.mark.parametrize(
    "text, section, option, wanted",
    [
        # a repeated header: oslo.config merges the blocks and reads the later line
        (
            "[DEFAULT]\ndebug = true\n[lvm]\nvolume_group = vg\n[DEFAULT]\ndebug = false\n",
            "DEFAULT",
            "debug",
            "true",
        ),
        ("[lvm]\nx = 1\n[ceph]\ny = 0\n[lvm]\nx = 3\n", "lvm", "x", "1"),
        # the option in the first block only, the header repeated after: added nowhere else
        ("[lvm]\nx = 1\n[ceph]\ny = 0\n[lvm]\nz = 9\n", "lvm", "x", "2"),
        # an option given twice in one block, "name: value", a quoted value
        ("[lvm]\nx = 1\nx = 2\n", "lvm", "x", "1"),
        ("[lvm]\nx: 5\n", "lvm", "x", "6"),
        ("[lvm]\nx = \"7\"\n", "lvm", "x", "8"),
        # missing from a repeated section
        ("[lvm]\na = 1\n[ceph]\n[lvm]\nb = 2\n\n", "lvm", "x", "3"),
    ],
)
def test_options_are_set_where_oslo_config_reads_them(tmp_path, text, section, option, wanted):
    conf = tmp_path / "cinder.conf"
    conf.write_text(text)
    args = {"path": str(conf), "settings": {section: {option: wanted}}}

    first = run_module(MODULE, args)
    assert first["changed"] is True, first
    assert oslo_reads(conf, section, option) == wanted, conf.read_text()
    second = run_module(MODULE, args)
    assert second["changed"] is False, conf.read_text()


@pytest.mark.parametrize(
    "text, section, option",
    [
        ("[lvm]\nx = 1\n[ceph]\n[lvm]\nx = 1\n", "lvm", "x"),
        ("[lvm]\nx: \"1\"\n", "lvm", "x"),
    ],
)
def test_a_file_oslo_config_already_reads_right_is_unchanged(tmp_path, text, section, option):
    conf = tmp_path / "cinder.conf"
    conf.write_text(text)
    assert oslo_reads(conf, section, option) == "1"

    result = run_module(MODULE, {"path": str(conf), "settings": {section: {option: "1"}}})

    # the same value twice reads right, but the duplicate goes (one line per option)
    assert result["changed"] is (text.count("x") > 1) and oslo_reads(conf, section, option) == "1"


def test_removing_an_option_removes_every_line_oslo_config_would_read(tmp_path):
    conf = tmp_path / "cinder.conf"
    conf.write_text("[lvm]\nx = 1\n[ceph]\n[lvm]\nx: 2\n")

    result = run_module(MODULE, {"path": str(conf), "settings": {"lvm": {"x": None}}})

    assert result["changed"] is True and oslo_reads(conf, "lvm", "x") is None
