"""Byte-pair merging inside one pre-token: exact GPT-2 semantics, fast for short and for very long pieces.

The rule (GPT-2, tiktoken, CS336) is :func:`core.reference.encode_pretoken`: repeatedly merge the
adjacent pair with the lowest merge rank, the leftmost one when the same pair occurs twice, until no
adjacent pair has a rank. The reference rescans every pair after every merge; the faster ways here
must each give exactly its tokens (as ids):

* a piece whose bytes are one token proved to be its own encoding (:mod:`core.encode.own_tokens`) is
  that token, found by one dict lookup: half the distinct pre-tokens of English text;
* :func:`~core.encode.merge_loops.merge_small` rescans a short list (``min`` and ``list.index`` run in C, so for a few dozen
  bytes this beats any cleverer structure);
* :func:`~core.encode.merge_loops.merge_heap` keeps a heap of pair ranks over a linked list of positions with lazy invalidation,
  O(n log n) in the piece length, for long byte strings;
* :meth:`MergeEngine.encode_piece` encodes long pieces by *units* (a character, or a run of ASCII or of
  one repeated character) taken from a cache, then checks each seam; :meth:`MergeEngine.encode_text`
  does the same for a whole text of wide characters at once. Both rest on a property of BPE:
  a token sequence is the BPE encoding of its bytes exactly when every adjacent pair ``(a, b)`` is
  *compatible*, i.e. encoding ``bytes(a) + bytes(b)`` gives back ``[a, b]`` (a merge across a seam in the
  whole piece would also happen in that pair alone, since ranks are global). So unit encodings glued at
  compatible seams are final; an incompatible seam is repaired by re-encoding a window of tokens left of
  it, widened until its own left seam is compatible. In Japanese text under GPT-2 nearly every character
  seam is compatible, so a piece costs about one cached lookup per character instead of one heap step per
  merge. If repairs ever cost more than a few times the piece, it falls back to
  :func:`~core.encode.merge_loops.merge_heap`. Seams between proved tokens are judged by the proofs'
  walk down both tokens' spines; others by merging the pair's bytes.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Mapping, Sequence
from itertools import accumulate, chain, compress, repeat
from operator import add, itemgetter, lshift, not_, or_

from core.encode.bounded_memo import CACHE_LIMIT, BoundedMemo
from core.encode.merge_loops import NO_RANK, SMALL_LIMIT, merge_heap, merge_small
from core.encode.own_tokens import OwnTokens

SHORT_PIECE = 24
"""Pieces up to this many bytes are merged directly; longer ones go unit by unit."""

DIRECT_SEAM_VERDICTS = 256
"""Seam verdicts found by merging alone before the byte-pair flags (a pass over every merge) are built."""

# Byte -> 1 where a UTF-8 character can start with it (any byte but a continuation byte 0x80-0xBF).
_CHAR_START = bytes(int(not 0x80 <= byte < 0xC0) for byte in range(256))

# A character marked "may open" by MergeEngine._char_opens, in the string of marks made by str.translate.
_OPENS = re.compile("\x01")

# A unit is up to 64 ASCII characters, or a run of up to 64 copies of one character, or one character.
_UNITS = re.compile(r"(?s)([\x00-\x7f]{1,64}|(.)\2{0,63})")


class _SeamVerdicts(dict):  # type: ignore[type-arg]
    """(left unit, right unit), or a two-character string -> whether their encodings' seam is final.

    A :class:`BoundedMemo` with the computation inlined: it is filled once per distinct pair of
    neighbouring characters whose seam may fail (see :meth:`MergeEngine.unfinal_seams`), thousands of times
    for Japanese text.
    """

    __slots__ = ("_units", "_pairs", "_limit")

    def __init__(self, units: BoundedMemo, pairs: BoundedMemo, limit: int) -> None:
        super().__init__()
        self._units = units
        self._pairs = pairs
        self._limit = limit

    def __missing__(self, key: tuple[str, str] | str) -> bool:
        verdict = self._pairs[self._units[key[0]][-1], self._units[key[1]][0]]
        if len(self) >= self._limit:
            self.clear()
        self[key] = verdict
        return verdict


class MergeEngine:
    """Exact BPE of pre-tokens for one vocabulary, with the caches that make repeated work cheap.

    Args:
        byte_ids: the id of each single byte 0-255 (GPT-2 does not put byte ``b`` at id ``b``).
        pair_ranks: ``(left id, right id) -> rank`` for every merge.
        merged_ids: ``merged_ids[rank]`` is the id of the token merge ``rank`` makes.
        token_bytes: id -> token bytes, for re-encoding windows of tokens.
    """

    starts_from_bytes = True
    """Whether merging starts from one token per byte, as the proofs of :mod:`core.encode.own_tokens` assume."""

    def __init__(
        self,
        byte_ids: Sequence[int],
        pair_ranks: dict[tuple[int, int], int],
        merged_ids: Sequence[int],
        token_bytes: Mapping[int, bytes],
    ) -> None:
        self._byte_ids = list(byte_ids)
        # When the byte tokens are ids 0-255 in some order (GPT-2's are), bytes.translate maps bytes to ids in C.
        self._byte_table = bytes(self._byte_ids) if sorted(self._byte_ids) == list(range(256)) else None
        self._pair_ranks = pair_ranks
        self._merged_ids = merged_ids
        self._token_bytes = token_bytes
        self._byte_pair_flags: bytearray | None = None
        # Merging starts from bytes here (not so in CharMergeEngine, which proves nothing).
        self._own = OwnTokens(self._byte_ids if self.starts_from_bytes else (), pair_ranks, merged_ids)
        # Bytes -> the token, for every token proved its own encoding (see core.encode.own_tokens).
        self._whole = {token_bytes[token]: token for token in self._own.merged}
        self._units = BoundedMemo(lambda unit: tuple(self.merge_bytes(unit.encode("utf-8"))))
        self._pairs = BoundedMemo(self._pair_is_final, limit=CACHE_LIMIT * 4)
        # (unit, unit) or "two characters" -> whether the seam between their encodings is final.
        self._seams = _SeamVerdicts(self._units, self._pairs, CACHE_LIMIT * 8)
        # Code point -> its tokens as a string of chr(id), for str.translate (ids must fit in chr()).
        self._char_tokens = (
            BoundedMemo(lambda code: "".join(map(chr, self._units[chr(code)])))
            if max(merged_ids, default=0) <= 0x10FFFF and max(self._byte_ids) <= 0x10FFFF
            else None
        )
        self._windows = BoundedMemo(lambda window: tuple(self.merge_bytes(window)), keep=lambda w: len(w) <= 256)
        # Token id -> whether a merge across a seam after it may start (see _may_open).
        self._opens = BoundedMemo(self._may_open)
        self._char_start_lefts: set[int] | None = None  # at most one entry per merge, built once
        # Code point -> "\x01" when the seam after that character may not be final, else "\x00" (str.translate).
        self._char_opens = BoundedMemo(lambda code: "\x01" if self._opens[self._units[chr(code)][-1]] else "\x00")

    def merge_bytes(self, data: bytes) -> list[int]:
        """The BPE encoding of ``data`` (no caching), choosing the algorithm by length.

        >>> MergeEngine(range(256), {(104, 105): 0}, [256], {256: b"hi"}).merge_bytes(b"hi!")
        [256, 33]
        """
        token = self._whole.get(data)
        if token is not None:
            return [token]
        ids = self._start_ids(data)
        if len(ids) <= SMALL_LIMIT:
            return merge_small(ids, self._pair_ranks, self._merged_ids)
        return merge_heap(ids, self._pair_ranks, self._merged_ids)

    def _start_ids(self, data: bytes) -> list[int]:
        """The tokens merging starts from: one per byte."""
        table = self._byte_table
        return list(data.translate(table)) if table is not None else list(map(self._byte_ids.__getitem__, data))

    def encode_piece(self, piece: str) -> tuple[int, ...]:
        """The BPE encoding of one pre-token.

        >>> MergeEngine(range(256), {(104, 105): 0}, [256], {256: b"hi"}).encode_piece("hi")
        (256,)
        """
        data = piece.encode("utf-8")  # a surrogate raises here, as the tokenizer expects
        token = self._whole.get(data)
        if token is not None:  # half the distinct pre-tokens of English text
            return (token,)
        if len(data) == len(piece):  # ASCII
            if len(piece) <= SHORT_PIECE:  # most misses: merge_bytes inlined (SHORT_PIECE <= SMALL_LIMIT)
                return tuple(merge_small(self._start_ids(data), self._pair_ranks, self._merged_ids))
            units = [unit for unit, _ in _UNITS.findall(piece)]
        elif len(piece) == 1:
            return self._units[piece]
        else:
            if len(data) <= SHORT_PIECE and len(data) < 2.5 * len(piece):  # mostly ASCII: few seams hold
                return tuple(self.merge_bytes(data))
            if len(piece) <= 256 and self._char_tokens is not None:
                # One unit per character; seams keyed by the two characters as one string.
                seams = list(map(self._seams.__getitem__, map(add, piece, piece[1:])))
                if all(seams):
                    return tuple(map(ord, piece.translate(self._char_tokens)))
                units = list(piece)
                return self._glue(piece, units, list(map(self._units.__getitem__, units)), seams)
            units = [unit for unit, _ in _UNITS.findall(piece)]
        tokens = list(map(self._units.__getitem__, units))
        if len(tokens) == 1:
            return tokens[0]
        seams = list(map(self._seams.__getitem__, zip(units, units[1:])))
        if all(seams):
            return tuple(chain.from_iterable(tokens))
        return self._glue(piece, units, tokens, seams)

    def encode_text(
        self, text: str, pieces: list[str], piece_ids: Mapping[str, Sequence[int]], *, tiled: bool = False
    ) -> list[int] | None:
        """Encode all of ``text`` (whose pre-tokens are ``pieces``) mostly character by character.

        For text of wide characters (Japanese, Chinese) almost every pre-token is unique, so a cache
        per pre-token rarely hits, but characters and neighbouring pairs repeat endlessly. So: find every
        seam between neighbouring characters that is not final (:meth:`unfinal_seams`). Inside a piece, a
        run of characters joined by such seams is a *cluster*, encoded whole (cached by its text) and
        checked against its neighbours; everything else is ``str.translate`` of characters to their
        cached tokens. A piece whose cluster fails a check goes through ``piece_ids`` instead. Returns
        ``None`` when this does not apply (ids too large for ``chr``, or pieces that do not tile the text;
        ``tiled`` says they are known to).
        """
        table = self._char_tokens
        if table is None or not (tiled or sum(map(len, pieces)) == len(text)):
            return None
        units, pairs = self._units, self._pairs
        starts = list(accumulate(map(len, pieces), initial=0))
        bad = self.unfinal_seams(text)
        bad.append(len(text))  # a sentinel
        out: list[int] = []
        extend = out.extend
        done = 0  # text[:done] is encoded
        piece = mark = -1
        j = 0
        while j < len(bad) - 1:
            first = bad[j]
            i = bisect_right(starts, first) - 1
            start, end = starts[i], starts[i + 1]
            j += 1
            if first + 1 >= end:
                continue  # a seam between two pieces
            last = first + 1  # the cluster is text[first : last + 1]
            while bad[j] == last and last + 1 < end:
                last += 1
                j += 1
            if i != piece:
                if start > done:
                    extend(map(ord, text[done:start].translate(table)))
                    done = start
                piece, mark = i, len(out)  # where piece i's tokens begin, should a cluster fail
            if first > done:
                extend(map(ord, text[done:first].translate(table)))
            tokens = units[text[first : last + 1]]
            fits = first == start or pairs[out[-1], tokens[0]]
            if fits and last + 1 < end and not (bad[j] == last + 1 and last + 2 < end):
                # (a cluster starting at last + 1 would check this seam itself)
                fits = pairs[tokens[-1], ord(table[ord(text[last + 1])][0])]
            if fits:
                extend(tokens)
                done = last + 1
            else:
                del out[mark:]
                extend(piece_ids[pieces[i]])
                done = end
                while bad[j] < end:
                    j += 1
        extend(map(ord, text[done:].translate(table)))
        return out

    def unfinal_seams(self, text: str) -> list[int]:
        """Every ``k``, in order, where the seam between the cached encodings of ``text[k]`` and ``text[k + 1]``
        is not final.

        Looking up a verdict for every seam is a million lookups per million characters. But a seam can
        fail only after a character whose last token *may open* a merge across it (:meth:`_may_open`), and
        in real text few characters' last tokens do (in Japanese under GPT-2, mostly の). So the
        characters are first marked by ``str.translate`` and the marked ones found by a regex, both in C,
        and only the seams after them are looked up.

        >>> engine = MergeEngine(range(256), {(98, 99): 0}, [256], {i: bytes([i]) for i in range(256)} | {256: b"bc"})
        >>> engine.unfinal_seams("abcab")
        [1]
        """
        marks = text.translate(self._char_opens)
        candidates = [match.start() for match in _OPENS.finditer(marks, 0, len(text) - 1)]
        keys = [text[k : k + 2] for k in candidates]
        return list(compress(candidates, map(not_, map(self._seams.__getitem__, keys))))

    def _may_open(self, token: int) -> bool:
        """Whether a merge across a seam may begin at ``token``'s end: false means every seam between
        ``token`` and the first token of a character's encoding is final.

        Why: encoding ``bytes(a) + bytes(b)``, up to the first merge across the seam each side goes through
        the same states as encoding it alone (a merge on one side never changes a pair on the other), so
        that first merge joins a token that is last in some state of ``a``'s own encoding (its *right
        spine*, from its last byte up to ``a``) with one that is first in some state of ``b``'s. The latter
        begins where ``b`` begins, at the start of a character. So if no token of ``a``'s right spine is
        the left side of a merge whose right side can start a character, ``[a, b]`` is final for every such
        ``b``. The right spine is found by replaying ``a``'s encoding one merge at a time.
        """
        if self._char_start_lefts is None:
            # Built with C-level maps over all merges, like _inner_byte_pairs.
            token_bytes = self._token_bytes.__getitem__
            pairs = list(self._pair_ranks)
            starts_char = map(_CHAR_START.__getitem__, map(itemgetter(0), map(token_bytes, map(itemgetter(1), pairs))))
            self._char_start_lefts = set(compress(map(itemgetter(0), pairs), starts_char))
        lefts = self._char_start_lefts
        ids = self._start_ids(self._token_bytes[token])
        get = self._pair_ranks.get
        while ids[-1] not in lefts:
            ranks = list(map(get, zip(ids, ids[1:]), repeat(NO_RANK)))
            rank = min(ranks, default=NO_RANK)
            if rank == NO_RANK:
                return False
            i = ranks.index(rank)
            ids[i : i + 2] = [self._merged_ids[rank]]
        return True

    def compatible(self, left: int, right: int) -> bool:
        """Whether ``[left, right]`` is the BPE encoding of their joined bytes (cached).

        >>> engine = MergeEngine(range(256), {(104, 105): 0}, [256], {104: b"h", 105: b"i", 33: b"!", 256: b"hi"})
        >>> engine.compatible(104, 105), engine.compatible(105, 33)
        (False, True)
        """
        return self._pairs[left, right]

    def _pair_is_final(self, pair: tuple[int, int]) -> bool:
        verdict = self._own.seam_is_final(pair[0], pair[1])
        if verdict is not None:
            return verdict
        left, right = self._token_bytes[pair[0]], self._token_bytes[pair[1]]
        # A merge across the seam would make a token holding the seam's two bytes side by side. The flags
        # cost a pass over every merge, so the first few verdicts (English with a few dashes needs a
        # handful) are found by merging alone.
        if self._byte_pair_flags is not None or len(self._pairs) >= DIRECT_SEAM_VERDICTS:
            if not self._inner_byte_pairs()[left[-1] << 8 | right[0]]:
                return True
        return self.merge_bytes(left + right) == list(pair)

    def _inner_byte_pairs(self) -> bytearray:
        """Flags for the 65,536 byte pairs: 1 where the pair occurs inside some token a merge makes.

        The token ``a + b`` holds the pairs inside ``a``, those inside ``b``, and ``a[-1], b[0]``; ``a`` and
        ``b`` are single bytes or made by earlier merges, so each merge need add only its own junction
        (plus the inside of an operand that no merge made, which ordinary vocabularies never have).
        """
        if self._byte_pair_flags is None:
            # Built with C-level maps (English text with one curly quote needs it, inside a cold encode).
            flags = bytearray(1 << 16)
            token_bytes = self._token_bytes.__getitem__
            pairs = list(self._pair_ranks)
            last_bytes = map(itemgetter(-1), map(token_bytes, map(itemgetter(0), pairs)))
            first_bytes = map(itemgetter(0), map(token_bytes, map(itemgetter(1), pairs)))
            for junction in set(map(or_, map(lshift, last_bytes, repeat(8)), first_bytes)):
                flags[junction] = 1
            # a set, not a table by id: ids may be sparse and huge
            for operand_id in set(chain.from_iterable(pairs)).difference(self._merged_ids):
                operand = token_bytes(operand_id)
                for first, second in zip(operand, operand[1:]):
                    flags[first << 8 | second] = 1
            self._byte_pair_flags = flags
        return self._byte_pair_flags

    def _glue(self, piece: str, units: list[str], tokens: list[tuple[int, ...]], seams: list[bool]) -> tuple[int, ...]:
        """Join unit encodings, repairing incompatible seams; ``seams[i]`` is the seam after unit ``i``.

        While ``out`` ends with unit ``i - 1``'s own last token the precomputed seam applies, so runs of
        good seams are copied in one step; after a repair the next seam is checked afresh.
        """
        pairs = self._pairs
        out = list(tokens[0])
        budget = 4 * len(piece.encode("utf-8")) + 256  # bytes re-encoded before falling back to the heap
        count = len(units)
        i = 1
        pristine = True
        while i < count:
            if pristine:
                try:
                    bad = seams.index(False, i - 1) + 1
                except ValueError:
                    bad = count
                if bad > i:
                    out.extend(chain.from_iterable(tokens[i:bad]))
                    i = bad
                    if i == count:
                        break
                final = False
            else:
                final = pairs[out[-1], tokens[i][0]]
            if final:
                out.extend(tokens[i])
            else:
                budget -= self._repair(out, units[i].encode("utf-8"))
                if budget < 0:
                    return tuple(self.merge_bytes(piece.encode("utf-8")))
            pristine = out[-1] == tokens[i][-1]
            i += 1
        return tuple(out)

    def _repair(self, out: list[int], tail: bytes) -> int:
        """Append ``tail`` to ``out`` across an incompatible seam; return the bytes re-encoded.

        Re-encodes the last ``width`` tokens together with ``tail``, doubling ``width`` until the new
        window's first token is compatible with the token before it (or the window is all of ``out``).
        The seam after the window is checked when the next unit arrives.
        """
        token_bytes = self._token_bytes.__getitem__
        spent = 0
        width = 1
        while True:
            whole = width >= len(out)
            window = b"".join(map(token_bytes, out if whole else out[-width:])) + tail
            spent += len(window)
            new = self._windows[window]
            if whole:
                out[:] = new
                return spent
            if self._pairs[out[-width - 1], new[0]]:
                out[-width:] = new
                return spent
            width *= 2
