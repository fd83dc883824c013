# -*- coding: utf-8 -*-
# Copyright: multiattach.cloud developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The mount options that would undo what makes a shared disk safe, refused before any change.

A cluster filesystem is safe on several writers only while every node takes its locks from the
cluster and recovers journals under fencing: an option that picks another lock module, another
lock table or a journal of its own, or keeps locks on one node alone, turns that off. A dataset
reader is safe only read-only and without journal replay. Options are compared by their name
(the part before '='), case as mount(8) takes them.
"""

from __future__ import annotations

from ansible_collections.multiattach.cloud.plugins.module_utils.module import ModuleFailure

BYPASS_MOUNT = {
    "remount": "changes another mount's options instead of mounting this disk",
    "bind": "mounts a directory again instead of this disk",
    "rbind": "mounts a directory tree again instead of this disk",
}
CLUSTER_REFUSED = {
    "gfs2": {
        "lockproto": "sets the lock module (lock_nolock has no cluster locking: every node would "
        "write unaware of the others)",
        "locktable": "overrides the lock table mkfs gave the filesystem (another cluster's or "
        "lockspace's locks)",
        "hostdata": "overrides the journal and node the cluster assigns (two nodes could share a "
        "journal)",
        "localflocks": "keeps flock and POSIX locks on this node alone, so the others never see them",
        "spectator": "mounts without a journal, so this node's crash is never recovered by the others",
        "norecovery": "is spectator's other name: no journal, no recovery",
    },
    "ocfs2": {
        "localflocks": "keeps flock and POSIX locks on this node alone, so the others never see them",
        "coherency=buffered": "lets buffered writes of one node be unseen by the others' direct I/O",
        "nocluster": "mounts the filesystem without the cluster, as if no other node used it",
    },
}
READER_REFUSED = {
    "rw": "mounts read-write: a reader must never write a disk others read",
}


def _names(options):
    return [option.strip() for option in options if option and option.strip()]


def _refuse(found, what, fix):
    if found:
        raise ModuleFailure(
            "mount option%s %s refused for %s: %s. Nothing was changed. %s"
            % (
                "s" if len(found) > 1 else "",
                ", ".join(option for option, unused in found),
                what,
                "; ".join("%s %s" % (option, why) for option, why in found),
                fix,
            )
        )


def split(options):
    """An fstab options field (or a list of options) as a list."""
    if isinstance(options, str):
        return _names(options.split(","))
    return _names(options or [])


def refuse_cluster_options(filesystem, options):
    """Fails naming every option of OPTIONS that undoes the cluster filesystem's safety."""
    refused = dict(BYPASS_MOUNT, **CLUSTER_REFUSED[filesystem])
    found = []
    for option in split(options):
        name = option.lower()
        key = name.split("=", 1)[0]
        why = refused.get(name, refused.get(key))
        if why:
            found.append((option, why))
    _refuse(
        found,
        "a %s mount shared by the cluster" % filesystem.upper(),
        "Leave them out: the cluster's own settings (clustered_fs_cluster_name, the lock table "
        "mkfs wrote) decide them",
    )


def refuse_dataset_options(mode, options):
    """Fails naming every option of OPTIONS that would let a dataset reader (MODE ro) write, or
    that mounts something other than the disk."""
    refused = dict(BYPASS_MOUNT, **READER_REFUSED) if mode == "ro" else BYPASS_MOUNT
    found = []
    for option in split(options):
        why = refused.get(option.lower().split("=", 1)[0])
        if why:
            found.append((option, why))
    _refuse(
        found,
        "a read-only dataset reader" if mode == "ro" else "the dataset's writer",
        "A reader is always mounted ro with no journal replay; only the one writer of a volume "
        "that no other server holds mounts rw (mode rw)",
    )
