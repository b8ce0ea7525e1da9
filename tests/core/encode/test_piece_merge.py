"""The merge engine against a naive reference: every path (rescan, heap, units, seams, repairs) is exact."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.encode.bounded_memo import BoundedMemo
from core.encode.merge_loops import merge_heap, merge_small
from core.encode.piece_merge import SHORT_PIECE
from tests.core.encode.tokenizer_cases import (
    naive_bpe,
    naive_encode_tokens,
    random_merges,
    small_tokenizer,
    tokenizer_from_merges,
)

# Letters only (one long pre-token) mixing ASCII with 3-byte kana, so pieces go unit by unit.
ALPHABET = "abあいの"
index_pairs = st.lists(st.tuples(st.integers(0, 400), st.integers(0, 400)), min_size=1, max_size=60)


def engine_tokens(tokenizer, text: str) -> list[bytes]:
    return tokenizer.decode_tokens_bytes(tokenizer.encode(text))


@settings(max_examples=150, deadline=None)
@given(choices=index_pairs, data=st.binary(max_size=200))
def test_merge_small_and_heap_match_naive_bpe(choices, data) -> None:
    merges = random_merges(choices, "".join(map(chr, range(256))))
    tokenizer = tokenizer_from_merges(merges)
    engine = tokenizer._engine
    ids = [engine._byte_ids[b] for b in data]
    expected = naive_bpe(data, merges)
    small = merge_small(list(ids), engine._pair_ranks, engine._merged_ids)
    heap = merge_heap(list(ids), engine._pair_ranks, engine._merged_ids)
    assert tokenizer.decode_tokens_bytes(small) == expected
    assert tokenizer.decode_tokens_bytes(heap) == expected


@settings(max_examples=150, deadline=None)
@given(choices=index_pairs, text=st.text(alphabet=ALPHABET, min_size=SHORT_PIECE, max_size=300))
def test_long_pieces_match_naive_bpe_for_any_merge_order(choices, text) -> None:
    # Random merge lists are not what training would make, so seams fail and repairs cascade often.
    merges = random_merges(choices, ALPHABET)
    tokenizer = tokenizer_from_merges(merges)
    assert engine_tokens(tokenizer, text) == naive_bpe(text.encode("utf-8"), merges)


@settings(max_examples=120, deadline=None)
@given(choices=index_pairs, words=st.lists(st.text(ALPHABET, min_size=1, max_size=12), min_size=40, max_size=90))
def test_wide_text_path_matches_naive(choices, words) -> None:
    # Many pre-tokens of mostly 3-byte characters take Tokenizer's whole-text character path.
    text = " ".join(words) + "。\n"
    merges = random_merges(choices, ALPHABET + " 。\n")
    tokenizer = tokenizer_from_merges(merges)
    assert engine_tokens(tokenizer, text) == naive_encode_tokens(text, merges)


def kana_merges(*extra: tuple[str, str]) -> list[tuple[bytes, bytes]]:
    """Merges that make あ, い and の whole tokens, then joins of whole kana."""
    x = b"\xe3\x81"
    merges = [(b"\xe3", b"\x81"), (x, b"\x82"), (x, b"\x84"), (x, b"\xae")]
    return merges + [(left.encode(), right.encode()) for left, right in extra]


@pytest.mark.parametrize(
    ("merges", "word"),
    [
        (kana_merges(("あ", "い"), ("あい", "あ")), "あいあ"),  # the cluster "あい" then fuses with the next kana
        (kana_merges(("あ", "い"), ("の", "あい")), "のあい"),  # ... or with the kana before it
        (kana_merges(("あ", "い"), ("い", "の"), ("あい", "の")), "あいの"),  # overlapping clusters
        (kana_merges(("あ", "い")), "のあいの"),  # a cluster that simply fits
        (kana_merges(("あ", "い"), ("あい", "あ"), ("あ", " ")), "あいあ"),  # a bad seam between pieces too
    ],
)
def test_wide_text_clusters_that_fit_and_that_fall_back(merges, word) -> None:
    tokenizer = tokenizer_from_merges(merges)
    text = " ".join([word, "の", word + word, "あい"] * 12) + word
    assert engine_tokens(tokenizer, text) == naive_encode_tokens(text, merges)


def every_unfinal_seam(engine, text: str) -> list[int]:
    """The seams not final, found by looking every one up (what ``unfinal_seams`` must match without doing so)."""
    tokens = [engine.merge_bytes(char.encode("utf-8")) for char in text]
    return [k for k in range(len(text) - 1) if not engine.compatible(tokens[k][-1], tokens[k + 1][0])]


@settings(max_examples=150, deadline=None)
@given(choices=index_pairs, text=st.text(alphabet=ALPHABET + " 。\n", max_size=120))
def test_unfinal_seams_skips_no_seam_that_can_fail(choices, text) -> None:
    engine = tokenizer_from_merges(random_merges(choices, ALPHABET + " 。\n"))._engine
    assert engine.unfinal_seams(text) == every_unfinal_seam(engine, text)


def test_a_merge_across_a_seam_may_start_inside_the_left_characters_last_token() -> None:
    # い and あ are one token each, and no merge has い on its left; yet in "いあ" the lowest rank joins
    # い's last byte with あ's first, so the seam after い is not final. Only a check of い's right spine
    # (the bytes and tokens its own encoding ends with on the way) sees that.
    merges = [(b"\x84", b"\xe3"), (b"\xe3", b"\x81"), (b"\xe3\x81", b"\x84"), (b"\xe3\x81", b"\x82")]
    tokenizer = tokenizer_from_merges(merges)
    engine = tokenizer._engine
    assert len(engine.merge_bytes("い".encode())) == 1
    assert engine.unfinal_seams("あいあいい") == [1, 3] == every_unfinal_seam(engine, "あいあいい")
    text = " ".join(["あいあ", "いい", "あい", "い"] * 12)  # enough pieces for the whole-text path
    assert engine_tokens(tokenizer, text) == naive_encode_tokens(text, merges)


@pytest.mark.parametrize(
    "text",
    ["a" * 3000, "あ" * 700, "aあ" * 400, "ab" * 1500 + "あ" * 300, ("あいの" * 130)[:385]],
    ids=["letter", "kana", "mixed", "ascii-then-kana", "cycle"],
)
def test_very_long_pieces_use_runs_and_stay_exact(text) -> None:
    merges = random_merges([(0, 0), (1, 1), (5, 5), (6, 7), (8, 8), (2, 3), (9, 9), (10, 11), (12, 12)], ALPHABET)
    tokenizer = tokenizer_from_merges(merges)
    assert engine_tokens(tokenizer, text) == naive_bpe(text.encode("utf-8"), merges)


def test_small_tokenizer_long_runs_are_exact() -> None:
    tokenizer = small_tokenizer()
    for text in ["a" * 1001, " " * 777, "の" * 500, "\n" * 301]:
        from tests.core.encode.tokenizer_cases import SMALL_MERGES

        assert engine_tokens(tokenizer, text) == naive_encode_tokens(text, SMALL_MERGES)


def test_heap_breaks_ties_leftmost() -> None:
    # (a, a) everywhere: the leftmost pair merges first, so an odd run leaves its last byte alone.
    assert merge_heap([1, 1, 1], {(1, 1): 0}, [2]) == [2, 1]
    assert merge_small([1, 1, 1], {(1, 1): 0}, [2]) == [2, 1]


def test_compatible_says_whether_a_pair_survives_encoding() -> None:
    engine = small_tokenizer()._engine
    t, h, th = 116, 104, engine._merged_ids[0]
    assert not engine.compatible(t, h)  # "th" is a token
    assert engine.compatible(th, h)  # no merge makes "thh"
    assert engine.compatible(h, t)


@settings(max_examples=100, deadline=None)
@given(choices=index_pairs, picks=st.lists(st.tuples(st.integers(0, 10**6), st.integers(0, 10**6)), min_size=1, max_size=30))
def test_seam_verdicts_are_the_same_with_and_without_the_byte_pair_flags(choices, picks) -> None:
    engine = tokenizer_from_merges(random_merges(choices, ALPHABET))._engine
    # Seams are asked about only between tokens of real encodings, so each token is its own encoding.
    ids = [token for token in sorted(engine._token_bytes) if engine.merge_bytes(engine._token_bytes[token]) == [token]]
    pairs = [(ids[a % len(ids)], ids[b % len(ids)]) for a, b in picks]
    by_merging = [engine._pair_is_final(pair) for pair in pairs]  # a fresh engine has no flags yet
    assert engine._byte_pair_flags is None
    engine._inner_byte_pairs()
    assert [engine._pair_is_final(pair) for pair in pairs] == by_merging


def test_a_few_seam_verdicts_do_not_cost_a_pass_over_every_merge() -> None:
    # English with a dash or two needs a handful of verdicts: building the flags cost more than all of them.
    merges = kana_merges()
    tokenizer = tokenizer_from_merges(merges)
    text = "あいのあいの あのい"
    assert engine_tokens(tokenizer, text) == naive_encode_tokens(text, merges)
    assert tokenizer._engine._pairs and tokenizer._engine._byte_pair_flags is None


def test_bounded_memo_never_exceeds_its_limit() -> None:
    calls = []
    memo = BoundedMemo(lambda key: calls.append(key) or key * 2, limit=3, keep=lambda key: key < 100)
    assert [memo[k] for k in [1, 2, 3, 4, 1, 500, 500]] == [2, 4, 6, 8, 2, 1000, 1000]
    assert len(memo) <= 3 and 500 not in memo
    assert calls.count(500) == 2  # not kept, so computed each time


@pytest.mark.parametrize("length", [30, 31])
def test_cascading_repairs_fall_back_to_the_heap_and_stay_exact(length) -> None:
    # Pairs of Cyrillic letters whose ranks fall from left to right: adding one letter flips how every
    # earlier letter pairs up, so seam repairs would have to redo the whole prefix each time.
    letters = [chr(0x430 + i) for i in range(length)]
    merges = [(bytes([c.encode()[0]]), bytes([c.encode()[1]])) for c in letters]
    merges += [(letters[i].encode(), letters[i + 1].encode()) for i in reversed(range(length - 1))]
    tokenizer = tokenizer_from_merges(merges)
    text = "".join(letters)
    whole = []
    merge_bytes = tokenizer._engine.merge_bytes
    tokenizer._engine.merge_bytes = lambda data: (whole.append(data == text.encode()), merge_bytes(data))[1]
    assert engine_tokens(tokenizer, text) == naive_bpe(text.encode("utf-8"), merges)
    assert any(whole)  # the piece was re-merged whole, not seam by seam
