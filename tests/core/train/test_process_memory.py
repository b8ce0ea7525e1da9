"""The RSS probe of the dashboard and ``bpe-tui train`` finds a whole process tree as psutil does, and reads
a process that has gone as 0 (a probe racing the end of a run must never raise)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import psutil
import pytest

from core.train.memory import descendant_pids, rss_bytes
from tests.waiting import wait_until

# A child that starts a grandchild, which creates ``ready`` once it runs; both then wait for stdin to close.
TREE = """
import subprocess, sys
grandchild = subprocess.Popen([sys.executable, "-c",
    "import pathlib, sys; pathlib.Path(sys.argv[1]).touch(); sys.stdin.read()", sys.argv[1]],
    stdin=subprocess.PIPE)
sys.stdin.read()
grandchild.stdin.close()
grandchild.wait()
"""


@pytest.fixture
def tree(tmp_path: Path):
    ready = tmp_path / "ready"
    child = subprocess.Popen([sys.executable, "-c", TREE, str(ready)], stdin=subprocess.PIPE)
    try:
        wait_until(ready.exists, "the grandchild to start")
        yield child
    finally:
        child.stdin.close()
        child.wait(timeout=30)


def test_the_tree_is_found_as_psutil_finds_it(tree: subprocess.Popen) -> None:
    found = descendant_pids(tree.pid)
    if found is None:
        pytest.skip("this kernel keeps no /proc/<pid>/task/<tid>/children lists")
    expected = [tree.pid] + [p.pid for p in psutil.Process(tree.pid).children(recursive=True)]
    assert len(expected) == 2 and sorted(found) == sorted(expected)


def test_the_tree_counts_the_grandchild(tree: subprocess.Popen) -> None:
    alone = rss_bytes(tree.pid, include_children=False)
    grandchild = psutil.Process(tree.pid).children()[0]
    # Each is a Python interpreter of several MiB: the tree's sum is clearly above the child alone.
    assert rss_bytes(tree.pid) >= alone + grandchild.memory_info().rss // 2 > alone > 0


def test_a_process_that_has_gone_reads_as_zero() -> None:
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    assert rss_bytes(gone.pid) == 0 and rss_bytes(gone.pid, include_children=False) == 0
