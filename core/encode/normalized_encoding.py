"""Encoding with a normalizer (Qwen2's NFC): ``encode``, ``encode_iterable`` and ``encode_with_spans`` as
Hugging Face ``tokenizers`` gives them, added tokens found in the text as given.

:func:`normalize_in` puts these in place of a :class:`~core.encode.tokenizer.Tokenizer`'s own hooks, so that a
tokenizer without a normalizer runs exactly as before. The normal form itself is :mod:`core.encode.normalizer`.
"""

from __future__ import annotations

import re
from typing import Any

from core.encode.arguments import SURROGATES, replace_surrogates
from core.encode.normalizer import Change, Normalizer, TextMap
from core.encode.plain_text import PlainTextEncoder
from core.encode.spans import TokenSpan, token_spans
from core.encode.special_tokens import SpecialTokens
from core.encode.streaming import through_last_special


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
    out, start, end = through_last_special(buffer, specials, normalizer.wrap(plain.encode))
    if start >= end:
        return out, buffer[start:]
    cut = normalizer.run_start(buffer, end, start)
    if cut == start:
        return out, buffer[start:]
    normal, text_map = normalizer.mapped(buffer[start:cut])
    limit = len(normal)
    while True:
        ids, settled = plain.encode_settled(normal, 0, limit)
        if settled == 0:
            return out, buffer[start:]
        change = text_map.inside(settled)
        if change is None or change.normal[0] == settled:
            return out + ids, buffer[start + text_map.raw_char(settled) :]
        limit = change.normal[0]  # a pre-token ends inside what one run became: settle less


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
    changes: list[Change] = []
    raw = raw_bytes = normal = normal_bytes = 0  # where the next stretch starts, in text and in its normal form
    for match in [*pattern.finditer(text), None] if pattern is not None else [None]:
        stop = match.start() if match is not None else len(text)
        stretch = text[raw:stop]
        normalized, text_map = normalizer.mapped(stretch)
        changes += [
            Change(
                (raw + c.raw[0], raw + c.raw[1]), (normal + c.normal[0], normal + c.normal[1]),
                (raw_bytes + c.raw_bytes[0], raw_bytes + c.raw_bytes[1]),
                (normal_bytes + c.normal_bytes[0], normal_bytes + c.normal_bytes[1]),
            )
            for c in text_map.changes
        ]
        special = match.group() if match is not None else ""
        parts += [normalized, special]
        size = len(special.encode("utf-8"))
        raw, raw_bytes = stop + len(special), raw_bytes + len(stretch.encode("utf-8")) + size
        normal, normal_bytes = normal + len(normalized) + len(special), normal_bytes + len(normalized.encode()) + size
    spans = token_spans(_Encoded(tokenizer, tokenizer.encode(text)), "".join(parts))
    if not changes:
        return spans
    whole = TextMap(changes)
    first_change = changes[0].normal[0]
    remapped = []
    for span in spans:
        if span.char_end <= first_change:  # before every change: where it is in the text as given too
            remapped.append(span)
            continue
        char_start, char_end, byte_start, byte_end = whole.raw_span(
            span.char_start, span.char_end, span.byte_start, span.byte_end
        )
        remapped.append(TokenSpan(
            span.id, span.token, byte_start, byte_end, char_start, char_end, span.starts_mid_char,
            span.ends_mid_char, span.is_special,
        ))
    return remapped
