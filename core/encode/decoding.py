"""Decoding: ids back to bytes, with every bad id named by its value and position.

Decoding is a ``b"".join`` of vocabulary lookups, run in C. Checking each id in Python first would cost
more than the decoding, so ids are checked only in bulk (by ``array``, in C) or after a lookup fails, to
say which one failed and why.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable
from operator import index

from core.errors import BPEError


class InvalidTokenIdError(BPEError):
    """An id passed to a decode method is not in the vocabulary."""


class TokenIdTypeError(InvalidTokenIdError, TypeError):
    """An id passed to a decode method is not an integer (a ``TypeError``, as in tiktoken, and an
    :class:`InvalidTokenIdError`, so one ``except`` catches every bad id)."""


def joined_bytes(vocab: dict[int, bytes], ids: Iterable[int], method: str) -> bytes:
    """The bytes ``ids`` stand for, all joined; ``method`` names the caller in errors.

    >>> joined_bytes({104: b"h", 105: b"i"}, [104, 105], "decode_bytes")
    b'hi'
    """
    ids = id_sequence(vocab, ids, method)
    try:
        return b"".join(map(vocab.__getitem__, ids))
    except (KeyError, TypeError):
        check_ids(vocab, ids)
        raise


def tokens_bytes(vocab: dict[int, bytes], ids: Iterable[int], method: str) -> list[bytes]:
    """The bytes of each id, one entry per id.

    >>> tokens_bytes({104: b"h", 105: b"i"}, [105, 104], "decode_tokens_bytes")
    [b'i', b'h']
    """
    ids = id_sequence(vocab, ids, method)
    try:
        return list(map(vocab.__getitem__, ids))
    except (KeyError, TypeError):
        check_ids(vocab, ids)
        raise


def single_token_bytes(vocab: dict[int, bytes], token_id: int) -> bytes:
    """The bytes of one id.

    >>> single_token_bytes({65: b"A"}, 66)
    Traceback (most recent call last):
    core.encode.decoding.InvalidTokenIdError: token id 66 (position 0) is not in the vocabulary; valid ids are 0..65
    """
    try:
        return vocab[index(token_id)]
    except (KeyError, TypeError):
        check_ids(vocab, [token_id])
        raise


def id_sequence(vocab: dict[int, bytes], ids: Iterable[int], method: str) -> list[int] | tuple[int, ...]:
    """``ids`` as a list or tuple, refusing what is not a sequence of integers (named against ``vocab``).

    A float equal to an integer would find that id in the vocab dict, so the ids' types are checked
    (in C, by ``array``: a tenth of the cost of decoding) rather than left to the lookups.

    >>> id_sequence({}, b"hi", "decode")
    Traceback (most recent call last):
    TypeError: decode() takes a sequence of token ids, not bytes (decode bytes with bytes.decode)
    """
    if isinstance(ids, (str, bytes, bytearray, memoryview)):
        hint = "decode bytes with bytes.decode" if not isinstance(ids, str) else "that is text already"
        raise TypeError(f"{method}() takes a sequence of token ids, not {type(ids).__name__} ({hint})")
    if not isinstance(ids, (list, tuple)):
        try:
            ids = list(ids)
        except TypeError:
            raise TypeError(
                f"{method}() takes a sequence of token ids, not {type(ids).__name__}; wrap one id in a list"
            ) from None
    try:
        array("q", ids)
    except (TypeError, OverflowError):
        check_ids(vocab, ids)
        raise
    return ids


def check_ids(vocab: dict[int, bytes], ids: Iterable[object]) -> None:
    """Raise for the first id that is not an integer or not in ``vocab``, naming it and its position."""
    for position, token_id in enumerate(ids):
        try:
            number = index(token_id)  # type: ignore[arg-type]
        except TypeError:
            raise TokenIdTypeError(
                f"token id {token_id!r:.40} (position {position}) is a {type(token_id).__name__}, "
                "not an integer"
            ) from None
        if number in vocab:
            continue
        largest = max(vocab, default=-1)
        why = "negative ids do not exist" if number < 0 else f"valid ids are 0..{largest}"
        gap = "" if number < 0 or number > largest else " (an unused id)"
        raise InvalidTokenIdError(f"token id {token_id!r} (position {position}) is not in the vocabulary{gap}; {why}")
