"""The delete-merge lens on a toy checked by hand, and on GPT-2 against the plain reference encoder."""

from __future__ import annotations

from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.analysis.lenses.delete_merge import delete_merge, earliest_merge_in, without_merge
from core.encode.tokenizer import Tokenizer
from core.errors import SettingsError
from core.reference import encode as reference_encode
from core.reference import train as reference_train
from tests.core.encode.tokenizer_cases import gpt2_tokenizer
from tests.data_paths import SAMPLES


def toy() -> Tokenizer:
    # merges: o+w=256, l+ow=257, " "+low=258, e+r=259, " low"+er=260
    vocab, merges = reference_train("low low low lower lower newest", 256 + 5)
    assert merges == [(b"o", b"w"), (b"l", b"ow"), (b" ", b"low"), (b"e", b"r"), (b" low", b"er")]
    return Tokenizer(vocab, merges)


def test_toy_delete_rank_2_by_hand() -> None:
    # Without " "+low (id 258): " low" falls apart into " " (32) and "low" (257); "er" moves from 259 to
    # 258, the id " low" had; " low"+"er" can never fire again, so it goes too, and " lower" 260 -> 258.
    result = delete_merge(toy(), 2, "lower low lower")
    assert result.ids_before == (257, 259, 258, 260)
    assert result.ids_after == (257, 258, 32, 257, 32, 257, 258)
    assert result.removed_id == 258 and result.dropped_merges == 1
    assert result.changed_tokens == 2  # " low" and " lower"
    assert sorted(result.shifted_after) == [1]  # "er" kept its bytes, its id went down by one
    data = result.to_json()
    assert data["rank"] == 2 and data["ids_before"] == [257, 259, 258, 260]
    assert data["ids_after"] == [257, 258, 32, 257, 32, 257, 258] and data["changed_tokens"] == 2


def test_toy_vocab_shifts_by_hand() -> None:
    model, removed, dropped = without_merge(toy().model, 3)  # e+r, id 259
    assert removed == 259 and dropped == 1  # " low"+"er" needs "er"
    assert model.merges == [(b"o", b"w"), (b"l", b"ow"), (b" ", b"low")]
    assert [model.vocab[i] for i in range(256, 260)] == [b"ow", b"low", b" low", b" lower"]
    assert 260 not in model.vocab


def test_last_merge_changes_only_its_token() -> None:
    result = delete_merge(toy(), 4, "lower low")
    assert result.ids_before == (257, 259, 258)
    assert result.ids_after == result.ids_before and result.changed_tokens == 0


def test_gpt2_delete_matches_reference_encoder() -> None:
    tokenizer = gpt2_tokenizer(False)
    model = tokenizer.model
    text = "The quick brown fox jumps over the lazy dog, then the fox rests."
    rank = model.merges.index((b" t", b"he"))  # GPT-2's seventh merge makes " the"
    result = delete_merge(tokenizer, rank, text)
    # The reference: GPT-2's merges without this one and without those built on " the", encoded naively,
    # with ids read from GPT-2's vocabulary with every id above " the"'s one lower.
    the_id = next(i for i, token in model.vocab.items() if token == b" the")
    merges = [pair for pair in model.merges if pair != (b" t", b"he") and b" the" not in pair]
    vocab = {(i - 1 if i > the_id else i): token for i, token in model.vocab.items() if i != the_id}
    assert list(result.ids_after) == reference_encode(text, vocab, merges)
    assert list(result.ids_before) == tokenizer.encode_ordinary(text)
    assert b" the" not in result.tokens_after and b" the" in result.tokens_before
    assert b"".join(result.tokens_after) == text.encode()


@pytest.mark.parametrize("rank", [-1, 5, "1"])
def test_bad_rank_is_named(rank) -> None:
    with pytest.raises(SettingsError, match="merge rank must be from 0 to 4"):
        delete_merge(toy(), rank, "low")


def test_earliest_merge_in_a_text_by_hand() -> None:
    tokenizer = toy()
    ids = tokenizer.encode_ordinary("lower newest")  # "low" (rank 1) "er" (rank 3) " " "n" "e" "w" ...
    assert earliest_merge_in(tokenizer.model, tokenizer.decode_tokens_bytes(ids)) == 1
    assert earliest_merge_in(tokenizer.model, [b"z"]) is None


@cache
def small_trained() -> Tokenizer:
    text = (SAMPLES / "mixed.txt").read_text(encoding="utf-8")[:4000]
    vocab, merges = reference_train(text, 256 + 60)
    return Tokenizer(vocab, merges)


@settings(max_examples=60, deadline=None)
@given(rank=st.integers(0, 59), text=st.text(alphabet="the cat 猫 ねこ sat on mat.\n", max_size=40))
def test_any_deleted_merge_still_round_trips_and_shifts_ids_by_one(rank: int, text: str) -> None:
    tokenizer = small_trained()
    result = delete_merge(tokenizer, rank, text)
    # Nothing is lost: the smaller tokenizer's tokens still spell the text, and the reference agrees.
    assert b"".join(result.tokens_after) == text.encode("utf-8")
    smaller, removed, _ = without_merge(tokenizer.model, rank)
    assert list(result.ids_after) == reference_encode(text, smaller.vocab, smaller.merges)
    # A token that kept its bytes kept its id, or lost one if it came after the deleted token.
    before = {}
    offset = 0
    for token, token_id in zip(result.tokens_before, result.ids_before):
        before[(offset, len(token))] = token_id
        offset += len(token)
    offset = 0
    for token, token_id in zip(result.tokens_after, result.ids_after):
        old = before.get((offset, len(token)))
        if old is not None:
            assert token_id == old - (old > removed)
        offset += len(token)
