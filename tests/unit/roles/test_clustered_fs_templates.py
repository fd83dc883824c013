"""clustered_fs's cluster configuration files, rendered as Ansible would: nodes with the IDs the
plan gives (tasks/plan.yml), listed in the order of their IDs whatever the inventory's order."""

import jinja2
import jinja2.nativetypes
import yaml
from local_cloud import paths

ROLE = paths.ROOT / "roles" / "clustered_fs"
DEFAULTS = yaml.safe_load((ROLE / "defaults" / "main.yml").read_text())


def member_nodes(nodes, ids, leaving=()):
    """The role's clustered_fs_member_nodes (defaults/main.yml) for NODES: (host, address)."""
    hostvars = {
        host: {"clustered_fs_address": address, "clustered_fs_node": {"node_name": host}}
        for host, address in nodes
    }
    members = [host for host, unused in nodes if host not in leaving]
    expression = jinja2.nativetypes.NativeEnvironment().from_string(
        DEFAULTS["clustered_fs_member_nodes"]
    )
    return expression.render(
        hostvars=hostvars,
        clustered_fs_members=members,
        clustered_fs_plan={"ids": ids, "highest": max(ids.values())},
    )


def render(name, nodes, ids, leaving=(), crypto=True):
    environment = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(ROLE / "templates")),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
    )  # as ansible.builtin.template
    environment.filters["bool"] = bool
    return environment.get_template(name).render(
        clustered_fs_member_nodes=member_nodes(nodes, ids, leaving),
        clustered_fs_cluster_name="lab",
        clustered_fs_plan={"ids": ids, "highest": max(ids.values()) + 4},
        clustered_fs_corosync_crypto=crypto,
        clustered_fs_corosync_token_ms=3000,
    )


def test_o2cb_cluster_conf_lists_every_node_with_tab_indented_attributes():
    text = render(
        "ocfs2-cluster.conf.j2",
        [("node-1", "10.0.0.1"), ("node-2", "10.0.0.2")],
        {"node-1": 0, "node-2": 1},
    )
    assert "\ncluster:\n\tnode_count = 2\n\tname = lab\n" in text
    assert (
        "# Node numbers are kept for the life of the cluster; node IDs given so far run up to 5.\n"
        in text
    )
    assert (
        "node:\n\tip_port = 7777\n\tip_address = 10.0.0.2\n\tnumber = 1\n\tname = node-2\n"
        "\tcluster = lab\n" in text
    )
    attribute_lines = [l for l in text.splitlines() if "=" in l]
    assert attribute_lines and all(
        l.startswith("\t") and not l.startswith("\t ") for l in attribute_lines
    )


def test_corosync_sets_two_node_only_for_two_nodes_and_takes_the_planned_ids():
    two = render("corosync.conf.j2", [("a", "10.0.0.1"), ("b", "10.0.0.2")], {"a": 1, "b": 2})
    three = render(
        "corosync.conf.j2",
        [("a", "10.0.0.1"), ("b", "10.0.0.2"), ("c", "10.0.0.3")],
        {"a": 1, "b": 2, "c": 7},
    )
    assert "two_node: 1" in two and "two_node" not in three
    assert "ring0_addr: 10.0.0.3\n        name: c\n        nodeid: 7\n" in three


def test_a_node_that_sorts_first_in_the_inventory_is_listed_by_its_id_and_the_file_does_not_move():
    before = render("corosync.conf.j2", [("b", "10.0.0.2"), ("c", "10.0.0.3")], {"b": 1, "c": 2})
    after = render(
        "corosync.conf.j2",
        [("a", "10.0.0.1"), ("b", "10.0.0.2"), ("c", "10.0.0.3")],
        {"a": 3, "b": 1, "c": 2},
    )
    assert after.index("name: b") < after.index("name: c") < after.index("name: a")
    assert "name: b\n        nodeid: 1\n" in after and "name: c\n        nodeid: 2\n" in after
    assert before.split("nodelist")[1].split("}\n}")[0] in after


def test_corosync_authenticates_and_encrypts_its_traffic_unless_told_not_to():
    on = render("corosync.conf.j2", [("a", "10.0.0.1"), ("b", "10.0.0.2")], {"a": 1, "b": 2})
    off = render(
        "corosync.conf.j2", [("a", "10.0.0.1"), ("b", "10.0.0.2")], {"a": 1, "b": 2}, crypto=False
    )
    assert "crypto_cipher: aes256" in on and "crypto_hash: sha256" in on and "none" not in on
    assert "crypto_cipher: none" in off


def test_a_leaving_node_is_left_out_and_the_others_keep_their_numbers():
    text = render(
        "ocfs2-cluster.conf.j2",
        [("node-1", "10.0.0.1"), ("node-2", "10.0.0.2"), ("node-3", "10.0.0.3")],
        {"node-1": 0, "node-3": 2},
        leaving=("node-2",),
    )
    assert "\tnode_count = 2\n" in text and "node-2" not in text
    assert "\tnumber = 2\n\tname = node-3\n" in text


def test_the_role_keeps_the_fencing_credentials_where_the_modules_read_them():
    """clustered_fs_info (fencing_cloud_present) and clustered_fs_leave (setting them aside)
    read the credentials at cluster_records.FENCING_CLOUDS; the role writes them at its own
    variable: a change to one alone would leave a rotation reading a file nobody writes."""
    from ansible_collections.multiattach.cloud.plugins.module_utils.host import cluster_records

    role_vars = yaml.safe_load((ROLE / "vars" / "main.yml").read_text())
    assert role_vars["clustered_fs_fencing_clouds_path"] == cluster_records.FENCING_CLOUDS
    assert (
        "{{ clustered_fs_fencing_clouds_path }}" in role_vars["clustered_fs_config_paths"]["gfs2"]
    )


def test_the_node_read_names_the_fencing_user_of_its_copy_never_the_password(tmp_path):
    """The role tells which of the two fencing users each member holds from clustered_fs_info
    (a hand-over cut short leaves members on both), without reading a password."""
    from ansible_collections.multiattach.cloud.plugins.module_utils.host import cluster_records

    clouds = tmp_path / "clouds.yaml"
    entry = {"auth": {"username": "multiattach-fence-c.2", "password": "pw-secret"}}
    clouds.write_text(yaml.safe_dump({"clouds": {"multiattach-fencing": entry}}, indent=2))

    assert cluster_records.cloud_user("multiattach-fencing", str(clouds)) == "multiattach-fence-c.2"
    assert cluster_records.cloud_user("another", str(clouds)) is None
    assert cluster_records.cloud_user("multiattach-fencing", str(tmp_path / "none")) is None
