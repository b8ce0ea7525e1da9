"""encode_iterable: exactly encode() of the joined text for any chunking, in memory that does not grow with input."""

from __future__ import annotations

import collections
import io
import itertools
import random
import tracemalloc
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.encode.tokenizer import Tokenizer
from tests.core.encode.tokenizer_cases import EOT, corpus_slice, gpt2_tokenizer, small_tokenizer

DOUBLE = EOT + EOT
# Fragments chosen to straddle chunk edges: whitespace runs (\s+(?!\S) backs off one space when text
# follows), contractions ('l may become 'll), partial and overlapping special tokens, wide characters.
FRAGMENTS = [" ", "  ", "\t", "\n", "\n\n", "\r\n", "'", "'l", "l", "ve", "s", "the", "aa", "low", "42", "!?",
             "の", "あ", "猫", "🙂", "é", EOT, "<|endof", "text|>", "<|", "|>", "\u3000"]
texts = st.lists(st.sampled_from(FRAGMENTS) | st.text(max_size=3), max_size=60).map("".join)


@contextmanager
def streaming(tokenizer: Tokenizer, block: int) -> Iterator[Tokenizer]:
    """The tokenizer set to try a cut after every ``block`` characters (so small tests cut often)."""
    tokenizer.stream_block_chars = block
    try:
        yield tokenizer
    finally:
        del tokenizer.stream_block_chars


def chunked(text: str, cuts: list[int]) -> list[str]:
    points = sorted({min(max(c, 0), len(text)) for c in cuts} | {0, len(text)})
    return [text[a:b] for a, b in zip(points, points[1:])]


@settings(max_examples=400, deadline=None)
@given(text=texts, cuts=st.lists(st.integers(0, 200), max_size=12), block=st.sampled_from([1, 2, 5, 64]))
def test_any_chunking_equals_encode(text, cuts, block) -> None:
    with streaming(small_tokenizer([EOT, DOUBLE]), block) as tok:
        assert list(tok.encode_iterable(chunked(text, cuts))) == tok.encode(text)


@settings(max_examples=200, deadline=None)
@given(text=texts)
def test_one_character_chunks_equal_encode(text) -> None:
    with streaming(small_tokenizer([EOT, DOUBLE]), 1) as tok:
        assert list(tok.encode_iterable(iter(text))) == tok.encode(text)


@settings(max_examples=150, deadline=None)
@given(text=texts, cuts=st.lists(st.integers(0, 200), max_size=12))
def test_any_chunking_equals_encode_gpt2(text, cuts) -> None:
    with streaming(gpt2_tokenizer(), 1) as tok:
        assert list(tok.encode_iterable(chunked(text, cuts))) == tok.encode(text)


@pytest.mark.parametrize(
    "chunks",
    [
        ["we'l", "l go"],  # "'l" + "l" is "'ll", one pre-token
        ["a  ", "b"],  # the space run splits as " " + " b" only once "b" arrives
        ["end   ", "   ", "\n"],
        ["x<|endof", "text|>y"],
        ["x" + EOT, EOT + "y"],  # the double special token must win across the cut
        ["x<|endoftext|><|end", "oftext|>"],
        ["あい", "うえお", "の猫"],
        ["🙂" * 3, "🙂"],
    ],
)
def test_straddling_cases(chunks) -> None:
    with streaming(small_tokenizer([EOT, DOUBLE]), 1) as tok:
        assert list(tok.encode_iterable(chunks)) == tok.encode("".join(chunks))


def test_double_special_token_across_chunks_is_one_id() -> None:
    with streaming(small_tokenizer([EOT, DOUBLE]), 1) as tok:
        ids = list(tok.encode_iterable(["a" + EOT, EOT, "b"]))
    assert tok.special_token_ids[DOUBLE] in ids and tok.special_token_ids[EOT] not in ids


def test_a_piece_longer_than_the_block_still_encodes_whole() -> None:
    text = "a" * 1001 + " " * 300 + "の" * 200
    with streaming(small_tokenizer(), 16) as tok:
        assert list(tok.encode_iterable(text[i : i + 10] for i in range(0, len(text), 10))) == tok.encode(text)


def test_file_lines_and_random_chunks_of_real_text() -> None:
    tok = gpt2_tokenizer()
    text = corpus_slice("tinystories_2M.txt", 60_000) + corpus_slice("ja_aozora.txt", 60_000)
    expected = tok.encode(text)
    assert list(tok.encode_iterable(io.StringIO(text))) == expected
    rng = random.Random(7)
    cuts = sorted(rng.randrange(len(text)) for _ in range(400))
    with streaming(tok, 1000):
        assert list(tok.encode_iterable(chunked(text, cuts))) == expected


SENTENCES = [
    "Extraordinarily unremarkable grasshoppers, notwithstanding Tuesday's thunderstorms, sang.",
    "Nevertheless, the seventeen-thousandth anniversary celebrations continued uninterrupted.",
    "\tIndentation   and    trailing    spaces    stay    exactly    as    they    were   ",
    "Characteristically, counterrevolutionaries misunderstood 1234567 incomprehensibilities.",
]


def generated_lines(total_bytes: int) -> Iterator[str]:
    """Lines of long English words, numbers, whitespace runs and special tokens, made on the fly.

    Long words keep the number of pre-tokens (each one a traced allocation) low, so tracing stays quick.
    """
    produced = 0
    for i in range(10**9):
        line = f"{i % 997}: {SENTENCES[i % 4]}{SENTENCES[(i * 3 + 1) % 4]}\n"
        if i % 50 == 49:
            line += EOT
        produced += len(line.encode("utf-8"))
        yield line
        if produced >= total_bytes:
            return


def peak_bytes_while_streaming(total_bytes: int) -> tuple[int, int]:
    tok = small_tokenizer([EOT])  # built before tracing: only the streaming machinery is measured
    counter = itertools.count()
    tracemalloc.start()
    try:
        # Consume the ids without keeping them (and count them in C, so tracing stays affordable).
        collections.deque(zip(tok.encode_iterable(generated_lines(total_bytes)), counter), maxlen=0)
        return tracemalloc.get_traced_memory()[1], next(counter)
    finally:
        tracemalloc.stop()


@pytest.mark.slow
def test_memory_stays_bounded_for_5_mb() -> None:
    small_peak, small_count = peak_bytes_while_streaming(200_000)
    peak, count = peak_bytes_while_streaming(5_000_000)
    assert count > 24 * small_count  # the ids really were produced, 25 times as many
    assert peak < 1_000_000, f"peak {peak:,} bytes while streaming 5 MB"
    assert peak < small_peak + 100_000, "memory grew with the input"
