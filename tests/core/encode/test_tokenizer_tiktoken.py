"""With GPT-2's released files, our ids equal tiktoken's (built offline from the same files)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.encode.tokenizer import Tokenizer
from tests.core.encode.tokenizer_cases import EOT, corpus_slice, gpt2_tokenizer, tiktoken_gpt2
from tests.data_paths import GPT2_MERGES, GPT2_VOCAB

CASES = {
    "english": "The quick brown fox jumps over the lazy dog. It's 3:15pm, isn't it? I'd've said 1,234.56!",
    "german": "Größenwahn über Straßenbahnhaltestellen: Äpfel, Öl und Übermut – „schön“ gesagt.",
    "japanese": "吾輩は猫である。名前はまだ無い。どこで生れたかとんと見当がつかぬ。カタカナとひらがな、漢字。",
    "emoji": "I 🙂 Python 🐍🐍! 👩‍👩‍👧‍👦 family, flags 🇯🇵🇩🇪, skin 👍🏽.",
    "code": 'def f(x):\n\tif x >= 10:\n\t\treturn {"k": [1, 2]}  # comment\n    return x ** 2\n',
    "trailing spaces": "line with trailing spaces   \nnext line    ",
    "newlines": "a\n\n\nb\n\n\n",
    "tabs": "\t\tindented\t\ttabs\t",
    "mixed whitespace": "a \t \n \r\n  \u3000 b\u00a0 c   ",
    "only spaces": "     ",
    "contractions": "'s 'd 'll 've 're 'm 't 'S 'LL 'x",
    "endoftext": f"one story.{EOT}Another one\n{EOT}{EOT} and the end{EOT}",
}


@pytest.fixture
def gpt2() -> Tokenizer:
    return gpt2_tokenizer()


@pytest.fixture
def reference():
    return tiktoken_gpt2()


def test_hello_world(gpt2) -> None:
    assert gpt2.encode("Hello world") == [15496, 995]  # hand-checked against GPT-2's vocab
    assert gpt2.special_token_ids == {EOT: 50256}


@pytest.mark.parametrize("name", CASES)
def test_equal_to_tiktoken(gpt2, reference, name) -> None:
    text = CASES[name]
    assert gpt2.encode(text) == reference.encode(text, allowed_special="all")
    assert gpt2.encode_ordinary(text) == reference.encode_ordinary(text)
    assert gpt2.decode(gpt2.encode(text)) == text


@pytest.mark.parametrize(
    ("corpus", "start"),
    [("tinystories_2M.txt", 0), ("tinyshakespeare.txt", 200_000), ("ja_aozora.txt", 0), ("ja_aozora.txt", 700_000)],
)
def test_equal_to_tiktoken_on_corpus_slices(reference, corpus, start) -> None:
    # A fresh tokenizer each time, so the cold paths (cache misses, seam repairs) are what is compared.
    text = corpus_slice(corpus, 300_000 if corpus.startswith("tiny") else 150_000, start)
    tokenizer = Tokenizer.from_files(GPT2_VOCAB, GPT2_MERGES, [EOT])
    assert tokenizer.encode(text) == reference.encode(text, allowed_special="all")


@pytest.mark.parametrize(
    "text",
    ["a" * 20_000, " " * 20_000, "あ" * 7_000, ("あいうえおかきくけこ" * 700), "\n" * 5_000 + "x", "🙂" * 3_000],
    ids=["letters", "spaces", "kana", "kana-cycle", "newlines", "emoji"],
)
def test_equal_to_tiktoken_on_long_runs(gpt2, reference, text) -> None:
    assert gpt2.encode(text) == reference.encode(text)


def test_without_special_tokens_endoftext_is_plain_text(reference) -> None:
    plain = gpt2_tokenizer(special=False)
    text = f"a{EOT}b"
    assert plain.encode(text) == reference.encode_ordinary(text)
    assert 50256 not in plain.encode(text)


def test_missing_special_token_is_appended() -> None:
    tok = Tokenizer.from_files(GPT2_VOCAB, GPT2_MERGES, [EOT, "<|im_start|>"])
    assert tok.special_token_ids == {EOT: 50256, "<|im_start|>": 50257}
    assert tok.encode("<|im_start|>Hello world") == [50257, 15496, 995]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.text())
def test_equal_to_tiktoken_on_any_text(gpt2, reference, text) -> None:
    assert gpt2.encode_ordinary(text) == reference.encode_ordinary(text)
    assert gpt2.decode(gpt2.encode(text)) == text


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(parts=st.lists(st.one_of(st.text(max_size=20), st.just(EOT), st.sampled_from(["<|endof", "text|>", " ", "\n"]))))
def test_equal_to_tiktoken_with_special_tokens(gpt2, reference, parts) -> None:
    text = "".join(parts)
    assert gpt2.encode(text) == reference.encode(text, allowed_special="all")


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.text(alphabet=st.sampled_from("あいうえおのは日本語漢字カタ、。 \nab"), min_size=200, max_size=1200))
def test_equal_to_tiktoken_on_japanese_like_text(gpt2, reference, text) -> None:
    # Long enough to hold dozens of pre-tokens, so the whole-text character path is the one compared.
    assert gpt2.encode(text) == reference.encode(text)
