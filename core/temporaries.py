"""The names of atomic writes' temporaries, and the clearing of those whose owners are gone.

A temporary (see :mod:`core.atomic`) is left behind only by a process killed outright (``kill -9``, the
out-of-memory killer, a power cut). So every temporary's name says whose it is::

    .NAME.bpe-tui.PID.START.HOST.RANDOM.KIND

(``START``: when process ``PID`` started, in clock ticks since boot; ``HOST``: this boot of this machine
and its process namespace; ``KIND``: ``tmp``, ``part``, ``words`` or ``tmpdir``), and the next save to the
same target first removes the temporaries of owners that are gone (:func:`remove_stale_temporaries`).
A process id is reused in time, which is why the start time is in the name: a live process with the
same id but another start time is not the owner. Anything that cannot be told for sure (another
machine on a shared disk, another boot) is kept.

Apart from the writing itself because the export's workers name their own temporaries the same way
(:func:`temp_prefix`), and because telling a live owner from a dead one is a matter of processes and
``/proc``, not of files.
"""

from __future__ import annotations

import hashlib
import os
import platform
import re
import shutil
from pathlib import Path

TEMP_MARK = "bpe-tui"
"""Between the target's name and the owner in every temporary's name."""

TEMP_KINDS = ("tmp", "part", "words", "tmpdir")
"""The endings of temporaries: an atomic write's file, an export's part and words files, a new folder."""

_NAME_BYTES = 140
"""How much of the target's name a temporary's name keeps: the rest of it takes up to about 80 bytes, and
a name must fit in 255 bytes, so a target with a long name still gets temporaries."""

_OWNER = re.compile(r"(\d+)\.(\d+)\.([0-9a-f]{8})\..+\.(?:" + "|".join(TEMP_KINDS) + r")")
"""What follows ``.NAME.bpe-tui.`` in a temporary's name: pid, start time, host, anything, kind."""


def _read(path: str) -> str | None:
    try:
        with open(path, encoding="ascii", errors="replace") as handle:
            return handle.read()
    except OSError:
        return None


def _process_state(pid: int) -> tuple[str, int] | None:
    """(state letter, start time in clock ticks since boot) of process ``pid``, from ``/proc``; None if unknown."""
    text = _read(f"/proc/{pid}/stat")
    if text is None:
        return None
    # The command name (field 2) is in parentheses and may hold spaces and parentheses itself.
    fields = text[text.rfind(")") + 2 :].split()
    try:
        return fields[0], int(fields[19])
    except (IndexError, ValueError):
        return None


def _host() -> str:
    """Eight hex digits naming this boot of this machine and this process namespace (the node name where
    there is no ``/proc``): process ids and start times only mean something within one."""
    boot = _read("/proc/sys/kernel/random/boot_id")
    try:
        namespace = os.readlink("/proc/self/ns/pid")
    except OSError:
        namespace = ""
    key = f"{boot.strip()}:{namespace}" if boot else f"node:{platform.node()}"
    return hashlib.sha256(key.encode("utf-8", "replace")).hexdigest()[:8]


_HOST = _host()
_owners: dict[int, str] = {}


def owner_tag() -> str:
    """``PID.START.HOST`` for this process (START is 0 where it cannot be known).

    >>> owner_tag().split(".")[0] == str(os.getpid())
    True
    """
    pid = os.getpid()  # not cached across fork: a child is another owner
    if pid not in _owners:
        state = _process_state(pid)
        _owners[pid] = f"{pid}.{state[1] if state else 0}.{_HOST}"
    return _owners[pid]


def _short_name(name: str) -> str:
    raw = os.fsencode(name)[:_NAME_BYTES]
    return os.fsdecode(raw)


def temp_prefix(target: str | os.PathLike[str]) -> str:
    """How the names of this process's temporaries for ``target`` begin: ``.NAME.bpe-tui.PID.START.HOST.``.

    >>> temp_prefix("out/ids.npy").startswith(".ids.npy.bpe-tui." + str(os.getpid()) + ".")
    True
    """
    return f".{_short_name(Path(target).name)}.{TEMP_MARK}.{owner_tag()}."


def owner_alive(pid: int, start: int, host: str) -> bool:
    """Whether the process that made a temporary may still be alive (when unsure: yes).

    >>> pid, start, host = owner_tag().split(".")
    >>> owner_alive(int(pid), int(start), host)
    True
    """
    if host != _HOST:
        return True  # another machine or boot: nothing here can tell
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # alive, another user's
    except OSError:
        return True
    if start == 0:
        return True  # made where start times are unknown: the process id alone cannot tell
    state = _process_state(pid)
    if state is None:
        return False  # it ended between the two looks
    letter, started = state
    return letter not in ("Z", "X") and started == start


def remove_stale_temporaries(target: str | os.PathLike[str]) -> list[Path]:
    """Remove the temporaries for ``target`` beside it whose owners are gone; return what was removed.

    Only names of the form described in the module docstring, for this very target, are looked at, and
    only those whose owner :func:`owner_alive` says is gone are removed, so no live process loses a
    file. A folder that cannot be listed is left alone.
    """
    target = Path(target)
    start = f".{_short_name(target.name)}.{TEMP_MARK}."
    removed: list[Path] = []
    try:
        entries = list(os.scandir(target.parent))
    except OSError:
        return removed
    for entry in entries:
        if not entry.name.startswith(start):
            continue
        match = _OWNER.fullmatch(entry.name, len(start))
        if match is None or owner_alive(int(match[1]), int(match[2]), match[3]):
            continue
        path = Path(entry.path)
        try:
            if entry.name.endswith(".tmpdir") and entry.is_dir(follow_symlinks=False):
                shutil.rmtree(path)
            else:
                path.unlink()
        except OSError:
            continue
        removed.append(path)
    return removed
