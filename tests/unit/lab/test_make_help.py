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


def test_the_test_steps_listed_are_the_ones_the_recipe_runs():
    steps = {
        name: re.search(r"^%s := (.*)$" % name, MAKEFILE, re.MULTILINE).group(1).split()
        for name in (
            "LOCAL_STEPS",
            "DEFAULT_PROFILE_STEPS",
            "BESIDE_THE_FAULTS",
            "FULL_PROFILE_STEPS",
        )
    }
    recipe = re.search(r"^test: .*?\n((?:\t.*\n)+)", MAKEFILE, re.MULTILINE).group(1)
    for name in steps:
        assert "$(%s)" % name in recipe, name
    shown = make_help()
    for step in (step for listed in steps.values() for step in listed):
        assert step in shown, step
