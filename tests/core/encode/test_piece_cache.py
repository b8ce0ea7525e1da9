"""The two-generation pre-token cache: bounded, always right, and keeping what is in use; and encoding through
tiny caches (every lookup near an eviction) still equal to tiktoken."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import core.encode.piece_cache
from core.encode.piece_cache import PieceCache
from core.encode.tokenizer import Tokenizer
from tests.core.encode.tokenizer_cases import EOT, tiktoken_gpt2
from tests.data_paths import GPT2_MERGES, GPT2_VOCAB


@settings(max_examples=300, deadline=None)
@given(limit=st.integers(1, 5), keys=st.lists(st.integers(0, 12), max_size=80))
def test_values_are_always_computed_ones_and_memory_stays_bounded(limit, keys) -> None:
    calls: list[int] = []
    cache = PieceCache(lambda key: calls.append(key) or (key, key * key), limit=limit, keep=lambda key: key != 7)
    for key in keys:
        assert cache[key] == (key, key * key)
        assert len(cache) <= limit and cache.held <= 2 * limit
    assert 7 not in cache and 7 not in cache.old
    assert cache.computed == len(calls)
    assert cache.computed + cache.recalled <= len(keys)


def test_a_word_in_use_survives_every_turn_of_generations() -> None:
    calls: list[str] = []
    cache = PieceCache(lambda key: calls.append(key) or (len(key),), limit=3)
    for n in range(30):
        cache["the"]  # frequent: met at least once in every generation
        cache[f"rare{n}"]
    assert calls.count("the") == 1
    assert cache.held <= 6


def test_journal_and_adopt_see_computed_entries_only() -> None:
    cache = PieceCache(lambda key: (len(key),), limit=2)
    cache.journal = []
    cache["a"], cache["bb"], cache["ccc"], cache["a"]  # "a" comes back from the old generation
    assert cache.journal == [("a", (1,)), ("bb", (2,)), ("ccc", (3,))]
    other = PieceCache(lambda key: pytest.fail("adopted entries are not computed again"), limit=2)
    other.adopt(cache.journal)
    assert other["a"] == (1,) and other["bb"] == (2,)


@pytest.fixture(scope="module")
def tiny_cache_gpt2():
    """GPT-2 with a pre-token cache of 4 entries a generation: nearly every lookup meets an eviction."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(core.encode.piece_cache, "PIECE_CACHE_LIMIT", 4)
        tokenizer = Tokenizer.from_files(GPT2_VOCAB, GPT2_MERGES, [EOT])
    assert tokenizer.piece_cache._limit == 4
    return tokenizer


words = st.one_of(
    st.sampled_from([" the", " cat", "'s", " ", "\n", "  ", ",", " 1234", EOT, "<|endof", "text|>"]),
    st.text(alphabet="abcxyz", min_size=25, max_size=120),  # long pieces, unit by unit
    st.integers(2, 200).map(lambda n: "a" * n),  # repeated characters
    st.integers(2, 80).map(lambda n: " " * n + "x"),
    st.text(alphabet="aé日本語のカタ🙂Ωж ", min_size=1, max_size=30),  # mixed scripts
    st.text(max_size=12),
)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(parts=st.lists(words, max_size=40))
def test_tiny_cache_encodes_like_tiktoken_cold_and_warm(tiny_cache_gpt2, parts) -> None:
    text = "".join(parts)
    expected = tiktoken_gpt2().encode(text, allowed_special="all")
    assert tiny_cache_gpt2.encode(text) == expected
    assert tiny_cache_gpt2.encode(text) == expected  # again, through what the evictions left
    assert tiny_cache_gpt2.piece_cache.held <= 8
