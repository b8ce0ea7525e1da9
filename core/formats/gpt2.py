"""GPT-2's ``vocab.json`` + ``merges.txt``: the two-file format of OpenAI's GPT-2 release and CS336.

Both files spell token bytes in GPT-2's printable byte alphabet (:mod:`core.byte_alphabet`), so a space is
``Ġ`` and every merges line is exactly two tokens separated by one space. ``merges.txt`` may start with a
``#version`` line, which we write too because Hugging Face's ``GPT2Tokenizer`` skips the first line
unconditionally. The format records no split pattern (GPT-2's is implied) and no list of special tokens:
on loading, a multi-byte token that no merge produces can only have been added by hand, so it is taken
to be a special token (GPT-2's ``<|endoftext|>`` is the one such token in its vocab).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from core.byte_alphabet import decode_bytes, encode_bytes
from core.errors import SettingsError, TokenizerFileError
from core.formats import checked_model, decode_text, parse_json, read_source
from core.formats.atomic import OutputError, atomic_open
from core.model import BPEModel
from core.patterns import GPT2_PATTERN

VERSION_LINE = "#version: 0.2"


def merges_path_for(vocab_path: str | os.PathLike[str]) -> Path:
    """Where the merges file that goes with ``vocab_path`` lives.

    >>> merges_path_for("gpt2_vocab.json").name, merges_path_for("d/vocab.json").name, merges_path_for("x.json").name
    ('gpt2_merges.txt', 'merges.txt', 'x-merges.txt')
    """
    path = Path(vocab_path)
    name = path.name
    at = name.rfind("vocab")
    if at < 0:
        return path.with_name(f"{path.stem}-merges.txt")
    return path.with_name(name[:at] + "merges" + name[at + len("vocab") :]).with_suffix(".txt")


def vocab_path_for(merges_path: str | os.PathLike[str]) -> Path:
    """Where the vocab file that goes with ``merges_path`` lives (the inverse of :func:`merges_path_for`).

    >>> vocab_path_for("gpt2_merges.txt").name, vocab_path_for("x-merges.txt").name
    ('gpt2_vocab.json', 'x-vocab.json')
    """
    path = Path(merges_path)
    name = path.name
    at = name.rfind("merges")
    if at < 0:
        return path.with_name(f"{path.stem}-vocab.json")
    return path.with_name(name[:at] + "vocab" + name[at + len("merges") :]).with_suffix(".json")


def find_merges(vocab_path: Path) -> Path:
    """The merges file beside ``vocab_path``, or a one-line error saying where it was looked for."""
    for candidate in (merges_path_for(vocab_path), vocab_path.parent / "merges.txt"):
        if candidate.is_file():
            return candidate
    raise TokenizerFileError(
        f"{vocab_path}: a GPT-2 vocab.json needs its merges file, not found at {merges_path_for(vocab_path)}; "
        "pass it with --merges"
    )


def find_vocab(merges_path: Path) -> Path:
    """The vocab file beside ``merges_path``, or a one-line error saying where it was looked for."""
    for candidate in (vocab_path_for(merges_path), merges_path.parent / "vocab.json"):
        if candidate.is_file():
            return candidate
    raise TokenizerFileError(
        f"{merges_path}: a GPT-2 merges.txt needs its vocab.json, not found at {vocab_path_for(merges_path)}; "
        "load the vocab.json instead and pass the merges with --merges"
    )


def parse_vocab(data: Any, path: Path) -> tuple[dict[int, bytes], list[str]]:
    """``{token: id}`` in the GPT-2 alphabet -> (id -> bytes, tokens that are not in the alphabet).

    A key that is not in the alphabet cannot come from byte-level BPE, so it must be an added token spelled
    as plain text; its UTF-8 bytes are used and it is reported as special.
    """
    if not isinstance(data, dict):
        raise TokenizerFileError(f"{path}: expected a JSON object of token -> id; not a vocab.json")
    vocab: dict[int, bytes] = {}
    unspelled: list[str] = []
    owner: dict[int, str] = {}
    for key, token_id in data.items():
        if type(token_id) is not int or token_id < 0:
            raise TokenizerFileError(f"{path}: id of token {key!r} is {token_id!r}; ids are non-negative integers")
        if token_id in owner:
            raise TokenizerFileError(f"{path}: id {token_id} is used by both {owner[token_id]!r} and {key!r}")
        owner[token_id] = key
        try:
            vocab[token_id] = decode_bytes(key)
        except KeyError:
            vocab[token_id] = key.encode("utf-8")
            unspelled.append(key)
    return vocab, unspelled


def parse_merges(text: str, path: Path) -> tuple[list[tuple[bytes, bytes]], list[int]]:
    """merges.txt -> (merges in rank order, the line number of each)."""
    merges: list[tuple[bytes, bytes]] = []
    lines: list[int] = []
    for number, line in enumerate(text.split("\n"), start=1):
        line = line.removesuffix("\r")
        if not line.strip() or (number == 1 and line.startswith("#version")):
            continue
        parts = line.split(" ")
        if len(parts) != 2 or not all(parts):
            shown = line[:60].encode("unicode_escape").decode("ascii")
            raise TokenizerFileError(f"{path} line {number}: expected 'left right', got {shown!r}")
        try:
            merges.append((decode_bytes(parts[0]), decode_bytes(parts[1])))
        except KeyError as error:
            raise TokenizerFileError(
                f"{path} line {number}: character {error.args[0]!r} is not in GPT-2's byte alphabet"
            ) from None
        lines.append(number)
    return merges, lines


def read(
    vocab_path: Path,
    merges_path: Path,
    *,
    vocab_data: Any = None,
    merges_text: str | None = None,
    special_tokens: list[str] | None = None,
) -> BPEModel:
    """Load a vocab.json + merges.txt pair (already-read content may be passed to avoid a second read).

    ``special_tokens`` overrides the guess described in the module docstring.
    """
    if vocab_data is None:
        vocab_data = parse_json(decode_text(read_source(vocab_path), vocab_path), vocab_path)
    if merges_text is None:
        merges_text = decode_text(read_source(merges_path), merges_path)
    vocab, unspelled = parse_vocab(vocab_data, vocab_path)
    merges, lines = parse_merges(merges_text, merges_path)
    if special_tokens is None:
        special_tokens = _guess_special_tokens(vocab, merges, unspelled)
    else:
        present = set(vocab.values())
        next_id = max(vocab, default=-1) + 1
        for special in special_tokens:  # as in CS336's from_files: a special token missing from the vocab is appended
            if special.encode("utf-8") not in present:
                vocab[next_id] = special.encode("utf-8")
                next_id += 1
    return checked_model(
        vocab_path,
        vocab,
        merges,
        merges_file=merges_path,
        where=lambda rank: f"line {lines[rank]}",
        special_tokens=special_tokens,
        pattern=GPT2_PATTERN,
    )


def _guess_special_tokens(vocab: dict[int, bytes], merges: list[tuple[bytes, bytes]], unspelled: list[str]) -> list[str]:
    produced = {left + right for left, right in merges}
    specials: list[str] = []
    for _, token in sorted(vocab.items()):
        if len(token) > 1 and token not in produced:
            try:
                specials.append(token.decode("utf-8"))
            except UnicodeDecodeError:
                continue
    return specials + [t for t in unspelled if t not in specials]


def output_paths(path: Path) -> tuple[Path, Path]:
    """(vocab path, merges path) for a save to ``path``: a directory, or the vocab file itself."""
    if path.is_dir() or not path.suffix:
        return path / "vocab.json", path / "merges.txt"
    return path, merges_path_for(path)


def write(model: BPEModel, path: Path) -> list[Path]:
    """Save ``model`` as vocab.json + merges.txt (see :func:`core.formats.save_tokenizer` for ``path``).

    Both files are fully written to temporary files before either is renamed into place.
    """
    if model.pattern != GPT2_PATTERN:
        raise SettingsError(
            f"cannot save {model.name or 'this tokenizer'} as GPT-2 files: they imply GPT-2's split pattern and "
            "this tokenizer uses another; save as bpe-tui or hf instead"
        )
    vocab_path, merges_path = output_paths(path)
    if vocab_path.parent == path and not path.is_dir():
        try:
            path.mkdir()
        except OSError as error:
            raise OutputError(f"cannot create directory {path}: {error.strerror or error}") from None
    entries = [f"  {_json_string(encode_bytes(token))}: {token_id}" for token_id, token in sorted(model.vocab.items())]
    vocab_text = "{\n" + ",\n".join(entries) + "\n}\n"
    merges_text = "\n".join([VERSION_LINE, *(f"{encode_bytes(a)} {encode_bytes(b)}" for a, b in model.merges)]) + "\n"
    with atomic_open(vocab_path) as vocab_file, atomic_open(merges_path) as merges_file:
        vocab_file.write(vocab_text.encode("utf-8"))
        merges_file.write(merges_text.encode("utf-8"))
    return [vocab_path, merges_path]


def _json_string(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)
