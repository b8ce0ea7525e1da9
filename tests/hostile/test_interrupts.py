"""Ctrl-C at every stage of every command, and ``kill -9``: what each moment leaves behind.

Each run is made to wait at a known point (``tests/cli/interrupt_point.py``) and gets SIGINT (to its
whole process group, as from a terminal) only once it waits there: nothing depends on timing. After each
one: the exit status and the one line it printed, the exact files left (hidden ones included), and that
no process of the command is left running. The states, as the README's "Guarantees" section says them:

* before the command has parsed its arguments: status 130, ``bpe-tui: interrupted``, nothing written;
* while it works (reading, merging, exporting) or before its final rename: status 130,
  ``interrupted; nothing was written``, no file and no temporary left;
* once saving has begun (train, convert and export hold Ctrl-C from then on: export once its array and
  sidecar are written, before their renames): the command finishes, says the files are complete, and
  exits 0.

SIGTERM (``kill``, ``timeout``) leaves the same states, with status 143 and ``terminated (SIGTERM)``.

``kill -9`` cannot be caught: it leaves temporaries, and the next run to the same output removes them.
"""

from __future__ import annotations

import json
import os
import signal
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from bpe_tui.__main__ import main
from bpe_tui.cli.outputs import Outputs
from core.encode.tokenizer import Tokenizer
from core.export.verify import verify_ids
from core.formats import load_tokenizer
from core.signals import Terminated, raise_once
from tests.core.corpus.corpus_cases import sample_documents, write_shard
from tests.hostile.hostile_cases import (
    ENGLISH,
    WaitingCommand,
    everything,
    export_corpus_file,
    run_here,
    small_tokenizer,
)


@dataclass(frozen=True)
class Stop:
    """A command stopped at ``point``: ``processes`` of it wait there; it exits ``code`` leaving ``left``."""

    point: str
    command: Callable[[Path], list[str | Path]]
    left: tuple[str, ...]
    code: int
    processes: int = 1


def _train(folder: Path) -> list[str | Path]:
    return ["train", folder / "corpus.txt", "--vocab-size", "400", "--workers", "1",
            "-o", folder / "out" / "tok.json", "--events", folder / "out" / "e.jsonl"]


def _export(folder: Path) -> list[str | Path]:
    return ["export", folder / "corpus.txt", folder / "tok.json", "-o", folder / "out" / "ids.npy", "--workers", "2"]


SHARD_DOCUMENTS = sample_documents()[:80]


def _export_shards(folder: Path) -> list[str | Path]:
    """A corpus of two shards (its documents are joined by the special token) into one array."""
    write_shard(folder / "shards", "a.jsonl", SHARD_DOCUMENTS[:40])
    write_shard(folder / "shards", "b.jsonl.gz", SHARD_DOCUMENTS[40:])
    return ["export", folder / "shards", folder / "tok.json", "-o", folder / "out" / "ids.npy", "--workers", "2"]


def _export_per_shard(folder: Path) -> list[str | Path]:
    argv = _export_shards(folder)
    return argv[:4] + [folder / "out" / "per", "--per-shard", "--workers", "2"]


def _convert_gpt2(folder: Path) -> list[str | Path]:
    return ["convert", folder / "tok.json", folder / "out" / "gpt2", "--to", "gpt2"]


def _convert_hf(folder: Path) -> list[str | Path]:
    return ["convert", folder / "tok.json", folder / "out" / "tokenizer.json", "--to", "hf"]


def _encode(folder: Path) -> list[str | Path]:
    return ["encode", folder / "tok.json", folder / "corpus.txt"]


def _inspect(folder: Path) -> list[str | Path]:
    return ["inspect", folder / "tok.json"]


TRAINED = ("e.jsonl", "tok.json")
GPT2 = ("gpt2", "gpt2/merges.txt", "gpt2/vocab.json")
EXPORTED = ("ids.npy", "ids.npy.json")
PER_SHARD = ("per", "per/a.jsonl.npy", "per/a.jsonl.npy.json", "per/b.jsonl.npy", "per/b.jsonl.npy.json")

STOPS: dict[str, Stop] = {
    "train: importing": Stop("importing", _train, (), 130),
    "train: parsing": Stop("parsing", _train, (), 130),
    "train: reading": Stop("reading", _train, (), 130),
    "train: merging": Stop("merging", _train, (), 130),
    "train: before the tokenizer's rename": Stop("before-rename:1", _train, TRAINED, 0),
    "train: after the tokenizer's rename": Stop("after-rename:1", _train, TRAINED, 0),
    "train: before the events file's rename": Stop("before-rename:2", _train, TRAINED, 0),
    "train: after the events file's rename": Stop("after-rename:2", _train, TRAINED, 0),
    "export: parsing": Stop("parsing", _export, (), 130),
    "export: exporting, in both processes": Stop("exporting", _export, (), 130, processes=2),
    "export: before the array's rename": Stop("before-rename:1", _export, EXPORTED, 0),
    "export: after the array's rename": Stop("after-rename:1", _export, EXPORTED, 0),
    "export: before the sidecar's rename": Stop("before-rename:2", _export, EXPORTED, 0),
    "export: after the sidecar's rename": Stop("after-rename:2", _export, EXPORTED, 0),
    "export shards: encoding, in both workers": Stop("exporting-shard", _export_shards, (), 130, processes=2),
    "export shards: before the array's rename": Stop("before-rename:1", _export_shards, EXPORTED, 0),
    "export shards: after the sidecar's rename": Stop("after-rename:2", _export_shards, EXPORTED, 0),
    "export --per-shard: encoding, in both workers": Stop("exporting-shard", _export_per_shard, (), 130, processes=2),
    "export --per-shard: before the folder's rename": Stop("before-rename:1", _export_per_shard, (), 130),
    "export --per-shard: after the folder's rename": Stop("after-rename:1", _export_per_shard, PER_SHARD, 0),
    "convert gpt2: parsing": Stop("parsing", _convert_gpt2, (), 130),
    "convert gpt2: before vocab.json's rename": Stop("before-rename:1", _convert_gpt2, GPT2, 0),
    "convert gpt2: after merges.txt's rename": Stop("after-rename:2", _convert_gpt2, GPT2, 0),
    "convert gpt2: before the folder's rename": Stop("before-rename:3", _convert_gpt2, GPT2, 0),
    "convert gpt2: after the folder's rename": Stop("after-rename:3", _convert_gpt2, GPT2, 0),
    "convert hf: before the rename": Stop("before-rename", _convert_hf, ("tokenizer.json",), 0),
    "convert hf: after the rename": Stop("after-rename", _convert_hf, ("tokenizer.json",), 0),
    "encode: importing": Stop("importing", _encode, (), 130),
    "encode: parsing": Stop("parsing", _encode, (), 130),
    "inspect: parsing": Stop("parsing", _inspect, (), 130),
}


def _inputs(folder: Path, command: str) -> None:
    if command == "export":
        export_corpus_file(folder / "corpus.txt")
    else:
        (folder / "corpus.txt").write_bytes(ENGLISH.read_bytes())
    small_tokenizer(folder)
    (folder / "out").mkdir()


@pytest.mark.parametrize("name", list(STOPS))
def test_ctrl_c_at_each_point_leaves_a_known_state(name: str, tmp_path: Path) -> None:
    _stop_and_check(STOPS[name], signal.SIGINT, tmp_path)


TERMINATED = [
    "train: parsing", "train: reading", "train: merging", "train: before the tokenizer's rename",
    "export: exporting, in both processes", "export: before the array's rename",
    "export shards: encoding, in both workers", "export --per-shard: encoding, in both workers",
    "export --per-shard: before the folder's rename", "convert gpt2: before the folder's rename",
    "convert hf: before the rename", "encode: parsing",
]


@pytest.mark.parametrize("name", TERMINATED)
def test_sigterm_at_each_point_cleans_up_as_ctrl_c_does(name: str, tmp_path: Path) -> None:
    """``kill``, ``timeout`` and a closing session send SIGTERM; left to its default action it ended the
    command on the spot, its temporaries (an export's parts, a half-written events file) left behind."""
    _stop_and_check(STOPS[name], signal.SIGTERM, tmp_path)


@pytest.mark.parametrize("second", [signal.SIGINT, signal.SIGTERM])
def test_a_second_signal_while_cleaning_up_after_the_first_leaves_nothing(second: int, tmp_path: Path) -> None:
    """Ctrl-C pressed twice (or ``kill`` after it): the second came while the export stopped its workers and
    removed their part files, and cut that short, leaving the part files and words files behind."""
    argv = _export(tmp_path)
    _inputs(tmp_path, "export")
    inputs = everything(tmp_path)
    run = WaitingCommand(tmp_path.parent / f"{tmp_path.name}-marks", "exporting+stopping", *argv, cwd=tmp_path)
    run.wait(2)  # this process and its worker are encoding
    run.signal(signal.SIGINT)
    run.wait(3)  # this process waits again, now cleaning up
    run.signal(second)
    code, out, err = run.finish()
    run.no_process_left()
    assert code == 130, err
    assert err.splitlines()[-1] == "bpe-tui export: interrupted; nothing was written" and "Traceback" not in err
    assert everything(tmp_path) == inputs


def _stop_and_check(stop: Stop, signum: int, tmp_path: Path) -> None:
    argv = stop.command(tmp_path)
    command = str(argv[0])
    _inputs(tmp_path, command)
    inputs = everything(tmp_path)
    run = WaitingCommand(tmp_path.parent / f"{tmp_path.name}-marks", stop.point, *argv, cwd=tmp_path)
    run.wait(stop.processes)
    run.signal(signum)
    code, out, err = run.finish()
    run.no_process_left()

    terminated = signum != signal.SIGINT
    done = "terminated (SIGTERM)" if terminated else "interrupted"
    assert code == (stop.code and 128 + signum), err
    assert "Traceback" not in err
    last = err.splitlines()[-1]
    if stop.point in ("importing", "parsing"):
        assert err == f"bpe-tui: {done}\n" and out == ""
    elif stop.code == 130:
        assert last == f"bpe-tui {command}: {done}; nothing was written"
    else:
        what = "SIGTERM" if terminated else "Ctrl-C"
        assert last.startswith(f"bpe-tui {command}: note: {what} came once saving had begun; ")
        assert last.endswith("complete")
    assert everything(tmp_path / "out") == sorted(stop.left)
    assert everything(tmp_path) == sorted(inputs + [f"out/{left}" for left in stop.left])
    _check_complete(tmp_path, command, stop.left)


def _check_complete(folder: Path, command: str, left: tuple[str, ...]) -> None:
    """What was left is whole: the tokenizer loads, the events file ends with its last record, the ids are
    all there."""
    out = folder / "out"
    if "tok.json" in left:
        model = load_tokenizer(out / "tok.json")
        records = [json.loads(line) for line in (out / "e.jsonl").read_text().splitlines()]
        assert records[-1]["event"] == "finished" and records[-1]["merges"] == len(model.merges)
    if (folder / "shards").exists():  # a corpus of shards: the ids give its documents back, as verify checks
        model = load_tokenizer(folder / "tok.json")
        for ids, shard in (("ids.npy", "shards"), ("per/a.jsonl.npy", "shards/a.jsonl"),
                           ("per/b.jsonl.npy", "shards/b.jsonl.gz")):
            if ids in left:
                assert verify_ids(out / ids, model, corpus=folder / shard).sidecar.tokens > 0
    elif "ids.npy" in left:
        text = (folder / "corpus.txt").read_text()
        ids = Tokenizer.from_model(load_tokenizer(folder / "tok.json")).encode(text)
        assert (out / "ids.npy").stat().st_size == 128 + 2 * len(ids)
        assert json.loads((out / "ids.npy.json").read_text())["tokens"] == len(ids)
    if "gpt2" in left:
        assert load_tokenizer(out / "gpt2").vocab == load_tokenizer(folder / "tok.json").vocab
    if "tokenizer.json" in left:
        assert load_tokenizer(out / "tokenizer.json").merges == load_tokenizer(folder / "tok.json").merges


# ---------------------------------------------------------------------------------------------- kill -9


KILLS: dict[str, tuple[str, Callable[[Path], list[str | Path]], int, tuple[str, ...]]] = {
    # (point, command, processes that wait, kinds of temporary left)
    "export with two processes": ("exporting", _export, 2, (".tmp", ".tmp", ".part", ".part", ".words", ".words")),
    "train with an events file": ("merging", _train, 1, (".tmp",)),
    "convert to a new GPT-2 folder": ("before-rename:3", _convert_gpt2, 1, (".tmpdir",)),
}


@pytest.mark.parametrize("name", list(KILLS))
def test_the_next_run_removes_what_kill_9_left(name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    point, make, processes, kinds = KILLS[name]
    argv = make(tmp_path)
    _inputs(tmp_path, str(argv[0]))
    run = WaitingCommand(tmp_path.parent / f"{tmp_path.name}-marks", point, *argv, cwd=tmp_path)
    run.wait(processes)
    run.signal(signal.SIGKILL)
    code, _, _ = run.finish()
    run.no_process_left()
    assert code == -signal.SIGKILL
    out = tmp_path / "out"
    left = sorted(path.name for path in out.iterdir())
    assert sorted(Path(name).suffix for name in left) == sorted(kinds), left
    assert all(f".bpe-tui.{run.proc.pid}." in name for name in left)  # each names its owner

    code, _, err = run_here(capsys, *argv)
    assert code == 0, err
    expected = {"export": ["ids.npy", "ids.npy.json"], "train": ["e.jsonl", "tok.json"], "convert": ["gpt2"]}[str(argv[0])]
    assert sorted(path.name for path in out.iterdir()) == expected


# ------------------------------------------------------------------------------------------ in process


@pytest.fixture
def python_sigint() -> Iterator[None]:
    """SIGINT handled by Python's own handler for the test, whatever the runner had."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def test_ctrl_c_while_saving_waits_once_and_not_twice(python_sigint: None, tmp_path: Path) -> None:
    outputs = Outputs("convert")
    with pytest.raises(KeyboardInterrupt):
        with outputs.saving():
            outputs.hold()
            os.kill(os.getpid(), signal.SIGINT)  # waits: noted for later
            assert outputs.held_interrupt
            os.kill(os.getpid(), signal.SIGINT)  # the user insists: raised at once
            raise AssertionError("a second Ctrl-C must not wait")
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_sigterm_while_saving_waits_and_a_second_signal_does_not(python_sigint: None) -> None:
    before = {signum: signal.getsignal(signum) for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
    raise_once()
    try:
        outputs = Outputs("convert")
        with pytest.raises(Terminated):
            with outputs.saving():
                outputs.hold()
                os.kill(os.getpid(), signal.SIGTERM)  # waits: noted for later
                assert outputs.held_interrupt and outputs.held_signal == signal.SIGTERM
                os.kill(os.getpid(), signal.SIGTERM)  # sent again: raised at once
                raise AssertionError("a second SIGTERM must not wait")
        assert outputs.complete_note().startswith("note: SIGTERM came once saving had begun")
    finally:
        for signum, handler in before.items():
            signal.signal(signum, handler)


def test_main_leaves_ctrl_c_as_it_found_it(python_sigint: None, capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (["inspect", "--help"], ["train", "--vocab-size", "x"], ["encode", "/no/such/tok.json"]):
        main(argv)
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    capsys.readouterr()


def test_an_interrupted_command_without_outputs_says_only_that(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """encode writes no file: "nothing was written" would be untrue of the ids it already printed."""

    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr("bpe_tui.cli.encode.load_tokenizer", interrupted)
    code, out, err = run_here(capsys, "encode", small_tokenizer(tmp_path), "-")
    assert (code, out, err) == (130, "", "bpe-tui encode: interrupted\n")
