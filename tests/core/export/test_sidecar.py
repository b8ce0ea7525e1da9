"""The sidecar an export writes beside its array: what it holds, and that the two are saved both or neither."""

from __future__ import annotations

import datetime
import errno
import hashlib
import importlib.metadata
import io
import json
import os
import re
from pathlib import Path

import numpy as np
import pytest
from tests.cli.cli_cases import SPECIAL, TEXT, small_model

from core import atomic
from core.output_errors import OutputError
from core.export.npy_ids import read_npy_header
from core.export.run import export_corpus, export_events, npy_header, write_ids
from core.export.sidecar import IdsSidecar, SidecarError, read_sidecar, sidecar_path
from core.fingerprint import canonical_bytes


def _corpus(folder: Path, repeat: int = 30) -> Path:
    corpus = folder / "corpus.txt"
    corpus.write_text(TEXT * repeat, encoding="utf-8", newline="")
    return corpus


@pytest.mark.parametrize(("workers", "chunk_bytes"), [(1, None), (1, 300), (3, 300)])
def test_the_sidecar_holds_what_made_the_ids(tmp_path: Path, workers: int, chunk_bytes: int | None) -> None:
    """Each field against its own reference: hashlib over the files, numpy's view of the array."""
    corpus = _corpus(tmp_path)
    before = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)
    export_corpus(corpus, small_model(), tmp_path / "ids.npy", workers=workers, chunk_bytes=chunk_bytes)
    after = datetime.datetime.now(datetime.timezone.utc)
    raw = json.loads((tmp_path / "ids.npy.json").read_text(encoding="utf-8"))
    ids = np.load(tmp_path / "ids.npy")
    model = small_model()
    assert raw == {
        "format": "bpe-tui ids sidecar 1",
        "fingerprint": hashlib.sha256(canonical_bytes(model)).hexdigest(),
        "tokenizer_name": model.name,
        "vocab_size": 330,
        "special_tokens": [SPECIAL],
        "dtype": "uint16",
        "tokens": len(ids),
        "corpus_path": str(corpus.resolve()),
        "corpus_bytes": len(corpus.read_bytes()),
        "corpus_sha256": hashlib.sha256(corpus.read_bytes()).hexdigest(),
        "bpe_tui_version": importlib.metadata.version("bpe-tui"),
        "created": raw["created"],
    }
    created = datetime.datetime.strptime(raw["created"], "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=datetime.timezone.utc)
    assert before <= created <= after
    assert read_sidecar(tmp_path / "ids.npy") == IdsSidecar(**raw)


def test_an_empty_corpus_gets_a_sidecar_too(tmp_path: Path) -> None:
    corpus = tmp_path / "empty.txt"
    corpus.write_bytes(b"")
    export_corpus(corpus, small_model(), tmp_path / "ids.npy")
    side = read_sidecar(tmp_path / "ids.npy")
    assert (side.tokens, side.corpus_bytes) == (0, 0)
    assert side.corpus_sha256 == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"  # SHA-256 of b""


def _old_pair(folder: Path) -> tuple[bytes, bytes]:
    """A complete earlier export of another corpus in ``folder``: its array's and sidecar's bytes."""
    old = folder / "old.txt"
    old.write_text("an older corpus", encoding="utf-8")
    export_corpus(old, small_model(), folder / "ids.npy")
    return (folder / "ids.npy").read_bytes(), (folder / "ids.npy.json").read_bytes()


def _leftovers(folder: Path) -> list[str]:
    return sorted(name for name in os.listdir(folder) if name.endswith(".tmp"))


@pytest.mark.parametrize("workers", [1, 2])
def test_ctrl_c_between_the_two_renames_leaves_neither(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                      workers: int) -> None:
    corpus = _corpus(tmp_path)
    _old_pair(tmp_path)
    commit = atomic._commit
    renames: list[str] = []

    def interrupted_after_first(temp: Path, target: Path) -> None:
        commit(temp, target)
        renames.append(target.name)
        if len(renames) == 1:
            raise KeyboardInterrupt

    monkeypatch.setattr(atomic, "_commit", interrupted_after_first)
    with pytest.raises(KeyboardInterrupt):
        export_corpus(corpus, small_model(), tmp_path / "ids.npy", workers=workers, chunk_bytes=500)
    assert renames == ["ids.npy"]  # the new array had been put in place when Ctrl-C came
    # Neither the new array nor the old sidecar (which belonged to the array it replaced) is left.
    assert not (tmp_path / "ids.npy").exists() and not (tmp_path / "ids.npy.json").exists()
    assert _leftovers(tmp_path) == []


def test_ctrl_c_before_the_renames_keeps_the_old_pair(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    corpus = _corpus(tmp_path)
    old = _old_pair(tmp_path)

    def interrupted(temp: Path, target: Path) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(atomic, "_commit", interrupted)
    with pytest.raises(KeyboardInterrupt):
        export_corpus(corpus, small_model(), tmp_path / "ids.npy")
    assert ((tmp_path / "ids.npy").read_bytes(), (tmp_path / "ids.npy.json").read_bytes()) == old
    assert _leftovers(tmp_path) == []


def test_closing_the_export_as_it_saves_leaves_neither(tmp_path: Path) -> None:
    """The export stopped at ExportSaving (the arrays and sidecar written, not yet renamed)."""
    corpus = _corpus(tmp_path)
    events = export_events(corpus, small_model(), tmp_path / "ids.npy")
    for event in events:
        if type(event).__name__ == "ExportSaving":
            break
    events.close()
    assert sorted(os.listdir(tmp_path)) == ["corpus.txt"]


class _FullOnSecondFile(io.FileIO):
    """The second temporary opened (the sidecar's) is on a disk with no room left."""

    opened = 0

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        type(self).opened += 1
        self.full = type(self).opened == 2

    def write(self, data) -> int:  # type: ignore[override]
        if self.full and data:
            raise OSError(errno.ENOSPC, "No space left on device")
        return super().write(data)


def test_a_full_disk_while_writing_the_sidecar_leaves_neither(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    corpus = _corpus(tmp_path)
    old = _old_pair(tmp_path)
    monkeypatch.setattr(_FullOnSecondFile, "opened", 0)
    monkeypatch.setattr(atomic, "_raw_file", _FullOnSecondFile)
    with pytest.raises(OutputError, match=r"cannot write .*ids\.npy\.json: no space left on the device"):
        export_corpus(corpus, small_model(), tmp_path / "ids.npy")
    assert ((tmp_path / "ids.npy").read_bytes(), (tmp_path / "ids.npy.json").read_bytes()) == old
    assert _leftovers(tmp_path) == []


def test_an_array_is_never_saved_without_a_sidecar(tmp_path: Path) -> None:
    with pytest.raises(AssertionError, match="describe"):
        with write_ids(tmp_path / "ids.npy") as ids:
            ids.handle.write(npy_header("uint16", 0))
    assert os.listdir(tmp_path) == []


def test_a_folder_where_the_sidecar_goes_is_refused_before_any_work(tmp_path: Path) -> None:
    (tmp_path / "ids.npy.json").mkdir()
    with pytest.raises(OutputError, match="ids.npy.json: it is a directory"):
        export_corpus(_corpus(tmp_path), small_model(), tmp_path / "ids.npy")
    assert sorted(os.listdir(tmp_path)) == ["corpus.txt", "ids.npy.json"]


# ------------------------------------------------------------------------------------------ reading it


@pytest.fixture
def exported(tmp_path: Path) -> Path:
    export_corpus(_corpus(tmp_path, 2), small_model(), tmp_path / "ids.npy")
    return tmp_path / "ids.npy"


def _edit(ids: Path, **changes: object) -> None:
    path = sidecar_path(ids)
    raw = json.loads(path.read_text(encoding="utf-8"))
    for key, value in changes.items():
        if value is None:
            del raw[key]
        else:
            raw[key] = value
    path.write_text(json.dumps(raw), encoding="utf-8")


def test_a_missing_sidecar_is_named(exported: Path) -> None:
    sidecar_path(exported).unlink()
    with pytest.raises(SidecarError, match=r"ids\.npy has no sidecar \(ids\.npy\.json is missing\)"):
        read_sidecar(exported)


@pytest.mark.parametrize(("content", "message"), [
    (b"\x00\xff garbage", "is not JSON"),
    (b"[1, 2]", "not a JSON object"),
    (b'{"format": "bpe-tui ids sidecar 9"}', "its format is 'bpe-tui ids sidecar 9'"),
    (b"{" * 100_000, "is not JSON"),
])
def test_garbage_is_not_a_sidecar(exported: Path, content: bytes, message: str) -> None:
    sidecar_path(exported).write_bytes(content)
    with pytest.raises(SidecarError, match=re.escape(message)):
        read_sidecar(exported)


@pytest.mark.parametrize(("changes", "message"), [
    ({"tokens": "many"}, "its tokens ('many') is not a whole number"),
    ({"tokens": -1}, "its tokens (-1) is not a whole number"),
    ({"tokens": True}, "its tokens (True) is not a whole number"),
    ({"fingerprint": "ABC"}, "its fingerprint ('ABC') is not 64 lowercase hex digits"),
    ({"dtype": "float32"}, "its dtype ('float32') is neither uint16 nor uint32"),
    ({"special_tokens": [1]}, "its special_tokens ([1]) is not a list of texts"),
    ({"created": "yesterday"}, "its created ('yesterday') is not a UTC time"),
    ({"corpus_sha256": None}, "it lacks corpus_sha256"),
    ({"comment": "hi"}, "it has unknown fields comment"),
])
def test_an_edited_sidecar_says_which_field(exported: Path, changes: dict[str, object], message: str) -> None:
    _edit(exported, **changes)
    with pytest.raises(SidecarError, match=r"ids\.npy\.json was edited: " + re.escape(message)):
        read_sidecar(exported)


def test_a_huge_file_is_not_read_as_a_sidecar(exported: Path) -> None:
    sidecar_path(exported).write_bytes(b" " * ((1 << 20) + 1))
    with pytest.raises(SidecarError, match="far too big for a sidecar"):
        read_sidecar(exported)


def test_the_header_reader_agrees_with_numpy(tmp_path: Path) -> None:
    for dtype in ("<u2", "<u4", "<i8", "|u1"):
        path = tmp_path / f"{dtype[1:]}.npy"
        np.save(path, np.arange(5, dtype=dtype))
        ids = read_npy_header(path)
        assert [int(i) for block in ids.blocks() for i in block] == list(range(5))
        assert ids.dtype == str(np.dtype(dtype))

