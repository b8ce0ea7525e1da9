"""What every tokenizer format shares: the checks each loader runs, and how a token is shown in messages.

Below every format module, and importing none of them, so that the formats depend on it and only the
package (:mod:`core.formats`) depends on the formats.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import regex

from core.errors import TokenizerFileError
from core.formats.byte_alphabet import encode_bytes
from core.char_base import char_token_ids
from core.model import BYTE_BASE, CHAR_BASE, BPEModel, TrainingInfo
from core.pretokenize.coverage import pattern_problem


def show_token(token: bytes) -> str:
    """A token as the GPT-2 alphabet spells it, quoted: printable, one line, and how the files spell it.

    >>> show_token(b" the\\n")
    "'ĠtheĊ'"
    """
    return repr(encode_bytes(token))


def number_too_long(error: ValueError) -> str:
    """The message for a number Python refuses to read (past its limit of digits): no id or count is that long.

    >>> import json
    >>> try:
    ...     json.loads("9" * 5000)
    ... except ValueError as error:
    ...     number_too_long(error)
    'a number has over 4,300 digits; ids and counts are small whole numbers, so this is not a tokenizer file'
    """
    if "digits" not in str(error):
        return f"a number cannot be read ({str(error)[:80]}); this is not a tokenizer file"
    limit = sys.get_int_max_str_digits() or 4300
    return (
        f"a number has over {limit:,} digits; ids and counts are small whole numbers, so this is not a tokenizer file"
    )


def is_pickle(data: bytes) -> bool:
    """Whether ``data`` starts as ``pickle.dump`` writes (protocol 2 to 5): how a CS336 student often keeps the
    ``vocab`` dict and ``merges`` list that ``train_bpe`` returns. No loader here unpickles (that can run
    code); their errors name the way from a pickle to a tokenizer instead of 'binary data'.

    >>> import pickle
    >>> is_pickle(pickle.dumps({256: b"ab"})), is_pickle(b'{"a": 1}')
    (True, False)
    """
    return len(data) >= 2 and data[0] == 0x80 and 2 <= data[1] <= 5


def keyed_by_ids(keys: Iterable[str]) -> bool:
    """Whether a JSON object's keys are all ids (``{"0": ..., "1": ...}``): a vocab of id -> token that a
    student saved with ``json.dump``, the other way round from a GPT-2 ``vocab.json`` (token -> id).

    >>> keyed_by_ids(["0", "1", "256"]), keyed_by_ids(["0", "Ġthe"]), keyed_by_ids([])
    (True, False, False)
    """
    keys = list(keys)
    return bool(keys) and all(key.isascii() and key.isdecimal() for key in keys)


SAVE_IN_PYTHON = (
    "save_tokenizer(BPEModel(vocab, merges, special_tokens), 'tok.json', format='bpe-tui') "
    "(from core import BPEModel; from core.formats import save_tokenizer)"
)
"""How a vocab and merges held in Python become a tokenizer file, as the loaders' errors say it."""

ID_KEYED_FIX = (
    "it maps ids to tokens (a vocab dict saved as JSON), the other way round from a GPT-2 vocab.json, which maps "
    f"each token, spelled in GPT-2's byte alphabet, to its id; load your vocab and merges in Python and save them "
    f"with {SAVE_IN_PYTHON}"
)
"""What to do with such a file, as the loaders say it."""


def model_name(path: Path) -> str:
    """A display name: the file stem without generic words, or the folder name for ``tokenizer.json``.

    >>> model_name(Path("data/gpt2_vocab.json")), model_name(Path("runs/tiny/tokenizer.json"))
    ('gpt2', 'tiny')
    """
    stem = regex.sub(r"[-_.]?(?:vocab|merges|tokenizer)$", "", path.stem)
    return stem or path.parent.name or path.stem


ID_SLACK = 1024
"""How far ids may run past the number of tokens: a file's largest id must be below ``len(vocab) + ID_SLACK``.

Ids are dense (``0..n-1``) in files that CS336, GPT-2, tiktoken and Hugging Face produce, except for a
few holes: a rank file saved without its special tokens leaves their ids free. Allowing a bounded number
of holes keeps those files loading, while every table indexed by id stays as small as the file itself:
an id of ``2**31`` in a file of a few hundred tokens would otherwise cost gigabytes, and ``10**30`` an
``OverflowError``, wherever such a table is built."""

_SPECIAL_NAME = regex.compile(r"<\|[^\n]+\|>|<｜[^\n]+｜>")


def looks_special(token: bytes) -> bool:
    """Whether ``token`` is named like a special token, ``<|...|>`` (or DeepSeek's full-width ``<｜...｜>``).

    Formats that keep no list of special tokens (GPT-2's files) guess them by this name only; any other
    token that no merge makes means the files do not belong together.

    >>> looks_special(b"<|endoftext|>"), looks_special(b"<s>"), looks_special(b" world")
    (True, False, False)
    """
    try:
        return _SPECIAL_NAME.fullmatch(token.decode("utf-8")) is not None
    except UnicodeDecodeError:
        return False


def utf8(text: str, path: Path, what: str) -> bytes:
    """The UTF-8 bytes of ``text`` read from ``path``; a lone surrogate (a JSON ``\\ud800`` escape) is an error.

    >>> utf8("<s>", Path("t.json"), "special token")
    b'<s>'
    >>> utf8("<\\ud800>", Path("t.json"), "special token")
    Traceback (most recent call last):
    core.errors.TokenizerFileError: t.json: special token '<\\ud800>' holds a lone surrogate (U+D800), which is not text; fix its \\u escape
    """
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as error:
        code = ord(text[error.start])
        raise TokenizerFileError(
            f"{path}: {what} {text[:40]!r} holds a lone surrogate (U+{code:04X}), which is not text; fix its \\u escape"
        ) from None


def checked_model(
    path: Path,
    vocab: dict[int, bytes],
    merges: list[tuple[bytes, bytes]],
    *,
    where: Callable[[int], str],
    merges_file: Path | None = None,
    special_tokens: list[str] | None = None,
    pattern: str | None = None,
    merge_counts: list[int | None] | None = None,
    training: TrainingInfo | None = None,
    vocab_label: str = "the vocab",
    merges_label: str = "the merges",
    base: str = BYTE_BASE,
    normalizer: str | None = None,
    plain_added_tokens: tuple[str, ...] = (),
) -> BPEModel:
    """Build a model after the checks every loader needs, so a bad file fails here and not in ``encode``.

    ``where(rank)`` locates merge ``rank`` in the file (``"line 12"``, ``"merges[10]"``) for messages;
    ``merges_file`` names the file the merges came from when it is not ``path`` (GPT-2's two files);
    ``vocab_label`` and ``merges_label`` name the two parts in messages (``"vocab.json"``, ``"merges.txt"``).

    What a loaded model must satisfy, so that it encodes what the file means and ``decode(encode(s)) == s``:
    ids are whole numbers from 0 below ``len(vocab) + ID_SLACK``; no token is empty or has two ids; all
    256 bytes are tokens; each merge's parts and result are tokens and no merge repeats; every other
    token of two or more bytes is made by a merge or is a special token (else merges are missing: a
    truncated ``merges.txt`` would encode `` world`` in pieces); special tokens are distinct tokens; the
    split pattern compiles and its matches tile any text (:mod:`core.pretokenize.coverage`). With the
    character ``base`` a token of one character is part of the alphabet, not unmade, and each side of a merge
    must be whole characters (UTF-8), since merging starts from characters.
    """
    merges_at = merges_file or path
    specials = list(special_tokens or [])
    if vocab:
        largest = max(vocab)
        if largest >= len(vocab) + ID_SLACK:
            raise TokenizerFileError(
                f"{path}: id {largest:,} is far beyond the {len(vocab):,} tokens; ids must stay below the number of "
                f"tokens + {ID_SLACK:,}: renumber the tokens from 0"
            )
    ids_of: dict[bytes, int] = {}
    for token_id, token in sorted(vocab.items()):
        if token_id < 0:
            raise TokenizerFileError(f"{path}: token {show_token(token)} has negative id {token_id}")
        if not token:
            raise TokenizerFileError(f"{path}: token id {token_id} is empty; every token needs at least one byte")
        if token in ids_of:
            raise TokenizerFileError(
                f"{path}: token {show_token(token)} has two ids, {ids_of[token]} and {token_id}; keep one"
            )
        ids_of[token] = token_id
    missing = [b for b in range(256) if bytes([b]) not in ids_of]
    if missing:
        raise TokenizerFileError(
            f"{path}: vocab has no token for byte 0x{missing[0]:02x} ({len(missing)} of the 256 bytes missing); "
            "a byte-level BPE vocab needs all 256"
        )
    seen: dict[tuple[bytes, bytes], int] = {}
    for rank, (left, right) in enumerate(merges):
        for part in (left, right, left + right):
            if part not in ids_of:
                role = "its result " if part == left + right else ""
                raise TokenizerFileError(
                    f"{merges_at} {where(rank)}: merge {show_token(left)} + {show_token(right)} names "
                    f"{role}{show_token(part)}, which is not in the vocab"
                )
        if (left, right) in seen:
            raise TokenizerFileError(
                f"{merges_at} {where(rank)}: merge {show_token(left)} + {show_token(right)} repeats "
                f"{where(seen[(left, right)])}; remove one"
            )
        seen[(left, right)] = rank
    if base == CHAR_BASE:
        for rank, (left, right) in enumerate(merges):
            for part in (left, right):
                try:
                    part.decode("utf-8")
                except UnicodeDecodeError:
                    raise TokenizerFileError(
                        f"{merges_at} {where(rank)}: merge {show_token(left)} + {show_token(right)} splits a "
                        "character, which a character-base tokenizer never does"
                    ) from None
    special_bytes = [utf8(special, path, "special token") for special in specials]
    for special, data in zip(specials, special_bytes):
        if not data:
            raise TokenizerFileError(f"{path}: a special token is empty; every special token needs some text")
        if data not in ids_of:
            raise TokenizerFileError(f"{path}: special token {special!r} is not in the vocab")
    if len(set(specials)) != len(specials):
        raise TokenizerFileError(f"{path}: a special token is listed twice; remove the repeat")
    alphabet = set(char_token_ids(vocab).keys()) if base == CHAR_BASE else set()
    _check_all_made(path, ids_of, merges, set(special_bytes) | {c.encode("utf-8") for c in alphabet}, vocab_label, merges_label)
    if merge_counts is not None and len(merge_counts) != len(merges):
        raise TokenizerFileError(
            f"{path}: merge_counts and merges differ in length ({len(merge_counts):,} and {len(merges):,}); "
            "give one count per merge"
        )
    kwargs: dict[str, Any] = {}
    if pattern is not None:
        utf8(pattern, path, "split pattern")
        problem = pattern_problem(pattern)
        if problem is not None:
            shown = pattern if len(pattern) <= 60 else pattern[:57] + "..."
            raise TokenizerFileError(f"{path}: split pattern {shown!r} {problem}")
        kwargs["pattern"] = pattern
    return BPEModel(
        vocab=dict(sorted(vocab.items())),
        merges=list(merges),
        special_tokens=specials,
        merge_counts=merge_counts,
        training=training,
        name=model_name(path),
        base=base,
        normalizer=normalizer,
        plain_added_tokens=plain_added_tokens,
        **kwargs,
    )


_BRACKETED = regex.compile(rb"<[^<>\s]{1,40}>|\[[^\[\]\s]{1,40}\]")
"""A name such as ``<s>``, ``</s>``, ``<mask>`` or ``[PAD]``: a special token of RoBERTa, BART or BERT's kind."""


def unmade_tokens(
    ids_of: dict[bytes, int], merges: list[tuple[bytes, bytes]], specials: set[bytes]
) -> list[bytes]:
    """Tokens of two or more bytes that no merge makes, that are not special and not named like one, in id order.

    Encoding can never produce them, so in a file they mean the merges and the vocab do not match.

    >>> unmade_tokens({b"a": 0, b"b": 1, b"ab": 2, b"ba": 3, b"<|x|>": 4}, [(b"a", b"b")], set())
    [b'ba']
    """
    made = {left + right for left, right in merges}
    unmade = [
        token
        for token in ids_of
        if len(token) > 1 and token not in made and token not in specials and not looks_special(token)
    ]
    return sorted(unmade, key=ids_of.__getitem__)


def _check_all_made(
    path: Path,
    ids_of: dict[bytes, int],
    merges: list[tuple[bytes, bytes]],
    specials: set[bytes],
    vocab_label: str,
    merges_label: str,
) -> None:
    unmade = unmade_tokens(ids_of, merges, specials)
    if unmade and all(_BRACKETED.fullmatch(token) for token in unmade):
        first = unmade[0]
        raise TokenizerFileError(
            f"{path}: {vocab_label} has {len(unmade):,} tokens that no merge makes and that are named like special "
            f"tokens but not marked as such (the first: {show_token(first)}, id {ids_of[first]}); only <|name|> "
            "tokens are taken as special without a list: load the tokenizer.json saved with these files, or pass "
            "the special tokens to Tokenizer.from_files"
        )
    if unmade:
        made = len({left + right for left, right in merges})
        first = unmade[0]
        raise TokenizerFileError(
            f"{path}: {vocab_label} has {len(ids_of):,} tokens but {merges_label} makes only {made:,} of them; "
            f"{len(unmade):,} are neither bytes, merges nor special tokens (the first: {show_token(first)}, "
            f"id {ids_of[first]}): is {merges_label} complete?"
        )
