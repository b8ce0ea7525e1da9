"""Resident memory of this process and its children, for the training dashboard and benchmarks."""

from __future__ import annotations

import os
import resource
from dataclasses import dataclass, field

import psutil


def rss_bytes(pid: int | None = None, *, include_children: bool = True) -> int:
    """Current resident set size of process ``pid`` (default: this one), plus its live descendants.

    Returns 0 for a process that has gone, so a probe racing a finishing run never raises.

    >>> rss_bytes() > 0
    True
    """
    try:
        proc = psutil.Process(pid or os.getpid())
        total = proc.memory_info().rss
        if include_children:
            for child in proc.children(recursive=True):
                try:
                    total += child.memory_info().rss
                except psutil.Error:
                    pass
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
