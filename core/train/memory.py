"""Resident memory of this process and its children, for the training dashboard and benchmarks."""

from __future__ import annotations

import os
import resource
from dataclasses import dataclass, field

import psutil


_CHILDREN_FILES = os.path.exists(f"/proc/{os.getpid()}/task/{os.getpid()}/children")
"""Whether this kernel lists each thread's children in ``/proc/<pid>/task/<tid>/children`` (Linux)."""


def descendant_pids(pid: int) -> list[int] | None:
    """``pid`` and every process under it, read from the kernel's per-thread ``children`` lists.

    ``None`` where the kernel keeps no such lists. Far cheaper than ``psutil``'s ``children()``, which
    reads the status of every process on the machine: the app samples its training process ten times a
    second, from a thread that shares the interpreter with the UI.

    >>> descendant_pids(os.getpid())[0] == os.getpid() if _CHILDREN_FILES else True
    True
    """
    if not _CHILDREN_FILES:
        return None
    seen, pending = [], [pid]
    while pending:
        current = pending.pop()
        seen.append(current)
        try:
            threads = os.listdir(f"/proc/{current}/task")
        except OSError:
            continue  # it has just ended
        for thread in threads:
            try:
                with open(f"/proc/{current}/task/{thread}/children", "rb") as listing:
                    pending.extend(int(child) for child in listing.read().split())
            except (OSError, ValueError):
                continue
    return seen


def _resident(pid: int) -> int:
    """One process's resident set size, or 0 once it has gone."""
    try:
        return psutil.Process(pid).memory_info().rss
    except psutil.Error:
        return 0


def rss_bytes(pid: int | None = None, *, include_children: bool = True) -> int:
    """Current resident set size of process ``pid`` (default: this one), plus its live descendants.

    Returns 0 for a process that has gone, so a probe racing a finishing run never raises.

    >>> rss_bytes() > 0
    True
    """
    pid = pid or os.getpid()
    if not include_children:
        return _resident(pid)
    pids = descendant_pids(pid)
    if pids is not None:
        own = _resident(pid)
        return own + sum(_resident(child) for child in pids[1:]) if own else 0
    try:
        proc = psutil.Process(pid)
        total = proc.memory_info().rss
        for child in proc.children(recursive=True):
            total += _resident(child.pid)
        return total
    except psutil.Error:
        return 0


def peak_rss_self_bytes() -> int:
    """Peak RSS of this process alone as the kernel recorded it (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


@dataclass
class RSSProbe:
    """Samples a process tree's RSS on demand and keeps the peak seen.

    Injected into the app and CLI so tests can replace it with a frozen one.
    """

    pid: int | None = None
    peak: int = field(default=0, init=False)

    def sample(self) -> int:
        current = rss_bytes(self.pid)
        self.peak = max(self.peak, current)
        return current
