"""Each module lists one doc fragment, its kind; a kind is joined from pieces written once.
joined() must merge them as ansible-doc merges a module's fragments, or a kind would lose an
option, a note or a support level that the pieces say."""
import yaml

from ansible_collections.multiattach.cloud.plugins.doc_fragments import attachments, attributes, cluster_node, libvirt, openstack
from ansible_collections.multiattach.cloud.plugins.doc_fragments.attributes import joined

ATTRIBUTES = attributes.ModuleDocFragment.DOCUMENTATION
OPENSTACK = openstack.ModuleDocFragment
KINDS = {
    "openstack.INFO": (OPENSTACK.INFO,
                       [ATTRIBUTES, OPENSTACK.DOCUMENTATION, OPENSTACK.INFO_SUPPORT]),
    "openstack.CHANGES": (OPENSTACK.CHANGES,
                          [ATTRIBUTES, OPENSTACK.DOCUMENTATION, OPENSTACK.CHANGE_SUPPORT]),
    "openstack.CHANGES_WITH_WAIT": (
        OPENSTACK.CHANGES_WITH_WAIT,
        [ATTRIBUTES, OPENSTACK.DOCUMENTATION, OPENSTACK.CHANGE_SUPPORT, OPENSTACK.WAIT]),
    "attachments": (attachments.ModuleDocFragment.DOCUMENTATION,
                    [ATTRIBUTES, OPENSTACK.DOCUMENTATION, OPENSTACK.CHANGE_SUPPORT, OPENSTACK.WAIT,
                     attachments.ModuleDocFragment.ATTACHMENTS]),
    "libvirt": (libvirt.ModuleDocFragment.DOCUMENTATION, [ATTRIBUTES, libvirt.ModuleDocFragment.LIBVIRT]),
    "cluster_node": (cluster_node.ModuleDocFragment.DOCUMENTATION,
                     [ATTRIBUTES, cluster_node.ModuleDocFragment.CLUSTER_NODE]),
}


def test_joined_merges_options_and_attributes_entry_by_entry_and_lists_in_order():
    merged = yaml.safe_load(joined(
        "options: {a: {type: str}}\nattributes: {check_mode: {description: Can.}}\nnotes: [one]",
        "options: {b: {type: int}}\nattributes: {check_mode: {support: full}}\nnotes: [two]",
    ))
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
                assert all(line in fragment.get(section, []) for line in piece.get(section, [])), kind


def test_each_openstack_kind_says_how_every_attribute_is_supported():
    for kind in ("openstack.INFO", "openstack.CHANGES", "openstack.CHANGES_WITH_WAIT", "attachments"):
        attrs = yaml.safe_load(KINDS[kind][0])["attributes"]
        assert set(attrs) == {"check_mode", "diff_mode", "platform"}, kind
        for name, entry in attrs.items():
            assert entry.get("description") and entry.get("support"), (kind, name)


def test_only_the_kinds_with_wait_have_the_wait_options():
    for kind, (text, _pieces) in KINDS.items():
        options = yaml.safe_load(text)["options"]
        assert ({"wait", "timeout"} <= set(options)) == (kind in (
            "openstack.CHANGES_WITH_WAIT", "attachments")), kind
