"""Every module file has the one shape docs/development.md asks for: its documentation, which
lists one doc fragment of the collection (its kind), one class on a base from module_utils with
the argument spec and the job (the Change or Reading of module_utils/change.py that does the
work; the base builds and runs it), at most a short context() or describe(), and main().
Reading, planning, applying and reporting live in module_utils; no module calls fail_json or
exit_json itself (the base's one failure path does)."""

import ast

import pytest
import yaml
from local_cloud import paths

MODULES = sorted((paths.ROOT / "plugins" / "modules").glob("*.py"))
DOC_NAMES = {"DOCUMENTATION", "EXAMPLES", "RETURN"}
BASES = {"OpenStackModule", "LibvirtModule", "CollectionModule"}
CLASS_SETTINGS = {
    "argument_spec",
    "module_kwargs",
    "wait_options",
    "masked_options",
    "libvirt_failure",
    "job",
}
KINDS = {
    "multiattach.cloud.openstack.INFO",
    "multiattach.cloud.openstack.CHANGES",
    "multiattach.cloud.openstack.CHANGES_WITH_WAIT",
    "multiattach.cloud.attachments",
    "multiattach.cloud.libvirt",
    "multiattach.cloud.cluster_node",
    "multiattach.cloud.cluster_node.DISK",
    "multiattach.cloud.attributes",
}
# Fragments of other collections a module may list besides its kind.
OTHER_FRAGMENTS = {"ansible.builtin.files"}
METHODS = {"context", "describe"}
MAX_METHOD_LINES = 8


def shape_problems(source):
    problems = []
    classes = []
    for node in ast.parse(source).body:
        if isinstance(node, ast.ImportFrom) and (
            node.module == "__future__"
            or node.module.startswith(
                (
                    "ansible_collections.multiattach.cloud.plugins.module_utils",
                    "ansible.module_utils",
                )
            )
        ):
            continue
        if isinstance(node, ast.Assign) and {t.id for t in node.targets} <= DOC_NAMES:
            if node.targets[0].id == "DOCUMENTATION":
                problems += fragment_problems(yaml.safe_load(node.value.value))
            continue
        if isinstance(node, ast.ClassDef):
            classes.append(node)
            continue
        if isinstance(node, ast.FunctionDef) and node.name == "main":
            continue
        if isinstance(node, ast.If) and "__main__" in ast.unparse(node.test):
            continue
        problems.append("line %d: %s at the top level" % (node.lineno, ast.unparse(node)[:60]))
    if len(classes) != 1:
        return problems + ["%d module classes, not one" % len(classes)]
    [module_class] = classes
    if not {ast.unparse(base) for base in module_class.bases} <= BASES:
        problems.append("%s is not built on %s" % (module_class.name, " or ".join(sorted(BASES))))
    names = set()
    for node in module_class.body:
        if isinstance(node, ast.Assign) and {t.id for t in node.targets} <= CLASS_SETTINGS:
            names.update(t.id for t in node.targets)
            continue
        if isinstance(node, ast.FunctionDef) and node.name in METHODS:
            names.add(node.name)
            lines = node.end_lineno - node.lineno
            if lines > MAX_METHOD_LINES:
                problems.append(
                    "%s() has %d lines: its logic belongs in module_utils" % (node.name, lines)
                )
            continue
        problems.append("line %d: %s in the module class" % (node.lineno, ast.unparse(node)[:60]))
    if "job" not in names:
        problems.append("%s names no job" % module_class.name)
    for call in ("fail_json", "exit_json"):
        if call in source:
            problems.append("calls %s itself" % call)
    return problems


def fragment_problems(documentation):
    fragments = (documentation or {}).get("extends_documentation_fragment", [])
    kinds = [name for name in fragments if name in KINDS]
    problems = [
        "lists the fragment %s, which is no module kind" % name
        for name in fragments
        if name not in KINDS | OTHER_FRAGMENTS
    ]
    if len(kinds) != 1:
        problems.append("lists %d module kinds (%s), not one" % (len(kinds), ", ".join(kinds)))
    return problems


@pytest.mark.parametrize("path", MODULES, ids=[p.stem for p in MODULES])
def test_the_module_file_holds_docs_spec_and_a_short_run(path):
    assert shape_problems(path.read_text()) == []


def test_the_shape_check_finds_logic_in_a_module_file():
    source = '''
from ansible_collections.multiattach.cloud.plugins.module_utils.openstack.module import OpenStackModule
DOCUMENTATION = """
extends_documentation_fragment:
  - multiattach.cloud.openstack
  - multiattach.cloud.openstack.INFO
  - multiattach.cloud.attributes
"""
POLL = 1


def helper():
    pass


class M(OpenStackModule):
    argument_spec = {}
    job = object

    def context(self):
        a = 1
        b = 2
        c = 3
        d = 4
        e = 5
        f = 6
        g = 7
        h = 8
        self.ansible.exit_json(changed=a + h)

    def run(self):
        pass

    def create(self):
        pass


def main():
    M()()
'''
    problems = shape_problems(source)
    assert any("POLL = 1 at the top level" in p for p in problems), problems
    assert any("def helper" in p for p in problems), problems
    assert any("context() has 9 lines" in p for p in problems), problems
    assert any("def run" in p for p in problems), problems
    assert any("def create" in p for p in problems), problems
    assert "calls exit_json itself" in problems
    assert "lists the fragment multiattach.cloud.openstack, which is no module kind" in problems
    assert (
        "lists 2 module kinds (multiattach.cloud.openstack.INFO, "
        "multiattach.cloud.attributes), not one"
    ) in problems


def test_the_shape_check_finds_a_module_class_with_nothing_to_run():
    problems = shape_problems('''
from ansible_collections.multiattach.cloud.plugins.module_utils.openstack.module import OpenStackModule
DOCUMENTATION = "extends_documentation_fragment: [multiattach.cloud.openstack.CHANGES]"


class M(OpenStackModule):
    argument_spec = {}
''')
    assert problems == ["M names no job"]
