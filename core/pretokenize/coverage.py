"""Whether a split pattern keeps all text: its matches must tile any text, or encoding silently drops characters.

Encoding keeps only what the pattern matches (``findall``), so a pattern such as ``\\w+`` loses every
space and ``hello world!`` comes back as ``helloworld``. No pattern check can be complete for every regex,
so :func:`pattern_problem` compiles the pattern and runs it over :data:`PROBES`: short texts of every kind
(ASCII words and every ASCII character, runs of spaces, tabs and newlines, punctuation, digits, Japanese,
emoji, combining marks, control characters, a spread of code points from every Unicode plane), and every
three characters of :data:`TRIPLE_CHARACTERS` in a row. The matches of each probe must follow one another
with no gap and reach its end. Loaders refuse a file whose
pattern fails (:mod:`core.formats.common`) and training refuses such a pattern up front.
"""

from __future__ import annotations

import itertools
import re
import time
from functools import cache

from core.pretokenize.patterns import GPT2_PATTERN

CHECK_SECONDS = 2.0
"""Time the probes may take in all; a pattern slower than that on a few short texts backtracks badly."""

MAX_UNROLLED = 100_000
r"""How large a pattern may grow once its counted repeats are unrolled: ``regex`` builds ``a{4294967294}``
(14 characters) node by node and runs out of memory, and ``(?:a{1000}){1000}`` costs 270 MB. Real split
patterns count to 3 (``\p{N}{1,3}``)."""

_COUNT = re.compile(r"\{(\d*)(?:,(\d*))?\}")
_BRACED_ESCAPES = "pPNxgu"  # \p{L}, \N{NAME}, \x{263a}...: their braces are not a repeat count


def _spread(width: int = 64) -> tuple[str, ...]:
    """Code points from every plane, skipping surrogates (which UTF-8 cannot hold and encoding replaces),
    in texts of ``width`` characters (short, so that a pattern looking far ahead stays quick)."""
    codes = [*range(0x80, 0xD800, 61), *range(0xE000, 0x10000, 61), *range(0x10000, 0x110000, 1009)]
    text = "".join(map(chr, codes))
    return tuple(text[at : at + width] for at in range(0, len(text), width))


PROBES: tuple[str, ...] = (
    "Hello, world! It's 2024-06-01: the lazy dog didn't jump; they'll see. I'VE 123",
    "".join(map(chr, range(128))),
    "".join(map(chr, range(128, 256))),
    "  two   three    spaces  ",
    " ",
    "\n",
    "\n\n\tTabs\t\tand\r\nwindows\r\n\r\nlines\n",
    "trailing space ",
    "  ",
    "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~ — “quotes” ‘’ … «» ¿¡",
    "0123456789 3.14 1,000 ١٢٣ ½ Ⅻ ²",
    "日本語のテキストです。猫が好き、犬も。「かぎ」カタカナ",
    "한국어 Ελληνικά Русский עברית العربية हिन्दी ไทย",
    "emoji 🎉👩‍👩‍👧 flags 🇯🇵 ❤️ 𝔘𝔫𝔦 𠀀",
    "e\u0301 a\u0308\u0323 \u0301 lone marks\u0300",
    "control \x00\x01\x1b[31mred\x7f\x85\x9f\u200b\u200d\ufeff",
    "\u3000ideographic\u00a0nbsp\u2028line\u2029para\x0b\x0c",
    "\ue000\uf8ff\ufffd\uffff\U0010ffff",
    *_spread(),
)
"""Texts a split pattern must give back whole; surrogate-free, as encoding replaces surrogates first."""

TRIPLE_CHARACTERS = "aZ1 \n\t.,'-日あア\u0301🎉é١$_"
"""One character of each kind a pattern tells apart; every three of them in a row are probes too
(:func:`triples`), since a pattern may drop a character only after a certain other (``\\D++|\\S{2,}`` drops the
``1`` of ``aa1``, and no longer text happens to hold that)."""


@cache
def triples() -> tuple[str, ...]:
    """Every text of three :data:`TRIPLE_CHARACTERS` (6,859 texts; all of them take a split pattern ~40 ms)."""
    return tuple("".join(three) for three in itertools.product(TRIPLE_CHARACTERS, repeat=3))


def pattern_problem(pattern: str) -> str | None:
    """Why ``pattern`` cannot split text without losing some, or ``None`` if it keeps every probe whole.

    The reason names the problem and the fix, for a one-line error.

    >>> pattern_problem(r"\\S+|\\s+") is None
    True
    >>> pattern_problem(r"\\w+")[:46]
    "drops ',' (U+002C) from text such as 'Hello, w"
    >>> pattern_problem(r"(\\w+)|\\W+")
    'has a capturing group, so encoding would keep only the group; write (?:...) instead of (...)'
    """
    return _problem(pattern)


@cache
def empty_match(pattern: str) -> str | None:
    """A probe text in which ``pattern`` (one :func:`pattern_problem` accepts) matches empty text, or ``None``.

    An empty match changes nothing here (``findall`` tries the next alternative at the same place), but
    Hugging Face's split steps one character on after it, making that character a piece of its own: such a
    ``tokenizer.json`` pattern cannot be read alike.

    >>> empty_match(r" ?\\p{L}*|\\s+|[\\s\\S]")[:13]
    'Hello, world!'
    >>> empty_match(r" ?\\p{L}+|\\s+|[\\s\\S]") is None
    True
    """
    import regex

    compiled = regex.compile(pattern)
    for probe in (*PROBES, *triples()):
        if any(match.start() == match.end() for match in compiled.finditer(probe)):
            return probe
    return None


def unrolled_size(pattern: str) -> int:
    r"""An upper estimate of a pattern's size with counted repeats unrolled (every branch counted).

    >>> unrolled_size(r"\p{N}{1,3}"), unrolled_size(r"(ab){10}|c"), unrolled_size(r"(?:a{1000}){1000}") > 10**6
    (3, 22, True)
    """
    totals = [0]  # the size of each open group so far
    last = 0  # the size of the item a repeat count would apply to
    at = 0
    while at < len(pattern):
        char = pattern[at]
        step = 1
        if char == "\\":
            step = 2
            if pattern[at + 1 : at + 2] in tuple(_BRACED_ESCAPES) and pattern[at + 2 : at + 3] == "{":
                step = (pattern.find("}", at) + 1 or len(pattern)) - at
            last = 1
        elif char == "[":
            step = _class_end(pattern, at) - at
            last = 1
        elif char == "(":
            totals.append(0)
            last = 0
        elif char == ")" and len(totals) > 1:
            last = totals.pop()
            totals[-1] += last
            at += 1
            continue
        elif char == "{" and (count := _COUNT.match(pattern, at)) is not None and any(count.groups("")):
            digits = max(count.groups(""), key=len)
            if len(digits) > 9:
                return 10**10
            times = max(int(part or 0) for part in count.groups(""))
            totals[-1] += last * max(times - 1, 0)
            last *= times
            at = count.end()
            continue
        else:
            last = 1
        totals[-1] += last if char != "(" else 0
        at += step
    return sum(totals)


def _class_end(pattern: str, start: int) -> int:
    """Where the character class opened at ``start`` ends (nested sets as ``regex`` version 1 allows)."""
    depth = 0
    at = start
    while at < len(pattern):
        char = pattern[at]
        if char == "\\":
            at += 2
            continue
        if char == "[":
            depth += 1
            at += 1
            if pattern[at : at + 1] == "^":
                at += 1
            if pattern[at : at + 1] == "]":
                at += 1  # a ']' first in a class is a literal
            continue
        if char == "]":
            depth -= 1
            if depth == 0:
                return at + 1
        at += 1
    return len(pattern)


def _has_keep_out(pattern: str) -> bool:
    r"""Whether ``pattern`` holds ``\K`` outside a class: the text matched before it is in no match, and the
    probes find such a gap only if one of them happens to meet it (``a\Kb`` at the start of a text).

    >>> _has_keep_out(r"a\Kb|[^b]+|b"), _has_keep_out(r"[\K]|\\K|\S+|\s+")
    (True, False)
    """
    at = 0
    while at < len(pattern):
        if pattern[at] == "\\":
            if pattern[at + 1 : at + 2] == "K":
                return True
            at += 2
        elif pattern[at] == "[":
            at = _class_end(pattern, at)
        else:
            at += 1
    return False


@cache
def _problem(pattern: str) -> str | None:
    if pattern == GPT2_PATTERN:
        return None
    if unrolled_size(pattern) > MAX_UNROLLED:
        return (
            f"has repeat counts that unroll to over {MAX_UNROLLED:,} steps, which regex would build in memory; "
            "use smaller {n} counts"
        )
    import regex  # here: slow to import, and GPT-2's pattern (training an ASCII corpus) never needs it

    try:
        compiled = regex.compile(pattern)
    except (regex.error, RecursionError, OverflowError, ValueError, MemoryError) as error:
        return f"does not compile ({error})"
    if compiled.groups:
        return "has a capturing group, so encoding would keep only the group; write (?:...) instead of (...)"
    if _has_keep_out(pattern):
        return r"has \K, which leaves the text before it out of the match, so encoding would drop it; take \K out"
    deadline = time.monotonic() + CHECK_SECONDS
    for probe in (*PROBES, *triples()):
        try:
            left = max(deadline - time.monotonic(), 0.001)
            spans = [match.span() for match in compiled.finditer(probe, timeout=left)]
        except TimeoutError:
            return f"takes over {CHECK_SECONDS:g} s to split a few short texts (nested repeats?); simplify it"
        position = 0
        for start, end in [*spans, (len(probe), len(probe))]:
            if start > position:
                lost = probe[position]
                around = probe[max(position - 6, 0) : position + 6]
                return (
                    f"drops {lost!r} (U+{ord(lost):04X}) from text such as {around!r}; every character must "
                    r"fall in some match: add a catch-all alternative such as |[\s\S] at the end"
                )
            position = max(position, end)
    return None
