"""The replay lens: its steps are BPE's lowest-rank merges, and its ids are always ``encode(word)``."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from core.analysis.lenses.replay import replay
from core.model import BPEModel
from core.reference import train
from tests.core.analysis.lenses.lens_cases import EOT, english_model, english_tokenizer, gpt2_model
from tests.core.encode.tokenizer_cases import tiktoken_gpt2


def test_toy_replay_by_hand() -> None:
    # CS336's toy: trained on "low low low lower lower newest", merges o+w, l+ow, " "+low, e+r, " low"+er, ...
    vocab, merges = train("low low low lower lower newest", 256 + 6)
    result = replay(BPEModel(vocab, merges), " lower")
    assert [(step.rank, step.pair, step.tokens) for step in result.steps] == [
        (0, (b"o", b"w"), (b" ", b"l", b"ow", b"e", b"r")),
        (1, (b"l", b"ow"), (b" ", b"low", b"e", b"r")),
        (2, (b" ", b"low"), (b" low", b"e", b"r")),
        (3, (b"e", b"r"), (b" low", b"er")),
        (4, (b" low", b"er"), (b" lower",)),
    ]
    assert result.start == (b" ", b"l", b"o", b"w", b"e", b"r")
    assert result.ids == (260,)  # 256 ow, 257 low, 258 " low", 259 er, 260 " lower"
    assert result.to_json() == {
        "word": " lower",
        "steps": [
            {"rank": 0, "pair": ["o", "w"], "tokens": [" ", "l", "ow", "e", "r"]},
            {"rank": 1, "pair": ["l", "ow"], "tokens": [" ", "low", "e", "r"]},
            {"rank": 2, "pair": [" ", "low"], "tokens": [" low", "e", "r"]},
            {"rank": 3, "pair": ["e", "r"], "tokens": [" low", "er"]},
            {"rank": 4, "pair": [" low", "er"], "tokens": [" lower"]},
        ],
        "ids": [260],
        "tokens": [" lower"],
    }


def test_the_leftmost_of_two_equal_pairs_merges_first() -> None:
    vocab = {i: bytes([i]) for i in range(256)} | {256: b"aa"}
    result = replay(BPEModel(vocab, [(b"a", b"a")]), "aaa")
    assert [step.tokens for step in result.steps] == [(b"aa", b"a")]


WORDS = st.lists(st.sampled_from(list("abcdeilnorstuyあの漢 '1\n") + ["the", "ing", "<|endoftext|>"]),
                 min_size=1, max_size=12).map("".join)


@settings(max_examples=80, deadline=None)
@given(word=WORDS)
def test_ids_are_encode_on_a_trained_tokenizer(word: str) -> None:
    result = replay(english_model(), word)
    assert list(result.ids) == english_tokenizer().encode(word)
    assert b"".join(result.tokens) == word.encode("utf-8")


@settings(max_examples=80, deadline=None)
@given(word=WORDS)
def test_ids_are_gpt2s_as_tiktoken_encodes_them(word: str) -> None:
    result = replay(gpt2_model(), word)
    assert list(result.ids) == tiktoken_gpt2().encode(word, allowed_special={EOT})


def test_each_step_joins_its_pair_and_ranks_follow_bpes_choices_on_gpt2() -> None:
    model = gpt2_model()
    result = replay(model, " unbelievably")
    before = list(result.start)
    for step in result.steps:
        assert model.merges[step.rank] == step.pair
        # The pair merged is the lowest-rank adjacent pair of the tokens before it.
        ranks = {pair: rank for rank, pair in enumerate(model.merges)}
        present = [ranks[p] for p in zip(before, before[1:]) if p in ranks]
        assert step.rank == min(present)
        before = list(step.tokens)
    assert list(result.ids) == tiktoken_gpt2().encode(" unbelievably")
