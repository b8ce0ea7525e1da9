"""Reading GPT-2's released tokenizer files: ``vocab.json`` and ``merges.txt``, spelled in its byte alphabet.

Both files spell raw bytes with the printable stand-ins of :mod:`core.formats.byte_alphabet` (a space is ``Ġ``).
Every problem is reported as one :class:`~core.errors.TokenizerFileError` line naming the file and the
line, because these files are often hand-edited or truncated by a failed download.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from core.formats.byte_alphabet import encode_bytes, unicode_to_byte
from core.errors import TokenizerFileError

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
    text = _read_text(path)
    try:
        pairs = json.loads(text, object_pairs_hook=_Pairs)
    except json.JSONDecodeError as exc:
        raise TokenizerFileError(
            f"{path}: line {exc.lineno} column {exc.colno}: not valid JSON ({exc.msg}); "
            "the file may be truncated, re-download or re-save it"
        ) from None
    if not isinstance(pairs, _Pairs):
        raise TokenizerFileError(f"{path}: line 1: expected a JSON object of token -> id, found {type(pairs).__name__}")
    vocab: dict[int, bytes] = {}
    seen: dict[bytes, str] = {}
    for index, (spelled, token_id) in enumerate(pairs):
        if type(token_id) is not int or token_id < 0:
            raise TokenizerFileError(
                f"{path}: line {_line_of_key(text, index)}: token {spelled!r} has id {token_id!r}; "
                "ids must be integers >= 0"
            )
        token = spelled_to_bytes(spelled)
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
    text = _read_text(path)
    merges: list[tuple[bytes, bytes]] = []
    for line_number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or (line_number == 1 and line.startswith("#version")):
            continue
        parts = line.split(" ")
        if len(parts) != 2 or not parts[0] or not parts[1]:
            raise TokenizerFileError(
                f"{path}: line {line_number}: expected two tokens separated by one space, found {line!r}"
            )
        try:
            left, right = (_alphabet_bytes(part) for part in parts)
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


def spelled_to_bytes(spelled: str) -> bytes:
    """Turn a vocab spelling back into bytes: the byte alphabet if it fits, else the UTF-8 of the text.

    >>> spelled_to_bytes("Ġhi"), spelled_to_bytes("<｜end｜>")
    (b' hi', b'<\\xef\\xbd\\x9cend\\xef\\xbd\\x9c>')
    """
    try:
        return _alphabet_bytes(spelled)
    except KeyError:
        return spelled.encode("utf-8")


def _alphabet_bytes(spelled: str) -> bytes:
    table = unicode_to_byte()
    return bytes([table[ch] for ch in spelled])


def _read_text(path: str | os.PathLike[str]) -> str:
    try:
        return Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise TokenizerFileError(f"{path}: file not found; check the path") from None
    except IsADirectoryError:
        raise TokenizerFileError(f"{path}: is a directory, expected a file") from None
    except UnicodeDecodeError as exc:
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
