"""GPT-2's printable alphabet for bytes: how vocab.json, merges.txt and tokenizer.json spell raw bytes."""

from __future__ import annotations

from functools import cache


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


def encode_bytes(token: bytes) -> str:
    """Spell token bytes in the GPT-2 alphabet.

    >>> encode_bytes(b" the")
    'Ġthe'
    """
    table = byte_to_unicode()
    return "".join(table[b] for b in token)


def decode_bytes(text: str) -> bytes:
    """Turn a GPT-2-alphabet string back into bytes; raises ``KeyError`` on a character outside the alphabet.

    >>> decode_bytes("Ġthe")
    b' the'
    """
    table = unicode_to_byte()
    return bytes(table[ch] for ch in text)
