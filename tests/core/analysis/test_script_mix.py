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
