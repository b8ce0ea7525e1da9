"""Temporaries of dead processes are removed by the next save to the same target; no live process's ever is.

A temporary's name carries its owner: ``.NAME.bpe-tui.PID.START.HOST.RANDOM.KIND``. A process id alone
is not enough (ids are reused), so the start time must match too; a zombie is dead; an owner on another
host or boot cannot be judged and is kept.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from core import atomic, temporaries
from core.atomic import atomic_directory, atomic_open, atomic_write_text
from core.temporaries import owner_tag, remove_stale_temporaries
from tests.waiting import wait_until

HAS_PROC = Path("/proc/self/stat").exists()


def _temporary(folder: Path, target: str, owner: str, kind: str = "tmp") -> Path:
    path = folder / f".{target}.bpe-tui.{owner}.x1y2z3.{kind}"
    if kind == "tmpdir":
        path.mkdir()
        (path / "vocab.json").write_text("{}")
    else:
        path.write_text("half written")
    return path


def _dead_owner() -> str:
    """The tag of a process that has ended (and been waited for)."""
    child = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE)
    state = temporaries._process_state(child.pid)
    started = state[1] if state else 0
    assert child.stdin is not None
    child.stdin.close()
    child.wait()
    return f"{child.pid}.{started}.{temporaries._HOST}"


def test_a_live_owner_keeps_its_temporaries(tmp_path: Path) -> None:
    mine = _temporary(tmp_path, "out.json", owner_tag())
    assert remove_stale_temporaries(tmp_path / "out.json") == []
    assert mine.exists()


@pytest.mark.parametrize("kind", ["tmp", "part", "words", "tmpdir"])
def test_a_dead_owner_s_temporaries_go(kind: str, tmp_path: Path) -> None:
    stale = _temporary(tmp_path, "out.json", _dead_owner(), kind)
    assert remove_stale_temporaries(tmp_path / "out.json") == [stale]
    assert list(tmp_path.iterdir()) == []


@pytest.mark.skipif(not HAS_PROC, reason="start times come from /proc")
def test_a_reused_process_id_is_not_the_owner(tmp_path: Path) -> None:
    pid, started, host = owner_tag().split(".")
    stale = _temporary(tmp_path, "out.json", f"{pid}.{int(started) - 1}.{host}")  # this id, another process
    assert remove_stale_temporaries(tmp_path / "out.json") == [stale]


@pytest.mark.skipif(not HAS_PROC, reason="process states come from /proc")
def test_a_zombie_owner_is_dead(tmp_path: Path) -> None:
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    try:
        wait_until(lambda: (temporaries._process_state(pid) or ("?",))[0] == "Z", "the child to become a zombie")
        started = temporaries._process_state(pid)[1]  # type: ignore[index]
        stale = _temporary(tmp_path, "out.json", f"{pid}.{started}.{temporaries._HOST}")
        assert remove_stale_temporaries(tmp_path / "out.json") == [stale]
    finally:
        os.waitpid(pid, 0)


def test_what_cannot_be_judged_is_kept(tmp_path: Path) -> None:
    pid, started, host = owner_tag().split(".")
    other_host = "0" * 8 if host != "0" * 8 else "1" * 8
    kept = [
        _temporary(tmp_path, "out.json", f"1.5.{other_host}"),  # another machine or boot
        _temporary(tmp_path, "out.json", f"{pid}.0.{host}"),  # start time unknown, id alive
        _temporary(tmp_path, "other.json", _dead_owner()),  # another target's
    ]
    unrelated = [tmp_path / ".out.json.swp", tmp_path / ".out.json.bpe-tui.notes.tmp", tmp_path / "out.json.tmp"]
    for path in unrelated:
        path.write_text("someone else's")
    assert remove_stale_temporaries(tmp_path / "out.json") == []
    assert all(path.exists() for path in kept + unrelated)


def test_every_save_cleans_up_before_it_writes(tmp_path: Path) -> None:
    dead = _dead_owner()
    for kind in ("tmp", "part", "words"):
        _temporary(tmp_path, "ids.npy", dead, kind)
    with atomic_open(tmp_path / "ids.npy") as handle:
        handle.write(b"ids")
    _temporary(tmp_path, "gpt2", dead, "tmpdir")
    with atomic_directory(tmp_path / "gpt2") as folder:
        (folder / "vocab.json").write_text("{}")
    assert sorted(path.name for path in tmp_path.iterdir()) == ["gpt2", "ids.npy"]


def test_temporaries_name_their_owner_and_fit_a_long_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[str] = []
    commit = atomic._commit
    monkeypatch.setattr(atomic, "_commit", lambda temp, target: (seen.append(temp.name), commit(temp, target)))
    name = "n" * 250 + ".json"  # a temporary cannot simply add to it: names stop at 255 bytes
    atomic_write_text(tmp_path / name, "{}")
    assert (tmp_path / name).read_text() == "{}"
    assert seen[0].startswith("." + "n" * 140 + f".bpe-tui.{owner_tag()}.") and seen[0].endswith(".tmp")
    assert len(seen[0].encode()) <= 255
