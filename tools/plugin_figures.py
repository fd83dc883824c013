"""Figures of plugins/' shape (issue 28), printed as one JSON object:

    python tools/plugin_figures.py [PLUGINS_DIR]

- entry_shapes: the distinct ways modules/ enter module_utils (the call a module's run() or
  class attributes make, reduced to its shape);
- check_mode_branches: `if`/`while`/conditional expressions that test check mode;
- result_builders: places that build a module result (a dict literal or dict() with
  `changed`); diff_builders: calls of diff() or dicts with `before`/`after` keys;
- params_reads: `params["..."]` / `params.get("...")` (a literal option name) in module_utils;
- longest_function: the longest def in plugins/ (lines) and where.
"""

import ast
import json
import sys
from pathlib import Path


def functions(tree):
    return [
        node for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
    ]


def mentions_check_mode(node):
    return any(
        isinstance(n, (ast.Name, ast.Attribute))
        and (getattr(n, "id", None) == "check_mode" or getattr(n, "attr", None) == "check_mode")
        for n in ast.walk(node)
    )


def dict_keys(node):
    if isinstance(node, ast.Dict):
        return {k.value for k in node.keys if isinstance(k, ast.Constant)}
    if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "dict":
        return {k.arg for k in node.keywords if k.arg}
    return set()


def main(root):
    root = Path(root)
    figures = {
        "check_mode_branches": 0,
        "result_builders": 0,
        "diff_builders": 0,
        "params_reads": 0,
        "longest_function": [0, ""],
    }
    shapes = set()
    for path in sorted(root.rglob("*.py")):
        tree = ast.parse(path.read_text())
        in_utils = "module_utils" in path.parts
        for node in ast.walk(tree):
            if isinstance(node, (ast.If, ast.While, ast.IfExp)) and mentions_check_mode(node.test):
                figures["check_mode_branches"] += 1
            keys = dict_keys(node)
            if "changed" in keys:
                figures["result_builders"] += 1
            if {"before", "after"} <= keys or (
                isinstance(node, ast.Call) and getattr(node.func, "id", None) == "diff"
            ):
                figures["diff_builders"] += 1
            if (
                in_utils
                and isinstance(node, ast.Subscript)
                and isinstance(node.slice, ast.Constant)
                and isinstance(node.slice.value, str)
                and getattr(node.value, "attr", getattr(node.value, "id", "")) == "params"
            ):
                figures["params_reads"] += 1
            if (
                in_utils
                and isinstance(node, ast.Call)
                and getattr(node.func, "attr", None) == "get"
                and getattr(node.func.value, "attr", getattr(node.func.value, "id", "")) == "params"
                and node.args
                and isinstance(node.args[0], ast.Constant)
            ):
                figures["params_reads"] += 1
        for function in functions(tree):
            length = function.end_lineno - function.lineno + 1
            if length > figures["longest_function"][0]:
                figures["longest_function"] = [
                    length,
                    "%s:%s" % (path.relative_to(root), function.name),
                ]
        if "modules" in path.parts:
            for cls in (n for n in tree.body if isinstance(n, ast.ClassDef)):
                run = next(
                    (f for f in cls.body if isinstance(f, ast.FunctionDef) and f.name == "run"),
                    None,
                )
                attributes = sorted(
                    t.id
                    for n in cls.body
                    if isinstance(n, ast.Assign)
                    for t in n.targets
                    if isinstance(t, ast.Name) and t.id in ("resource_change", "change")
                )
                calls = []
                if run is not None:
                    for call in (n for n in ast.walk(run) if isinstance(n, ast.Call)):
                        func = call.func
                        name = getattr(func, "id", None) or getattr(func, "attr", None)
                        if (
                            name
                            and name[0].isupper()
                            or name in ("result", "plan_server", "plan_servers", "carry_out")
                            or name.endswith(
                                ("_report", "_disk", "_file", "_filesystem", "_described")
                            )
                        ):
                            calls.append("%s(%d)" % (name, len(call.args) + len(call.keywords)))
                shapes.add(" ".join(attributes + calls) or "base run()")
    figures["entry_shapes"] = len(shapes)
    figures["entry_shape_list"] = sorted(shapes)
    print(json.dumps(figures, indent=1))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "plugins")
