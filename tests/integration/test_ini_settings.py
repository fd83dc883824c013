"""multiattach.cloud.ini_settings through ansible-playbook, on files like cinder.conf."""
import os
import stat

from ansible_runner import run_module

MODULE = "multiattach.cloud.ini_settings"
CONF = "# keep me\n[DEFAULT]\ndebug = true\n\n[lvm]\nvolume_group = vg\n"


def test_sets_options_keeps_the_rest_and_reruns_unchanged(tmp_path):
    conf = tmp_path / "cinder.conf"
    conf.write_text(CONF)
    args = {"path": str(conf), "settings": {"DEFAULT": {"enabled_backends": ["lvm"]},
                                            "lvm": {"volume_backend_name": "lvm"}}}

    first = run_module(MODULE, args)
    second = run_module(MODULE, args)

    assert first["changed"] is True and len(first["changes"]) == 2
    assert conf.read_text() == ("# keep me\n[DEFAULT]\ndebug = true\nenabled_backends = lvm\n\n"
                                "[lvm]\nvolume_group = vg\nvolume_backend_name = lvm\n")
    assert second["changed"] is False and second["changes"] == []


def test_check_mode_with_diff_writes_nothing_and_masks_secrets(tmp_path):
    conf = tmp_path / "cinder.conf"
    conf.write_text(CONF)

    result = run_module(MODULE, {"path": str(conf), "settings": {"lvm": {"san_password": "hunter2"}}},
                        check=True, diff=True)

    assert result["changed"] is True and conf.read_text() == CONF
    assert "hunter2" not in str(result)
    assert "san_password = ********" in result["diff"]["after"]


def test_a_missing_file_is_refused_without_create_and_made_0640_with_it(tmp_path):
    refused = run_module(MODULE, {"path": str(tmp_path / "a.conf"), "create": False,
                                  "settings": {"DEFAULT": {"x": 1}}})
    created = run_module(MODULE, {"path": str(tmp_path / "b.conf"), "settings": {"DEFAULT": {"x": 1}}})

    assert refused["failed"] and "does not exist" in refused["msg"]
    assert not (tmp_path / "a.conf").exists()
    assert created["changed"] and (tmp_path / "b.conf").read_text() == "[DEFAULT]\nx = 1\n"
    assert stat.S_IMODE(os.stat(tmp_path / "b.conf").st_mode) == 0o640


def test_bad_settings_fail_with_a_message_and_leave_the_file(tmp_path):
    conf = tmp_path / "cinder.conf"
    conf.write_text(CONF)
    for settings, expected in [({"lvm": "not a dict"}, "must be a dict"),
                               ({"lvm": {"bad=name": 1}}, "cannot be written"),
                               ({"lvm": {"x": "a\nb"}}, "line break")]:
        result = run_module(MODULE, {"path": str(conf), "settings": settings})
        assert result["failed"] and expected in result["msg"], result["msg"]
        assert conf.read_text() == CONF


def test_the_file_keeps_its_mode(tmp_path):
    conf = tmp_path / "cinder.conf"
    conf.write_text(CONF)
    conf.chmod(0o600)
    run_module(MODULE, {"path": str(conf), "settings": {"DEFAULT": {"x": 1}}})
    assert stat.S_IMODE(os.stat(conf).st_mode) == 0o600
