"""`make help` is read from the Makefile itself: every target it declares is described once,
where it is defined, and the steps of `make test` are the ones its recipe runs."""

import re
import subprocess

from local_cloud import paths

MAKEFILE = (paths.ROOT / "Makefile").read_text()


def make_help():
    return subprocess.run(
        ["make", "-s", "-C", str(paths.ROOT), "help"], capture_output=True, text=True, check=True
    ).stdout


def test_every_declared_target_is_described_in_help():
    phony = set(
        re.search(r"^\.PHONY:(.*?)\n\n", MAKEFILE, re.DOTALL | re.MULTILINE)
        .group(1)
        .replace("\\", " ")
        .split()
    )
    listed = set(re.findall(r"^  make (\S+)", make_help(), re.MULTILINE))
    assert phony <= listed, sorted(phony - listed)


def step_list(name):
    """The targets a step list of the Makefile names, with the lists it names expanded."""
    value = re.search(r"^%s := (.*)$" % name, MAKEFILE, re.MULTILINE).group(1).split()
    return [
        step
        for word in value
        for step in (step_list(word[2:-1]) if word.startswith("$(") else [word])
    ]


def test_the_test_steps_listed_are_the_ones_the_recipe_runs():
    steps = {
        name: step_list(name)
        for name in ("DEFAULT_PROFILE_STEPS", "BESIDE_THE_FAULTS", "FULL_PROFILE_STEPS")
    }
    recipe = re.search(r"^test: .*?\n((?:\t.*\n)+)", MAKEFILE, re.MULTILINE).group(1)
    for name in steps:
        assert "$(%s)" % name in recipe, name
    every_step = [step for listed in steps.values() for step in listed]
    for step in (
        "unit",
        "sanity",
        "lint",
        "unit-newest",
        "sanity-newest",
        "cloud-suites",
        "faults",
    ):
        assert step in every_step, step
    shown = make_help()
    for step in every_step:
        assert step in shown, step
