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

The readers (:func:`read_gpt2_files` and its two halves) are also ``Tokenizer.from_files``'s: every
problem is one :class:`~core.errors.TokenizerFileError` line naming the file and the line, because these
files are often hand-edited or truncated by a failed download.
"""

from __future__ import annotations

import json
import os
import re
from itertools import repeat
from operator import add, itemgetter, ne
from pathlib import Path

from core.atomic import atomic_directory, atomic_group
from core.errors import MissingHalfError, SettingsError, TokenizerFileError
from core.formats.byte_alphabet import decode_all, decode_bytes, encode_bytes
from core.formats.common import (
    ID_KEYED_FIX, checked_model, is_pickle, keyed_by_ids, looks_special, number_too_long, utf8,
)
from core.model import CHAR_BASE, BPEModel
from core.pretokenize.patterns import GPT2_PATTERN

VERSION_LINE = "#version: 0.2"
_JSON_KEY = re.compile(r'"(?:[^"\\]|\\.)*"\s*:')


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


# ------------------------------------------------------------------------------------- reading the files


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
    text = _read_text(path)
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
    text = _read_text(path)
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


def _read_text(path: str | os.PathLike[str]) -> str:
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
        added = json.loads(_read_text(path))
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
