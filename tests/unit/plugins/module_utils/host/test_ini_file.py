"""ini_settings' editor: only the options it sets change, everything else is kept."""

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from ansible_collections.multiattach.cloud.plugins.module_utils.host.ini_file import (
    IniError,
    apply_settings,
    masked_text,
)

CINDER_CONF = """\
# Managed by hand; keep this comment.
[DEFAULT]
debug = true
enabled_backends = lvm-1
# my_ip = 10.0.0.1

[database]
connection = mysql+pymysql://cinder:pw@db/cinder

[lvm-1]
volume_driver = cinder.volume.drivers.lvm.LVMVolumeDriver
volume_backend_name = lvm-1
"""


def test_setting_one_option_changes_only_its_line():
    text, changes = apply_settings(
        CINDER_CONF, {"DEFAULT": {"enabled_backends": ["lvm-1", "ceph"]}}
    )
    assert text == CINDER_CONF.replace("enabled_backends = lvm-1", "enabled_backends = lvm-1,ceph")
    assert changes == [
        {
            "section": "DEFAULT",
            "option": "enabled_backends",
            "before": "lvm-1",
            "after": "lvm-1,ceph",
        }
    ]


def test_the_same_settings_twice_change_nothing_the_second_time():
    settings = {
        "ceph": {"volume_backend_name": "ceph", "rbd_pool": "volumes"},
        "DEFAULT": {"enabled_backends": "lvm-1,ceph"},
    }
    once, first_changes = apply_settings(CINDER_CONF, settings)
    twice, second_changes = apply_settings(once, settings)
    assert first_changes and not second_changes and once == twice


def test_a_new_option_goes_after_the_last_option_of_its_section_not_after_blank_lines():
    text, unused = apply_settings(CINDER_CONF, {"DEFAULT": {"host": "c1"}})
    assert "# my_ip = 10.0.0.1\nhost = c1\n\n[database]" in text


def test_a_new_section_is_appended_and_comments_survive():
    text, unused = apply_settings(CINDER_CONF, {"ceph": {"volume_backend_name": "ceph"}})
    assert text.startswith("# Managed by hand; keep this comment.\n")
    assert text.endswith("volume_backend_name = lvm-1\n\n[ceph]\nvolume_backend_name = ceph\n")


def test_null_removes_an_option_and_missing_ones_are_ignored():
    text, changes = apply_settings(
        CINDER_CONF, {"DEFAULT": {"debug": None, "absent": None}, "nosection": {"x": None}}
    )
    assert "debug" not in text and len(changes) == 1 and changes[0]["after"] is None


def test_repeated_lines_of_an_option_become_one():
    text, changes = apply_settings("[a]\nx = 1\nx = 2\n", {"a": {"x": "1"}})
    assert text == "[a]\nx = 1\n" and changes


def test_values_are_rendered_as_oslo_config_reads_them():
    text, unused = apply_settings("", {"b": {"flag": False, "caps": {"multiattach": True}, "n": 3}})
    assert text == "[b]\nflag = false\ncaps = multiattach:true\nn = 3\n"


@pytest.mark.parametrize(
    "settings",
    [
        {"bad]section": {"x": 1}},
        {"s": {"opt=ion": 1}},
        {"s": {"opt:ion": 1}},
        {"s": {" padded": 1}},
        {"s": {"x": "two\nlines"}},
    ],
)
def test_names_and_values_that_would_break_the_file_are_refused(settings):
    with pytest.raises(IniError):
        apply_settings(CINDER_CONF, settings)


def test_secret_looking_values_are_masked_in_changes_and_diffs():
    text, changes = apply_settings(
        CINDER_CONF, {"ceph": {"san_password": "s3cret", "rbd_secret_uuid": "abc"}}
    )
    assert "s3cret" in text
    assert all(c["after"] == "********" for c in changes)
    assert "s3cret" not in masked_text(text) and "abc" not in masked_text(text)


@pytest.mark.parametrize(
    "line",
    [
        "san_password: s3cret-pw",
        "#san_password = s3cret-pw",
        "; token: s3cret-pw",
        "hmac_keys = s3cret-pw",
        "kek=s3cret-pw",
        "# connection = mysql://u:s3cret-pw@h/db",
    ],
)
def test_a_diff_masks_secrets_with_either_separator_and_commented_out(line):
    shown = masked_text("[DEFAULT]\n%s\nvolume_group = vg\n" % line)
    assert "s3cret-pw" not in shown and "********" in shown and "volume_group = vg" in shown


INI_PASSWORDS = st.text(
    alphabet=st.characters(min_codepoint=0x20, max_codepoint=0x7E), min_size=6, max_size=24
).filter(lambda p: p.strip() == p)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(
    password=INI_PASSWORDS,
    name=st.sampled_from(["password", "san_password", "hmac_keys", "kek", "apikey"]),
    separator=st.sampled_from([" = ", "=", ": ", ":"]),
    comment=st.sampled_from(["", "#", "# ", ";"]),
)
def test_a_printable_secret_in_any_option_line_never_shows_in_a_diff(
    password, name, separator, comment
):
    assume(
        password not in "********"
        and password not in "[backend]\nvolume_group = vg\n"
        and password not in name
    )
    text = "[backend]\n%s%s%s%s\nvolume_group = vg\n" % (comment, name, separator, password)
    assert password not in masked_text(text)


def test_a_backend_section_may_hold_a_colon():
    text, changes = apply_settings("", {"rbd:fast": {"volume_backend_name": "rbd"}})
    assert text == "[rbd:fast]\nvolume_backend_name = rbd\n" and changes


def test_the_last_line_of_a_repeated_section_is_the_one_changed():
    text, changes = apply_settings("[a]\nx = 1\n[b]\ny = 0\n[a]\nx: 3\n", {"a": {"x": "4"}})
    assert text == "[a]\n[b]\ny = 0\n[a]\nx = 4\n"
    assert changes == [{"section": "a", "option": "x", "before": "3", "after": "4"}]
