"""The library refuses what the CLI refuses: absurd worker counts and file names that are not UTF-8.

A script calling ``TrainingRun``, ``train_bpe``, ``save_tokenizer`` or the export functions directly gets a
``SettingsError`` naming the argument, at once, before any work: not ``select()`` running out of file
descriptors, nor a ``UnicodeEncodeError`` when the trained tokenizer is saved after the whole run.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from core.errors import SettingsError
from core.export.run import export_corpus, export_events
from core.formats import save_tokenizer
from core.limits import max_workers
from core.model import BPEModel
from core.train.run import TrainingRun, train_bpe

BYTES = {i: bytes([i]) for i in range(256)}
NOT_UTF8 = os.fsdecode(b"caf\xe9.txt")
"""``caf\\xe9.txt`` as Python gives a Latin-1 file name: the \\xe9 byte kept as the lone surrogate U+DCE9."""

needs_byte_names = pytest.mark.skipif(
    os.uname().sysname != "Linux", reason="needs a file system that takes any bytes in names"
)


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    path = tmp_path / "corpus.txt"
    path.write_text("low low low lower lower newest", encoding="utf-8")
    return path


@pytest.fixture
def model() -> BPEModel:
    return BPEModel(BYTES | {256: b"lo"}, [(b"l", b"o")])


def names(caught: pytest.ExceptionInfo, *fragments: str) -> None:
    message = str(caught.value)
    assert "\n" not in message
    for fragment in fragments:
        assert fragment in message, message


@pytest.mark.parametrize("workers", [max_workers() + 1, 1000, 10**22])
def test_training_refuses_more_workers_than_the_machine_can_use(corpus: Path, workers: int) -> None:
    with pytest.raises(SettingsError) as caught:
        TrainingRun(corpus, 300, [], workers=workers)
    names(caught, f"workers={workers}", f"give {max_workers()} or fewer")
    with pytest.raises(SettingsError) as caught:
        train_bpe(corpus, 300, [], workers=workers)
    names(caught, f"workers={workers}")


@pytest.mark.parametrize("workers", [2.0, "2", True])
def test_training_refuses_workers_that_are_not_whole_numbers(corpus: Path, workers: object) -> None:
    with pytest.raises(SettingsError) as caught:
        TrainingRun(corpus, 300, [], workers=workers)
    names(caught, "workers", type(workers).__name__)


def test_the_most_workers_allowed_still_train(corpus: Path) -> None:
    # Six distinct pre-tokens at most: the hand-checked merges of the toy corpus, whatever the worker count.
    vocab, merges = train_bpe(corpus, 259, [], workers=max_workers())
    assert merges == [(b"o", b"w"), (b"l", b"ow"), (b" ", b"low")]


@needs_byte_names
def test_training_refuses_a_corpus_name_that_is_not_utf8(tmp_path: Path) -> None:
    path = tmp_path / NOT_UTF8
    path.write_text("low low", encoding="utf-8")
    with pytest.raises(SettingsError) as caught:
        TrainingRun(path, 300, [])
    names(caught, "input_path", "caf\\xe9.txt", "byte 0xe9", "rename the file")
    with pytest.raises(SettingsError):
        train_bpe(str(path), 300, [])


@pytest.mark.parametrize("format", ["bpe-tui", "gpt2", "hf", "tiktoken"])
def test_saving_refuses_a_name_that_is_not_utf8_and_writes_nothing(tmp_path: Path, model: BPEModel, format: str) -> None:
    with pytest.raises(SettingsError) as caught:
        save_tokenizer(model, tmp_path / NOT_UTF8, format=format)
    names(caught, "path", "caf\\xe9.txt", "byte 0xe9")
    assert list(tmp_path.iterdir()) == []


def test_saving_to_a_utf8_name_with_accents_still_works(tmp_path: Path, model: BPEModel) -> None:
    written = save_tokenizer(model, tmp_path / "café.json", format="bpe-tui")
    assert [p.name for p in written] == ["café.json"]


@pytest.mark.parametrize("workers", [0, max_workers() + 1])
def test_export_refuses_absurd_workers(corpus: Path, model: BPEModel, tmp_path: Path, workers: int) -> None:
    with pytest.raises(SettingsError) as caught:
        export_corpus(corpus, model, tmp_path / "ids.npy", workers=workers)
    names(caught, f"workers={workers}")
    assert not (tmp_path / "ids.npy").exists()


@needs_byte_names
@pytest.mark.parametrize("argument", ["corpus", "out"])
def test_export_refuses_names_that_are_not_utf8(corpus: Path, model: BPEModel, tmp_path: Path, argument: str) -> None:
    if argument == "corpus":
        bad = tmp_path / NOT_UTF8
        bad.write_text("low low", encoding="utf-8")
        paths = (bad, tmp_path / "ids.npy")
    else:
        paths = (corpus, tmp_path / NOT_UTF8)
    with pytest.raises(SettingsError) as caught:
        next(export_events(paths[0], model, paths[1]))
    names(caught, argument, "byte 0xe9")
    assert not (tmp_path / "ids.npy").exists() and not (tmp_path / NOT_UTF8).with_suffix(".npy").exists()
