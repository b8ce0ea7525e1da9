"""Tokenizer files: one function loads any supported file (format detected from content), one saves to any format.

Formats (one module each): ``"bpe-tui"`` — our JSON, the only one that keeps merge counts and training
parameters (:mod:`core.formats.native`); ``"gpt2"`` — ``vocab.json`` + ``merges.txt``
(:mod:`core.formats.gpt2`); ``"hf"`` — Hugging Face ``tokenizer.json`` (:mod:`core.formats.huggingface`);
``"tiktoken"`` — a ``base64(token) rank`` file (:mod:`core.formats.tiktoken_ranks`).

Detection looks at content, never at the file name, because tokenizer files are routinely renamed
(``gpt2-vocab.json``, ``cl100k_base.tiktoken``, ``tokenizer (1).json``). Every problem becomes a
one-line :class:`~core.errors.TokenizerFileError` naming the file and, where there is one, the line.
The checks every loader runs live in :mod:`core.formats.common`, so all loaders accept and reject the same
models; this package is the one module that knows every format.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

from core.errors import SettingsError, TextNotTokenizerError, TokenizerFileError
from core.formats import gpt2, huggingface, native, tiktoken_ranks
from core.formats.common import (
    ID_KEYED_FIX, SAVE_IN_PYTHON, is_pickle, keyed_by_ids, number_too_long, show_token,
)
from core.formats.folders import tokenizer_in_folder
from core.formats.tiktoken_cache import reference_model, reference_of
from core.input_files import check_regular_file
from core.limits import check_utf8_path
from core.model import BPEModel

__all__ = ["FORMATS", "load_tokenizer", "save_tokenizer", "detect_format", "show_token"]

FORMATS = ("bpe-tui", "gpt2", "hf", "tiktoken")
"""Names accepted by :func:`save_tokenizer` and returned by :func:`detect_format`."""

_ALIASES = {"native": "bpe-tui", "json": "bpe-tui", "huggingface": "hf", "tokenizer.json": "hf", "rank": "tiktoken"}

_MAGIC = {b"\x89PNG": "a PNG image", b"\x1f\x8b": "gzip data", b"PK\x03\x04": "a zip archive", b"%PDF": "a PDF"}

_SNIFF_LINES = 20
"""How many lines of a text file decide between a rank file and merges.txt."""

_WITHOUT_MERGES = {
    "bpe-tui": "a bpe-tui JSON file",
    "hf": "a Hugging Face tokenizer.json",
    "tiktoken": "a tiktoken rank file",
    "gpt2-merges": "a GPT-2 merges file itself (its vocab.json is found beside it)",
}
"""The kinds of file a merges file given with them would not be read for, as messages name them."""


# ----------------------------------------------------------------------------------------------- loading


def load_tokenizer(
    path: str | bytes | os.PathLike[str], *, merges_path: str | bytes | os.PathLike[str] | None = None
) -> BPEModel:
    """Load a tokenizer file of any supported format into a :class:`~core.model.BPEModel`.

    ``path`` may be our JSON, a ``tokenizer.json``, a rank file, a GPT-2 ``vocab.json`` or
    ``merges.txt`` (the other half is ``merges_path``, or found beside it: ``vocab.json`` <->
    ``merges.txt``, ``foo-vocab.json`` <-> ``foo-merges.txt``), or a directory holding ``tokenizer.json``
    or ``vocab.json`` + ``merges.txt``.

    Raises:
        TokenizerFileError: missing, unreadable, corrupt, truncated or wrong-type file, or an inconsistent
            tokenizer (merges naming tokens not in the vocab, duplicate ids, fingerprint mismatch...).

    >>> import tempfile, pathlib
    >>> from core.model import BPEModel
    >>> model = BPEModel({i: bytes([i]) for i in range(256)} | {256: b"ab"}, [(b"a", b"b")])
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> [p.name for p in save_tokenizer(model, folder / "tok.json", format="bpe-tui")]
    ['tok.json']
    >>> load_tokenizer(folder / "tok.json").merges
    [(b'a', b'b')]
    """
    # A bytes path (os.fsencode, os.listdir(b'.')) is a path as open() takes one; Path() refused it.
    source, folder_merges = _resolve_with_merges(Path(os.fsdecode(path)))
    if merges_path is not None:
        merges_path = os.fsdecode(merges_path)
    given_merges = merges_path is not None
    if merges_path is None:
        merges_path = folder_merges
    if merges_path is not None:
        check_regular_file(merges_path, TokenizerFileError, fix="give a merges.txt file")
    kind, content = _sniff(source)
    if given_merges and kind != "gpt2-vocab":  # it would go unused without a word
        raise TokenizerFileError(
            f"{source}: is {_WITHOUT_MERGES[kind]}, not a GPT-2 vocab.json, so the merges file given with it "
            "would go unused; leave it out"
        )
    if kind == "bpe-tui":
        return native.from_json(content, source)
    if kind == "hf":
        return huggingface.from_json(content, source)
    if kind == "tiktoken":
        # A rank file holds no split pattern and no special tokens. OpenAI's published ones (cl100k_base,
        # o200k_base) are known by their SHA-256 and get theirs; loaded with GPT-2's, they encoded otherwise.
        reference = reference_of(content.encode("utf-8"))
        if reference is not None:
            return reference_model(reference, content, source)
        return tiktoken_ranks.from_text(content, source)
    if kind == "gpt2-vocab":
        merges = Path(merges_path) if merges_path is not None else gpt2.find_merges(source)
        return gpt2.read(source, merges)
    if kind == "gpt2-merges":
        return gpt2.read(gpt2.find_vocab(source), source)
    raise AssertionError(kind)


def detect_format(path: str | os.PathLike[str]) -> str:
    """Which of :data:`FORMATS` a file (or directory) is, judged from its content.

    Raises:
        TokenizerFileError: the file is missing, unreadable or not a tokenizer file.

    >>> import tempfile, pathlib
    >>> rank_file = pathlib.Path(tempfile.mkdtemp()) / "ranks.txt"
    >>> _ = rank_file.write_text("IQ== 0\\nIg== 1\\n")
    >>> detect_format(rank_file)
    'tiktoken'
    """
    kind, _ = _sniff(_resolve(Path(path)))
    return "gpt2" if kind.startswith("gpt2") else kind


def _resolve(path: Path) -> Path:
    """The file that stands for ``path`` (see :func:`_resolve_with_merges`)."""
    return _resolve_with_merges(path)[0]


def _resolve_with_merges(path: Path) -> tuple[Path, Path | None]:
    """A directory stands for the tokenizer inside it (:mod:`core.formats.folders`), with the merges file of a
    GPT-2 pair found there; anything else must be a regular file.

    A FIFO or a device is refused before it is opened (``/dev/zero`` would be read forever).
    """
    try:
        directory = stat.S_ISDIR(os.stat(path).st_mode)
    except OSError:
        directory = False  # check_regular_file names the problem
    if not directory:
        return check_regular_file(path, TokenizerFileError, fix="give a tokenizer file"), None
    file, merges = tokenizer_in_folder(path)
    return check_regular_file(file, TokenizerFileError, fix="give a tokenizer file"), merges


def read_source(path: Path) -> bytes:
    """The bytes of ``path``, with OS errors turned into one-line TokenizerFileErrors."""
    try:
        return path.read_bytes()
    except IsADirectoryError:
        raise TokenizerFileError(f"{path}: is a directory; give a tokenizer file") from None
    except FileNotFoundError:
        raise TokenizerFileError(f"{path}: no such file; check the path") from None
    except OSError as error:
        raise TokenizerFileError(f"{path}: cannot read: {error.strerror or error}") from None


def decode_text(raw: bytes, path: Path) -> str:
    """UTF-8 text of a tokenizer file, rejecting binary data with a name for what it looks like.

    >>> decode_text(b"\\xef\\xbb\\xbf{}", Path("t.json"))
    '{}'
    >>> decode_text(b"\\x89PNG...", Path("t.json"))
    Traceback (most recent call last):
    core.errors.TokenizerFileError: t.json: is a PNG image, not a tokenizer file
    """
    for magic, what in _MAGIC.items():
        if raw.startswith(magic):
            raise TokenizerFileError(f"{path}: is {what}, not a tokenizer file")
    if is_pickle(raw):
        raise TokenizerFileError(
            f"{path}: is a Python pickle, not a tokenizer file, and bpe-tui does not unpickle (that can run code); "
            f"if it holds train_bpe's vocab or merges, pickle.load both in Python and save them with {SAVE_IN_PYTHON}"
        )
    if b"\x00" in raw[:8192]:
        raise TokenizerFileError(f"{path}: is binary data, not a tokenizer file")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        line = raw[: error.start].count(b"\n") + 1
        raise TokenizerFileError(
            f"{path} line {line}: not UTF-8 text (byte {error.start}); not a tokenizer file"
        ) from None
    return text.removeprefix("\ufeff")


def parse_json(text: str, path: Path) -> Any:
    """``json.loads`` with one-line errors; a repeated key is an error (it would silently drop a token).

    >>> parse_json('{"a": 1,', Path("t.json"))
    Traceback (most recent call last):
    core.errors.TokenizerFileError: t.json line 1: invalid JSON at column 9 (...); the file is truncated
    """

    def no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        result: dict[str, Any] = {}
        for key, value in pairs:
            if key in result:
                raise TokenizerFileError(f"{path}: key {key!r} appears twice in one JSON object; remove one")
            result[key] = value
        return result

    try:
        return json.loads(text, object_pairs_hook=no_duplicates)
    except json.JSONDecodeError as error:
        hint = "the file is truncated" if error.pos >= len(text.rstrip()) else "the file is corrupt"
        raise TokenizerFileError(
            f"{path} line {error.lineno}: invalid JSON at column {error.colno} ({error.msg}); {hint}"
        ) from None
    except TokenizerFileError:
        raise
    except ValueError as error:  # an integer past Python's 4,300-digit limit for str -> int
        raise TokenizerFileError(f"{path}: {number_too_long(error)}") from None
    except RecursionError:
        raise TokenizerFileError(f"{path}: JSON nested too deeply; not a tokenizer file") from None


_HEAD_BYTES = 1 << 16
"""How much of a file is read to refuse plain text before reading it all (a corpus can be gigabytes)."""


def _refuse_text_early(path: Path) -> None:
    """Raise ``TextNotTokenizerError`` if the start of ``path`` is already plain text, not rank or merges lines.

    Anything else (JSON, ``#version``, binary, a start that is a valid rank or merges file) is left to the
    full read, which gives the exact error.
    """
    try:
        with open(path, "rb") as handle:
            head = handle.read(_HEAD_BYTES)
    except OSError:
        return
    if len(head) == _HEAD_BYTES:
        head = head[: head.rfind(b"\n") + 1]  # whole lines only: no character cut in two
    try:
        text = head.decode("utf-8")
    except UnicodeDecodeError:
        return
    text = text.removeprefix("\ufeff")  # a UTF-8 byte order mark, as decode_text drops it
    stripped = text.lstrip()
    if stripped and stripped[0] not in "{[":
        _sniff_lines(text, path)


def _sniff(path: Path) -> tuple[str, Any]:
    """(kind, parsed content): kind is a format name, or ``gpt2-vocab``/``gpt2-merges`` for the halves."""
    _refuse_text_early(path)
    text = decode_text(read_source(path), path)
    stripped = text.lstrip()
    if not stripped:
        raise TokenizerFileError(f"{path}: file is empty; not a tokenizer file")
    if stripped[0] in "{[":
        data = parse_json(text, path)
        if not isinstance(data, dict):
            raise TokenizerFileError(f"{path}: JSON {type(data).__name__.replace('list', 'array')} is not a tokenizer; "
                                     "expected a tokenizer.json, vocab.json or bpe-tui JSON object")
        # A vocab.json can hold tokens named "format" or "model", so it is recognised first.
        if data and all(type(v) is int for v in data.values()):
            return "gpt2-vocab", data
        if isinstance(data.get("format"), str):
            if data["format"] != "bpe-tui":
                raise TokenizerFileError(f"{path}: unknown format {data['format']!r}; expected 'bpe-tui'")
            return "bpe-tui", data
        if isinstance(data.get("model"), dict):
            return "hf", data
        if keyed_by_ids(data):
            raise TokenizerFileError(f"{path}: JSON object is not a tokenizer: {ID_KEYED_FIX}")
        raise TokenizerFileError(
            f"{path}: JSON object is not a tokenizer (no 'format' or 'model' key, values not all token ids)"
        )
    return _sniff_lines(text, path), text


def _sniff_lines(text: str, path: Path) -> str:
    if text.lstrip().startswith("#version"):
        return "gpt2-merges"
    looks_ranked = looks_merged = True
    checked = 0
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        looks_ranked = looks_ranked and tiktoken_ranks.parse_rank_line(line) is not None
        looks_merged = looks_merged and len(line.split(" ")) == 2 and all(line.split(" "))
        if not (looks_ranked or looks_merged):
            shown = line[:40].encode("unicode_escape").decode("ascii")
            raise TextNotTokenizerError(
                f"{path} line {number}: {shown!r} is neither 'base64 rank' (tiktoken) nor 'left right' "
                "(merges.txt); not a tokenizer file (it looks like text: a corpus?)",
                path,
            )
        checked += 1
        if checked == _SNIFF_LINES:
            break
    return "tiktoken" if looks_ranked else "gpt2-merges"


# ------------------------------------------------------------------------------------------------ saving


def save_tokenizer(model: BPEModel, path: str | bytes | os.PathLike[str], *, format: str) -> list[Path]:
    """Save ``model`` atomically in ``format`` (one of :data:`FORMATS`) and return the files written.

    ``path`` is the file to write, except for ``"gpt2"``: a directory (no suffix, or an existing one,
    created if needed) receives ``vocab.json`` + ``merges.txt``; a ``.json`` path is the vocab file and
    the merges go beside it (``foo-vocab.json`` -> ``foo-merges.txt``, ``foo.json`` -> ``foo-merges.txt``).
    For ``"hf"`` an existing directory receives ``tokenizer.json``.

    What each format cannot hold: only ``"bpe-tui"`` keeps merge counts and training parameters;
    ``"gpt2"`` and ``"tiktoken"`` keep no pattern (they imply GPT-2's, so other patterns are refused) and no
    normalizer (a model with one, loaded from Qwen2's tokenizer.json, is refused);
    ``"tiktoken"`` keeps no special tokens (tiktoken declares them in code) — see
    :mod:`core.formats.tiktoken_ranks`.

    Raises:
        SettingsError: unknown format, a model the format cannot represent exactly, or a ``path`` whose
            name is not valid UTF-8 (the CLI refuses such names too).
        OutputError: the file cannot be written (nothing is left behind).

    >>> import tempfile, pathlib
    >>> from core.model import BPEModel
    >>> model = BPEModel({i: bytes([i]) for i in range(256)}, [])
    >>> [p.name for p in save_tokenizer(model, pathlib.Path(tempfile.mkdtemp()) / "gpt2", format="gpt2")]
    ['vocab.json', 'merges.txt']
    """
    path = os.fsdecode(path)
    check_utf8_path(path, "path")
    name = _ALIASES.get(format, format)
    writers: dict[str, Callable[[BPEModel, Path], list[Path]]] = {
        "bpe-tui": native.write,
        "gpt2": gpt2.write,
        "hf": huggingface.write,
        "tiktoken": tiktoken_ranks.write,
    }
    if name not in writers:
        raise SettingsError(f"unknown tokenizer format {format!r}; choose one of {', '.join(FORMATS)}")
    return writers[name](model, Path(path))
