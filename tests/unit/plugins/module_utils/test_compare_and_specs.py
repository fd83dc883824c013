"""Planning and comparison logic of module_utils (no cloud)."""

import pytest

from ansible_collections.multiattach.cloud.plugins.module_utils import change, compare
from ansible_collections.multiattach.cloud.plugins.module_utils.module import ModuleFailure
from ansible_collections.multiattach.cloud.plugins.module_utils.openstack import volume_types


def test_multiattach_is_always_added_to_the_extra_specs():
    assert volume_types.desired_extra_specs({}, None) == {"multiattach": "<is> True"}


def test_backend_pins_volume_backend_name_and_values_become_strings():
    specs = volume_types.desired_extra_specs({"capabilities:x": True, "n": 3}, "ceph")
    assert specs == {
        "capabilities:x": "True",
        "n": "3",
        "volume_backend_name": "ceph",
        "multiattach": "<is> True",
    }


def test_the_exact_multiattach_spec_may_be_repeated():
    assert volume_types.desired_extra_specs({"multiattach": "<is> True"}, None) == {
        "multiattach": "<is> True"
    }


@pytest.mark.parametrize("value", ["<is> False", "True", "true", "False"])
def test_any_other_multiattach_value_is_refused(value):
    with pytest.raises(ModuleFailure, match="Leave multiattach out of extra_specs"):
        volume_types.desired_extra_specs({"multiattach": value}, None)


def test_a_backend_given_twice_differently_is_refused():
    with pytest.raises(ModuleFailure, match="give the backend once"):
        volume_types.desired_extra_specs({"volume_backend_name": "a"}, "b")


def test_changed_fields_ignores_options_that_were_not_given():
    assert compare.changed_fields({"a": 1, "b": 2}, {"a": None, "b": 3}) == ["b"]
    assert compare.changed_fields({"a": 1}, {"a": 1}) == []


def test_dict_changes_merge_by_default_and_purge_on_request():
    current = {"keep": "1", "change": "old", "other": "x"}
    desired = {"keep": "1", "change": "new", "add": "y"}
    assert compare.dict_changes(current, desired) == ({"change": "new", "add": "y"}, [])
    assert compare.dict_changes(current, desired, purge=True) == (
        {"change": "new", "add": "y"},
        ["other"],
    )


def test_set_changes_converge_exactly():
    assert compare.set_changes(["a", "b"], ["b", "c"]) == (["c"], ["a"])
    assert compare.set_changes(["a"], ["a"]) == ([], [])


def test_diff_shows_absence_as_empty():
    assert change.report(True, {}, None, {"x": 1})["diff"] == {"before": {}, "after": {"x": 1}}
