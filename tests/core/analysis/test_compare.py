"""Boundary differences, per-script token counts and vocabulary overlap, with exact hand-worked values."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from core.analysis.compare import (
    BoundaryDiff,
    ScriptTokens,
    TextStats,
    boundary_diff,
    cuts,
    text_stats,
    tokens_by_script,
    vocab_overlap,
)
from core.model import BPEModel


@dataclass(frozen=True)
class S:
    """A stand-in span: only the offsets (and the special flag) matter here."""

    byte_start: int
    byte_end: int
    is_special: bool = False


def spans_from_lengths(*lengths: int) -> list[S]:
    spans, offset = [], 0
    for length in lengths:
        spans.append(S(offset, offset + length))
        offset += length
    return spans


def test_cuts_skip_the_start() -> None:
    assert cuts(spans_from_lengths(3, 1, 2)) == frozenset({3, 4})
    assert cuts([]) == frozenset()


def test_boundary_diff_of_three() -> None:
    a = spans_from_lengths(2, 2, 2)  # cuts 2, 4
    b = spans_from_lengths(2, 4)  # cuts 2
    c = spans_from_lengths(1, 1, 2, 2)  # cuts 1, 2, 4
    diff = boundary_diff([a, b, c])
    assert diff == BoundaryDiff(
        cuts=(frozenset({2, 4}), frozenset({2}), frozenset({1, 2, 4})),
        shared=frozenset({2}),
        differing=frozenset({1, 4}),
    )


def test_boundary_diff_of_identical_tokenizations_is_empty() -> None:
    a = spans_from_lengths(1, 2, 3)
    assert boundary_diff([a, a]).differing == frozenset()
    assert boundary_diff([]).differing == frozenset()


def test_text_stats() -> None:
    stats = text_stats("日本 go", spans_from_lengths(3, 3, 3))
    assert stats == TextStats(chars=5, bytes=9, tokens=3)
    assert stats.bytes_per_token == 3.0
    assert stats.chars_per_token == pytest.approx(5 / 3)
    assert TextStats(0, 0, 0).bytes_per_token == 0.0


def test_tokens_by_script_credits_letters_over_spaces() -> None:
    text = "Hi あい漢!"  # H i ␠ あ(3) い(3) 漢(3) !  -> 13 bytes
    spans = spans_from_lengths(2, 4, 3, 3, 1)  # "Hi", " あ", "い", "漢", "!"
    result = tokens_by_script(text, spans)
    assert result == {
        "latin": ScriptTokens(tokens=1, bytes=2),
        "kana": ScriptTokens(tokens=2, bytes=7),
        "kanji": ScriptTokens(tokens=1, bytes=3),
        "other": ScriptTokens(tokens=1, bytes=1),
    }
    assert result["kana"].bytes_per_token == 3.5


def test_tokens_by_script_with_split_characters() -> None:
    text = "あ漢"  # e3 81 82 | e6 bc a2
    spans = spans_from_lengths(2, 2, 2)  # [e3 81] [82 e6] [bc a2]
    result = tokens_by_script(text, spans)
    # The middle token has one kana byte and one kanji byte: the tie goes to kana (display order).
    assert result["kana"] == ScriptTokens(tokens=2, bytes=4)
    assert result["kanji"] == ScriptTokens(tokens=1, bytes=2)


def test_tokens_by_script_puts_specials_in_other() -> None:
    text = "ab<|endoftext|>"
    spans = [S(0, 2), S(2, 15, is_special=True)]
    result = tokens_by_script(text, spans)
    assert result["latin"] == ScriptTokens(1, 2)
    assert result["other"] == ScriptTokens(1, 13)


def test_vocab_overlap_by_bytes_not_ids() -> None:
    base = {i: bytes([i]) for i in range(256)}
    a = BPEModel(vocab=base | {256: b"th", 257: b"the", 258: b" a"}, merges=[])
    b = BPEModel(vocab=base | {300: b"th", 256: b"er", 257: b"ing", 301: b" a"}, merges=[])
    overlap = vocab_overlap(a, b, examples=1)
    assert (overlap.shared, overlap.only_a, overlap.only_b) == (258, 1, 2)
    assert overlap.examples_a == (b"the",)
    assert overlap.examples_b == (b"er",)
    assert overlap.jaccard == pytest.approx(258 / 261)
