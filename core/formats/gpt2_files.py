"""Reading GPT-2's ``vocab.json`` and ``merges.txt`` into token bytes: the text of the two files, and nothing more.

What the pair means as a model (special tokens, every token made by a merge) is checked by
:func:`core.formats.gpt2.read`. Every problem here is one :class:`~core.errors.TokenizerFileError` line naming
the file and the line. A usual file is read with no Python step per entry or line (GPT-2's have 50,000 of
each); anything unusual goes through a careful reader, entry by entry or line by line, which names it.
"""

from __future__ import annotations

import json
import os
import re
from itertools import repeat
from operator import add, itemgetter, ne
from pathlib import Path

from core.errors import TokenizerFileError
from core.formats.byte_alphabet import decode_all, decode_bytes, encode_bytes
from core.formats.common import ID_KEYED_FIX, is_pickle, keyed_by_ids, number_too_long

_JSON_KEY = re.compile(r'"(?:[^"\\]|\\.)*"\s*:')


class _Pairs(list):  # type: ignore[type-arg]
    """A JSON object's (key, value) pairs in file order, so duplicate keys are seen, not merged."""


def read_gpt2_files(
    vocab_path: str | os.PathLike[str], merges_path: str | os.PathLike[str]
) -> tuple[dict[int, bytes], list[tuple[bytes, bytes]]]:
    """Read a GPT-2 style ``vocab.json`` + ``merges.txt`` pair into ``(vocab, merges)``.

    A vocab entry whose spelling has characters outside the byte alphabet (an added token such as
    ``<｜end▁of▁sentence｜>``) is taken as UTF-8 text, since it cannot be a spelled byte string.

    Raises:
        TokenizerFileError: a file is missing, unreadable, not JSON, not a ``{token: id}`` object, has a
            duplicate id or token, or a merge line is malformed or names a token the vocab lacks.
            (Whether the merges make every token is checked by :func:`read`, which knows the special
            tokens; ``Tokenizer.from_files`` goes through it.)

    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "v.json").write_text('{"a": 0, "b": 1, "ab": 2}')
    >>> _ = (d / "m.txt").write_text("#version: 0.2\\na b\\n")
    >>> read_gpt2_files(d / "v.json", d / "m.txt")
    ({0: b'a', 1: b'b', 2: b'ab'}, [(b'a', b'b')])
    """
    vocab = read_vocab_json(vocab_path)
    merges = read_merges_txt(merges_path, set(vocab.values()), vocab_name=Path(vocab_path).name)
    return vocab, merges


def read_vocab_json(path: str | os.PathLike[str]) -> dict[int, bytes]:
    """Read ``vocab.json`` (``{spelled token: id}``) into ``{id: token bytes}``; see :func:`read_gpt2_files`.

    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "vocab.json"
    >>> _ = p.write_text('{"Ġthe": 7}')
    >>> read_vocab_json(p)
    {7: b' the'}
    """
    text = read_file_text(path)
    try:
        pairs = json.loads(text, object_pairs_hook=_Pairs)
    except json.JSONDecodeError as exc:
        raise TokenizerFileError(
            f"{path}: line {exc.lineno} column {exc.colno}: not valid JSON ({exc.msg}); "
            "the file may be truncated, re-download or re-save it"
        ) from None
    except ValueError as exc:  # an integer past Python's limit of digits
        raise TokenizerFileError(f"{path}: {number_too_long(exc)}") from None
    except RecursionError:
        raise TokenizerFileError(f"{path}: JSON nested too deeply; not a vocab.json") from None
    if not isinstance(pairs, _Pairs):
        raise TokenizerFileError(f"{path}: line 1: expected a JSON object of token -> id, found {type(pairs).__name__}")
    vocab = _vocab_at_once(pairs)
    if vocab is not None:
        return vocab
    # Something in the file is not as usual: go through it entry by entry, to name the entry and the problem.
    vocab = {}
    seen: dict[bytes, str] = {}
    for index, (spelled, token_id) in enumerate(pairs):
        if type(token_id) is not int or token_id < 0:
            if keyed_by_ids(key for key, _ in pairs):
                raise TokenizerFileError(f"{path}: not a GPT-2 vocab.json: {ID_KEYED_FIX}")
            raise TokenizerFileError(
                f"{path}: line {_line_of_key(text, index)}: token {spelled!r} has id {token_id!r}; "
                "ids must be integers >= 0"
            )
        try:
            token = spelled_to_bytes(spelled)
        except UnicodeEncodeError:
            raise TokenizerFileError(
                f"{path}: line {_line_of_key(text, index)}: token {spelled!r} holds a lone surrogate, which is not "
                "text; fix its \\u escape"
            ) from None
        if token_id in vocab:
            raise TokenizerFileError(
                f"{path}: line {_line_of_key(text, index)}: id {token_id} is used twice "
                f"({encode_bytes(vocab[token_id])!r} and {spelled!r}); each id must name one token"
            )
        if token in seen:
            raise TokenizerFileError(
                f"{path}: line {_line_of_key(text, index)}: token {spelled!r} appears twice "
                f"(also as {seen[token]!r})"
            )
        vocab[token_id] = token
        seen[token] = spelled
    return vocab


def read_merges_txt(
    path: str | os.PathLike[str], known_tokens: set[bytes] | None = None, *, vocab_name: str = "the vocab"
) -> list[tuple[bytes, bytes]]:
    """Read ``merges.txt`` (one ``left right`` pair a line, optional ``#version`` header) into byte pairs.

    When ``known_tokens`` is given, both sides of every merge must be in it, and so must their
    concatenation, because encoding needs an id for what each merge makes.

    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "merges.txt"
    >>> _ = p.write_text("Ġ t\\nĠt he\\n")
    >>> read_merges_txt(p)
    [(b' ', b't'), (b' t', b'he')]
    """
    text = read_file_text(path)
    merges = _merges_at_once(text, known_tokens)
    if merges is not None:
        return merges
    # Something in the file is not as usual: go through it line by line, to name the line and the problem.
    merges = []
    for line_number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or (not merges and line.startswith("#version")):  # the header, after any blank lines
            continue
        parts = line.split(" ")
        if len(parts) != 2 or not parts[0] or not parts[1]:
            raise TokenizerFileError(
                f"{path}: line {line_number}: expected two tokens separated by one space, found {line!r}"
            )
        try:
            left, right = decode_bytes(parts[0]), decode_bytes(parts[1])
        except KeyError as exc:
            raise TokenizerFileError(
                f"{path}: line {line_number}: character {exc.args[0]!r} is not in the GPT-2 byte alphabet"
            ) from None
        if known_tokens is not None:
            for token, spelled in ((left, parts[0]), (right, parts[1]), (left + right, parts[0] + parts[1])):
                if token not in known_tokens:
                    raise TokenizerFileError(
                        f"{path}: line {line_number}: token {spelled!r} is not in {vocab_name}; "
                        "the merges and vocab files do not belong together"
                    )
        merges.append((left, right))
    return merges


def _vocab_at_once(pairs: list[tuple[str, object]]) -> dict[int, bytes] | None:
    """The vocab of a usual file (ids ints >= 0, each id and token once, every token in the byte alphabet), read
    with no Python step per entry; ``None`` when anything is otherwise, for the entry-by-entry reader."""
    ids = list(map(itemgetter(1), pairs))
    if not ids or set(map(type, ids)) != {int} or min(ids) < 0 or len(set(ids)) != len(ids):
        return None
    tokens = decode_all(map(itemgetter(0), pairs))
    if tokens is None or len(set(tokens)) != len(tokens):
        return None
    return dict(zip(ids, tokens))


def _merges_at_once(text: str, known_tokens: set[bytes] | None) -> list[tuple[bytes, bytes]] | None:
    """The merges of a usual file (an optional ``#version`` first line, then ``left right`` lines in the byte
    alphabet naming known tokens), read with no Python step per line (GPT-2's has 50,000); ``None`` when anything
    is otherwise (a blank line too), for the line-by-line reader, which names the line."""
    lines = text.splitlines()
    if lines and lines[0].startswith("#version"):
        del lines[0]
    if lines and lines[0].startswith("#version"):  # skipped too by the line-by-line reader
        return None
    pairs = list(map(str.split, lines, repeat(" ")))
    if any(map(ne, map(len, pairs), repeat(2))):
        return None
    lefts, rights = decode_all(map(itemgetter(0), pairs)), decode_all(map(itemgetter(1), pairs))
    if lefts is None or rights is None or b"" in lefts or b"" in rights:
        return None
    if known_tokens is not None and not (
        known_tokens.issuperset(lefts) and known_tokens.issuperset(rights)
        and known_tokens.issuperset(map(add, lefts, rights))
    ):
        return None
    return list(zip(lefts, rights))


def spelled_to_bytes(spelled: str) -> bytes:
    """Turn a vocab spelling back into bytes: the byte alphabet if it fits, else the UTF-8 of the text.

    >>> spelled_to_bytes("Ġhi"), spelled_to_bytes("<｜end｜>")
    (b' hi', b'<\\xef\\xbd\\x9cend\\xef\\xbd\\x9c>')
    """
    try:
        return decode_bytes(spelled)
    except KeyError:
        return spelled.encode("utf-8")


def read_file_text(path: str | os.PathLike[str]) -> str:
    """The text of a tokenizer file (UTF-8, a byte order mark dropped); a problem is one named line."""
    try:
        return Path(path).read_text(encoding="utf-8").removeprefix("\ufeff")  # a byte order mark is not a token
    except FileNotFoundError:
        raise TokenizerFileError(f"{path}: file not found; check the path") from None
    except IsADirectoryError:
        raise TokenizerFileError(f"{path}: is a directory, expected a file") from None
    except UnicodeDecodeError as exc:
        if is_pickle(exc.object):
            raise TokenizerFileError(
                f"{path}: is a Python pickle, not a GPT-2 vocab.json or merges.txt (what from_files reads); "
                "pickle.load the vocab and merges in Python and pass them to Tokenizer(vocab, merges, special_tokens)"
            ) from None
        raise TokenizerFileError(
            f"{path}: line {_line_at(exc.object, exc.start)}: not UTF-8 text; is this really a tokenizer file?"
        ) from None
    except OSError as exc:
        raise TokenizerFileError(f"{path}: cannot be read ({exc.strerror})") from None


def _line_of_key(text: str, index: int) -> int:
    """The line of the ``index``-th ``"key":`` in a flat JSON object (json itself reports no positions)."""
    for count, match in enumerate(_JSON_KEY.finditer(text)):
        if count == index:
            return text.count("\n", 0, match.start()) + 1
    return 1


def _line_at(data: bytes, offset: int) -> int:
    return data.count(b"\n", 0, offset) + 1
