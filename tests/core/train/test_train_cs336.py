"""The trainer against CS336 assignment 1's own reference output on ``corpus.en``: exact merges, vocab and speed.

The reference files spell bytes in GPT-2's printable alphabet and number the vocabulary differently from
us (``<|endoftext|>`` is 0 there, 256 here), so, as CS336's tests do, the vocabulary is compared as the set
of ids and the set of byte strings.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from core.formats.byte_alphabet import decode_bytes
from core.train.run import train_bpe

VOCAB_SIZE = 500
SPECIALS = ["<|endoftext|>"]
TIME_LIMIT_S = 1.5
"""CS336's bound for this exact training (its ``test_train_bpe_speed``)."""


def reference_merges(cs336: Path) -> list[tuple[bytes, bytes]]:
    merges = []
    for line in (cs336 / "train-bpe-reference-merges.txt").read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        # The GPT-2 alphabet spells a space as "Ġ", so the one literal space separates the two halves.
        left, right = line.split(" ")
        merges.append((decode_bytes(left), decode_bytes(right)))
    return merges


def reference_vocab(cs336: Path) -> dict[int, bytes]:
    raw = json.loads((cs336 / "train-bpe-reference-vocab.json").read_text(encoding="utf-8"))
    return {index: decode_bytes(token) for token, index in raw.items()}


@pytest.fixture
def trained(shared_data: Path) -> tuple[dict[int, bytes], list[tuple[bytes, bytes]]]:
    # Training takes well under a second here, so each test trains afresh rather than share state.
    return train_bpe(shared_data / "cs336" / "corpus.en", VOCAB_SIZE, SPECIALS)


def test_reference_files_are_what_we_think(shared_data: Path) -> None:
    # Guards the comparison itself: a parser that dropped lines would make the equality tests vacuous.
    merges = reference_merges(shared_data / "cs336")
    vocab = reference_vocab(shared_data / "cs336")
    assert len(merges) == VOCAB_SIZE - 256 - len(SPECIALS)
    assert len(vocab) == VOCAB_SIZE
    assert merges[0] == (b" ", b"t")
    assert vocab[0] == b"<|endoftext|>"


def test_merges_equal_reference_in_order(shared_data: Path, trained) -> None:
    _, merges = trained
    expected = reference_merges(shared_data / "cs336")
    first = next((i for i, (got, want) in enumerate(zip(merges, expected)) if got != want), None)
    assert first is None, f"merge {first}: got {merges[first]}, reference {expected[first]}"
    assert merges == expected


def test_vocab_equals_reference_as_sets(shared_data: Path, trained) -> None:
    vocab, _ = trained
    expected = reference_vocab(shared_data / "cs336")
    assert set(vocab) == set(expected)
    assert set(vocab.values()) == set(expected.values())


def test_vocab_layout_bytes_then_special_then_merges(trained) -> None:
    vocab, merges = trained
    assert [vocab[i] for i in range(256)] == [bytes([i]) for i in range(256)]
    assert vocab[256] == b"<|endoftext|>"
    assert [vocab[257 + rank] for rank in range(len(merges))] == [left + right for left, right in merges]


def test_training_corpus_en_is_under_cs336_time_bound(shared_data: Path) -> None:
    corpus = shared_data / "cs336" / "corpus.en"
    start = time.perf_counter()
    train_bpe(corpus, VOCAB_SIZE, SPECIALS)
    elapsed = time.perf_counter() - start
    assert elapsed < TIME_LIMIT_S, f"train_bpe on corpus.en took {elapsed:.2f} s (limit {TIME_LIMIT_S} s)"
