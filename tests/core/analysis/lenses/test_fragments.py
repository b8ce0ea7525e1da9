"""The fragments lens: the pattern's pre-tokens, special tokens whole, and no token of the real encoding crossing a cut."""

from __future__ import annotations

import regex
from hypothesis import given, settings
from hypothesis import strategies as st

from core.analysis.lenses.fragments import fragments
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
