"""Lens 5, replay: encoding one word as merge replay, one step per merge, with each step's rank and pair.

Each fragment starts as its bytes (for a character-base model, each character with a token of its own
and the bytes of any other, as :func:`core.reference.initial_tokens` says). Inside it the adjacent pair
with the lowest merge rank is merged (the leftmost where it occurs
twice), again and again, until no adjacent pair has a rank: the definition of BPE encoding
(:func:`core.reference.encode_pretoken`), spelled out so each step can be shown. The ids at the end are
those of ``Tokenizer.encode``. ``limit`` stops merges of rank ``limit`` and above from counting, which is
how the slider lens re-tokenises after only the first k merges.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass
from typing import Any

from core.analysis.lenses.tables import Fragment, ModelTables
from core.encode.tokenizer import replace_surrogates
from core.errors import SettingsError
from core.model import BPEModel
from core.reference import initial_tokens


@dataclass(frozen=True)
class ReplayStep:
    """One merge made while encoding: its rank, the pair it joined and every token of the word after it."""

    rank: int
    pair: tuple[bytes, bytes]
    tokens: tuple[bytes, ...]

    def to_json(self) -> dict[str, Any]:
        return {"rank": self.rank, "pair": [_text(self.pair[0]), _text(self.pair[1])],
                "tokens": [_text(token) for token in self.tokens]}


@dataclass(frozen=True)
class ReplayResult:
    """A word encoded by merge replay.

    Attributes:
        word: the word (any text: several fragments are replayed one after another).
        start: the word's tokens before any merge: its bytes (its characters, for a character base), and
            special tokens whole.
        steps: each merge in the order made.
        tokens: the tokens at the end.
        ids: their ids, equal to ``Tokenizer.encode(word)``.
    """

    word: str
    start: tuple[bytes, ...]
    steps: tuple[ReplayStep, ...]
    tokens: tuple[bytes, ...]
    ids: tuple[int, ...]

    def to_json(self) -> dict[str, Any]:
        return {"word": self.word, "steps": [step.to_json() for step in self.steps], "ids": list(self.ids),
                "tokens": [_text(token) for token in self.tokens]}


def _text(token: bytes) -> str:
    """A token as a JSON string: its UTF-8 text, a broken character as U+FFFD (the id is exact)."""
    return token.decode("utf-8", errors="replace")


def start_tokens(tables: ModelTables, fragment: Fragment) -> list[bytes]:
    """A fragment's tokens before any merge: a special token whole, otherwise its bytes, or for a
    character-base model each character that has a token as that token (the rest as bytes).

    >>> vocab = {i: bytes([i]) for i in range(256)} | {256: "é".encode()}
    >>> tables = ModelTables.of(BPEModel(vocab, [], base="chars"))
    >>> start_tokens(tables, Fragment("aé")), start_tokens(ModelTables.of(BPEModel(vocab, [])), Fragment("aé"))
    ([b'a', b'\\xc3\\xa9'], [b'a', b'\\xc3', b'\\xa9'])
    """
    if fragment.special:
        return [fragment.data]
    return initial_tokens(fragment.text, tables.ids, tables.model.base)


def merge_fragment(
    data: bytes | list[bytes], ranks: dict[tuple[bytes, bytes], int], limit: int | None = None
) -> list[tuple[int, int, list[bytes]]]:
    """Each merge BPE makes on one fragment: ``(rank, position, tokens after)``, in order.

    ``data`` is the fragment's bytes, or the tokens it starts from (:func:`start_tokens`). Only merges of
    rank below ``limit`` count (all, for ``None``). Each step copies the tokens, for showing them: to know
    only where a long fragment ends, :func:`merge_run` is quicker.

    >>> ranks = {(b"o", b"w"): 0, (b"l", b"ow"): 1, (b"e", b"r"): 2}
    >>> [(rank, i, b"|".join(after)) for rank, i, after in merge_fragment(b"lower", ranks)]
    [(0, 1, b'l|ow|e|r'), (1, 0, b'low|e|r'), (2, 1, b'low|er')]
    >>> merge_fragment(b"lower", ranks, limit=1)[-1][2]
    [b'l', b'ow', b'e', b'r']
    """
    tokens = [bytes([b]) for b in data] if isinstance(data, bytes) else list(data)
    made: list[tuple[int, int, list[bytes]]] = []
    while len(tokens) > 1:
        best: tuple[int, int] | None = None
        for i in range(len(tokens) - 1):
            rank = ranks.get((tokens[i], tokens[i + 1]))
            if rank is not None and (limit is None or rank < limit) and (best is None or rank < best[0]):
                best = (rank, i)
        if best is None:
            break
        rank, i = best
        tokens[i : i + 2] = [tokens[i] + tokens[i + 1]]
        made.append((rank, i, list(tokens)))
    return made


def merge_run(
    start: list[bytes], ranks: dict[tuple[bytes, bytes], int], limit: int | None = None
) -> tuple[list[bytes], list[int]]:
    """The tokens one fragment ends with, and the rank of each merge made, in order: :func:`merge_fragment`'s
    merges, found with a heap of adjacent pairs over linked tokens instead of a scan of the fragment per
    merge, so a fragment of thousands of bytes (a long number, a run of letters) takes milliseconds.

    The heap holds ``(rank, position, left, right)``; the lowest rank pops first and, among equal ranks, the
    leftmost (a merged token keeps its left part's position). An entry whose tokens have changed since it
    was pushed is stale and skipped.

    >>> ranks = {(b"o", b"w"): 0, (b"l", b"ow"): 1, (b"e", b"r"): 2, (b"a", b"a"): 3}
    >>> merge_run([b"l", b"o", b"w", b"e", b"r"], ranks)
    ([b'low', b'er'], [0, 1, 2])
    >>> merge_run([b"a", b"a", b"a"], ranks), merge_run([b"l", b"o", b"w"], ranks, limit=1)
    (([b'aa', b'a'], [3]), ([b'l', b'ow'], [0]))
    """
    tokens: list[bytes | None] = list(start)
    size = len(tokens)
    following = list(range(1, size + 1))  # ``size``: no token follows
    preceding = list(range(-1, size - 1))  # -1: no token precedes

    def pair_at(i: int) -> tuple[int, int, bytes, bytes] | None:
        j = following[i]
        left, right = tokens[i], tokens[j] if j < size else None
        rank = ranks.get((left, right)) if left is not None and right is not None else None
        if rank is None or (limit is not None and rank >= limit):
            return None
        return rank, i, left, right

    heap: list[tuple[int, int, bytes, bytes]] = [entry for entry in map(pair_at, range(size - 1)) if entry is not None]
    heapq.heapify(heap)
    made: list[int] = []
    while heap:
        rank, i, left, right = heapq.heappop(heap)
        j = following[i]
        if tokens[i] != left or j >= size or tokens[j] != right:
            continue  # stale: one side has merged since
        tokens[i], tokens[j] = left + right, None
        following[i] = following[j]
        if following[j] < size:
            preceding[following[j]] = i
        made.append(rank)
        for entry in (pair_at(preceding[i]) if preceding[i] >= 0 else None, pair_at(i)):
            if entry is not None:
                heapq.heappush(heap, entry)
    return [token for token in tokens if token is not None], made


def replay_tokens(tables: ModelTables, text: str, limit: int | None = None) -> list[bytes]:
    """The tokens of ``text`` after merges of rank below ``limit`` (all, for ``None``); specials whole.

    >>> vocab = {i: bytes([i]) for i in range(256)} | {256: b"ow", 257: b"low"}
    >>> tables = ModelTables.of(BPEModel(vocab, [(b"o", b"w"), (b"l", b"ow")]))
    >>> replay_tokens(tables, "low low"), replay_tokens(tables, "low", limit=1)
    ([b'low', b' ', b'low'], [b'l', b'ow'])
    """
    return [token for fragment in tables.fragments(text) for token in fragment_tokens(tables, fragment, limit)]


def fragment_tokens(tables: ModelTables, fragment: Fragment, limit: int | None = None) -> list[bytes]:
    """One fragment's tokens after merges of rank below ``limit`` (all, for ``None``); a special whole."""
    start = start_tokens(tables, fragment)
    if fragment.special:
        return start
    return merge_run(start, tables.ranks, limit)[0]


MAX_WORD_BYTES = 1_000
"""The longest word :func:`replay` takes: each step holds every token of the word, so a text of n bytes
costs about n² (10 KB took a gigabyte and 28 s, and printed 200 MB)."""


def replay(model: BPEModel, word: str) -> ReplayResult:
    """Encode ``word`` as merge replay, recording every step; the final ids are ``encode(word)``'s.

    Raises:
        SettingsError: ``word`` is longer than :data:`MAX_WORD_BYTES` in UTF-8.

    >>> vocab = {i: bytes([i]) for i in range(256)} | {256: b"ow", 257: b"low", 258: b"er"}
    >>> result = replay(BPEModel(vocab, [(b"o", b"w"), (b"l", b"ow"), (b"e", b"r")]), "lower")
    >>> [(step.rank, step.pair) for step in result.steps]
    [(0, (b'o', b'w')), (1, (b'l', b'ow')), (2, (b'e', b'r'))]
    >>> result.ids
    (257, 258)
    """
    size = len(replace_surrogates(word).encode("utf-8"))
    if size > MAX_WORD_BYTES:
        raise SettingsError(f"the replay lens shows every merge of one word: give at most {MAX_WORD_BYTES:,} bytes, "
                            f"not {size:,} (the slider lens takes a long text)")
    tables = ModelTables.of(model)
    done: list[bytes] = []
    start: list[bytes] = []
    steps: list[ReplayStep] = []
    fragments = tables.fragments(word)
    starts = [start_tokens(tables, fragment) for fragment in fragments]
    for index, fragment in enumerate(fragments):
        start.extend(starts[index])
        if fragment.special:
            done.extend(starts[index])
            continue
        later = [token for tokens in starts[index + 1 :] for token in tokens]
        current = starts[index]
        for rank, i, after in merge_fragment(current, tables.ranks):
            steps.append(ReplayStep(rank, (current[i], current[i + 1]), tuple(done + after + later)))
            current = after
        done.extend(current)
    return ReplayResult(word, tuple(start), tuple(steps), tuple(done), tuple(tables.ids[token] for token in done))
