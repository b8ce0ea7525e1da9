"""Script classes of characters and the script mix of texts, checked against hand-counted examples."""

from __future__ import annotations

import pytest

from core.analysis.script_mix import SCRIPTS, classify_char, script_mix


@pytest.mark.parametrize(
    ("ch", "script"),
    [
        ("a", "latin"),
        ("É", "latin"),
        ("あ", "kana"),
        ("ア", "kana"),
        ("ｱ", "kana"),  # half-width katakana
        ("ー", "kana"),  # prolonged sound mark, "Common" in Unicode
        ("\u3099", "kana"),  # combining voiced sound mark ("Inherited"): か + U+3099 is が
        ("\u309a", "kana"),  # combining semi-voiced sound mark
        ("゛", "kana"),  # spacing voiced sound mark ("Common")
        ("ﾞ", "kana"),  # half-width voiced sound mark: ｶﾞ is ガ
        ("ﾟ", "kana"),  # half-width semi-voiced sound mark
        ("\U000e0100", "kanji"),  # ideographic variation selector: 葛 + U+E0100, one form of 葛
        ("\ufe0f", "other"),  # an emoji's variation selector is not a kanji's
        ("\uf929", "kanji"),  # CJK compatibility ideograph
        ("\U0002000b", "kanji"),  # astral (Extension B)
        ("漢", "kanji"),
        ("々", "kanji"),
        ("1", "other"),
        (" ", "other"),
        ("\u3000", "other"),  # ideographic space
        ("。", "other"),
        ("Ж", "other"),  # Cyrillic is not Latin
        ("😀", "other"),
    ],
)
def test_classify_char(ch: str, script: str) -> None:
    assert classify_char(ch) == script


def test_script_mix_counts_chars_and_bytes() -> None:
    mix = script_mix("Hé 日本語、カナ\n")
    assert mix.chars == {"latin": 2, "kana": 2, "kanji": 3, "other": 3}
    assert mix.bytes == {"latin": 3, "kana": 6, "kanji": 9, "other": 5}
    assert mix.total_chars == 10
    assert mix.total_bytes == len("Hé 日本語、カナ\n".encode())


def test_script_mix_of_decomposed_and_half_width_kana() -> None:
    # Web text and chat logs: half-width katakana with separate voiced marks, decomposed が, a name's kanji
    # with its variation selector. Every character of a word counts for the word's script.
    mix = script_mix("ﾊﾟﾝ か\u3099 葛\U000e0100")
    assert mix.chars == {"latin": 0, "kana": 5, "kanji": 2, "other": 2}
    assert mix.bytes == {"latin": 0, "kana": 15, "kanji": 7, "other": 2}


def test_script_mix_of_empty_text() -> None:
    mix = script_mix("")
    assert mix.chars == dict.fromkeys(SCRIPTS, 0)
    assert mix.char_share("latin") == 0.0
    assert mix.byte_share("kanji") == 0.0


def test_shares_sum_to_one() -> None:
    mix = script_mix("abc あいう 漢字")
    assert sum(mix.char_share(s) for s in SCRIPTS) == pytest.approx(1.0)
    assert sum(mix.byte_share(s) for s in SCRIPTS) == pytest.approx(1.0)
    assert mix.char_share("latin") == pytest.approx(3 / 10)
