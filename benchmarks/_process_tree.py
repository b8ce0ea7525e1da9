"""How the benchmarks find and measure a child's whole process tree (see ``_common.run_task``).

The sampler runs beside the process it measures; on two cores, whatever it spends comes out of a
two-process run's time, so these keep their cost down.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import Any

HAVE_ROLLUP = Path("/proc/self/smaps_rollup").exists()
HAVE_CHILDREN = Path(f"/proc/{os.getpid()}/task/{os.getpid()}/children").exists()


def descendant_pids(pid: int) -> list[int] | None:
    """``pid`` and all its descendants, from Linux's per-thread ``children`` files; ``None`` where the
    kernel has none. Far cheaper than psutil's scan of all of ``/proc``, which matters because the sampler
    runs beside the process it measures, and on two cores its time comes out of a two-process export's."""
    if not HAVE_CHILDREN:
        return None
    found, todo = [], [pid]
    while todo:
        parent = todo.pop()
        found.append(parent)
        try:
            for tid in os.listdir(f"/proc/{parent}/task"):
                with open(f"/proc/{parent}/task/{tid}/children", "rb") as handle:
                    todo.extend(map(int, handle.read().split()))
        except (OSError, ValueError):
            pass  # the process (or thread) has just ended
    return found


def tree(pid: int) -> list[Any]:
    import psutil

    try:
        pids = descendant_pids(pid)
        if pids is None:
            proc = psutil.Process(pid)
            return [proc, *proc.children(recursive=True)]
        procs = []
        for one in pids:
            with contextlib.suppress(psutil.Error):
                procs.append(psutil.Process(one))
        return procs
    except psutil.Error:
        return []


def rss_sum(procs: list[Any]) -> int:
    import psutil

    total = 0
    for proc in procs:
        try:
            total += proc.memory_info().rss
        except psutil.Error:
            pass
    return total


def pss_sum(procs: list[Any]) -> int:
    """Sum of proportional set sizes (shared pages split between their sharers) from ``smaps_rollup``."""
    total = 0
    for proc in procs:
        try:
            with open(f"/proc/{proc.pid}/smaps_rollup", "rb") as handle:
                for line in handle:
                    if line.startswith(b"Pss:"):
                        total += int(line.split()[1]) * 1024
                        break
        except (OSError, ValueError):
            pass
    return total
