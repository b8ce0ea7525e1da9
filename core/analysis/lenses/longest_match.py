"""Lens 6, longest-match: greedy longest-vocabulary-match against BPE's merge replay, on a word or a text.

A tempting shortcut for encoding: at each position take the longest vocabulary entry that is a prefix of
the rest of the fragment's bytes (special tokens are never matched this way). It is not BPE. BPE applies
merges in rank order, so it can stop short of a long token that greedy grabs, or grab one that leaves an
awkward remainder. Both ways every id is valid and the ids decode to the same text: nothing fails, the
model just sees ids it was never trained on. This lens shows where the two part ways.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from core.analysis.lenses.replay import fragment_tokens
from core.analysis.lenses.tables import ModelTables
from core.model import BPEModel


def _text(token: bytes) -> str:
    return token.decode("utf-8", errors="replace")


@dataclass(frozen=True)
class FragmentDifference:
    """A fragment the two encodings cut differently, with both cuts."""

    fragment: str
    replay: tuple[bytes, ...]
    longest_match: tuple[bytes, ...]

    def to_json(self) -> dict[str, Any]:
        return {"fragment": self.fragment, "replay": [_text(t) for t in self.replay],
                "longest_match": [_text(t) for t in self.longest_match]}


@dataclass(frozen=True)
class LongestMatchResult:
    """Both encodings of ``text``, whether they agree, and the fragments where they do not.

    Attributes:
        text: the word or text.
        replay: the ids of BPE's merge replay (``encode``'s).
        longest_match: the ids greedy longest-match gives.
        replay_tokens, longest_tokens: the tokens of each.
        differences: each fragment cut differently.
        all_valid: every id of both is in the vocabulary and both decode to ``text``: the failure is silent.
    """

    text: str
    replay: tuple[int, ...]
    longest_match: tuple[int, ...]
    replay_tokens: tuple[bytes, ...]
    longest_tokens: tuple[bytes, ...]
    differences: tuple[FragmentDifference, ...]
    all_valid: bool

    @property
    def same(self) -> bool:
        return self.replay == self.longest_match

    def to_json(self) -> dict[str, Any]:
        return {"replay": list(self.replay), "longest_match": list(self.longest_match), "same": self.same,
                "all_valid": self.all_valid, "differences": [d.to_json() for d in self.differences]}


def greedy_tokens(data: bytes, vocab: set[bytes], longest: int) -> list[bytes]:
    """``data`` cut into the longest entries of ``vocab`` (tokens of up to ``longest`` bytes), left to right.

    >>> greedy_tokens(b"abcd", {b"a", b"b", b"c", b"d", b"abc", b"bcd"}, 3)
    [b'abc', b'd']
    """
    out: list[bytes] = []
    position = 0
    while position < len(data):
        for size in range(min(longest, len(data) - position), 0, -1):
            piece = data[position : position + size]
            if piece in vocab:
                out.append(piece)
                position += size
                break
        else:  # a byte-level vocabulary holds every byte; a broken one is not this lens's to mend
            raise ValueError(f"the vocabulary lacks the byte {data[position:position + 1]!r}")
    return out


def longest_match(model: BPEModel, text: str) -> LongestMatchResult:
    """Encode ``text`` by merge replay and by greedy longest match, and compare.

    >>> vocab = {i: bytes([i]) for i in range(256)} | {256: b"bc", 257: b"ab"}
    >>> result = longest_match(BPEModel(vocab, [(b"b", b"c"), (b"a", b"b")]), "abc")
    >>> result.replay_tokens, result.longest_tokens, result.same, result.all_valid
    ((b'a', b'bc'), (b'ab', b'c'), False, True)
    """
    tables = ModelTables.of(model)
    specials = {token.encode("utf-8") for token in model.special_tokens}
    plain = {token for token in tables.ids if token not in specials}
    longest = max(map(len, plain))
    bpe: list[bytes] = []
    greedy: list[bytes] = []
    differences: list[FragmentDifference] = []
    for fragment in tables.fragments(text):
        if fragment.special:
            bpe.append(fragment.data)
            greedy.append(fragment.data)
            continue
        mine = fragment_tokens(tables, fragment)
        theirs = greedy_tokens(fragment.data, plain, longest)
        if mine != theirs:
            differences.append(FragmentDifference(fragment.text, tuple(mine), tuple(theirs)))
        bpe += mine
        greedy += theirs
    bpe_ids = tuple(tables.ids[t] for t in bpe)
    greedy_ids = tuple(tables.ids[t] for t in greedy)
    valid = all(i in model.vocab for i in bpe_ids + greedy_ids) and (
        b"".join(model.vocab[i] for i in bpe_ids) == b"".join(model.vocab[i] for i in greedy_ids)
    )
    return LongestMatchResult(text, bpe_ids, greedy_ids, tuple(bpe), tuple(greedy), tuple(differences), valid)
