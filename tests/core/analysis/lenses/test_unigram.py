"""The unigram lens: counts equal brute-force enumeration, the best list is the enumeration's best, add-one by hand."""

from __future__ import annotations

import math
from functools import cache

from hypothesis import given, settings
from hypothesis import strategies as st

from core.analysis.lenses.unigram import UnigramModel, count_segmentations, token_counts, unigram
from core.model import BPEModel
from tests.core.analysis.lenses.lens_cases import english_model, english_tokenizer, gpt2_model
from tests.core.encode.tokenizer_cases import gpt2_tokenizer
from tests.data_paths import SAMPLES


def all_segmentations(data: bytes, tokens: set[bytes]) -> list[tuple[bytes, ...]]:
    """Every segmentation, listed one by one (only for short words)."""
    if not data:
        return [()]
    return [(data[:end], *rest) for end in range(1, len(data) + 1) if data[:end] in tokens
            for rest in all_segmentations(data[end:], tokens)]


@cache
def english_counts():
    return token_counts(english_tokenizer(), [(SAMPLES / "english.txt").read_text(encoding="utf-8")])


def test_add_one_smoothing_by_hand() -> None:
    vocab = {i: bytes([i]) for i in range(256)} | {256: b"ab", 257: b"<s>"}
    model = BPEModel(vocab, [(b"a", b"b")], ["<s>"])
    scores = UnigramModel.build(model, {b"ab": 5, b"a": 1, b"<s>": 9})
    # Ordinary tokens: 256 bytes + "ab" = 257 (the special token is not one); N = 5 + 1 = 6.
    assert scores.corpus_tokens == 6
    assert math.isclose(scores.logprobs[b"ab"], math.log(6 / 263))
    assert math.isclose(scores.logprobs[b"a"], math.log(2 / 263))
    assert math.isclose(scores.logprobs[b"z"], math.log(1 / 263))
    assert b"<s>" not in scores.logprobs
    result = unigram(model, "abab", {b"ab": 5, b"a": 1})
    # 4 ways: ab|ab, a|b|ab, ab|a|b, a|b|a|b. Best: ab ab = 2·log(6/263).
    assert result.count == 4
    assert result.segmentations[0].tokens == (b"ab", b"ab") and result.bpe_rank == 1
    assert math.isclose(result.segmentations[0].logprob, 2 * math.log(6 / 263))
    assert result.to_json()["segmentations"][0] == {"tokens": ["ab", "ab"], "logprob": result.segmentations[0].logprob}


WORDS = st.lists(st.sampled_from(["the", " th", "e", "ing", "s", "er", " ", "a", "ö", "の"]), min_size=1, max_size=5).map("".join)


@settings(max_examples=40, deadline=None)
@given(word=WORDS)
def test_count_and_best_list_equal_brute_force_enumeration(word: str) -> None:
    model = english_model()
    result = unigram(model, word, english_counts(), top=5, tokenizer=english_tokenizer())
    scores = UnigramModel.build(model, english_counts())
    listed = all_segmentations(word.encode("utf-8"), set(scores.logprobs))
    assert result.count == len(listed)
    brute = sorted((scores.score(s) for s in listed), reverse=True)[:5]
    assert [round(s.logprob, 9) for s in result.segmentations] == [round(x, 9) for x in brute]
    for segmentation in result.segmentations:
        assert segmentation.tokens in listed
        assert math.isclose(segmentation.logprob, scores.score(segmentation.tokens))
    # BPE's rank: one more than the number of segmentations strictly more probable (up to float ties).
    better = sum(1 for s in listed if scores.score(s) > result.bpe.logprob + 1e-9)
    tied = sum(1 for s in listed if abs(scores.score(s) - result.bpe.logprob) <= 1e-9) - 1
    if better + tied < 200:
        assert (result.bpe_rank, result.bpe_ties) == (better + 1, tied)
    assert b"".join(result.bpe.tokens) == word.encode("utf-8")


def compositions(n: int) -> int:
    """Compositions of n into parts 1, 2 and 3, as a sum of multinomials (no recurrence)."""
    total = 0
    for threes in range(n // 3 + 1):
        for twos in range((n - 3 * threes) // 2 + 1):
            ones = n - 3 * threes - 2 * twos
            total += math.factorial(ones + twos + threes) // (
                math.factorial(ones) * math.factorial(twos) * math.factorial(threes))
    return total


def test_a_long_word_is_counted_not_listed() -> None:
    vocab = {i: bytes([i]) for i in range(256)} | {256: b"aa", 257: b"aaa"}
    model = BPEModel(vocab, [(b"a", b"a"), (b"aa", b"a")])
    result = unigram(model, "a" * 300, {b"aaa": 3, b"a": 1}, top=3)
    assert result.count == compositions(300) > 10**70
    assert len(result.segmentations) == 3
    assert result.segmentations[0].tokens == (b"aaa",) * 100


def test_count_segmentations_small() -> None:
    assert count_segmentations(b"abc", {b"a", b"b", b"c", b"ab", b"bc"}, 2) == 3
    assert count_segmentations(b"", {b"a"}, 1) == 1


def test_bpe_tied_with_the_best_ranks_first() -> None:
    # GPT-2's "unbelievable": three segmentations of unseen tokens share the best log p; BPE's was called #3.
    texts = [(SAMPLES / f"{name}.txt").read_text(encoding="utf-8") for name in ("english", "japanese", "mixed")]
    result = unigram(gpt2_model(), "unbelievable", token_counts(gpt2_tokenizer(), texts), top=5, tokenizer=gpt2_tokenizer())
    assert result.bpe.tokens == (b"un", b"bel", b"iev", b"able")
    assert [round(s.logprob, 6) for s in result.segmentations[:3]] == [round(result.bpe.logprob, 6)] * 3
    assert (result.bpe_rank, result.bpe_ties, result.rank_text) == (1, 2, "#1, tied with 2 others")
