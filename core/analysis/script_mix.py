"""Which writing system each character belongs to (Latin, kana, kanji, other), and the mix of a text.

Bytes per token differ wildly between English and Japanese, so the corpus pane shows a corpus's mix and
the compare pane splits token counts by script. Both use the four classes defined here, so a "kanji"
character is counted the same way everywhere.
"""

from __future__ import annotations

from dataclasses import dataclass

import regex

SCRIPTS: tuple[str, ...] = ("latin", "kana", "kanji", "other")
"""The script classes, in display order. ``other`` holds digits, punctuation, whitespace and other scripts."""

# Marks that only ever appear inside kana words, though Unicode's Script puts them in "Common" or
# "Inherited": the prolonged sound marks ー (U+30FC) and ｰ (U+FF70), and the voiced sound marks, combining
# (U+3099, U+309A: か + U+3099 = が in decomposed text), spacing (゛゜) and half-width (ﾞﾟ: ｶﾞ). And the
# ideographic variation selectors (U+E0100..U+E01EF: 葛 + U+E0100, the form of a name in legal text),
# which only ever follow a kanji. Left out, each counted as "other", and a token of one as not a letter.
_CLASSES: dict[str, regex.Pattern[str]] = {
    "latin": regex.compile(r"\p{Latin}"),
    "kana": regex.compile(r"[\p{Hiragana}\p{Katakana}\u30fc\uff70\u3099-\u309c\uff9e\uff9f]"),
    "kanji": regex.compile(r"[\p{Han}\U000e0100-\U000e01ef]"),
}
_cache: dict[str, str] = {}


def classify_char(ch: str) -> str:
    """The script class of one character.

    >>> [classify_char(c) for c in "aあア漢ー1 、ﾞ"]
    ['latin', 'kana', 'kana', 'kanji', 'kana', 'other', 'other', 'other', 'kana']
    """
    script = _cache.get(ch)
    if script is None:
        script = next((name for name, pattern in _CLASSES.items() if pattern.match(ch)), "other")
        if len(_cache) < 65536:
            _cache[ch] = script
    return script


@dataclass(frozen=True, slots=True)
class ScriptMix:
    """How many characters and UTF-8 bytes of a text fall in each script class.

    Attributes:
        chars: script -> number of characters (every key of ``SCRIPTS`` is present).
        bytes: script -> number of UTF-8 bytes.
    """

    chars: dict[str, int]
    bytes: dict[str, int]

    @property
    def total_chars(self) -> int:
        return sum(self.chars.values())

    @property
    def total_bytes(self) -> int:
        return sum(self.bytes.values())

    def char_share(self, script: str) -> float:
        """Fraction of characters in ``script`` (0.0 for an empty text)."""
        total = self.total_chars
        return self.chars[script] / total if total else 0.0

    def byte_share(self, script: str) -> float:
        """Fraction of bytes in ``script`` (0.0 for an empty text)."""
        total = self.total_bytes
        return self.bytes[script] / total if total else 0.0


def script_mix(text: str) -> ScriptMix:
    """Count the characters and bytes of ``text`` in each script class.

    One regex scan per class rather than a Python loop per character, so a multi-megabyte corpus takes
    a fraction of a second.

    >>> mix = script_mix("Tokyo 東京 とうきょう")
    >>> mix.chars
    {'latin': 5, 'kana': 5, 'kanji': 2, 'other': 2}
    >>> mix.bytes
    {'latin': 5, 'kana': 15, 'kanji': 6, 'other': 2}
    """
    chars: dict[str, int] = {}
    nbytes: dict[str, int] = {}
    for name, pattern in _CLASSES.items():
        found = pattern.findall(text)
        chars[name] = len(found)
        nbytes[name] = len("".join(found).encode("utf-8"))
    chars["other"] = len(text) - sum(chars.values())
    nbytes["other"] = len(text.encode("utf-8", errors="surrogatepass")) - sum(nbytes.values())
    return ScriptMix(chars=chars, bytes=nbytes)
