"""The fragments lens: the pattern's pre-tokens, special tokens whole, and no token of the real encoding crossing a cut."""

from __future__ import annotations

import regex
from hypothesis import given, settings
from hypothesis import strategies as st

from core.analysis.lenses.fragments import fragments, tokens_crossing
from core.pretokenize.patterns import GPT2_PATTERN
from tests.core.analysis.lenses.lens_cases import EOT, english_model, gpt2_model
from tests.core.encode.tokenizer_cases import gpt2_tokenizer, tiktoken_gpt2


def test_gpt2_fragments_by_hand() -> None:
    result = fragments(gpt2_model(), f"It's 42{EOT}  ok", gpt2_tokenizer())
    assert [(f.text, f.bytes, f.special) for f in result.fragments] == [
        ("It", 2, False), ("'s", 2, False), (" 42", 3, False), (EOT, 13, True), (" ", 1, False), (" ok", 3, False),
    ]
    assert result.fragments[3].ids == (50256,)
    assert result.to_json()["fragments"][2] == {"text": " 42", "bytes": 3, "special": False,
                                                "ids": tiktoken_gpt2().encode(" 42"), "tokens": [" 42"]}
    assert result.crossing == 0


TEXTS = st.lists(st.sampled_from(list("ab 1'\n.,あ漢é") + ["  ", "'s", "\r\n"]), max_size=25).map("".join)


@settings(max_examples=60, deadline=None)
@given(text=TEXTS)
def test_fragments_are_the_patterns_pieces_and_their_tokens_are_the_encoding(text: str) -> None:
    result = fragments(gpt2_model(), text, gpt2_tokenizer())
    assert [f.text for f in result.fragments] == regex.findall(GPT2_PATTERN, text)
    ids = [token_id for fragment in result.fragments for token_id in fragment.ids]
    assert ids == tiktoken_gpt2().encode(text)
    assert result.crossing == 0


def test_a_trained_tokenizer_keeps_its_special_token_whole() -> None:
    result = fragments(english_model(), f"the end{EOT}the start")
    assert [f.text for f in result.fragments if f.special] == [EOT]
    assert sum(f.bytes for f in result.fragments) == len(f"the end{EOT}the start")


def test_with_specials_off_a_special_tokens_text_is_cut_like_any_other() -> None:
    text = f"end{EOT}start"
    result = fragments(gpt2_model(), text, gpt2_tokenizer(), specials=False)
    assert not any(f.special for f in result.fragments) and result.to_json()["specials"] is False
    assert [f.text for f in result.fragments] == regex.findall(GPT2_PATTERN, text)
    assert [i for f in result.fragments for i in f.ids] == tiktoken_gpt2().encode_ordinary(text)
    assert result.crossing == 0


@settings(max_examples=200, deadline=None)
@given(lengths=st.lists(st.integers(1, 6), max_size=30), cuts=st.sets(st.integers(0, 120)))
def test_tokens_crossing_counts_tokens_with_a_cut_strictly_inside(lengths: list[int], cuts: set[int]) -> None:
    ends = [sum(lengths[: i + 1]) for i in range(len(lengths))]
    by_hand = sum(any(end - length < cut < end for cut in cuts) for end, length in zip(ends, lengths))
    assert tokens_crossing(lengths, sorted(cuts)) == by_hand


def test_a_long_text_of_many_fragments_is_checked_in_one_pass() -> None:
    # 40,001 fragments: checking each token against every cut was 10^9 comparisons (minutes); now a bisection each.
    text = "a, " * 20_000
    result = fragments(gpt2_model(), text, gpt2_tokenizer())
    assert len(result.fragments) == 40_001 and result.crossing == 0  # "a" "," then " a" "," ..., and " "


def test_lenses_of_a_normalizing_model_see_the_text_encode_sees() -> None:
    """A Qwen2-style model puts the text in NFC first: ``e`` + U+0301 is merged as ``é``, in the lenses too."""
    from dataclasses import replace

    from core.analysis.lenses.replay import replay
    from core.analysis.lenses.slider import slider
    from core.encode.tokenizer import Tokenizer

    model = replace(english_model(), normalizer="NFC")
    encode = Tokenizer.from_model(model).encode
    text = f"cafe\u0301 the か\u3099{EOT}e\u0301"
    result = fragments(model, text)
    assert [i for fragment in result.fragments for i in fragment.ids] == encode(text)
    assert result.crossing == 0 and result.fragments[0].text == "café"
    assert replay(model, "cafe\u0301").ids == tuple(encode("cafe\u0301"))
    assert slider(model, text, len(model.merges)).ids == tuple(encode(text))
