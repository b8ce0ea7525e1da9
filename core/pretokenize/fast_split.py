"""A faster, exactly equivalent splitter for the GPT-2 pattern, built for the stdlib ``re`` engine.

Pre-tokenisation is the floor of encoding speed (and a good part of training on English). The ``regex``
module's ``\\p{L}``/``\\p{N}`` lookups cost more than ``re`` spends on plain character classes, so
for the GPT-2 pattern we spell ``\\p{L}``, ``\\p{N}`` and ``\\s`` out as explicit classes, computed at run
time *from the regex module itself* (so both agree on the Unicode version): over ASCII for ASCII text,
over the Basic Multilingual Plane for other text. Only BMP ranges are spelled out:
``re`` stores those as a compact bitmap, while astral ranges would make it scan a list. Text holding an
astral character (emoji, rare CJK) therefore goes to the ordinary ``regex`` pattern. Either way the
pieces are identical, and those of :func:`core.reference.pretokenize`; tests compare them on random text.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache

from core.pretokenize.patterns import GPT2_PATTERN, compile_pattern

Splitter = Callable[[str], list[str]]

_ASTRAL = re.compile("[\U00010000-\U0010ffff]")


def splitter_for(pattern: str, *, spell_out_bmp: bool = True) -> Splitter:
    """A ``findall``-like function giving the pre-tokens of a text under ``pattern``.

    For the GPT-2 pattern, ASCII text goes to a small ``re`` pattern (quick to build) and, with
    ``spell_out_bmp``, other text without astral characters to the BMP one (built here, once per process,
    which takes a noticeable moment: worth it for a tokenizer that encodes much text, not for a training
    run's reading, which sends non-ASCII text to ``regex``).

    >>> splitter_for(GPT2_PATTERN)("Hello, world  !")
    ['Hello', ',', ' world', ' ', ' !']
    """
    if pattern == GPT2_PATTERN:
        return _gpt2_splitter(spell_out_bmp)
    return compile_pattern(pattern).findall


def tiles_every_text(pattern: str) -> bool:
    """Whether ``pattern``'s pre-tokens always join back into the whole text (known for GPT-2's pattern only).

    GPT-2's alternatives between them match every character (``\\s+`` any whitespace, ``?[^\\s\\p{L}\\p{N}]+``
    whatever is neither a letter, a number nor whitespace), so nothing is skipped. Encoding checks this for
    other patterns, by summing the pieces' lengths: a cost in proportion to the text.

    >>> tiles_every_text(GPT2_PATTERN), tiles_every_text(r"\\w+")
    (True, False)
    """
    return pattern == GPT2_PATTERN


ASCII_CLASSES = {r"\p{L}": r"\u0041-\u005a\u0061-\u007a", r"\p{N}": r"\u0030-\u0039", r"\s": r"\u0009-\u000d\u0020"}
"""What ``regex`` matches with each property among ASCII characters (a test recomputes them): written out,
so that splitting ASCII text needs no ``regex`` import, which is slow."""


@cache
def _gpt2_splitter(spell_out_bmp: bool) -> Splitter:
    ascii_split = re.compile(gpt2_re_pattern(0x80)).findall
    if not spell_out_bmp:
        return lambda text: ascii_split(text) if text.isascii() else compile_pattern(GPT2_PATTERN).findall(text)
    slow = compile_pattern(GPT2_PATTERN).findall
    bmp_split = re.compile(gpt2_re_pattern(0x10000)).findall
    astral = _ASTRAL.search

    def split(text: str) -> list[str]:
        if text.isascii():
            return ascii_split(text)
        if astral(text) is None:
            return bmp_split(text)
        return slow(text)

    return split


@cache
def gpt2_re_pattern(below: int) -> str:
    """The GPT-2 pattern for ``re``, exact on text whose code points are all under ``below`` (at most 0x10000).

    >>> re.findall(gpt2_re_pattern(0x80), "it's 42 \\n\\n")
    ['it', "'s", ' 42', ' \\n\\n']
    """
    letters, numbers, spaces = (
        ASCII_CLASSES[prop] if below == 0x80 else class_below(prop, below) for prop in (r"\p{L}", r"\p{N}", r"\s")
    )
    return (
        rf"'(?:[sdmt]|ll|ve|re)| ?[{letters}]+| ?[{numbers}]+| ?[^{spaces}{letters}{numbers}]+"
        rf"|[{spaces}]+(?![^{spaces}])|[{spaces}]+"
    )


def class_below(prop: str, below: int) -> str:
    """The body of a character class listing the code points under ``below`` that ``regex`` matches with ``prop``.

    >>> class_below(r"\\p{N}", 0x80)
    '\\\\u0030-\\\\u0039'
    """
    import regex  # here, not at the top: ASCII text never needs it

    every = "".join(map(chr, range(below)))
    ranges = []
    for match in regex.finditer(prop + "+", every):
        first, last = match.start(), match.end() - 1
        ranges.append(f"\\u{first:04x}" if first == last else f"\\u{first:04x}-\\u{last:04x}")
    return "".join(ranges)
