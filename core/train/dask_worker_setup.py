"""Run by each worker process of a local Dask cluster as it starts (a Dask preload): Ctrl-C is left to bpe-tui.

A terminal's Ctrl-C reaches the whole process group, the cluster's worker processes too: each printed a
KeyboardInterrupt traceback, and its nanny an error, above the run's one line. The process that runs the
training alone handles Ctrl-C: it cancels the jobs and closes the cluster, which stops the workers.
"""

from __future__ import annotations

import signal
from typing import Any


def dask_setup(worker: Any) -> None:
    """Ignore SIGINT in this worker process (Dask calls this on its main thread as the worker starts)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
