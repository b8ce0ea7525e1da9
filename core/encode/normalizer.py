"""Unicode normalization before pre-tokenisation, as Hugging Face ``tokenizers`` does it (Qwen2's ``NFC``).

A ``tokenizer.json`` may normalize the text between its added tokens before splitting it: Qwen2 and Qwen2.5
compose it (``"normalizer": {"type": "NFC"}``), so ``e`` + U+0301 encodes as ``é`` and ``か`` + U+3099 as
``が``. Hugging Face matches the added tokens that are not ``normalized`` in the text as given, then
normalizes each stretch between them on its own; :class:`Normalizer` does the same, with offsets back into
the text as given, so a token's span points at what the user typed, which NFC may make shorter.

Hugging Face's tables are those of Unicode 9.0; Python's ``unicodedata`` is newer (14.0 on Python 3.11).
Characters assigned since then with a combining class or a decomposition (:data:`_NEWER_THAN_TOKENIZERS`:
marks of recent scripts, NFKC's ㋿ for 令和, ``𑤵`` + ``𑤰``) are to ``tokenizers`` unassigned, so it leaves
them as they are and composes nothing across them; they are kept so here. Characters Python itself learns
after Unicode 14.0 (Python 3.12 and later) are not in that table and may normalize otherwise.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from dataclasses import replace
from functools import cache
from itertools import accumulate
from typing import Any

from core.encode.arguments import SURROGATES, replace_surrogates
from core.encode.plain_text import PlainTextEncoder
from core.encode.spans import TokenSpan, token_spans
from core.encode.special_tokens import SpecialTokens

FORMS = ("NFC", "NFD", "NFKC", "NFKD")
"""The normalizers bpe-tui reproduces: Hugging Face's four Unicode normal forms, each alone."""

_NEWER_THAN_TOKENIZERS = (
    (0x7FD, 0x7FD), (0x898, 0x89F), (0x8CA, 0x8D3), (0x9FE, 0x9FE), (0xC3C, 0xC3C), (0xD3B, 0xD3C),
    (0xEBA, 0xEBA), (0x1715, 0x1715), (0x1ABF, 0x1ACE), (0x1DF6, 0x1DFA), (0x32FF, 0x32FF),
    (0xA7F2, 0xA7F4), (0xA82C, 0xA82C), (0xAB69, 0xAB69), (0x10781, 0x10785), (0x10787, 0x107B0),
    (0x107B2, 0x107BA), (0x10D24, 0x10D27), (0x10EAB, 0x10EAC), (0x10F46, 0x10F50), (0x10F82, 0x10F85),
    (0x11070, 0x11070), (0x1133B, 0x1133B), (0x1145E, 0x1145E), (0x11839, 0x1183A), (0x11930, 0x11930),
    (0x11935, 0x11935), (0x11938, 0x11938), (0x1193D, 0x1193E), (0x11943, 0x11943), (0x119E0, 0x119E0),
    (0x11A34, 0x11A34), (0x11A47, 0x11A47), (0x11A99, 0x11A99), (0x11D42, 0x11D42), (0x11D44, 0x11D45),
    (0x11D97, 0x11D97), (0x16FF0, 0x16FF1), (0x1E130, 0x1E136), (0x1E2AE, 0x1E2AE), (0x1E2EC, 0x1E2EF),
    (0x1F16C, 0x1F16C), (0x1FBF0, 0x1FBF9),
)
"""Code points that Unicode 10.0-14.0 gave a combining class, a decomposition or a composition: Hugging
Face's Unicode 9.0 tables leave them alone (found by normalizing every code point with both)."""


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
def _runs(form: str) -> re.Pattern[str]:
    """A pattern whose matches cut any text into runs that ``form`` normalizes each on its own.

    A run ends before a character that starts a new one whatever precedes it: one whose (de)composition
    starts with a character of combining class 0 that composes with nothing before it. A character
    :data:`_NEWER` than Hugging Face's tables is a run by itself, as it is to ``tokenizers``.
    """
    decomposed = "NFKD" if form.startswith("NFK") else "NFD"
    newer = {cp for a, b in _NEWER_THAN_TOKENIZERS for cp in range(a, b + 1)}
    seconds = set(range(0x1161, 0x1176)) | set(range(0x11A8, 0x11C3))  # Hangul vowels and finals join syllables
    candidates = []
    for cp in (*range(0xD800), *range(0xE000, 0x110000)):
        char = chr(cp)
        mapping = unicodedata.decomposition(char)
        if unicodedata.combining(char) or mapping:
            candidates.append(char)
        if mapping and not mapping.startswith("<") and len(parts := mapping.split()) == 2:
            seconds.add(int(parts[1], 16))
    composing = form in ("NFC", "NFKC")
    joining = []
    for char in candidates + [chr(cp) for cp in seconds]:
        if ord(char) in newer:
            continue
        first = unicodedata.normalize(decomposed, char)[:1]
        if unicodedata.combining(first) or (composing and ord(first) in seconds):
            joining.append(ord(char))
    return re.compile(f"{_NEWER.pattern}|[\\s\\S]{_char_class(_ranges(joining))}*")


class Normalizer:
    """One of Hugging Face's normalizers (:data:`FORMS`), with what encoding needs of it.

    >>> Normalizer("NFC").normalize("cafe\\u0301")
    'café'
    >>> Normalizer("NFC").mapped("e\\u0301!")
    ('é!', [0, 2, 3], [True, True, True])
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

    def mapped(self, text: str) -> tuple[str, list[int], list[bool]]:
        """The normal form of ``text``, where each of its characters came from, and where runs start.

        Returns ``(normalized, origin, starts)``: character ``i`` of ``normalized`` comes from the run of
        ``text`` that starts at ``origin[i]`` (``origin`` has one more entry, ``len(text)``); ``starts[i]``
        says a run starts there (``starts`` has ``len(normalized) + 1`` entries, the last True), so ``text``
        up to ``origin[i]`` normalizes to ``normalized[:i]``. A run left as it was maps one to one.
        """
        if unicodedata.is_normalized(self.form, text):
            return text, list(range(len(text) + 1)), [True] * (len(text) + 1)
        out: list[str] = []
        origin: list[int] = []
        starts: list[bool] = []
        for match in _runs(self.form).finditer(text):
            run, start = match.group(), match.start()
            changed = self.normalize(run) if _NEWER.fullmatch(run) is None else run
            if changed == run:
                origin += range(start, start + len(run))
                starts += [True] * len(run)
            else:
                origin += [start] * len(changed)
                starts += [True] + [False] * (len(changed) - 1)
            out.append(changed)
        origin.append(len(text))
        starts.append(True)
        return "".join(out), origin, starts

    def run_start(self, text: str, end: int, floor: int) -> int:
        """The last position from ``floor`` to ``end`` before which ``text`` may be cut and normalized in
        two parts without changing it (``floor`` if none), whatever follows ``text``."""
        runs = _runs(self.form)
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


def normalize_in(tokenizer: Any, form: str) -> None:
    """Make ``tokenizer`` (a fresh :class:`~core.encode.tokenizer.Tokenizer`) normalize text to ``form``.

    Its encoding hooks are replaced on the instance, so a tokenizer without a normalizer pays nothing per
    call. Added tokens are found in the text as given, and each stretch between them is normalized on
    its own, as Hugging Face does with added tokens that are not ``normalized``.
    """
    normalizer = Normalizer(form)
    specials: SpecialTokens = tokenizer._specials
    plain: PlainTextEncoder = tokenizer._plain
    encode_plain = normalizer.wrap(plain.encode)

    def encode_text(text: str, pattern: re.Pattern[str] | None) -> list[int]:
        try:
            return specials.encode(text, pattern, encode_plain)
        except UnicodeEncodeError:  # only surrogates make str.encode("utf-8") fail
            return specials.encode(replace_surrogates(text), pattern, encode_plain)

    tokenizer._encode_text = encode_text
    tokenizer._certain_prefix = lambda buffer: _certain_prefix(buffer, specials, plain, normalizer)
    tokenizer._token_spans = lambda text: _token_spans(tokenizer, text, normalizer)


def _certain_prefix(
    buffer: str, specials: SpecialTokens, plain: PlainTextEncoder, normalizer: Normalizer
) -> tuple[list[int], str]:
    """:func:`core.encode.streaming.certain_prefix` for normalized text: the part kept back also waits for
    the characters that may still compose with what follows, and a cut falls between runs."""
    out: list[int] = []
    start, end = 0, len(buffer)
    if specials.every is not None:
        end -= specials.longest - 1
        for match in specials.every.finditer(buffer):
            if match.start() >= end:
                break
            if match.start() > start:
                out += plain.encode(normalizer.normalize(buffer[start : match.start()]))
            out.append(specials.ids[match.group()])
            start = match.end()
        if start >= end:
            return out, buffer[start:]
    cut = normalizer.run_start(buffer, end, start)
    if cut == start:
        return out, buffer[start:]
    normal, origin, starts = normalizer.mapped(buffer[start:cut])
    limit = len(normal)
    while True:
        ids, settled = plain.encode_settled(normal, 0, limit)
        if settled == 0:
            return out, buffer[start:]
        if starts[settled]:
            return out + ids, buffer[start + origin[settled] :]
        limit = settled
        while not starts[limit]:  # a pre-token ends inside what one run became: settle less
            limit -= 1


class _Encoded:
    """The ids of a text already encoded, for :func:`core.encode.spans.token_spans`."""

    def __init__(self, tokenizer: Any, ids: list[int]) -> None:
        self.special_token_ids = tokenizer.special_token_ids
        self.decode_tokens_bytes = tokenizer.decode_tokens_bytes
        self._ids = ids

    def encode(self, text: str) -> list[int]:
        return self._ids


def _token_spans(tokenizer: Any, text: str, normalizer: Normalizer) -> list[TokenSpan]:
    """Token spans of ``text`` encoded with normalization, pointing at ``text`` as given.

    A token from a run that normalization changed (``e`` + U+0301 made ``é``) spans the whole run; one from
    text left as it was spans its own bytes, as without a normalizer.
    """
    if not text.isascii() and SURROGATES.search(text):
        text = replace_surrogates(text)
    pattern = tokenizer._specials.every
    parts: list[str] = []
    origin: list[int] = []
    starts: list[bool] = []
    position = 0
    for match in [*pattern.finditer(text), None] if pattern is not None else [None]:
        stop = match.start() if match is not None else len(text)
        normal, where, begins = normalizer.mapped(text[position:stop])
        parts.append(normal)
        origin += [position + i for i in where[:-1]]
        starts += begins[:-1]
        if match is not None:
            parts.append(match.group())
            origin += range(match.start(), match.end())
            starts += [True] * (match.end() - match.start())
            position = match.end()
    origin.append(len(text))
    starts.append(True)
    normal = "".join(parts)
    spans = token_spans(_Encoded(tokenizer, tokenizer.encode(text)), normal)
    raw_bytes = list(accumulate((len(c.encode("utf-8")) for c in text), initial=0))
    normal_bytes = list(accumulate((len(c.encode("utf-8")) for c in normal), initial=0))

    def same(i: int) -> bool:  # character i of normal is character origin[i] of text, unchanged
        return starts[i] and starts[i + 1] and origin[i + 1] == origin[i] + 1 and text[origin[i]] == normal[i]

    remapped = []
    for span in spans:
        first, last = span.char_start, span.char_end - 1
        after = last + 1
        while not starts[after]:
            after += 1
        byte_start = raw_bytes[origin[first]] + (span.byte_start - normal_bytes[first] if same(first) else 0)
        byte_end = (
            raw_bytes[origin[last]] + span.byte_end - normal_bytes[last] if same(last) else raw_bytes[origin[after]]
        )
        remapped.append(
            replace(span, char_start=origin[first], char_end=origin[after], byte_start=byte_start, byte_end=byte_end)
        )
    return remapped


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
