"""Training from a file with any split pattern gives exactly the merges of the same text in memory.

The file is read in chunks cut where the pattern allows (``core.pretokenize.cuts``); here the chunks are
forced down to a few dozen bytes, by one process and shared with a worker, so that every kind of boundary
in the text is cut at or near.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.core.pretokenize.cut_cases import (
    BOUNDARY_TEXT,
    LETTERS_DIGITS_OTHER,
    LOOKING_FAR_AHEAD,
    PATTERN_IDS,
    PATTERNS,
    RUNS,
    SPECIAL,
    WORDS_WITH_SPACE,
)
from core.reference import count_pretokens as pretoken_counts

from core.model import BPEModel
from core.pretokenize.patterns import GPT2_PATTERN
from core.train import reading_stage
from core.train.events import TrainingFinished
from core.train.run import TrainingRun
from tests.data_paths import shared_path

VOCAB_SIZE = 256 + 1 + 120


def trained(run: TrainingRun) -> BPEModel:
    assert isinstance(list(run.events())[-1], TrainingFinished)
    return run.result()


@pytest.fixture
def chunk_bounds(monkeypatch: pytest.MonkeyPatch) -> list[list[int]]:
    """The chunk boundaries of each file read: proof that the file really was cut."""
    seen: list[list[int]] = []
    real = reading_stage.chunk_boundaries

    def spy(*args: object) -> list[int]:
        bounds = real(*args)  # type: ignore[arg-type]
        seen.append(bounds)
        return bounds

    monkeypatch.setattr(reading_stage, "chunk_boundaries", spy)
    return seen


@pytest.fixture(params=["one process", "shared with a worker", "workers only"])
def tiny_chunks(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Chunks of about 40 bytes on each of the three reading paths."""
    monkeypatch.setattr(reading_stage, "TARGET_CHUNK_BYTES", 40)
    monkeypatch.setattr(reading_stage, "SHARED_CHUNK_BYTES", 40)
    monkeypatch.setattr(reading_stage, "SHARED_READING_MIN_BYTES", 1 if request.param != "one process" else 1 << 40)
    monkeypatch.setattr(reading_stage, "PARALLEL_MIN_BYTES", 1 if request.param == "workers only" else 1 << 40)
    return request.param


@pytest.mark.parametrize("specials", [[], [SPECIAL]], ids=["no-specials", "specials"])
@pytest.mark.parametrize("pattern", PATTERNS, ids=PATTERN_IDS)
def test_file_trains_as_the_text_in_memory(
    tmp_path: Path, tiny_chunks: str, chunk_bounds: list[list[int]], pattern: str, specials: list[str]
) -> None:
    text = BOUNDARY_TEXT * 8
    path = tmp_path / "corpus.txt"
    path.write_text(text, encoding="utf-8", newline="")
    vocab_size = VOCAB_SIZE - 1 + len(specials)
    memory = trained(TrainingRun.from_text(text, vocab_size, specials, workers=1, pattern=pattern))
    workers = 1 if tiny_chunks == "one process" else 2
    from_file = trained(TrainingRun(path, vocab_size, specials, workers=workers, pattern=pattern))
    assert from_file.merges == memory.merges
    assert from_file.merge_counts == memory.merge_counts
    assert from_file.vocab == memory.vocab
    assert len(memory.merges) > 100  # (some patterns run out of pairs before the vocab is full)
    [bounds] = chunk_bounds
    if pattern in (GPT2_PATTERN, WORDS_WITH_SPACE, RUNS) or specials:
        assert len(bounds) > path.stat().st_size // 80, "the file was not cut into tiny chunks"
    else:
        assert bounds == [0, path.stat().st_size]


@pytest.mark.slow
@pytest.mark.parametrize(("pattern", "specials"), [(WORDS_WITH_SPACE, []), (LETTERS_DIGITS_OTHER, [SPECIAL])],
                         ids=["words-with-space", "no-rule"])
def test_real_corpus_with_two_workers(pattern: str, specials: list[str],
                                      chunk_bounds: list[list[int]]) -> None:
    # The reported case at full scale: r"\S+\s+|\S+|\s+" on a real corpus, read by two processes at the real
    # chunk sizes, once counted a few pre-tokens differently from the text in memory (too few to change
    # every run's merges, so the counts are compared too). The pattern without a rule is cut at the
    # corpus's "<|endoftext|>" lines.
    path = shared_path("corpora", "tinystories_2M.txt")
    text = path.read_text(encoding="utf-8")
    run = TrainingRun(path, 256 + len(specials) + 60, specials, workers=2, pattern=pattern)
    counts: dict[str, int] = {}
    with run._worker_pool() as pool:
        assert pool is not None
        list(run._read(counts, pool))
    assert len(chunk_bounds[-1]) > 4
    assert counts == pretoken_counts(text, specials, pattern)
    memory = trained(TrainingRun.from_text(text, 256 + len(specials) + 60, specials, workers=1, pattern=pattern))
    from_file = trained(TrainingRun(path, 256 + len(specials) + 60, specials, workers=2, pattern=pattern))
    assert from_file.merges == memory.merges
    assert from_file.merge_counts == memory.merge_counts


def test_looking_far_ahead_is_never_cut_inside_a_line(tmp_path: Path, chunk_bounds: list[list[int]],
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    # Whether "abc" is one pre-token depends on a "!" at the end of its line, far past any window a cut
    # could be checked in: the file is one chunk, and the merges are the text's.
    monkeypatch.setattr(reading_stage, "TARGET_CHUNK_BYTES", 64)
    text = ("abc " * 200 + "!\n" + "abc " * 200 + "\n") * 3
    path = tmp_path / "corpus.txt"
    path.write_text(text, encoding="utf-8")
    memory = trained(TrainingRun.from_text(text, 260, [], workers=1, pattern=LOOKING_FAR_AHEAD))
    from_file = trained(TrainingRun(path, 260, [], workers=1, pattern=LOOKING_FAR_AHEAD))
    assert chunk_bounds == [[0, len(text)]]
    assert from_file.merges == memory.merges and from_file.merge_counts == memory.merge_counts
