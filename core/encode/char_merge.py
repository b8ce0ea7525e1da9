"""Merging for the character base: the same engine, starting each pre-token from its characters.

Everything in :class:`~core.encode.piece_merge.MergeEngine` (units, seams, repairs, the whole-text path)
re-encodes byte strings through ``merge_bytes``, and the seam property it rests on holds for any starting
split that never crosses a character: BPE over characters is BPE over bytes whose first step groups each
character. So the character base changes only where merging starts: each character that has a token is
that token, any other character (or stray byte of a window cut inside a character) its byte tokens, as
:func:`core.reference.initial_tokens` does.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from core.encode.piece_merge import MergeEngine


class CharMergeEngine(MergeEngine):
    """A :class:`MergeEngine` whose merging starts from characters.

    Args:
        char_ids: character -> its token's id, for every character that has one (``core.char_base.char_token_ids``).
        (the others as for :class:`MergeEngine`)

    >>> engine = CharMergeEngine(range(256), {(97, 300): 0}, [301], {}, {"a": 97, "é": 300})
    >>> engine.merge_bytes("aéaü".encode())
    [301, 97, 195, 188]
    """

    starts_from_bytes = False

    def __init__(
        self,
        byte_ids: Sequence[int],
        pair_ranks: dict[tuple[int, int], int],
        merged_ids: Sequence[int],
        token_bytes: Mapping[int, bytes],
        char_ids: Mapping[str, int],
    ) -> None:
        self._char_ids = dict(char_ids)
        super().__init__(byte_ids, pair_ranks, merged_ids, token_bytes)

    def _start_ids(self, data: bytes) -> list[int]:
        """The tokens merging starts from: one per character that has a token, else one per byte (bytes that
        are not UTF-8 one by one)."""
        byte_ids, char_ids = self._byte_ids, self._char_ids
        ids: list[int] = []
        for char in data.decode("utf-8", "surrogateescape"):
            token_id = char_ids.get(char)
            if token_id is not None:
                ids.append(token_id)
            else:
                ids += [byte_ids[b] for b in char.encode("utf-8", "surrogateescape")]
        return ids
