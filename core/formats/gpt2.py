"""GPT-2's ``vocab.json`` + ``merges.txt``: the two-file format of OpenAI's GPT-2 release and CS336.

Both files spell token bytes in GPT-2's printable byte alphabet (:mod:`core.formats.byte_alphabet`), so a space is
``Ġ`` and every merges line is exactly two tokens separated by one space. ``merges.txt`` may start with a
``#version`` line, which we write too because Hugging Face's ``GPT2Tokenizer`` skips the first line
unconditionally. The format records no split pattern (GPT-2's is implied) and no list of special tokens:
on loading, a multi-byte token that no merge produces and that is named like a special token
(``<|endoftext|>``, the one such token in GPT-2's vocab) is taken to be one. Any other token no merge
produces means the two files do not match (most often a ``merges.txt`` cut short, which would load and
encode `` world`` in three pieces), and is an error naming the counts; saving refuses a model whose special
tokens would not be read back as such.

The readers (:mod:`core.formats.gpt2_files`) are also ``Tokenizer.from_files``'s: every problem is one
:class:`~core.errors.TokenizerFileError` line naming the file and the line, because these files are often
hand-edited or truncated by a failed download.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from core.atomic import atomic_directory, atomic_group
from core.errors import MissingHalfError, SettingsError, TokenizerFileError
from core.formats.byte_alphabet import encode_bytes
from core.formats.common import checked_model, looks_special, utf8
from core.formats.gpt2_files import read_file_text, read_gpt2_files
from core.model import CHAR_BASE, BPEModel
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
    problem = f"{vocab_path}: a GPT-2 vocab.json needs its merges file, not found at {merges_path_for(vocab_path)}"
    raise MissingHalfError(f"{problem}; put it there", f"{problem}; pass it with --merges, or put it there")


def find_vocab(merges_path: Path) -> Path:
    """The vocab file beside ``merges_path``, or a one-line error saying where it was looked for."""
    for candidate in (vocab_path_for(merges_path), merges_path.parent / "vocab.json"):
        if candidate.is_file():
            return candidate
    problem = f"{merges_path}: a GPT-2 merges.txt needs its vocab.json, not found at {vocab_path_for(merges_path)}"
    raise MissingHalfError(
        f"{problem}; put it there", f"{problem}; give the vocab.json instead and this file with --merges"
    )


# ------------------------------------------------------------------------------------------- the model


def _line_of_merge(merges_path: Path, rank: int) -> str:
    """Where merge ``rank`` is in the file; only computed for an error message, so it may re-read the file."""
    try:
        lines = merges_path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return f"merge {rank + 1}"
    seen = -1
    for number, line in enumerate(lines, start=1):
        if line.strip() and not (seen == -1 and line.startswith("#version")):
            seen += 1
            if seen == rank:
                return f"line {number}"
    return f"merge {rank + 1}"


def read(vocab_path: Path, merges_path: Path, *, special_tokens: list[str] | None = None) -> BPEModel:
    """Load a vocab.json + merges.txt pair with the same reader as ``Tokenizer.from_files``.

    ``special_tokens`` overrides the guess described in the module docstring; as in CS336's
    ``from_files``, a given special token missing from the vocab is appended with a new id.
    """
    vocab, merges = read_gpt2_files(vocab_path, merges_path)
    if special_tokens is None:
        refuse_added_tokens_beside(vocab_path, vocab)
        special_tokens = guess_special_tokens(vocab, merges)
    else:
        present = set(vocab.values())
        next_id = max(vocab, default=-1) + 1
        for special in special_tokens:
            data = utf8(special, vocab_path, "special token")
            if data not in present:
                vocab[next_id] = data
                next_id += 1
    return checked_model(
        vocab_path,
        vocab,
        merges,
        merges_file=merges_path,
        where=lambda rank: _line_of_merge(merges_path, rank),
        special_tokens=special_tokens,
        pattern=GPT2_PATTERN,
        vocab_label=vocab_path.name,
        merges_label=merges_path.name,
    )


def refuse_added_tokens_beside(vocab_path: Path, vocab: dict[int, bytes]) -> None:
    """Refuse a pair whose folder holds an ``added_tokens.json`` naming tokens that ``vocab.json`` lacks.

    ``transformers`` saves the tokens added after training (``<pad>``, chat markers) there, beside the pair, and
    Hugging Face finds each in text as one token. Loaded without them, the pair would split such text into
    pieces and know none of their ids; an entry that repeats a vocab.json token (``<|endoftext|>``) is harmless.
    """
    path = vocab_path.parent / "added_tokens.json"
    if not path.is_file():
        return
    try:
        added = json.loads(read_file_text(path))
    except (json.JSONDecodeError, RecursionError):
        raise TokenizerFileError(f"{path}: not JSON; expected {{token: id}}, as transformers writes it") from None
    if not isinstance(added, dict) or not all(type(token_id) is int for token_id in added.values()):
        raise TokenizerFileError(f"{path}: expected a JSON object of token -> integer id, as transformers writes it")
    extra = [(token, token_id) for token, token_id in added.items() if vocab.get(token_id) != utf8(token, path, "token")]
    if extra:
        token, token_id = extra[0]
        raise TokenizerFileError(
            f"{vocab_path}: {path.name} beside it adds {len(extra):,} token(s) that {vocab_path.name} lacks (the "
            f"first: {token[:40]!r}, id {token_id}), which Hugging Face finds in text as one token each and this "
            "pair cannot: load the model's tokenizer.json, or pass them as special tokens to Tokenizer.from_files"
        )


def guess_special_tokens(vocab: dict[int, bytes], merges: list[tuple[bytes, bytes]]) -> list[str]:
    """Tokens that no merge produces and that are named like special tokens (``<|...|>``), in id order.

    Only the name counts: any other token no merge makes is a sign of mismatched files, which
    :func:`core.formats.common.checked_model` reports, not a special token.

    >>> guess_special_tokens({0: b"a", 1: b"b", 2: b"ab", 3: b"<|eot|>", 4: b"<eot>"}, [(b"a", b"b")])
    ['<|eot|>']
    """
    produced = {left + right for left, right in merges}
    return [
        token.decode("utf-8")
        for _, token in sorted(vocab.items())
        if len(token) > 1 and token not in produced and looks_special(token)
    ]


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
    if model.base == CHAR_BASE:
        raise SettingsError(
            f"cannot save {model.name or 'this tokenizer'} as GPT-2 files: they describe byte-level BPE and this "
            "tokenizer has a character base; save as bpe-tui or hf instead"
        )
    if model.normalizer is not None:
        raise SettingsError(
            f"cannot save {model.name or 'this tokenizer'} as GPT-2 files: they cannot say that its text is put in "
            f"{model.normalizer} first; save as bpe-tui or hf instead"
        )
    if model.pattern != GPT2_PATTERN:
        raise SettingsError(
            f"cannot save {model.name or 'this tokenizer'} as GPT-2 files: they imply GPT-2's split pattern and "
            "this tokenizer uses another; save as bpe-tui or hf instead"
        )
    guessed = guess_special_tokens(model.vocab, model.merges)
    if set(guessed) != set(model.special_tokens):
        differ = sorted(set(guessed) ^ set(model.special_tokens))[0]
        role = "not read back as a special token" if differ in model.special_tokens else "read back as a special token"
        raise SettingsError(
            f"cannot save {model.name or 'this tokenizer'} as GPT-2 files: they keep no list of special tokens, and "
            f"{differ!r} would be {role} (only <|name|> tokens that no merge makes are); save as bpe-tui or hf instead"
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
    # One group: both files on disk before either is renamed (a full disk must not leave a new merges.txt
    # beside an old vocab.json), neither left if the renames are cut in two, and another save of the same
    # pair waits for these renames rather than putting its vocab.json beside this merges.txt.
    with atomic_group() as group:
        group.open(vocab_path).write(vocab_text.encode("utf-8"))
        group.open(merges_path).write(merges_text.encode("utf-8"))


def _json_string(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)
