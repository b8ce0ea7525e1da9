"""Whole tokens (a pre-token that is one token skips the merge loop) against the reference merge loop."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from core.reference import encode as reference_encode
from core.reference import encode_pretoken
from tests.core.encode.tokenizer_cases import gpt2_tokenizer, random_merges, tokenizer_from_merges

index_pairs = st.lists(st.tuples(st.integers(0, 300), st.integers(0, 300)), min_size=1, max_size=80)


def tree_merges(choices: list[tuple[int, int]], alphabet: str) -> list[tuple[bytes, bytes]]:
    """Merges as training makes them: each joins two existing tokens into a new one (a tree-ordered vocab)."""
    tokens = sorted({bytes([b]) for b in alphabet.encode("utf-8")})
    merges: list[tuple[bytes, bytes]] = []
    for i, j in choices:
        left, right = tokens[i % len(tokens)], tokens[j % len(tokens)]
        if left + right not in tokens:
            merges.append((left, right))
            tokens.append(left + right)
    return merges


def ranks_of(merges: list[tuple[bytes, bytes]]) -> dict[tuple[bytes, bytes], int]:
    ranks: dict[tuple[bytes, bytes], int] = {}
    for rank, pair in enumerate(merges):
        ranks.setdefault(pair, rank)
    return ranks


@settings(max_examples=300, deadline=None)
@given(choices=index_pairs, alphabet=st.sampled_from(["ab", "abc", "a b", "aあ"]))
def test_tree_ordered_verdicts_equal_the_reference_loop(choices, alphabet) -> None:
    merges = tree_merges(choices, alphabet)
    tokenizer = tokenizer_from_merges(merges)
    whole = tokenizer._engine._whole
    assert whole.applies
    ranks = ranks_of(merges)
    for token_id, token in tokenizer.vocab.items():
        assert whole.is_whole(token_id) == (encode_pretoken(token, ranks) == [token]), token


@settings(max_examples=300, deadline=None)
@given(choices=index_pairs)
def test_any_merge_order_never_claims_a_token_the_loop_would_not_make(choices) -> None:
    # Merges in any order (repeats, operands made later): either the check stands down or it is right.
    merges = random_merges(choices, "abc")
    tokenizer = tokenizer_from_merges(merges)
    ranks = ranks_of(merges)
    for token_id, token in tokenizer.vocab.items():
        if tokenizer._engine._whole.is_whole(token_id):
            assert encode_pretoken(token, ranks) == [token]


def test_a_merge_that_never_fires_is_not_whole() -> None:
    # "bc" merges before "ab", so "abc" is never made from "ab" + "c": its bytes encode as a + bc.
    merges = [(b"b", b"c"), (b"a", b"b"), (b"ab", b"c")]
    tokenizer = tokenizer_from_merges(merges)
    abc = tokenizer._encoder[b"abc"]
    assert not tokenizer._engine._whole.is_whole(abc)
    assert tokenizer.decode_tokens_bytes(tokenizer.encode("abc")) == [b"a", b"bc"]


def test_an_operand_made_later_turns_the_check_off() -> None:
    merges = [(b"ab", b"c"), (b"a", b"b")]  # "ab" is an operand before any merge makes it
    tokenizer = tokenizer_from_merges(merges)
    assert not tokenizer._engine._whole.applies
    assert not tokenizer._engine._whole.is_whole(tokenizer._encoder[b"abc"])  # the merge loop decides
    # a + b -> ab (rank 1), then ab + c (rank 0, now present) -> abc
    assert tokenizer.decode_tokens_bytes(tokenizer.encode("abc")) == [b"abc"] == encode_pretoken(b"abc", ranks_of(merges))


@settings(max_examples=200, deadline=None)
@given(choices=index_pairs, picks=st.lists(st.integers(0, 1000), max_size=40), glue=st.sampled_from(["", " ", "\n"]))
def test_text_of_tokens_encodes_as_the_reference(choices, picks, glue) -> None:
    # Text made of the vocabulary's own tokens: many pre-tokens are exactly one token, whole or not.
    merges = tree_merges(choices, "ab ")
    tokenizer = tokenizer_from_merges(merges)
    made = [left + right for left, right in merges] or [b"a"]
    text = glue.join(made[i % len(made)].decode() for i in picks)
    assert tokenizer.encode(text) == reference_encode(text, tokenizer.vocab, merges)


def test_every_gpt2_token_verdict_equals_its_merge_loop() -> None:
    tokenizer = gpt2_tokenizer()
    engine = tokenizer._engine
    whole = engine._whole
    assert whole.applies
    for token_id, token in tokenizer.vocab.items():
        if token_id not in tokenizer.special_token_ids.values():
            assert whole.is_whole(token_id) == (engine.merge_bytes(token) == [token_id]), token
