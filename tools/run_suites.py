"""Run test suites against one local cloud: some at once, then the rest one after another.

    run_suites.py --logs DIR --at-once NAME=COMMAND ... --then NAME=COMMAND ...

The suites given with --at-once start together (they mostly wait on the cloud's API); each
one's output goes to DIR/NAME.log and is printed whole when it ends, so outputs never mix.
The --then suites run after all of those have ended, one by one, their output shown as it
comes (they count what the whole cloud serves, or change it for every user). Every suite
runs even when one failed; the exit status is 1 if any failed (pytest's 5, "no tests ran",
included), and the last lines name each suite with its status and its seconds.
"""

import argparse
import subprocess
import sys
import time
from pathlib import Path


def named_command(text):
    name, separator, command = text.partition("=")
    if not separator or not name or not command:
        raise argparse.ArgumentTypeError("%r is not NAME=COMMAND" % text)
    return name, command


def run_at_once(suites, logs):
    """Start every suite, print each log as it ends; {name: (status, seconds)}."""
    started = time.monotonic()
    running = {}
    for name, command in suites:
        log = logs / (name + ".log")
        handle = log.open("w")
        running[name] = (
            subprocess.Popen(["bash", "-c", command], stdout=handle, stderr=subprocess.STDOUT),
            handle,
            log,
        )
        print("started %s: %s (output in %s)" % (name, command, log), flush=True)
    outcomes = {}
    while running:
        for name, (process, handle, log) in list(running.items()):
            if process.poll() is None:
                continue
            handle.close()
            outcomes[name] = (process.returncode, time.monotonic() - started)
            del running[name]
            print("\n===== %s (exit %d, %.0f s) =====" % ((name,) + outcomes[name]), flush=True)
            sys.stdout.write(log.read_text(errors="replace"))
            sys.stdout.flush()
        time.sleep(1)
    return outcomes


def run_in_turn(suites):
    outcomes = {}
    for name, command in suites:
        print("\n===== %s: %s =====" % (name, command), flush=True)
        started = time.monotonic()
        status = subprocess.run(["bash", "-c", command], check=False).returncode
        outcomes[name] = (status, time.monotonic() - started)
    return outcomes


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--logs", type=Path, required=True)
    parser.add_argument("--at-once", type=named_command, nargs="+", default=[])
    parser.add_argument("--then", type=named_command, nargs="+", default=[])
    args = parser.parse_args()
    names = [name for name, _command in args.at_once + args.then]
    if len(set(names)) != len(names):
        parser.error("two suites share a name: %s" % ", ".join(names))
    args.logs.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    outcomes = run_at_once(args.at_once, args.logs)
    outcomes.update(run_in_turn(args.then))
    print("\n===== suites (%.0f s in all) =====" % (time.monotonic() - started))
    for name in names:
        status, seconds = outcomes[name]
        print(
            "%-28s %s  %4.0f s"
            % (name, "passed" if status == 0 else "FAILED (exit %d)" % status, seconds)
        )
    return 1 if any(status for status, _seconds in outcomes.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
