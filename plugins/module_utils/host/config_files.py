# -*- coding: utf-8 -*-
# Copyright: multiattach.cloud developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Several whole files written in one module run, each only when its content or mode differs.

On an emulated guest every module run costs seconds; a role that keeps several small files
(a cluster stack's configuration) pays once for all of them, and not at all when the node's
read (clustered_fs_info's `files`) already shows them as wanted.
"""

from __future__ import annotations

import hashlib
import os
import stat
import tempfile

from ansible_collections.multiattach.cloud.plugins.module_utils.change import Change, Plan, Step
from ansible_collections.multiattach.cloud.plugins.module_utils.module import ModuleFailure


def file_state(path):
    """{sha256, mode} of the regular file PATH (mode as '0644'); None when there is none."""
    try:
        with open(path, "rb") as handle:
            data = handle.read()
            mode = stat.S_IMODE(os.fstat(handle.fileno()).st_mode)
    except FileNotFoundError:
        return None
    return {"sha256": hashlib.sha256(data).hexdigest(), "mode": "%04o" % mode}


def read_text(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return handle.read()
    except FileNotFoundError:
        return ""


def check_files(files):
    paths = [entry["path"] for entry in files]
    relative = [path for path in paths if not os.path.isabs(path)]
    if relative:
        raise ModuleFailure(
            "files must name absolute paths, not %s: give each file's full path"
            % ", ".join(relative)
        )
    twice = sorted({path for path in paths if paths.count(path) > 1})
    if twice:
        raise ModuleFailure(
            "files lists %s more than once: give each file one entry" % ", ".join(twice)
        )
    for entry in files:
        try:
            int(entry["mode"], 8)
        except ValueError:
            raise ModuleFailure(
                "file %s: mode %r is not an octal mode such as '0644'"
                % (entry["path"], entry["mode"])
            ) from None


def write_file(path, content, mode, directory_mode):
    """Write CONTENT to PATH with MODE from the start: under a private name in the same
    directory, then renamed into place (no moment with a wider mode, no half-written file)."""
    directory = os.path.dirname(path)
    if not os.path.isdir(directory):
        if directory_mode is None:
            raise ModuleFailure(
                "the directory of %s does not exist: create it first, or give the file a "
                "directory_mode" % path
            )
        os.makedirs(directory, mode=int(directory_mode, 8))
        os.chmod(directory, int(directory_mode, 8))
    descriptor, temporary = tempfile.mkstemp(prefix=".%s." % os.path.basename(path), dir=directory)
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            handle.write(content)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temporary, int(mode, 8))
        os.rename(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise


# A file's options in config_files' argument spec (its secret_files make content no_log).
FILE_OPTIONS = dict(
    path=dict(type="path", required=True),
    content=dict(type="str", required=True),
    mode=dict(type="str", required=True),
    directory_mode=dict(type="str"),
    read_sha256=dict(type="str"),
)
# read_sha256 of a file that did not exist when the run read it.
ABSENT = "absent"
# What the diff shows of a secret file (its path and mode are shown as any file's).
SECRET_BEFORE = "(secret content, not shown)\n"
SECRET_AFTER = "(new secret content, not shown)\n"


class ConfigFilesChange(Change):
    """config_files: each file holds its content with its mode."""

    def __init__(self, run_command, *, files, secret_files=(), run_after_write=None):
        # A secret file is written as any other; its content never enters the diff or the result.
        self.entries = [(entry, False) for entry in files] + [
            (entry, True) for entry in secret_files or ()
        ]
        check_files([entry for entry, unused in self.entries])
        self.run_command = run_command
        self.run_after_write = run_after_write or None

    def read(self):
        return {entry["path"]: file_state(entry["path"]) for entry, unused in self.entries}

    def refuse_changed_since_read(self, current):
        """A file another run (or a hand) wrote since this run read it is never overwritten
        with what was planned from the old one: nothing is written."""
        changed = [
            entry["path"]
            for entry, unused in self.entries
            if entry.get("read_sha256")
            and entry["read_sha256"] != (current[entry["path"]] or {}).get("sha256", ABSENT)
        ]
        if changed:
            raise ModuleFailure(
                "%s changed since this run read %s (another run, or a hand, wrote %s): nothing "
                "was written, since what this run planned came from the old content. Run "
                "again: it reads the files anew"
                % (
                    ", ".join(changed),
                    "it" if len(changed) == 1 else "them",
                    "it" if len(changed) == 1 else "them",
                )
            )

    def plan(self, current):
        self.refuse_changed_since_read(current)
        steps, written, diffs = [], [], []
        for entry, secret in self.entries:
            path, content, mode = entry["path"], entry["content"], "%04o" % int(entry["mode"], 8)
            have = current[path]
            wanted_sha = hashlib.sha256(content.encode("utf-8")).hexdigest()
            if have is not None and have["sha256"] == wanted_sha and have["mode"] == mode:
                continue
            written.append(path)
            diffs.append(
                {
                    "before_header": path,
                    "after_header": path,
                    "before": "" if have is None else SECRET_BEFORE if secret else read_text(path),
                    "after": SECRET_AFTER if secret else content,
                }
            )
            if have is not None and have["sha256"] == wanted_sha:
                diffs[-1].update(before="mode %s\n" % have["mode"], after="mode %s\n" % mode)
                steps.append(Step("chmod %s %s" % (mode, path), self.chmod_step(path, mode)))
            else:
                steps.append(
                    Step(
                        "write %s" % path,
                        self.write_step(path, content, mode, entry.get("directory_mode")),
                    )
                )
        ran = None
        if steps and self.run_after_write:
            ran = self.run_after_write
            steps.append(Step("run " + " ".join(ran), self.after_write_step(ran, written)))
        return Plan(False, False, steps, result=dict(written=written, ran=ran, diff_list=diffs))

    def after_write_step(self, argv, written):
        def run():
            try:
                rc, unused, err = self.run_command(argv)
            except OSError as error:
                rc, err = 127, str(error)
            if rc != 0:
                raise ModuleFailure(
                    "%s were written, then %s failed (exit %d): %s. Run it by hand once the cause "
                    "is mended: the next run finds the files as wanted and does not run it again"
                    % (", ".join(written), " ".join(argv), rc, err.strip() or "no message")
                )

        return run

    @staticmethod
    def write_step(path, content, mode, directory_mode):
        return lambda: write_file(path, content, mode, directory_mode)

    @staticmethod
    def chmod_step(path, mode):
        return lambda: os.chmod(path, int(mode, 8))

    def report(self, plan, result):
        reported = super().report(plan, result)
        diffs = reported.pop("diff_list")
        if diffs:
            reported["diff"] = diffs
        return reported
