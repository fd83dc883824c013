"""What every OpenStack module returns is what its RETURN documentation says, key for key,
nested values included; attach modes are Cinder's, not null."""

import ast

import pytest
import yaml
from harness.ansible_runner import ROOT, run_module

COMMON_KEYS = {
    "changed",
    "failed",
    "invocation",
    "diff",
    "warnings",
    "deprecations",
    "msg",
    "skipped",
}
# Dicts whose keys are the user's or the cloud's, not the module's.
FREE_FORM = {"metadata", "extra_specs"}


def return_doc(module):
    source = (ROOT / "plugins" / "modules" / (module + ".py")).read_text()
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign) and node.targets[0].id == "RETURN":
            return yaml.safe_load(node.value.value)
    raise AssertionError("%s has no RETURN" % module)


def mismatches(value, doc, path):
    """Where VALUE (a result or part of one) and DOC (its RETURN entries) disagree."""
    found = []
    for key in sorted(set(value) - set(doc)):
        found.append("%s%s is returned but not documented" % (path, key))
    for key, entry in doc.items():
        if key not in value:
            if entry.get("returned") == "always":
                found.append("%s%s is documented as always returned but missing" % (path, key))
            continue
        found.extend(entry_mismatches(value[key], entry, "%s%s" % (path, key)))
    return found


def referenced_contains(entry, path):
    """The keys of a value documented once, in volume_info's RETURN, that another module's
    RETURN refers to: the volume, or one of its attachments."""
    if "M(multiattach.cloud.volume_info)" not in str(entry.get("description")):
        return None
    volume = return_doc("volume_info")["volumes"]["contains"]
    return volume["attachments"]["contains"] if path == "attachment" else volume


def entry_mismatches(item, entry, path):
    if item is None:
        return []
    name = path.rsplit(".", 1)[-1].split("[")[0]
    referenced = None if "contains" in entry else referenced_contains(entry, path)
    if referenced is not None:
        entry = dict(entry, contains=referenced)
    if entry.get("type") == "dict" and isinstance(item, dict) and item and name not in FREE_FORM:
        if "contains" not in entry:
            return ["%s is a dict whose keys are not documented (no contains)" % path]
        return mismatches(item, entry["contains"], path + ".")
    if entry.get("type") == "list" and entry.get("elements") == "dict" and item:
        if "contains" not in entry:
            return ["%s holds dicts whose keys are not documented (no contains)" % path]
        return [
            problem
            for index, element in enumerate(item)
            for problem in mismatches(element, entry["contains"], "%s[%d]." % (path, index))
        ]
    return []


def documented(module, result):
    assert not result.get("failed"), result.get("msg")
    returned = {k: v for k, v in result.items() if k not in COMMON_KEYS and not k.startswith("_")}
    return mismatches(returned, return_doc(module), "")


@pytest.fixture
def type_name(admin_cloud, lab):
    name = lab["type"] + "-doc"
    yield name
    run_module(
        "multiattach.cloud.volume_type", {"cloud": "local-admin", "name": name, "state": "absent"}
    )


def test_every_openstack_module_returns_what_it_documents(lab, type_name):
    shared, names = lab["shared"].name, lab["names"]
    admin = {"cloud": "local-admin"}
    try:
        results = {
            "volume_attachments": run_module(
                "multiattach.cloud.volume_attachments",
                dict(admin, volume=shared, servers=names[:2]),
            ),
            "server_volume": run_module(
                "multiattach.cloud.server_volume", dict(admin, volume=shared, server=names[2])
            ),
            "volume_info": run_module("multiattach.cloud.volume_info", dict(admin, name=shared)),
            "volume": run_module("multiattach.cloud.volume", dict(admin, name=shared, size=1)),
            "volume_type": run_module(
                "multiattach.cloud.volume_type",
                dict(admin, name=type_name, is_public=False, projects=["admin"]),
            ),
            "preflight": run_module("multiattach.cloud.preflight", admin),
        }
    finally:
        run_module(
            "multiattach.cloud.volume_attachments",
            dict(admin, volume=shared, servers=[], exclusive=True),
        )

    problems = {module: documented(module, result) for module, result in results.items()}
    assert problems == {module: [] for module in results}

    attachments = results["volume_attachments"]["volume"]["attachments"]
    assert [a["attach_mode"] for a in attachments] == ["rw", "rw"], attachments
    assert results["server_volume"]["attachment"]["attach_mode"] == "rw"
    assert {a["attach_mode"] for a in results["server_volume"]["volume"]["attachments"]} == {"rw"}
