"""GPT-2's printable alphabet for bytes: how vocab.json, merges.txt and tokenizer.json spell raw bytes."""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache
from itertools import repeat


@cache
def byte_to_unicode() -> dict[int, str]:
    """Map each byte 0-255 to a printable character: printable Latin-1 bytes map to themselves, the rest to U+0100+.

    >>> byte_to_unicode()[ord(" ")], byte_to_unicode()[ord("a")]
    ('Ġ', 'a')
    """
    printable = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1), *range(ord("®"), ord("ÿ") + 1)]
    mapping = {b: chr(b) for b in printable}
    extra = 0
    for b in range(256):
        if b not in mapping:
            mapping[b] = chr(256 + extra)
            extra += 1
    return mapping


@cache
def unicode_to_byte() -> dict[str, int]:
    """The inverse of :func:`byte_to_unicode`."""
    return {ch: b for b, ch in byte_to_unicode().items()}


@cache
def _byte_table() -> dict[int, int]:
    """Code point of an alphabet character -> the byte it spells, as a code point for ``str.translate``.

    Every other code point under 256 maps to 256, which Latin-1 cannot encode, so that a character outside
    the alphabet always fails :func:`decode_bytes`'s ``encode("latin-1")`` (those from 256 up stay as they are).
    """
    table = dict.fromkeys(range(256), 256)
    table.update({ord(ch): b for ch, b in unicode_to_byte().items()})
    return table


def encode_bytes(token: bytes) -> str:
    """Spell token bytes in the GPT-2 alphabet.

    >>> encode_bytes(b" the")
    'Ġthe'
    """
    return token.decode("latin-1").translate(byte_to_unicode())  # byte b is code point b in Latin-1


def decode_bytes(text: str) -> bytes:
    """Turn a GPT-2-alphabet string back into bytes; raises ``KeyError`` on a character outside the alphabet.

    Both steps run in C (a file holds some 150,000 spellings); only a string that fails is gone through again
    character by character, to name the first character outside the alphabet.

    >>> decode_bytes("Ġthe")
    b' the'
    >>> decode_bytes("a b")
    Traceback (most recent call last):
    KeyError: ' '
    """
    try:
        return text.translate(_byte_table()).encode("latin-1")
    except UnicodeEncodeError:
        table = unicode_to_byte()
        return bytes(table[ch] for ch in text)  # raises KeyError at the first character outside the alphabet


def decode_all(texts: Iterable[str]) -> list[bytes] | None:
    """:func:`decode_bytes` of every string, with no Python step per string; ``None`` if any holds a character
    outside the alphabet (for :func:`decode_bytes` one at a time to name it).

    >>> decode_all(["Ġt", "he"]), decode_all(["Ġt", "h e"])
    ([b' t', b'he'], None)
    """
    try:
        return list(map(str.encode, map(str.translate, texts, repeat(_byte_table())), repeat("latin-1")))
    except UnicodeEncodeError:
        return None
