"""clustered_fs's cluster configuration files, rendered as Ansible would."""
from pathlib import Path

import jinja2

TEMPLATES = Path(__file__).resolve().parents[2] / "roles" / "clustered_fs" / "templates"


def render(name, nodes, leaving=()):
    """NODES: (host, address) in the group's order; LEAVING: hosts being taken out. Node
    numbers as stack_ocfs2.yml gives them: the index in the whole group."""
    hostvars = {host: {"clustered_fs_address": address, "clustered_fs_node": {"node_name": host}}
                for host, address in nodes}
    group = [host for host, unused in nodes]
    environment = jinja2.Environment(loader=jinja2.FileSystemLoader(str(TEMPLATES)),
                                     undefined=jinja2.StrictUndefined, keep_trailing_newline=True,
                                     trim_blocks=True)  # as ansible.builtin.template
    return environment.get_template(name).render(
        groups={"cluster": group}, hostvars=hostvars, clustered_fs_group="cluster",
        clustered_fs_members=[host for host in group if host not in leaving],
        clustered_fs_node_numbers={host: index for index, host in enumerate(group)},
        clustered_fs_cluster_name="lab")


def test_o2cb_cluster_conf_lists_every_node_with_tab_indented_attributes():
    text = render("ocfs2-cluster.conf.j2", [("node-1", "10.0.0.1"), ("node-2", "10.0.0.2")])
    assert text.startswith("cluster:\n\tnode_count = 2\n\tname = lab\n")
    assert "node:\n\tip_port = 7777\n\tip_address = 10.0.0.2\n\tnumber = 1\n\tname = node-2\n" \
        "\tcluster = lab\n" in text
    attribute_lines = [l for l in text.splitlines() if "=" in l]
    assert attribute_lines and all(l.startswith("\t") and not l.startswith("\t ") for l in attribute_lines)


def test_corosync_sets_two_node_only_for_two_nodes():
    two = render("corosync.conf.j2", [("a", "10.0.0.1"), ("b", "10.0.0.2")])
    three = render("corosync.conf.j2", [("a", "10.0.0.1"), ("b", "10.0.0.2"), ("c", "10.0.0.3")])
    assert "two_node: 1" in two and "two_node" not in three
    assert "ring0_addr: 10.0.0.3" in three and "nodeid: 3" in three


def test_a_leaving_node_is_left_out_and_the_others_keep_their_numbers():
    text = render("ocfs2-cluster.conf.j2",
                  [("node-1", "10.0.0.1"), ("node-2", "10.0.0.2"), ("node-3", "10.0.0.3")],
                  leaving=("node-2",))
    assert "\tnode_count = 2\n" in text and "node-2" not in text
    assert "\tnumber = 2\n\tname = node-3\n" in text
