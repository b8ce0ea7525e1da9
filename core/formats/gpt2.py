"""GPT-2's ``vocab.json`` + ``merges.txt``: the two-file format of OpenAI's GPT-2 release and CS336.

Both files spell token bytes in GPT-2's printable byte alphabet (:mod:`core.formats.byte_alphabet`), so a space is
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

from core.formats.byte_alphabet import encode_bytes
from core.errors import SettingsError, TokenizerFileError
from core.formats import checked_model
from core.atomic import atomic_directory, atomic_open
from core.model import BPEModel
from core.pretokenize.patterns import GPT2_PATTERN

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


def _line_of_merge(merges_path: Path, rank: int) -> str:
    """Where merge ``rank`` is in the file; only computed for an error message, so it may re-read the file."""
    try:
        lines = merges_path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return f"merge {rank + 1}"
    seen = -1
    for number, line in enumerate(lines, start=1):
        if line.strip() and not (number == 1 and line.startswith("#version")):
            seen += 1
            if seen == rank:
                return f"line {number}"
    return f"merge {rank + 1}"


def read(vocab_path: Path, merges_path: Path, *, special_tokens: list[str] | None = None) -> BPEModel:
    """Load a vocab.json + merges.txt pair with the same reader as ``Tokenizer.from_files``.

    ``special_tokens`` overrides the guess described in the module docstring; as in CS336's
    ``from_files``, a given special token missing from the vocab is appended with a new id.
    """
    from core.formats.gpt2_files import read_gpt2_files

    vocab, merges = read_gpt2_files(vocab_path, merges_path)
    if special_tokens is None:
        special_tokens = guess_special_tokens(vocab, merges)
    else:
        present = set(vocab.values())
        next_id = max(vocab, default=-1) + 1
        for special in special_tokens:
            if special.encode("utf-8") not in present:
                vocab[next_id] = special.encode("utf-8")
                next_id += 1
    return checked_model(
        vocab_path,
        vocab,
        merges,
        merges_file=merges_path,
        where=lambda rank: _line_of_merge(merges_path, rank),
        special_tokens=special_tokens,
        pattern=GPT2_PATTERN,
    )


def guess_special_tokens(vocab: dict[int, bytes], merges: list[tuple[bytes, bytes]]) -> list[str]:
    """Multi-byte tokens that no merge produces and that are UTF-8 text, in id order: hand-added tokens.

    >>> guess_special_tokens({0: b"a", 1: b"b", 2: b"ab", 3: b"<eot>"}, [(b"a", b"b")])
    ['<eot>']
    """
    produced = {left + right for left, right in merges}
    specials: list[str] = []
    for _, token in sorted(vocab.items()):
        if len(token) > 1 and token not in produced:
            try:
                specials.append(token.decode("utf-8"))
            except UnicodeDecodeError:
                continue
    return specials


def output_paths(path: Path) -> tuple[Path, Path]:
    """(vocab path, merges path) for a save to ``path``: a directory, or the vocab file itself.

    >>> [p.as_posix() for p in output_paths(Path("out/gpt2"))], output_paths(Path("my-vocab.json"))[1].name
    (['out/gpt2/vocab.json', 'out/gpt2/merges.txt'], 'my-merges.txt')
    """
    if path.is_dir() or not path.suffix:
        return path / "vocab.json", path / "merges.txt"
    return path, merges_path_for(path)


def write(model: BPEModel, path: Path) -> list[Path]:
    """Save ``model`` as vocab.json + merges.txt (see :func:`core.formats.save_tokenizer` for ``path``).

    Both files are fully written to temporary files before either is renamed into place. A folder that
    does not exist yet is made as a temporary folder and renamed into place with both files in it, so a
    failed or interrupted save leaves no folder behind.
    """
    if model.pattern != GPT2_PATTERN:
        raise SettingsError(
            f"cannot save {model.name or 'this tokenizer'} as GPT-2 files: they imply GPT-2's split pattern and "
            "this tokenizer uses another; save as bpe-tui or hf instead"
        )
    vocab_path, merges_path = output_paths(path)
    entries = [f"  {_json_string(encode_bytes(token))}: {token_id}" for token_id, token in sorted(model.vocab.items())]
    vocab_text = "{\n" + ",\n".join(entries) + "\n}\n"
    merges_text = "\n".join([VERSION_LINE, *(f"{encode_bytes(a)} {encode_bytes(b)}" for a, b in model.merges)]) + "\n"
    if vocab_path.parent == path and not path.is_dir():
        with atomic_directory(path) as folder:
            _write_pair(folder / vocab_path.name, vocab_text, folder / merges_path.name, merges_text)
    else:
        _write_pair(vocab_path, vocab_text, merges_path, merges_text)
    return [vocab_path, merges_path]


def _write_pair(vocab_path: Path, vocab_text: str, merges_path: Path, merges_text: str) -> None:
    with atomic_open(vocab_path) as vocab_file, atomic_open(merges_path) as merges_file:
        vocab_file.write(vocab_text.encode("utf-8"))
        merges_file.write(merges_text.encode("utf-8"))
        # Both on disk before either is renamed: a full disk must not leave a new merges.txt beside an old
        # vocab.json (the inner block's rename comes first).
        vocab_file.sync()  # type: ignore[attr-defined]
        merges_file.sync()  # type: ignore[attr-defined]


def _json_string(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)
