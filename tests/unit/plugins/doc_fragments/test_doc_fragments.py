"""Each module lists one doc fragment, its kind; a kind is joined from pieces written once.
joined() must merge them as ansible-doc merges a module's fragments, or a kind would lose an
option, a note or a support level that the pieces say."""

import json
import subprocess
import sys

import yaml
from local_cloud import paths

from ansible_collections.multiattach.cloud.plugins.doc_fragments import (
    attachments,
    attributes,
    cluster_node,
    libvirt,
    openstack,
)
from ansible_collections.multiattach.cloud.plugins.doc_fragments.attributes import joined

ATTRIBUTES = attributes.ModuleDocFragment.DOCUMENTATION
OPENSTACK = openstack.ModuleDocFragment
KINDS = {
    "openstack.INFO": (
        OPENSTACK.INFO,
        [ATTRIBUTES, OPENSTACK.DOCUMENTATION, OPENSTACK.INFO_SUPPORT],
    ),
    "openstack.CHANGES": (
        OPENSTACK.CHANGES,
        [ATTRIBUTES, OPENSTACK.DOCUMENTATION, OPENSTACK.CHANGE_SUPPORT],
    ),
    "openstack.CHANGES_WITH_WAIT": (
        OPENSTACK.CHANGES_WITH_WAIT,
        [ATTRIBUTES, OPENSTACK.DOCUMENTATION, OPENSTACK.CHANGE_SUPPORT, OPENSTACK.WAIT],
    ),
    "attachments": (
        attachments.ModuleDocFragment.DOCUMENTATION,
        [
            ATTRIBUTES,
            OPENSTACK.DOCUMENTATION,
            OPENSTACK.CHANGE_SUPPORT,
            OPENSTACK.WAIT,
            attachments.ModuleDocFragment.ATTACHMENTS,
        ],
    ),
    "libvirt": (
        libvirt.ModuleDocFragment.DOCUMENTATION,
        [ATTRIBUTES, libvirt.ModuleDocFragment.LIBVIRT],
    ),
    "cluster_node": (
        cluster_node.ModuleDocFragment.DOCUMENTATION,
        [
            ATTRIBUTES,
            cluster_node.ModuleDocFragment.DISK_OPTIONS,
            cluster_node.ModuleDocFragment.CLUSTER_NAME,
        ],
    ),
    "cluster_node.DISK": (
        cluster_node.ModuleDocFragment.DISK,
        [ATTRIBUTES, cluster_node.ModuleDocFragment.DISK_OPTIONS],
    ),
}


def test_joined_merges_options_and_attributes_entry_by_entry_and_lists_in_order():
    merged = yaml.safe_load(
        joined(
            "options: {a: {type: str}}\nattributes: {check_mode: {description: Can.}}\nnotes: [one]",
            "options: {b: {type: int}}\nattributes: {check_mode: {support: full}}\nnotes: [two]",
        )
    )
    assert merged == {
        "options": {"a": {"type": "str"}, "b": {"type": "int"}},
        "attributes": {"check_mode": {"description": "Can.", "support": "full"}},
        "notes": ["one", "two"],
    }


def test_each_kind_holds_every_option_note_and_requirement_of_its_pieces():
    for kind, (text, pieces) in KINDS.items():
        fragment = yaml.safe_load(text)
        for piece in map(yaml.safe_load, pieces):
            assert set(piece.get("options") or {}) <= set(fragment["options"]), kind
            for name, entry in (piece.get("attributes") or {}).items():
                assert entry.items() <= fragment["attributes"][name].items(), (kind, name)
            for section in ("notes", "requirements"):
                assert all(line in fragment.get(section, []) for line in piece.get(section, [])), (
                    kind
                )


def test_each_openstack_kind_says_how_every_attribute_is_supported():
    for kind in (
        "openstack.INFO",
        "openstack.CHANGES",
        "openstack.CHANGES_WITH_WAIT",
        "attachments",
    ):
        attrs = yaml.safe_load(KINDS[kind][0])["attributes"]
        assert set(attrs) == {"check_mode", "diff_mode", "platform"}, kind
        for name, entry in attrs.items():
            assert entry.get("description") and entry.get("support"), (kind, name)


def test_only_the_kinds_with_wait_have_the_wait_options():
    for kind, (text, _pieces) in KINDS.items():
        options = yaml.safe_load(text)["options"]
        assert ({"wait", "timeout"} <= set(options)) == (
            kind in ("openstack.CHANGES_WITH_WAIT", "attachments")
        ), kind


# Each kind as a module lists it, and the pieces it is joined from as a module would list them.
KIND_PIECES = {
    "multiattach.cloud.openstack.INFO": ["attributes", "openstack", "openstack.INFO_SUPPORT"],
    "multiattach.cloud.openstack.CHANGES": ["attributes", "openstack", "openstack.CHANGE_SUPPORT"],
    "multiattach.cloud.openstack.CHANGES_WITH_WAIT": [
        "attributes",
        "openstack",
        "openstack.CHANGE_SUPPORT",
        "openstack.WAIT",
    ],
    "multiattach.cloud.attachments": [
        "attributes",
        "openstack",
        "openstack.CHANGE_SUPPORT",
        "openstack.WAIT",
        "attachments.ATTACHMENTS",
    ],
    "multiattach.cloud.libvirt": ["attributes", "libvirt.LIBVIRT"],
    "multiattach.cloud.cluster_node": [
        "attributes",
        "cluster_node.DISK_OPTIONS",
        "cluster_node.CLUSTER_NAME",
    ],
    "multiattach.cloud.cluster_node.DISK": ["attributes", "cluster_node.DISK_OPTIONS"],
}


MERGE = """
import json, sys
from ansible.utils.collection_loader._collection_finder import _AnsibleCollectionFinder
_AnsibleCollectionFinder(paths=[sys.argv[1]])._install()
from ansible.plugins.loader import fragment_loader
from ansible.utils.plugin_docs import add_fragments
merged = []
for fragments in json.loads(sys.argv[3]):
    doc = {"extends_documentation_fragment": fragments}
    add_fragments(doc, sys.argv[2], fragment_loader=fragment_loader, is_module=True)
    merged.append(doc)
print(json.dumps(merged))
"""


def test_each_kind_is_what_ansible_cores_own_merge_makes_of_its_pieces():
    """joined() against ansible-core's add_fragments(), in a process of its own (its collection
    loader must own the import of ansible_collections): a module listing the kind documents
    exactly what it would document listing the pieces one by one."""
    lists = []
    for kind, pieces in KIND_PIECES.items():
        lists += [[kind], ["multiattach.cloud." + piece for piece in pieces]]
    completed = subprocess.run(
        [
            sys.executable,
            "-c",
            MERGE,
            str(paths.ROOT / ".collections"),
            str(paths.ROOT / "plugins" / "modules" / "x.py"),
            json.dumps(lists),
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    merged = json.loads(completed.stdout)
    for index, kind in enumerate(KIND_PIECES):
        assert merged[2 * index] == merged[2 * index + 1], kind
