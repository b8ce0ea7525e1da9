"""A disk that fills up while a command writes: one line, exit status 2, and nothing left behind.

Writing ``--events`` onto a full disk gave an ``OSError`` traceback, and a ``--to gpt2`` folder stayed
behind empty. Tried twice: on a real, tiny tmpfs (where this machine lets the test mount one; it skips
saying why where it cannot), and everywhere with the temporary file's writes made to fail with ENOSPC
once it holds more than a few kilobytes.
"""

from __future__ import annotations

import errno
import io
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from core import atomic
from tests.hostile.hostile_cases import (
    ENGLISH,
    digests,
    error_after_progress,
    everything,
    export_corpus_file,
    one_error_line,
    run_child,
    run_here,
    small_tokenizer,
)

FULL = "no space left on the device"


@pytest.fixture
def inputs(tmp_path: Path) -> dict[str, Path]:
    folder = tmp_path / "in"
    folder.mkdir()
    corpus = folder / "english.txt"
    corpus.write_bytes(ENGLISH.read_bytes())
    return {"corpus": corpus, "export corpus": export_corpus_file(folder / "export.txt"),
            "tok": small_tokenizer(folder)}


def _commands(inputs: dict[str, Path], out: Path) -> dict[str, list[str | Path]]:
    return {
        "train --events": ["train", inputs["corpus"], "--vocab-size", "1000", "--workers", "1",
                           "-o", inputs["corpus"].parent / "tok-1000.json", "--events", out / "e.jsonl"],
        "train -o": ["train", inputs["corpus"], "--vocab-size", "1000", "--workers", "1", "-o", out / "tok.json"],
        "convert --to gpt2 (new folder)": ["convert", inputs["tok"], out / "gpt2", "--to", "gpt2"],
        "convert --to hf": ["convert", inputs["tok"], out / "tokenizer.json", "--to", "hf"],
        "export -o": ["export", inputs["export corpus"], inputs["tok"], "-o", out / "ids.npy", "--workers", "2"],
    }


CASES = ["train --events", "train -o", "convert --to gpt2 (new folder)", "convert --to hf", "export -o"]


class _SmallDisk(io.FileIO):
    """A temporary file on a disk with ``room`` bytes free: a write past that fails as a full disk does."""

    room = 4096

    def write(self, data) -> int:  # type: ignore[override]
        if self.tell() + len(data) > self.room:
            raise OSError(errno.ENOSPC, "No space left on device")
        return super().write(data)


@pytest.mark.parametrize("case", CASES)
def test_a_full_disk_simulated(
    case: str, inputs: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = tmp_path / "out"
    out.mkdir()
    monkeypatch.setattr(atomic, "_raw_file", _SmallDisk)
    before = digests(tmp_path)
    argv = _commands(inputs, out)[case]
    code, stdout, err = run_here(capsys, *argv)
    error_after_progress(code, stdout, err, str(argv[0]), "cannot write", FULL)
    assert everything(out) == []
    assert digests(tmp_path) == before


def test_a_full_disk_keeps_the_old_gpt2_pair(
    inputs: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """--force over an existing pair: a failure leaves both old files, never one new and one old."""
    folder = tmp_path / "pair"
    folder.mkdir()
    (folder / "vocab.json").write_text('{"old": 0}')
    (folder / "merges.txt").write_text("#version: 0.2\n")
    before = digests(tmp_path)
    monkeypatch.setattr(atomic, "_raw_file", _SmallDisk)
    code, stdout, err = run_here(capsys, "convert", inputs["tok"], folder, "--to", "gpt2", "--force")
    one_error_line(code, stdout, err, "convert", FULL)
    assert digests(tmp_path) == before and everything(folder) == ["merges.txt", "vocab.json"]


@pytest.fixture
def tiny_disk(tmp_path: Path) -> Iterator[Callable[[str], Path]]:
    """Mount a tmpfs of a given size (``"16k"``) at a new folder; skips, saying why, where that is not allowed."""
    mounted: list[Path] = []

    def mount(size: str) -> Path:
        point = tmp_path / f"disk-{size}"
        point.mkdir()
        result = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(point)],
                                capture_output=True, text=True)
        if result.returncode != 0:
            pytest.skip(f"cannot mount a tmpfs here ({result.stderr.strip() or result.returncode}): "
                        "the simulated full disk covers this case")
        mounted.append(point)
        return point

    yield mount
    for point in mounted:
        subprocess.run(["umount", str(point)], check=True)


REAL_SIZES = {
    "train --events": "64k",
    "train -o": "16k",
    "convert --to gpt2 (new folder)": "4k",
    "convert --to hf": "4k",
    "export -o": "64k",
}


@pytest.mark.parametrize("case", CASES)
def test_a_full_tmpfs(case: str, inputs: dict[str, Path], tiny_disk: Callable[[str], Path]) -> None:
    disk = tiny_disk(REAL_SIZES[case])
    argv = _commands(inputs, disk)[case]
    result = run_child(*argv, cwd=inputs["corpus"].parent)
    error_after_progress(result.returncode, result.stdout, result.stderr, str(argv[0]), "cannot write", FULL)
    assert everything(disk) == []


@pytest.mark.parametrize("per_shard", [False, True])
@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_full_disk_under_a_shard_export_names_its_output(
    per_shard: bool, workers: str, inputs: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A shard's ids fill the disk: the part file's close flushed again and raised a bare OSError, whose line
    named no file; or the line named the hidden temporary, not the output asked for."""
    import core.export.shards
    from tests.core.corpus.corpus_cases import sample_documents, write_shard

    def small_disk_open(path, mode="r", *args, **kwargs):  # type: ignore[no-untyped-def]
        return io.BufferedWriter(_SmallDisk(path, "w")) if mode == "wb" else open(path, mode, *args, **kwargs)

    monkeypatch.setattr(core.export.shards, "open", small_disk_open, raising=False)
    documents = sample_documents()
    write_shard(tmp_path / "shards", "a.jsonl", documents[:60])
    write_shard(tmp_path / "shards", "b.jsonl", documents[60:120])
    out = tmp_path / "out"
    out.mkdir()
    target = out / ("per" if per_shard else "ids.npy")
    argv = ["export", tmp_path / "shards", inputs["tok"], "-o", target, "--workers", workers]
    code, stdout, err = run_here(capsys, *argv, *(["--per-shard"] if per_shard else []))
    line = error_after_progress(code, stdout, err, "export", f"cannot write {target}", FULL)
    assert ".tmp" not in line and ".ids" not in line
    assert everything(out) == []
