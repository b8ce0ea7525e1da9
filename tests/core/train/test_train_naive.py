"""The fast trainer against the slow reference in ``naive_bpe``: identical merges, counts and vocab.

The naive trainer recounts every pair after every merge, so it cannot drift the way incremental counts can;
the fast one must agree with it merge for merge on every sample corpus and on generated corpora built to
provoke the hard cases (repeated letters, overlapping pairs, whitespace runs, multi-byte characters,
special tokens glued to text, fragments of special tokens outside them).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.core.train.naive_bpe import (
    NaiveResult,
    count_pairs,
    merge_word,
    pretoken_counts,
    split_on_specials,
    train_naive,
    words_of,
)

from core.train.events import MergeMade, TrainingFinished
from core.train.run import TrainingRun, train_bpe

SPECIAL = "<|endoftext|>"
SAMPLE_MERGES = 150


def run_fast(run: TrainingRun) -> tuple[list[MergeMade], TrainingFinished]:
    events = list(run.events())
    assert isinstance(events[-1], TrainingFinished)
    return [e for e in events if isinstance(e, MergeMade)], events[-1]


def assert_same_training(naive: NaiveResult, merges_made: list[MergeMade], finished: TrainingFinished) -> None:
    model = finished.model
    first = next((i for i, (a, b) in enumerate(zip(model.merges, naive.merges)) if a != b), None)
    assert first is None, f"merge {first}: fast {model.merges[first]}, naive {naive.merges[first]}"
    assert model.merges == naive.merges
    assert [(e.left, e.right) for e in merges_made] == naive.merges
    assert [e.count for e in merges_made] == naive.counts
    assert model.merge_counts == naive.counts
    assert model.vocab == naive.vocab
    assert finished.reason == naive.reason


@pytest.mark.parametrize("name", ["english", "japanese", "mixed"])
def test_samples_match_naive(samples_dir: Path, name: str) -> None:
    path = samples_dir / f"{name}.txt"
    vocab_size = 256 + 1 + SAMPLE_MERGES
    naive = train_naive(path.read_bytes().decode("utf-8"), vocab_size, [SPECIAL])
    # Enough distinct pairs that the vocabulary, not the corpus, ends training: all 150 merges are compared.
    assert len(naive.merges) == SAMPLE_MERGES
    merges_made, finished = run_fast(TrainingRun(path, vocab_size, [SPECIAL], workers=1))
    assert_same_training(naive, merges_made, finished)


def test_toy_sample_matches_naive_to_exhaustion(samples_dir: Path) -> None:
    path = samples_dir / "toy.txt"
    naive = train_naive(path.read_text(encoding="utf-8"), 1000, [SPECIAL])
    assert naive.reason == "no_pairs"
    merges_made, finished = run_fast(TrainingRun(path, 1000, [SPECIAL]))
    assert_same_training(naive, merges_made, finished)


def test_the_reference_itself_on_hand_checked_cases() -> None:
    # The reference is only worth comparing against if it is right; these are small enough to check by eye.
    assert merge_word((b"a", b"a", b"a", b"a", b"a"), (b"a", b"a")) == (b"aa", b"aa", b"a")  # left to right
    assert merge_word((b"a", b"b", b"a", b"b"), (b"b", b"a")) == (b"a", b"ba", b"b")
    assert split_on_specials("x<a><a>y<a>z", ["<a>", "<a><a>"]) == ["x", "y", "z"]
    assert pretoken_counts("it's  a\n\n b", []) == {"it": 1, "'s": 1, " ": 1, " a": 1, "\n\n": 1, " b": 1}
    assert count_pairs(words_of("aaa aaa", [])) == {(b"a", b"a"): 4, (b" ", b"a"): 1}
    # Toy corpus (worked by hand in test_train_behaviour): counts 5, 5, 4, 2, 2; ties went to the greater pair.
    toy = train_naive("low low low lower lower newest", 256 + 5, [])
    assert toy.merges == [(b"o", b"w"), (b"l", b"ow"), (b" ", b"low"), (b"e", b"r"), (b" low", b"er")]
    assert toy.counts == [5, 5, 4, 2, 2]


ALPHABET = "abdelorstv" + "  \n\n\t\r" + ".,!?'-<|>" + "0123" + "日本語のはé"
"""Few letters, so pairs repeat and overlap ("aaa"); contraction letters; ``<|>`` to imitate special tokens."""

pieces = st.one_of(st.text(alphabet=ALPHABET, max_size=30), st.just(SPECIAL))
corpora = st.lists(pieces, max_size=8).map("".join)
special_lists = st.sampled_from([[SPECIAL], []])


@pytest.fixture(scope="module")
def corpus_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("generated")


@settings(max_examples=100, deadline=None)
@given(text=corpora, specials=special_lists)
def test_generated_corpora_match_naive(corpus_dir: Path, text: str, specials: list[str]) -> None:
    vocab_size = 256 + len(specials) + 30
    naive = train_naive(text, vocab_size, specials)
    merges_made, finished = run_fast(TrainingRun.from_text(text, vocab_size, specials))
    assert_same_training(naive, merges_made, finished)
    # The file route (reading, decoding, chunk counting) must give the same merges as in-memory text.
    path = corpus_dir / "corpus.txt"
    path.write_bytes(text.encode("utf-8"))
    vocab, merges = train_bpe(path, vocab_size, specials, workers=1)
    assert merges == naive.merges
    assert vocab == naive.vocab
