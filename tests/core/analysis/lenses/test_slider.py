"""The slider lens: after k merges a text's tokens are those of an encoder given only the first k merges."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.analysis.lenses.slider import slider
from core.errors import SettingsError
from core.model import BPEModel
from tests.core.analysis.lenses.lens_cases import english_model, gpt2_model
from tests.core.encode.tokenizer_cases import naive_encode_tokens, tiktoken_gpt2

SENTENCE = "The lowest newest widest: 12345 words, ひらがな too!"


def test_toy_by_hand() -> None:
    # Merges: "o"+"w", "l"+"ow", " "+"low" (ids 256, 257, 258).
    vocab = {i: bytes([i]) for i in range(256)} | {256: b"ow", 257: b"low", 258: b" low"}
    model = BPEModel(vocab, [(b"o", b"w"), (b"l", b"ow"), (b" ", b"low")])
    steps = [slider(model, "low low", k) for k in range(4)]
    assert [s.tokens for s in steps] == [
        (b"l", b"o", b"w", b" ", b"l", b"o", b"w"),
        (b"l", b"ow", b" ", b"l", b"ow"),
        (b"low", b" ", b"low"),
        (b"low", b" low"),
    ]
    assert steps[3].ids == (257, 258) and steps[3].to_json() | {"count": 2} == steps[3].to_json()
    assert steps[0].to_json()["merges"] == 0 and steps[0].count == steps[0].text_bytes == 7


def test_all_merges_is_gpt2_as_tiktoken_encodes_it() -> None:
    model = gpt2_model()
    result = slider(model, SENTENCE, len(model.merges))
    assert list(result.ids) == tiktoken_gpt2().encode(SENTENCE)


@settings(max_examples=40, deadline=None)
@given(k=st.integers(min_value=0, max_value=50_000))
def test_after_k_merges_gpt2_matches_an_encoder_given_only_those_merges(k: int) -> None:
    model = gpt2_model()
    result = slider(model, SENTENCE, k)
    assert list(result.tokens) == naive_encode_tokens(SENTENCE, model.merges[:k])
    assert [model.vocab[i] for i in result.ids] == list(result.tokens)


def test_the_count_never_grows_as_merges_are_added() -> None:
    model = english_model()
    counts = [slider(model, SENTENCE, k).count for k in range(len(model.merges) + 1)]
    assert counts[0] == len(SENTENCE.encode("utf-8"))
    assert all(later <= earlier for earlier, later in zip(counts, counts[1:]))


@pytest.mark.parametrize("k", [-1, 145])
def test_merges_out_of_range_is_an_error_naming_the_range(k: int) -> None:
    model = english_model()
    with pytest.raises(SettingsError, match=f"outside 0..{len(model.merges)}"):
        slider(model, "x", k)


def test_the_curve_samples_the_count_from_no_merges_to_all() -> None:
    model = english_model()
    total = len(model.merges)
    result = slider(model, SENTENCE, 100, curve_points=8)
    ks = [k for k, _ in result.curve]
    assert ks[0] == 0 and ks[-1] == total and 100 in ks and ks == sorted(set(ks)) and len(ks) == 10
    assert all(count == slider(model, SENTENCE, k).count for k, count in result.curve)
    assert result.to_json()["curve"][0] == [0, len(SENTENCE.encode("utf-8"))]
