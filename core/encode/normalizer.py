"""Unicode normalization before pre-tokenisation, as Hugging Face ``tokenizers`` does it (Qwen2's ``NFC``).

A ``tokenizer.json`` may normalize the text between its added tokens before splitting it: Qwen2 and Qwen2.5
compose it (``"normalizer": {"type": "NFC"}``), so ``e`` + U+0301 encodes as ``é`` and ``か`` + U+3099 as
``が``. Hugging Face matches the added tokens that are not ``normalized`` in the text as given, then
normalizes each stretch between them on its own; :class:`Normalizer` does the same, and maps the result back
to the text as given (:class:`TextMap`), so a token's span points at what the user typed, which NFC may make
shorter. :mod:`core.encode.normalized_encoding` makes a tokenizer encode with it.

Hugging Face's tables are those of Unicode 9.0; Python's ``unicodedata`` is newer (14.0 on Python 3.11, 15.1
on 3.13). Characters assigned since 9.0 with a combining class or a decomposition (:data:`_NEWER_THAN_TOKENIZERS`:
marks of recent scripts, NFKC's ㋿ for 令和, ``𑤵`` + ``𑤰``) are to ``tokenizers`` unassigned, so it leaves
them as they are and composes nothing across them; they are kept so here. The table reaches Unicode 17.0: a
Python that knows characters assigned later may normalize those otherwise.
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_right
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

FORMS = ("NFC", "NFD", "NFKC", "NFKD")
"""The normalizers bpe-tui reproduces: Hugging Face's four Unicode normal forms, each alone."""

_NEWER_THAN_TOKENIZERS = (
    (0x558, 0x558), (0x58B, 0x58C), (0x5C8, 0x5C9), (0x7FD, 0x7FD), (0x897, 0x89F), (0x8CA, 0x8D3), (0x9FE, 0x9FE),
    (0xC3C, 0xC3C), (0xD3B, 0xD3C), (0xEBA, 0xEBA), (0x1715, 0x1715), (0x1ABF, 0x1AF0), (0x1DF6, 0x1DFA),
    (0x209D, 0x209F), (0x32FF, 0x32FF), (0xA7F1, 0xA7F4), (0xA82C, 0xA82C), (0xAB69, 0xAB69), (0x105C9, 0x105C9),
    (0x105E4, 0x105E4), (0x10781, 0x10785), (0x10787, 0x107B0), (0x107B2, 0x107BF), (0x10D24, 0x10D27),
    (0x10D69, 0x10D6D), (0x10EAB, 0x10EAC), (0x10ECB, 0x10ECF), (0x10EF0, 0x10EFB), (0x10EFD, 0x10EFF),
    (0x10F46, 0x10F50), (0x10F82, 0x10F85), (0x11070, 0x11070), (0x1133B, 0x1133B), (0x11383, 0x11383),
    (0x11385, 0x11385), (0x1138E, 0x1138E), (0x11391, 0x11391), (0x113B8, 0x113B8), (0x113BB, 0x113BB),
    (0x113C2, 0x113C2), (0x113C5, 0x113C5), (0x113C7, 0x113C9), (0x113CE, 0x113D0), (0x1145E, 0x1145E),
    (0x11839, 0x1183A), (0x11930, 0x11930), (0x11935, 0x11935), (0x11938, 0x11938), (0x1193D, 0x1193E),
    (0x11943, 0x11943), (0x119E0, 0x119E0), (0x11A34, 0x11A34), (0x11A47, 0x11A47), (0x11A99, 0x11A99),
    (0x11D42, 0x11D42), (0x11D44, 0x11D45), (0x11D97, 0x11D97), (0x11F41, 0x11F42), (0x1611E, 0x16129),
    (0x1612F, 0x1612F), (0x16D67, 0x16D6A), (0x16FF0, 0x16FF1), (0x1B123, 0x1B126), (0x1CCD6, 0x1CCF9),
    (0x1D127, 0x1D128), (0x1D250, 0x1D252), (0x1D25B, 0x1D25C), (0x1D25F, 0x1D25F), (0x1D280, 0x1D281),
    (0x1D6A6, 0x1D6A6), (0x1DF95, 0x1DF95), (0x1DFCD, 0x1DFFF), (0x1E030, 0x1E06D), (0x1E08F, 0x1E08F),
    (0x1E130, 0x1E136), (0x1E2AE, 0x1E2AE), (0x1E2EC, 0x1E2EF), (0x1E4EC, 0x1E4EF), (0x1E5EE, 0x1E5EF),
    (0x1E6E3, 0x1E6E3), (0x1E6E6, 0x1E6E6), (0x1E6EE, 0x1E6EF), (0x1E6F5, 0x1E6F5), (0x1F16C, 0x1F16C),
    (0x1FBF0, 0x1FBF9),
)
"""Code points assigned since Unicode 9.0 that have a combining class, a decomposition or a part in a composition,
which Hugging Face's Unicode 9.0 tables leave alone: those of 10.0-14.0 found by normalizing every code point
with both, those of 15.0-17.0 (which Python 3.12 and later know) from the ``regex`` module's tables (assigned,
unknown to Python 3.11's, and combining, decomposing or ``NFC_QC=Maybe``)."""


def _char_class(ranges: list[tuple[int, int]] | tuple[tuple[int, int], ...]) -> str:
    """A regex character class for code point ranges."""
    return "[" + "".join(re.escape(chr(a)) + ("-" + re.escape(chr(b)) if b > a else "") for a, b in ranges) + "]"


_NEWER = re.compile(_char_class(_NEWER_THAN_TOKENIZERS))


def _ranges(code_points: list[int]) -> list[tuple[int, int]]:
    ranges: list[tuple[int, int]] = []
    for cp in sorted(code_points):
        if ranges and ranges[-1][1] == cp - 1:
            ranges[-1] = (ranges[-1][0], cp)
        else:
            ranges.append((cp, cp))
    return ranges


@cache
def _tables(form: str) -> tuple[re.Pattern[str], re.Pattern[str]]:
    """Two patterns for ``form``: whose matches cut any text into runs that it normalizes each on its own,
    and which finds the characters that may change (a run without one is left as it is).

    A run ends before a character that starts a new one whatever precedes it: one whose (de)composition
    starts with a character of combining class 0 that composes with nothing before it. A character
    :data:`_NEWER` than Hugging Face's tables is a run by itself, as it is to ``tokenizers``, and never
    changes. Built on first use (a scan of every code point, about 0.2 s).
    """
    decomposed = "NFKD" if form.startswith("NFK") else "NFD"
    newer = {cp for a, b in _NEWER_THAN_TOKENIZERS for cp in range(a, b + 1)}
    seconds = set(range(0x1161, 0x1176)) | set(range(0x11A8, 0x11C3))  # Hangul vowels and finals join syllables
    candidates = [chr(cp) for cp in range(0xAC00, 0xD7A4)]  # Hangul syllables decompose without a mapping listed
    for cp in (*range(0xD800), *range(0xE000, 0x110000)):
        char = chr(cp)
        mapping = unicodedata.decomposition(char)
        if unicodedata.combining(char) or mapping:
            candidates.append(char)
        if mapping and not mapping.startswith("<") and len(parts := mapping.split()) == 2:
            seconds.add(int(parts[1], 16))
    composing = form in ("NFC", "NFKC")
    joining: list[int] = []
    changing: list[int] = []
    for char in candidates + [chr(cp) for cp in seconds]:
        if ord(char) in newer:
            continue
        first = unicodedata.normalize(decomposed, char)[:1]
        if unicodedata.combining(first) or (composing and ord(first) in seconds):
            joining.append(ord(char))
        if unicodedata.normalize(form, char) != char:
            changing.append(ord(char))
    runs = re.compile(f"{_NEWER.pattern}|[\\s\\S]{_char_class(_ranges(joining))}*")
    return runs, re.compile(_char_class(_ranges(joining + changing)))


@dataclass(frozen=True, slots=True)
class Change:
    """A run of a text that normalizing changed, and what it became: character and byte ranges, ``(start, end)``,
    in the text as given (``raw``) and in the normalized text (``normal``)."""

    raw: tuple[int, int]
    normal: tuple[int, int]
    raw_bytes: tuple[int, int]
    normal_bytes: tuple[int, int]


class TextMap:
    """Where the characters of a normalized text came from in the text as given, from the runs it changed.

    Between changes the two texts are the same, one character (and byte) shifted by what the changes before
    made longer or shorter; a character inside a change comes from the whole of its run.

    >>> normal, text_map = Normalizer("NFC").mapped("cafe\\u0301!")
    >>> normal, text_map.raw_char(5), text_map.inside(3).raw, text_map.inside(4)
    ('café!', 6, (3, 5), None)
    """

    def __init__(self, changes: list[Change]) -> None:
        self.changes = changes
        self._starts = [change.normal[0] for change in changes]

    def _last_before(self, i: int) -> int:
        return bisect_right(self._starts, i) - 1

    def inside(self, i: int) -> Change | None:
        """The change whose normalized characters hold character ``i``, if any (its first character too)."""
        k = self._last_before(i)
        return self.changes[k] if k >= 0 and i < self.changes[k].normal[1] else None

    def shift(self, i: int) -> tuple[int, int]:
        """How far character ``i`` of the normalized text (outside every change) lies from where it came from,
        in characters and in bytes."""
        k = self._last_before(i)
        if k < 0:
            return 0, 0
        change = self.changes[k]
        return change.raw[1] - change.normal[1], change.raw_bytes[1] - change.normal_bytes[1]

    def is_cut(self, i: int) -> bool:
        """Whether the normalized text up to ``i`` is the normal form of a prefix of the text as given."""
        change = self.inside(i)
        return change is None or change.normal[0] == i

    def raw_char(self, i: int) -> int:
        """The end in the text as given of the prefix whose normal form ends at ``i`` (:meth:`is_cut` must hold)."""
        change = self.inside(i)
        return change.raw[0] if change is not None else i + self.shift(i)[0]

    def raw_span(self, char_start: int, char_end: int, byte_start: int, byte_end: int) -> tuple[int, int, int, int]:
        """A token's character and byte range in the normalized text, as a range of the text as given: where a
        change holds an end, the whole run it came from."""
        first, last = self.inside(char_start), self.inside(char_end - 1)
        if first is not None:
            raw_start, raw_byte_start = first.raw[0], first.raw_bytes[0]
        else:
            chars, data = self.shift(char_start)
            raw_start, raw_byte_start = char_start + chars, byte_start + data
        if last is not None:
            raw_end, raw_byte_end = last.raw[1], last.raw_bytes[1]
        else:
            chars, data = self.shift(char_end - 1)
            raw_end, raw_byte_end = char_end + chars, byte_end + data
        return raw_start, raw_end, raw_byte_start, raw_byte_end


class Normalizer:
    """One of Hugging Face's normalizers (:data:`FORMS`), with what encoding needs of it.

    >>> Normalizer("NFC").normalize("cafe\\u0301")
    'café'
    >>> Normalizer("NFC").mapped("e\\u0301!")[1].changes
    [Change(raw=(0, 2), normal=(0, 1), raw_bytes=(0, 3), normal_bytes=(0, 2))]
    """

    def __init__(self, form: str) -> None:
        if form not in FORMS:
            raise ValueError(f"unknown normalizer {form!r}; one of {', '.join(FORMS)}")
        self.form = form

    def normalize(self, text: str) -> str:
        """``text`` in normal form, as ``tokenizers`` gives it."""
        if unicodedata.is_normalized(self.form, text):
            return text  # then tokenizers, which normalizes less (never across newer characters), leaves it too
        if _NEWER.search(text) is None:
            return unicodedata.normalize(self.form, text)
        pieces = re.split(f"({_NEWER.pattern})", text)
        pieces[::2] = [unicodedata.normalize(self.form, piece) for piece in pieces[::2]]
        return "".join(pieces)

    def mapped(self, text: str) -> tuple[str, TextMap]:
        """The normal form of ``text``, and where its characters came from.

        Only the runs around characters that may change are looked at, so a long text with a few decomposed
        characters maps in about the time it takes to search it.
        """
        if unicodedata.is_normalized(self.form, text):
            return text, TextMap([])
        runs, changing = _tables(self.form)
        out: list[str] = []
        changes: list[Change] = []
        done = done_bytes = normal_chars = normal_bytes = 0  # text[:done] is in out, as normal_chars characters
        scanned = 0
        for match in changing.finditer(text):
            if match.start() < scanned:
                continue  # in the run just looked at
            start = self.run_start(text, match.start(), scanned)
            end = runs.match(text, start).end()  # type: ignore[union-attr]
            scanned = end
            run = text[start:end]
            new = self.normalize(run)
            if new == run:
                continue
            gap = text[done:start]
            gap_bytes = len(gap.encode("utf-8"))
            raw_bytes = len(run.encode("utf-8"))
            new_bytes = len(new.encode("utf-8"))
            normal_chars += len(gap)
            normal_bytes += gap_bytes
            raw_byte_start = done_bytes + gap_bytes
            changes.append(Change(
                (start, end), (normal_chars, normal_chars + len(new)),
                (raw_byte_start, raw_byte_start + raw_bytes), (normal_bytes, normal_bytes + new_bytes),
            ))
            out += [gap, new]
            normal_chars += len(new)
            normal_bytes += new_bytes
            done, done_bytes = end, raw_byte_start + raw_bytes
        out.append(text[done:])
        return "".join(out), TextMap(changes)

    def run_start(self, text: str, end: int, floor: int) -> int:
        """The last position from ``floor`` to ``end`` before which ``text`` may be cut and normalized in
        two parts without changing it (``floor`` if none), whatever follows ``text``."""
        runs = _tables(self.form)[0]
        position = min(end, len(text) - 1)
        while position > floor:
            match = runs.match(text, position - 1)
            if match is not None and match.end() <= position:
                return position
            position -= 1
        return floor

    def wrap(self, encode_plain: Callable[[str], list[int]]) -> Callable[[str], list[int]]:
        """``encode_plain`` of the normalized text."""
        normalize = self.normalize
        return lambda text: encode_plain(normalize(text))


def normalized_text(text: str, specials: re.Pattern[str] | None, form: str) -> str:
    """``text`` as a tokenizer that normalizes to ``form`` encodes it: each stretch between the special tokens
    ``specials`` finds normalized on its own, the special tokens as they are. Decoding its ids gives this.

    >>> normalized_text("e\\u0301<s>\\u0301", re.compile("<s>"), "NFC")
    'é<s>\\u0301'
    """
    normalize = Normalizer(form).normalize
    if specials is None:
        return normalize(text)
    parts: list[str] = []
    start = 0
    for match in specials.finditer(text):
        parts += [normalize(text[start : match.start()]), match.group()]
        start = match.end()
    parts.append(normalize(text[start:]))
    return "".join(parts)
