"""What every tokenizer format shares: the checks each loader runs, and how a token is shown in messages.

Below every format module, and importing none of them, so that the formats depend on it and only the
package (:mod:`core.formats`) depends on the formats.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import regex

from core.errors import TokenizerFileError
from core.formats.byte_alphabet import encode_bytes
from core.model import BPEModel, TrainingInfo


def show_token(token: bytes) -> str:
    """A token as the GPT-2 alphabet spells it, quoted: printable, one line, and how the files spell it.

    >>> show_token(b" the\\n")
    "'ĠtheĊ'"
    """
    return repr(encode_bytes(token))


def model_name(path: Path) -> str:
    """A display name: the file stem without generic words, or the folder name for ``tokenizer.json``.

    >>> model_name(Path("data/gpt2_vocab.json")), model_name(Path("runs/tiny/tokenizer.json"))
    ('gpt2', 'tiny')
    """
    stem = regex.sub(r"[-_.]?(?:vocab|merges|tokenizer)$", "", path.stem)
    return stem or path.parent.name or path.stem


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
) -> BPEModel:
    """Build a model after the checks every loader needs, so a bad file fails here and not in ``encode``.

    ``where(rank)`` locates merge ``rank`` in the file (``"line 12"``, ``"merges[10]"``) for messages;
    ``merges_file`` names the file the merges came from when it is not ``path`` (GPT-2's two files).
    """
    merges_at = merges_file or path
    specials = list(special_tokens or [])
    ids_of: dict[bytes, int] = {}
    for token_id, token in sorted(vocab.items()):
        if token_id < 0:
            raise TokenizerFileError(f"{path}: token {show_token(token)} has negative id {token_id}")
        if token in ids_of:
            raise TokenizerFileError(
                f"{path}: token {show_token(token)} has two ids, {ids_of[token]} and {token_id}; keep one"
            )
        ids_of[token] = token_id
    missing = [b for b in range(256) if bytes([b]) not in ids_of]
    if missing:
        raise TokenizerFileError(
            f"{path}: vocab has no token for byte 0x{missing[0]:02x} ({len(missing)} bytes missing); "
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
    for special in specials:
        if special.encode("utf-8") not in ids_of:
            raise TokenizerFileError(f"{path}: special token {special!r} is not in the vocab")
    if len(set(specials)) != len(specials):
        raise TokenizerFileError(f"{path}: a special token is listed twice; remove the repeat")
    if merge_counts is not None and len(merge_counts) != len(merges):
        raise TokenizerFileError(f"{path}: {len(merge_counts)} merge counts for {len(merges)} merges")
    kwargs: dict[str, Any] = {}
    if pattern is not None:
        try:
            regex.compile(pattern)
        except regex.error as error:
            raise TokenizerFileError(f"{path}: split pattern does not compile ({error}); fix 'pattern'") from None
        kwargs["pattern"] = pattern
    return BPEModel(
        vocab=dict(sorted(vocab.items())),
        merges=list(merges),
        special_tokens=specials,
        merge_counts=merge_counts,
        training=training,
        name=model_name(path),
        **kwargs,
    )
