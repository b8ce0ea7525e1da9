"""Two saves of the same group of files at once (two exports to one -o, a GPT-2 pair converted twice) leave
one save's files, never one's array beside the other's sidecar.

Each test cuts save A in two: just after A's first rename, save B runs in a thread, and A goes on only
once B has finished or is waiting for A's renames (it reached the folder's lock). Without the lock B
renamed both files in between, and A's second rename then put A's file beside B's.
"""

from __future__ import annotations

import fcntl
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from core import atomic
from core.atomic import atomic_group
from core.formats import load_tokenizer, save_tokenizer
from core.model import BPEModel


def _interleaved(monkeypatch: pytest.MonkeyPatch, save_a: Callable[[], object], save_b: Callable[[], object]) -> None:
    """Run ``save_a``; right after its first rename, run ``save_b`` in a thread until it ends or waits."""
    commit, flock = atomic._commit, fcntl.flock
    b_done_or_waiting = threading.Event()
    errors: list[BaseException] = []
    thread_b: list[threading.Thread] = []

    def run_b() -> None:
        try:
            save_b()
        except BaseException as error:  # noqa: BLE001 - reported by the test below
            errors.append(error)
        finally:
            b_done_or_waiting.set()

    def observed_flock(descriptor: int, operation: int) -> None:
        if thread_b and threading.current_thread() is thread_b[0]:
            b_done_or_waiting.set()  # B is about to wait for A's renames
        flock(descriptor, operation)

    def first_rename_then_b(temp: Path, target: Path) -> None:
        commit(temp, target)
        if not thread_b and threading.current_thread() is threading.main_thread():
            thread_b.append(threading.Thread(target=run_b))
            thread_b[0].start()
            assert b_done_or_waiting.wait(30)

    monkeypatch.setattr(atomic, "_commit", first_rename_then_b)
    monkeypatch.setattr(fcntl, "flock", observed_flock)
    save_a()
    thread_b[0].join(30)
    assert not thread_b[0].is_alive() and errors == []


def test_two_groups_saved_at_once_leave_one_whole_group(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def save(text: bytes) -> Callable[[], None]:
        def group_save() -> None:
            with atomic_group() as group:
                group.open(tmp_path / "ids.npy").write(text)
                group.open(tmp_path / "ids.npy.json").write(text)
        return group_save

    _interleaved(monkeypatch, save(b"A"), save(b"B"))
    # B waited for A's renames, then replaced both of A's files.
    assert [(tmp_path / name).read_bytes() for name in ("ids.npy", "ids.npy.json")] == [b"B", b"B"]


def _model(merge: tuple[bytes, bytes], name: str) -> BPEModel:
    vocab = {i: bytes([i]) for i in range(256)}
    vocab[256] = merge[0] + merge[1]
    return BPEModel(vocab, [merge], name=name)


def test_a_gpt2_pair_saved_twice_at_once_is_one_of_them(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "pair"
    folder.mkdir()
    save_tokenizer(_model((b"x", b"y"), "old"), folder, format="gpt2")  # --force over an existing pair
    a, b = _model((b"a", b"b"), "a"), _model((b"c", b"d"), "b")
    _interleaved(monkeypatch, lambda: save_tokenizer(a, folder, format="gpt2"), lambda: save_tokenizer(b, folder, format="gpt2"))
    loaded = load_tokenizer(folder)
    assert (loaded.merges, loaded.vocab[256]) == ([(b"c", b"d")], b"cd")
