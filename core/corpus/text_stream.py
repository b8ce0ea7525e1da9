"""A text stream read piece by piece, each piece ending at a safe cut, so memory stays flat in its length.

A compressed text shard cannot be seeked into, so it is not cut ahead of time as a plain file is
(:func:`core.pretokenize.cuts.chunk_boundaries`): it is read block by block, and each time the buffer
holds a block, the first safe cut in its second half ends a piece (the same rule, from the same module,
so the pieces' pre-tokens are exactly the whole stream's). A stream with no safe cut at all (one huge
pre-token, or a pattern with no rule and no special token) is one piece, as a plain file is one chunk.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import BinaryIO

from core.errors import CorpusError
from core.input_files import HEAD_BYTES, encoding_problem, nul_byte_problem
from core.pretokenize.cuts import first_safe_cut, pattern_rule, replacement_hides_specials

BLOCK_BYTES = 1 << 20
"""Bytes read at a time; pieces are half a block to a block and a half long."""


def decode_piece(data: bytes, shown: str, offset: int, errors: str, *, nul_allowed: bool = False) -> str:
    """Decode one piece of ``shown``, naming the byte offset of a NUL byte or of invalid UTF-8.

    >>> decode_piece(b"ok", "a.txt.gz", 0, "strict")
    'ok'
    >>> decode_piece(b"ok\\xff", "a.txt.gz", 10, "strict")
    Traceback (most recent call last):
    core.errors.CorpusError: a.txt.gz: invalid UTF-8 at byte offset 12 of the text (byte 0xff); fix the file or train with errors 'replace'
    """
    start = data[:HEAD_BYTES] if offset == 0 else b""  # pieces come in order: the first holds the file's start
    if not nul_allowed:
        nul = data.find(b"\x00")
        if nul != -1:
            raise CorpusError(f"{shown}: NUL byte at byte offset {offset + nul} of the text; {nul_byte_problem(start)}")
    try:
        return data.decode("utf-8", errors=errors)
    except UnicodeDecodeError as error:
        fix = encoding_problem(start) or "fix the file or train with errors 'replace'"
        raise CorpusError(
            f"{shown}: invalid UTF-8 at byte offset {offset + error.start} of the text (byte 0x{data[error.start]:02x}); {fix}"
        ) from None


def text_pieces(
    stream: BinaryIO, shown: str, special_tokens: list[str], pattern: str, errors: str, block: int = BLOCK_BYTES
) -> Iterator[str]:
    """The decoded text of ``stream`` in pieces cut only at safe cuts (see the module docstring).

    >>> import io
    >>> list(text_pieces(io.BytesIO(b"one two three four"), "s", [], r"\\S+|\\s+", "strict", block=6))
    ['one two', ' three', ' four']
    """
    specials = [token.encode("utf-8") for token in special_tokens]
    rule = pattern_rule(pattern)
    whole = replacement_hides_specials(special_tokens, errors)
    margin = 2 * max(map(len, specials), default=0) + 4
    buffer = bytearray()
    offset = 0  # of the buffer's first byte in the stream
    while True:
        data = stream.read(block)
        if not data:
            break
        buffer += data
        if whole or len(buffer) < block + margin:
            continue
        lo = max(len(buffer) // 2, margin)
        cut = first_safe_cut(bytes(buffer), lo, len(buffer) - margin, specials, rule)
        if cut is not None:
            yield decode_piece(bytes(buffer[:cut]), shown, offset, errors)
            del buffer[:cut]
            offset += cut
    if buffer:
        yield decode_piece(bytes(buffer), shown, offset, errors)
