"""Tokens proved their own encoding and seams proved final (core.encode.own_tokens), against merging by rank."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from core.encode.merge_loops import merge_small
from core.encode.own_tokens import OwnTokens
from tests.core.encode.tokenizer_cases import (
    gpt2_tokenizer,
    naive_bpe,
    naive_encode_tokens,
    random_merges,
    tokenizer_from_merges,
)

index_pairs = st.lists(st.tuples(st.integers(0, 60), st.integers(0, 60)), min_size=1, max_size=40)
ALPHABET = "abcあ"


def merged_by_rank(engine, data: bytes) -> list[int]:
    return merge_small([engine._byte_ids[b] for b in data], engine._pair_ranks, engine._merged_ids)


@settings(max_examples=200, deadline=None)
@given(choices=index_pairs)
def test_every_proved_token_is_its_own_encoding(choices) -> None:
    # random_merges makes lists training never would: tokens made twice, tokens that are not their own
    # encoding, operands made again after use (then nothing may be proved).
    merges = random_merges(choices, ALPHABET)
    tokenizer = tokenizer_from_merges(merges)
    engine = tokenizer._engine
    for token in engine._own.merged:
        data = tokenizer.vocab[token]
        assert naive_bpe(data, merges) == [data]


@settings(max_examples=200, deadline=None)
@given(choices=index_pairs, picks=st.lists(st.tuples(st.integers(0, 400), st.integers(0, 400)), max_size=30))
def test_seam_verdicts_match_merging_the_joined_bytes(choices, picks) -> None:
    merges = random_merges(choices, ALPHABET)
    tokenizer = tokenizer_from_merges(merges)
    own = tokenizer._engine._own
    proved = sorted(own.made_at)
    for i, j in picks:
        left, right = proved[i % len(proved)], proved[j % len(proved)]
        data_left, data_right = tokenizer.vocab[left], tokenizer.vocab[right]
        expected = naive_bpe(data_left + data_right, merges) == [data_left, data_right]
        assert own.seam_is_final(left, right) is expected


@settings(max_examples=150, deadline=None)
@given(choices=index_pairs, words=st.lists(st.text(ALPHABET, min_size=1, max_size=8), min_size=1, max_size=30))
def test_short_pieces_match_naive_bpe(choices, words) -> None:
    # Short pre-tokens (most of English) try the proved whole token before merging.
    text = " ".join(words)
    merges = random_merges(choices, ALPHABET + " ")
    tokenizer = tokenizer_from_merges(merges)
    assert tokenizer.decode_tokens_bytes(tokenizer.encode(text)) == naive_encode_tokens(text, merges)


def test_a_token_that_is_not_its_own_encoding_is_merged_not_looked_up() -> None:
    # "abc" is a token (made as a + bc), but merging its bytes joins a and b first and stops at ab, c.
    # tiktoken would answer [abc] here, looking the whole piece up; CS336's BPE gives [ab, c].
    merges = [(b"a", b"b"), (b"b", b"c"), (b"a", b"bc")]
    tokenizer = tokenizer_from_merges(merges)
    abc = next(i for i, data in tokenizer.vocab.items() if data == b"abc")
    assert abc not in tokenizer._engine._own.made_at
    assert tokenizer.decode_tokens_bytes(tokenizer.encode("abc")) == [b"ab", b"c"]
    assert tokenizer.decode_tokens_bytes(tokenizer.encode(" bc abc")) == [b" ", b"bc", b" ", b"ab", b"c"]


def test_a_merge_list_out_of_order_proves_nothing() -> None:
    # "abc" is made at rank 1, used at rank 2, and made again (as a + bc) at rank 4: merging "abcd"
    # need not apply ranks in increasing order, which the proofs rest on.
    merges = [(b"a", b"b"), (b"ab", b"c"), (b"abc", b"d"), (b"b", b"c"), (b"a", b"bc")]
    tokenizer = tokenizer_from_merges(merges)
    assert tokenizer._engine._own.merged == []
    for text in ("abcd", "abc", " abcd bcd", "bcabcd"):
        assert tokenizer.decode_tokens_bytes(tokenizer.encode(text)) == naive_encode_tokens(text, merges)


def test_every_gpt2_token_is_proved_and_is_its_own_encoding() -> None:
    # GPT-2's merges were made by training, so every token is its own encoding: all 50,000 are proved.
    tokenizer = gpt2_tokenizer()
    engine = tokenizer._engine
    proved = engine._own.merged
    assert len(proved) == len(tokenizer.merges) == 50_000
    assert all(merged_by_rank(engine, tokenizer.vocab[token]) == [token] for token in proved)


def test_gpt2_seam_verdicts_match_merging_on_real_text() -> None:
    # Seams between the tokens of real text (final) and inside tokens (mostly not): both kinds.
    tokenizer = gpt2_tokenizer()
    engine = tokenizer._engine
    own: OwnTokens = engine._own
    text = (Path(__file__).parents[3] / "samples" / "english.txt").read_text(encoding="utf-8")[:20_000]
    ids = tokenizer.encode_ordinary(text)
    pairs = set(zip(ids, ids[1:]))
    for token in own.merged[::20]:  # the halves of a token, where merging often crosses the seam
        data = tokenizer.vocab[token]
        halves = ((engine._whole.get(data[:cut]), engine._whole.get(data[cut:])) for cut in range(1, len(data)))
        pairs.update((left, right) for left, right in halves if left is not None and right is not None)
    verdicts = {False: 0, True: 0}
    for left, right in pairs:
        expected = merged_by_rank(engine, tokenizer.vocab[left] + tokenizer.vocab[right]) == [left, right]
        assert own.seam_is_final(left, right) is expected, (tokenizer.vocab[left], tokenizer.vocab[right])
        verdicts[expected] += 1
    assert verdicts[False] > 50 and verdicts[True] > 500
