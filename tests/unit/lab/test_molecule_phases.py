"""tools/molecule_phases.py finds molecule's phases, also task headers molecule wrapped."""

import molecule_phases
from local_cloud import paths

WRAPPED_OUTPUT = [
    "INFO     shared_disk \u279c create: Executing\n",
    "  \u2502 TASK [Build the guest image with debootstrap and the full kernel (cached)] ***\n",
    "  \u2502 ok: [localhost]\n",
    "  \u2502 TASK [Attach the shared disk to both running guests as Nova does for a\n",
    "  \u2502   multiattach volume] ************\n",
    "  \u2502 TASK [\x1b[0;32mSome other task\x1b[0m] ***\n",
    "INFO     shared_disk \u279c converge: Executing\n",
]


def test_a_wrapped_task_header_is_joined_and_every_line_passes_through():
    lines = list(molecule_phases.task_lines(WRAPPED_OUTPUT))

    assert [line for line, _plain in lines] == WRAPPED_OUTPUT
    headers = [
        molecule_phases.TASK.search(plain).group("task")
        for _line, plain in lines
        if plain and molecule_phases.TASK.search(plain)
    ]
    assert headers[1] == (
        "Attach the shared disk to both running guests as Nova does for a multiattach volume"
    )
    assert headers[2] == "Some other task"


def test_phases_last_until_the_next_action_and_marked_tasks_until_the_next_task():
    marks = [
        ("create", 0.0),
        ("create: image", 1.0),
        ("", 4.0),
        ("create: image", 5.0),
        ("", 7.0),
        ("converge", 10.0),
        ("verify", 30.0),
    ]

    table = molecule_phases.phases_table(marks, finished=35.0)

    assert table == [
        ("create", 10.0, [("create: image", 5.0)]),
        ("converge", 20.0, []),
        ("verify", 5.0, []),
    ]


def test_every_marked_task_is_a_task_of_a_molecule_scenario():
    """A renamed task would silently drop its phase from the figures."""
    import yaml

    root = paths.ROOT / "molecule"
    names = set()

    def collect(node):
        if isinstance(node, dict):
            if isinstance(node.get("name"), str):
                names.add(node["name"])
            for value in node.values():
                collect(value)
        elif isinstance(node, list):
            for value in node:
                collect(value)

    for playbook in root.glob("*/*.yml"):
        collect(yaml.safe_load(playbook.read_text()))
    assert not set(molecule_phases.MARKED_TASKS) - names, sorted(
        set(molecule_phases.MARKED_TASKS) - names
    )


def test_the_lost_member_and_partition_figures_are_told_apart():
    lost = (
        "    msg: \"member lost for good: the others' writes stalled at most 4.4 s "
        "(node-1 4.4 s, node-2 3.1 s)\""
    )
    cut = "    msg: 'partition: fence 6.2 s, resume 19.5 s, stall 13.3 s'"
    assert molecule_phases.STALL.search(lost).group("seconds") == "4.4"
    assert (
        molecule_phases.STALL.search(cut) is None and molecule_phases.PARTITION.search(lost) is None
    )
    assert molecule_phases.PARTITION.search(cut).groupdict() == {
        "fence": "6.2",
        "resume": "19.5",
        "stall": "13.3",
    }
