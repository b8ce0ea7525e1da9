"""The normalizer gives the text Hugging Face's normalizers give, and maps it back to the text as typed."""

from __future__ import annotations

import random

import pytest

from core.encode.normalizer import _NEWER_THAN_TOKENIZERS, FORMS, Normalizer

normalizers = pytest.importorskip("tokenizers.normalizers", reason="the tests compare with Hugging Face tokenizers")

ALPHABET = list(
    "ae kK\u212aá\u0301\u0300\u0323\u0338<>=か\u3099\u309aカｶﾞ\uff9e\u1100\u1161\u11a8가ﬁ㍻㋿⑫¼¨\u3000Ａ"
    "\u0f73\u0f71\u0344\u0b47\u0b3e\u0898\u09fe\U00011935\U00011930🙂"
)
"""Characters that compose, decompose, reorder or fold, including some newer than tokenizers' tables."""


def texts(count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, 14))) for _ in range(count)]


@pytest.mark.parametrize("form", FORMS)
def test_normal_forms_are_hugging_faces(form: str) -> None:
    ours, theirs = Normalizer(form), getattr(normalizers, form)()
    for text in texts(1500, seed=len(form)):
        expected = theirs.normalize_str(text)
        assert ours.normalize(text) == expected, ascii(text)
        assert ours.mapped(text)[0] == expected, ascii(text)


@pytest.mark.parametrize("form", FORMS)
def test_characters_newer_than_tokenizers_tables_are_left_alone(form: str) -> None:
    """``tokenizers`` knows Unicode 9.0: later marks are not reordered, ㋿ is not 令和 in NFKC."""
    ours, theirs = Normalizer(form), getattr(normalizers, form)()
    for first, last in _NEWER_THAN_TOKENIZERS:
        for code_point in range(first, last + 1):
            text = f"a\u0301{chr(code_point)}\u0323b"
            assert ours.normalize(text) == theirs.normalize_str(text), hex(code_point)


@pytest.mark.parametrize("form", FORMS)
def test_mapping_and_cuts_agree_with_normalizing_the_whole(form: str) -> None:
    normalizer = Normalizer(form)
    for text in texts(400, seed=7):
        whole = normalizer.normalize(text)
        normal, text_map = normalizer.mapped(text)
        assert normal == whole
        for i in range(len(normal) + 1):
            if text_map.is_cut(i):  # the text up to raw_char(i) normalizes to normal[:i]
                assert normalizer.normalize(text[: text_map.raw_char(i)]) == normal[:i], ascii(text)
        for change in text_map.changes:
            assert normalizer.normalize(text[slice(*change.raw)]) == normal[slice(*change.normal)]
            assert len(text[: change.raw[0]].encode()) == change.raw_bytes[0]
            assert len(normal[: change.normal[1]].encode()) == change.normal_bytes[1]
        for end in range(len(text) + 1):
            cut = normalizer.run_start(text, end, 0)
            assert cut <= end
            if cut:
                assert normalizer.normalize(text[:cut]) + normalizer.normalize(text[cut:]) == whole, ascii(text)


def test_decomposed_text_is_composed_and_mapped_to_what_was_typed() -> None:
    normal, text_map = Normalizer("NFC").mapped("cafe\u0301!")
    assert normal == "café!" and [text_map.raw_char(i) for i in range(6)] == [0, 1, 2, 3, 5, 6]
    assert text_map.raw_span(3, 4, 3, 5) == (3, 5, 3, 6)  # é: e and U+0301, three bytes
    normal, text_map = Normalizer("NFKC").mapped("⑫x")
    assert normal == "12x" and [text_map.is_cut(i) for i in range(4)] == [True, False, True, True]
    assert text_map.raw_span(1, 2, 1, 2) == (0, 1, 0, 3) and text_map.raw_span(2, 3, 2, 3) == (1, 2, 3, 4)


def test_a_long_text_with_a_few_changes_maps_only_those() -> None:
    text = "plain words " * 20_000 + "cafe\u0301 " + "plain words " * 20_000
    normal, text_map = Normalizer("NFC").mapped(text)
    assert len(text_map.changes) == 1 and normal == text.replace("e\u0301", "é")
