"""The pairs lens: pass by pass it makes the trainer's merges with their counts, ties to the greater pair."""

from __future__ import annotations

import pytest

from core.analysis.lenses.pairs import corpus_words, pair_passes, parse_word_counts
from core.errors import CorpusError
from tests.core.analysis.lenses.lens_cases import EOT, english_model
from tests.data_paths import SAMPLES


def bundled_counts() -> dict[str, int]:
    return corpus_words((SAMPLES / "word_counts.txt").read_text(encoding="utf-8"), r"\S+")


def test_the_bundled_corpus_has_eleven_word_forms() -> None:
    counts = bundled_counts()
    assert len(counts) == 11 and {"low", "lower", "lowest", "less", "list"} <= set(counts)


def test_the_bundled_first_passes_by_hand() -> None:
    counts = bundled_counts()
    result = pair_passes(counts, 3)
    assert result.start_symbols == sum(len(word) * n for word, n in counts.items())
    first, second, third = result.passes
    # "lo" is in low 7, lower 3, lowest 4, slow 3, slower 2, lost 3.
    assert (first.pair, first.count, first.tied_with) == ((b"l", b"o"), 22, ())
    assert first.symbols == result.start_symbols - 22
    # Then "st" (lowest 4, list 4, listen 2, lost 3, newest 6) and "lo"+"w" (7+3+4+3+2) both count 19:
    # b"s" > b"lo", so "s"+"t" wins and "lo"+"w" is named as the pair it beat.
    assert (second.pair, second.count, second.tied_with) == ((b"s", b"t"), 19, ((b"lo", b"w"),))
    assert (third.pair, third.count) == ((b"lo", b"w"), 19)
    assert dict(third.words)[(b"low", b"e", b"st")] == 4
    assert second.to_json()["tied_with"] == [["lo", "w"]]
    assert set(second.to_json()) >= {"pair", "count", "tied_with", "symbols"}


def test_a_text_corpus_gives_the_trainers_merges_and_counts() -> None:
    model = english_model()
    text = (SAMPLES / "english.txt").read_text(encoding="utf-8")
    result = pair_passes(corpus_words(text, model.pattern, (EOT,)), 25)
    assert [p.pair for p in result.passes] == model.merges[:25]
    assert [p.count for p in result.passes] == model.merge_counts[:25]


def test_passes_stop_when_no_pair_is_left() -> None:
    result = pair_passes({"ab": 2, "c": 5}, 10)
    assert [p.pair for p in result.passes] == [(b"a", b"b")]
    assert result.passes[0].symbols == 2 + 5


def test_overlapping_pairs_count_twice_but_merge_once() -> None:
    (only,) = pair_passes({"aaa": 1}, 1).passes
    assert (only.count, only.words, only.symbols) == (2, (((b"aa", b"a"), 1),), 2)


def test_word_count_lines_or_text() -> None:
    assert parse_word_counts("# c\n\nlow 5\nlow 2") == {"low": 7}
    assert parse_word_counts("low 5 extra") is None
    with pytest.raises(CorpusError, match="no words"):
        corpus_words("  \n", r"\S+")
