"""May a file in the cache be loaded as code? Only if nobody but this user could have written it.

Unpickling runs whatever the data names, and the manifest's digests prove nothing against a
writer who rewrites the manifest too. So before an object entry (cache/pickled.py) is loaded,
every step from the cache root down to its file is looked at: each must be owned by this user
and writable by no one else. Anyone who could replace a step (another user, a group, everyone)
could have planted the file, and then it is not loaded.

- Owner: the effective user. A file another user made (a shared /tmp directory, a cache
  copied from a colleague) is refused even when its mode is strict.
- Writable by group: refused, except for the user's private group (the group named like the
  user, with no other member: what Debian's and Fedora's `umask 002` setups give each user), or
  a group-writable step could be replaced by every member of that group.
- Writable by others: refused.
- A symbolic link below the root: refused (it could lead anywhere); the root itself is
  resolved first (the user chose it).

How it can be wrong: an administrator (root) can write anything and is trusted like the user;
ACLs that grant writes beyond the mode bits are not read (`getfacl`), and a network file system
that reports its own owners is taken at its word.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from sassview.memo import memoized


def untrusted(path: Path, root: Path) -> str | None:
    """Why `path` (a file under the cache `root`) may have been written by someone else, in
    a few words; None when only this user could have written it and every directory above it
    up to the root."""
    try:
        base = root.resolve()
        inside = path.resolve(strict=False).relative_to(base)
    except (OSError, ValueError):
        return f"{path} is not under the cache directory {root}"
    steps = [base]
    for part in inside.parts:
        steps.append(steps[-1] / part)
    for step in steps:
        why = _step_problem(step, symlink_ok=step == base)
        if why is not None:
            return f"{step} {why}"
    return None


def _step_problem(step: Path, symlink_ok: bool) -> str | None:
    try:
        st = os.lstat(step)
    except OSError as exc:
        return f"cannot be looked at ({exc.strerror})"
    if stat.S_ISLNK(st.st_mode) and not symlink_ok:
        return "is a symbolic link"
    if st.st_uid != os.geteuid():
        return f"is owned by {_user_name(st.st_uid)}, not by you"
    if st.st_mode & stat.S_IWOTH:
        return "is writable by every user"
    if st.st_mode & stat.S_IWGRP and not _private_group(st.st_gid):
        return f"is writable by the group {_group_name(st.st_gid)}"
    return None


@memoized(8)
def _private_group(gid: int) -> bool:
    """Is `gid` this user's own group: named like the user, with no other member?"""
    import grp
    import pwd

    try:
        group = grp.getgrgid(gid)
        me = pwd.getpwuid(os.geteuid()).pw_name
    except KeyError:
        return False
    return group.gr_name == me and set(group.gr_mem) <= {me}


def _user_name(uid: int) -> str:
    import pwd

    try:
        return f"{pwd.getpwuid(uid).pw_name} (uid {uid})"
    except KeyError:
        return f"uid {uid}"


def _group_name(gid: int) -> str:
    import grp

    try:
        return grp.getgrgid(gid).gr_name
    except KeyError:
        return str(gid)
