"""Ctrl-C taken by a thread other than the main one still stops the CLI.

The kernel gives a terminal's SIGINT to any thread of the process that does not block it; Python acts on
it only when the main thread next runs Python code. A parallel export once hung one CI run in five (and
one stress round in 38) this way: the signal landed on the corpus digest's thread while the main thread
slept in a wait on its workers, and the workers leave Ctrl-C to the parent. Each test here makes that
happen on purpose: the signal is sent to another thread once the main thread has entered the wait.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from core.export.corpus_digest import CorpusDigest
from tests.data_paths import ROOT

pytestmark = pytest.mark.skipif(not hasattr(signal, "pthread_kill"), reason="needs POSIX threads and signals")

AIM_AT_THE_WAIT = """
import signal, threading

# A process started from a background job inherits Ctrl-C ignored (so does CI, run that way): Python then
# keeps it ignored, and nothing here would see the signal. Ctrl-C raises, as in a terminal.
signal.signal(signal.SIGINT, signal.default_int_handler)

entered = threading.Event()

def aimed(real):
    # The main thread sets ``entered`` and then holds the GIL until the real wait releases it, so the
    # helper's signal comes while the main thread sleeps in the wait.
    def wait(*args):
        entered.set()
        return real(*args)
    return wait

def take_the_ctrl_c():
    entered.wait()
    signal.pthread_kill(threading.get_ident(), signal.SIGINT)  # to this thread, not the main one

threading.Thread(target=take_the_ctrl_c, daemon=True).start()
"""


def run_script(body: str) -> subprocess.CompletedProcess[str]:
    """Run ``AIM_AT_THE_WAIT`` and then ``body`` in a fresh interpreter; 60 s only turns a hang into a failure."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    script = AIM_AT_THE_WAIT + textwrap.dedent(body)
    try:
        return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env,
                              cwd=ROOT, timeout=60)
    except subprocess.TimeoutExpired:
        pytest.fail("the main thread slept on through a Ctrl-C that another thread took")


def test_a_pool_waiting_on_its_workers_raises_a_ctrl_c_another_thread_took() -> None:
    result = run_script("""
        import select, time
        from core.train import worker_pool
        worker_pool.select.select = aimed(select.select)
        pool = worker_pool.WorkerPool(1)
        try:
            next(pool.map_unordered(time.sleep, [(3600,)]))  # a worker busy for an hour
        except KeyboardInterrupt:
            print("interrupted")
        finally:
            pool.close()
    """)
    assert (result.returncode, result.stdout, result.stderr) == (0, "interrupted\n", "")


def test_a_shared_export_waiting_on_its_workers_raises_a_ctrl_c_another_thread_took(tmp_path: Path) -> None:
    result = run_script(f"""
        import multiprocessing, pathlib
        from core.export import workers
        workers.wait = aimed(workers.wait)
        export = workers.SharedExport(pathlib.Path({str(tmp_path / "ids.bin")!r}), [(0, 1)], 2)
        export._new_part()  # this process's own
        part = export._new_part()
        part.conn, silent_worker = multiprocessing.Pipe(duplex=False)  # a worker that never reports
        try:
            export._receive(block=True)
            print("returned")
        except KeyboardInterrupt:
            print("interrupted")
        finally:
            export.close()
    """)
    assert (result.returncode, result.stdout, result.stderr) == (0, "interrupted\n", "")
    assert list(tmp_path.iterdir()) == []


def test_the_corpus_digest_thread_leaves_ctrl_c_to_the_main_thread(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    masks: list[set[signal.Signals]] = []

    def read_to(self: CorpusDigest, end: int) -> None:
        masks.append(signal.pthread_sigmask(signal.SIG_BLOCK, []))

    path = tmp_path / "c.txt"
    path.write_bytes(b"abc")
    digest = CorpusDigest(path)
    monkeypatch.setattr(CorpusDigest, "read_to", read_to)
    digest.in_background(3)
    digest.stop()
    assert signal.SIGINT in masks[0] and signal.SIGTERM in masks[0]
    assert signal.SIGINT not in signal.pthread_sigmask(signal.SIG_BLOCK, [])  # the caller's mask is back
