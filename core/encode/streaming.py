"""Encoding a stream of text chunks in bounded memory, with exactly the ids of encoding it all at once.

A pre-token or a special token may straddle two chunks, and a piece can change when text is added after
it (``\\s+(?!\\S)`` backs off one space, ``'l`` becomes ``'ll``). So the gathered text is encoded only up to
where no later text can change the result; the rest waits for the next chunk.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

from core.encode.arguments import SURROGATES, replace_surrogates
from core.encode.plain_text import PlainTextEncoder
from core.encode.special_tokens import SpecialTokens


def encode_stream(
    chunks: Iterable[str],
    block: int,
    certain_prefix: Callable[[str], tuple[list[int], str]],
    encode_rest: Callable[[str], list[int]],
) -> Iterator[int]:
    """Yield the ids of ``"".join(chunks)``, encoding about ``block`` characters at a time.

    ``certain_prefix(buffer)`` gives the ids of the part no following text can change and the rest;
    ``encode_rest`` encodes what is left at the end.
    """
    parts: list[str] = []
    size = 0
    wait = block
    for position, chunk in enumerate(chunks):
        if type(chunk) is not str and not isinstance(chunk, str):
            hint = "; open the file in text mode" if isinstance(chunk, (bytes, bytearray)) else ""
            raise TypeError(f"encode_iterable(): item {position} is {chunk!r:.40}, not a str{hint}")
        if not chunk:
            continue
        if not chunk.isascii() and SURROGATES.search(chunk):
            chunk = replace_surrogates(chunk)
        parts.append(chunk)
        size += len(chunk)
        if size < wait:
            continue
        buffer = "".join(parts)
        ids, rest = certain_prefix(buffer)
        yield from ids
        parts, size = [rest], len(rest)
        wait = size + block if size < len(buffer) else 2 * size  # no progress: wait for twice as much
    if parts:
        yield from encode_rest("".join(parts))


def certain_prefix(buffer: str, specials: SpecialTokens, plain: PlainTextEncoder) -> tuple[list[int], str]:
    """Encode the part of ``buffer`` that no following text can change; return its ids and the rest.

    A special token starting at or after ``len - longest + 1`` may be cut off, so the final segment
    is only pre-tokenised up to there, and its last pieces are held back (see
    :meth:`PlainTextEncoder.encode_settled`).
    """
    out, start, end = through_last_special(buffer, specials, plain.encode)
    if start >= end:
        return out, buffer[start:]
    ids, cut = plain.encode_settled(buffer, start, end)
    out += ids
    return out, buffer[cut:]


def through_last_special(
    buffer: str, specials: SpecialTokens, encode_plain: Callable[[str], list[int]]
) -> tuple[list[int], int, int]:
    """The ids of ``buffer`` up to the end of its last special token that no following text can change, that
    end, and where such a token may still begin (``len - longest + 1``: one starting there may be cut off).

    >>> specials = SpecialTokens({"<s>": 9})
    >>> through_last_special("a<s>bc<", specials, lambda text: [ord(c) for c in text])
    ([97, 9], 4, 5)
    """
    out: list[int] = []
    start, end = 0, len(buffer)
    if specials.every is not None:
        end -= specials.longest - 1
        for match in specials.every.finditer(buffer):
            if match.start() >= end:
                break
            if match.start() > start:
                out += encode_plain(buffer[start : match.start()])
            out.append(specials.ids[match.group()])
            start = match.end()
    return out, start, end
