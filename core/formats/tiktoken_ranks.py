"""tiktoken's rank files (``.tiktoken``): one ``base64(token) rank`` line per token, and no merges.

tiktoken merges the adjacent pair whose concatenation has the lowest rank; we replay an ordered merge
list. The two agree when each multi-byte token's merge is the pair that tiktoken itself reaches on that
token's bytes: run BPE on the token using only lower-ranked tokens, and it must stop at exactly two
parts. We rebuild the merges that way on loading (a token that does not end in two parts means the file
is not a BPE rank file) and, before saving, check that the same rebuilding gives back the model's merges
in order, so a saved file encodes exactly as the model does.

What a rank file does not hold:

* Ranks are ids: a token's rank is its id in our vocab, and tiktoken uses the rank as the id.
* Special tokens are not written. tiktoken declares them in code (``special_tokens={"<|endoftext|>":
  256}``); their ids stay free in the rank file, so the other ids do not move. Loading gives a model
  with no special tokens.
* No split pattern: rank files load with GPT-2's pattern (tiktoken's ``r50k``/``gpt2``), and only
  models using it can be saved. (OpenAI's published ``cl100k_base`` and ``o200k_base`` files are known
  by their SHA-256 when loaded with :func:`core.formats.load_tokenizer`, and get their own pattern and
  special tokens: :mod:`core.formats.tiktoken_cache`.)
"""

from __future__ import annotations

import base64
import binascii
import heapq
from pathlib import Path

import regex

from core.errors import SettingsError, TokenizerFileError
from core.formats.common import ID_SLACK, checked_model, show_token
from core.atomic import atomic_write_text
from core.model import CHAR_BASE, BPEModel
from core.pretokenize.patterns import GPT2_PATTERN

_LINE = regex.compile(r"([A-Za-z0-9+/]+={0,2})[ \t]+([0-9]{1,19})[ \t]*\r?")
_LONG_RANK = regex.compile(r"[A-Za-z0-9+/]+={0,2}[ \t]+([0-9]{20,})[ \t]*\r?")


def parse_rank_line(line: str) -> tuple[bytes, int] | None:
    """``(token, rank)`` from one line, or ``None`` if it is not a valid ``base64 rank`` line.

    >>> parse_rank_line("IGhlbGxv 42"), parse_rank_line("Ġ t")
    ((b' hello', 42), None)
    """
    match = _LINE.fullmatch(line)
    if match is None:
        return None
    try:
        token = base64.b64decode(match[1], validate=True)
    except (binascii.Error, ValueError):
        return None
    return (token, int(match[2])) if token else None


def rebuild_merge(token: bytes, rank: int, ranks: dict[bytes, int]) -> list[bytes]:
    """The parts tiktoken's BPE reaches on ``token`` using only tokens ranked below ``rank``.

    Two parts are the merge that makes ``token``; anything else means the token cannot come from BPE.
    Leftmost wins among equal ranks, as in tiktoken.

    >>> ranks = {bytes([b]): b for b in range(256)} | {b"ab": 256, b"bc": 257, b"abc": 258}
    >>> rebuild_merge(b"abc", 258, ranks)
    [b'ab', b'c']
    """
    if len(token) > _SHORT_TOKEN:
        return _rebuild_long(token, rank, ranks)
    parts = [token[i : i + 1] for i in range(len(token))]
    while len(parts) > 2:
        best_rank, best_at = rank, -1
        for i in range(len(parts) - 1):
            pair_rank = ranks.get(parts[i] + parts[i + 1])
            if pair_rank is not None and pair_rank < best_rank:
                best_rank, best_at = pair_rank, i
        if best_at < 0:
            break
        parts[best_at : best_at + 2] = [parts[best_at] + parts[best_at + 1]]
    return parts


_SHORT_TOKEN = 64
"""Tokens up to this length are rebuilt by rescanning their parts (quick when short); longer ones with a heap,
so that a hostile file of a few long tokens (``a`` * 65,536 made of two halves...) cannot take hours."""


def _rebuild_long(token: bytes, rank: int, ranks: dict[bytes, int]) -> list[bytes]:
    """:func:`rebuild_merge` in O(n log n): a heap of (rank, start) for neighbouring parts, stale ones skipped.

    Parts are named by their start offset; ``end[start]`` is where the part ends, ``before[start]`` the
    start of the part before it. A popped pair is current if its left part is still alive and the rank
    of that part joined with its current right neighbour is still the popped rank (a rank names one token,
    so that is the same pair). Ties go to the smaller start: leftmost, as in the rescanning loop.

    >>> ranks = {bytes([b]): b for b in range(256)} | {b"ab": 256, b"bc": 257, b"abc": 258}
    >>> _rebuild_long(b"abc", 258, ranks)
    [b'ab', b'c']
    """
    size = len(token)
    end = list(range(1, size + 1))
    before = list(range(-1, size - 1))
    alive = [True] * size
    heap: list[tuple[int, int]] = []

    def push(start: int) -> None:
        """Queue the pair of the part at ``start`` and the next one, if it is ranked below ``rank``."""
        middle = end[start]
        if middle < size:
            pair_rank = ranks.get(token[start : end[middle]])
            if pair_rank is not None and pair_rank < rank:
                heapq.heappush(heap, (pair_rank, start))

    for start in range(size - 1):
        push(start)
    parts = size
    while parts > 2 and heap:
        pair_rank, start = heapq.heappop(heap)
        middle = end[start] if alive[start] else size
        if middle >= size or ranks.get(token[start : end[middle]]) != pair_rank:
            continue  # stale: one of the two parts has been merged since
        end[start] = end[middle]
        alive[middle] = False
        parts -= 1
        if end[start] < size:
            before[end[start]] = start
        if before[start] >= 0:
            push(before[start])
        push(start)
    return [token[start : end[start]] for start in range(size) if alive[start]]


def rebuild_merges(ranks: dict[bytes, int], describe: dict[bytes, str] | None = None) -> list[tuple[bytes, bytes]]:
    """All merges, in rank order of the tokens they make.

    Raises:
        ValueError: a token cannot be built from two lower-ranked tokens; the message names it
            (``describe`` maps a token to where it is, e.g. its line).

    >>> rebuild_merges({bytes([b]): b for b in range(256)} | {b"ab": 256, b"abc": 257})
    [(b'a', b'b'), (b'ab', b'c')]
    """
    merges: list[tuple[bytes, bytes]] = []
    for token, rank in sorted(ranks.items(), key=lambda item: item[1]):
        if len(token) < 2:
            continue
        parts = rebuild_merge(token, rank, ranks)
        if len(parts) != 2:
            where = (describe or {}).get(token, f"rank {rank}")
            raise ValueError(
                f"{where}: token {show_token(token)} (rank {rank}) cannot be built from two lower-ranked tokens"
            )
        merges.append((parts[0], parts[1]))
    return merges


def from_text(text: str, path: Path) -> BPEModel:
    """Build a model from a rank file's text (see the module docstring for what is assumed).

    >>> import base64
    >>> lines = [f"{base64.b64encode(bytes([b])).decode()} {b}" for b in range(256)] + ["aGk= 256"]
    >>> from_text("\\n".join(lines), Path("hi.tiktoken")).merges
    [(b'h', b'i')]
    """
    ranks: dict[bytes, int] = {}
    line_of_rank: dict[int, int] = {}
    line_of_token: dict[bytes, str] = {}
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        parsed = parse_rank_line(line)
        if parsed is None and (long_rank := _LONG_RANK.fullmatch(line)) is not None:
            raise TokenizerFileError(
                f"{path} line {number}: rank {long_rank[1][:20]}... ({len(long_rank[1]):,} digits) is far beyond the "
                f"number of tokens; ranks are token ids, below the number of tokens + {ID_SLACK:,}"
            )
        if parsed is None:
            shown = line[:60].encode("unicode_escape").decode("ascii")
            raise TokenizerFileError(f"{path} line {number}: expected 'base64-token rank', got {shown!r}")
        token, rank = parsed
        if rank in line_of_rank:
            raise TokenizerFileError(f"{path} line {number}: rank {rank} is already used on line {line_of_rank[rank]}")
        if token in ranks:
            raise TokenizerFileError(
                f"{path} line {number}: token {show_token(token)} is already on {line_of_token[token]}"
            )
        ranks[token] = rank
        line_of_rank[rank] = number
        line_of_token[token] = f"line {number}"
    if not ranks:
        raise TokenizerFileError(f"{path}: no 'base64-token rank' lines; the file is empty")
    vocab = {rank: token for token, rank in ranks.items()}
    missing = [b for b in range(256) if bytes([b]) not in ranks]
    if missing:  # checked here too, because rebuilding merges needs every byte
        raise TokenizerFileError(
            f"{path}: no rank for byte 0x{missing[0]:02x} ({len(missing)} of the 256 bytes missing); a BPE rank file needs all 256"
        )
    try:
        merges = rebuild_merges(ranks, line_of_token)
    except ValueError as error:
        raise TokenizerFileError(f"{path} {error}; not a BPE rank file") from None
    line_of_merge = [line_of_token[left + right] for left, right in merges]
    return checked_model(path, vocab, merges, where=lambda rank: line_of_merge[rank], pattern=GPT2_PATTERN)


def to_text(model: BPEModel) -> str:
    """The rank file for ``model``, refusing models tiktoken would encode differently.

    >>> from core.model import CHAR_BASE, BPEModel
    >>> model = BPEModel({i: bytes([i]) for i in range(256)} | {256: b"<s>", 257: b"ab"}, [(b"a", b"b")], ["<s>"])
    >>> to_text(model).splitlines()[-1]
    'YWI= 257'

    Raises:
        SettingsError: a character-base model, a normalizer, a pattern other than GPT-2's, or ids not in merge order (the
            ranks would reorder them).
    """
    label = model.name or "this tokenizer"
    if model.base == CHAR_BASE:
        raise SettingsError(
            f"cannot save {label} as a tiktoken rank file: tiktoken merges from bytes and this tokenizer has a "
            "character base; save as bpe-tui or hf instead"
        )
    if model.normalizer is not None:
        raise SettingsError(
            f"cannot save {label} as a tiktoken rank file: tiktoken does not normalize text, and this tokenizer puts "
            f"it in {model.normalizer} first; save as bpe-tui or hf instead"
        )
    if model.pattern != GPT2_PATTERN:
        raise SettingsError(
            f"cannot save {label} as a tiktoken rank file: it implies GPT-2's split pattern and this tokenizer "
            "uses another; save as bpe-tui or hf instead"
        )
    specials = {special.encode("utf-8") for special in model.special_tokens}
    ranks = {token: token_id for token_id, token in model.vocab.items() if token not in specials}
    try:
        rebuilt = rebuild_merges(ranks)
    except ValueError as error:
        raise SettingsError(f"cannot save {label} as a tiktoken rank file: {error}") from None
    if rebuilt != list(model.merges):
        differ = (i for i, (a, b) in enumerate(zip(rebuilt, model.merges)) if a != b)
        at = next(differ, min(len(rebuilt), len(model.merges)))
        raise SettingsError(
            f"cannot save {label} as a tiktoken rank file: ranks are ids, and these ids would change merge {at} "
            "(tiktoken would merge differently); save as bpe-tui, gpt2 or hf instead"
        )
    in_rank_order = sorted(ranks.items(), key=lambda item: item[1])
    lines = [f"{base64.b64encode(token).decode('ascii')} {rank}" for token, rank in in_rank_order]
    return "\n".join(lines) + "\n"


def write(model: BPEModel, path: Path) -> list[Path]:
    """Save ``model`` as a rank file at ``path``, atomically (special tokens are not written)."""
    return [atomic_write_text(path, to_text(model))]
