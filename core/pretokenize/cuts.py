"""Where a corpus may be cut so that its pieces, pre-tokenised (or encoded) one by one, give exactly the whole's.

Training reads a file in chunks and export encodes one in chunks, both across processes; both cut the
file with :func:`first_safe_cut`, so they share this one rule. A cut at byte ``p`` is *safe* when the
pre-tokens of ``text[:p]`` followed by those of ``text[p:]`` are exactly the pre-tokens of ``text``.
Pre-tokenising takes two steps, and a safe cut must be safe for both.

1. **Special tokens** split the text into documents (leftmost first, longest first at one place). A cut
   strictly inside an occurrence of a special token is never safe. A cut anywhere else leaves every
   occurrence whole on one side, so both sides meet the same occurrences and choose the same ones. The
   two edges of an *isolated* occurrence (one that overlaps no other) are safe whatever the pattern: the
   scan is bound to choose that occurrence, so the whole text is split into documents there anyway. An
   occurrence that overlaps another (``\\n\\n`` in ``\\n\\n\\n``, ``<s>`` in ``<s><s>`` when both are
   special) may lose to its neighbour, depending on what came before, so its edges are not cuts.

2. **The split pattern** runs on each document. Inside a document a cut is safe only if (a) no pre-token
   of the whole document spans it, (b) the pre-tokens before it do not depend on the text after it
   (greedy loops, lookaheads, the end of the text) and (c) those after it do not depend on the text
   before it (lookbehinds, anchors). Whether that holds depends on the pattern, and for an arbitrary
   regex no look at a window around a candidate can tell: ``\\w+(?=.*!)`` or ``a+b|a`` make a pre-token
   depend on text any distance away, so comparing the matches of a window with those of its halves is
   only right when the window is lucky. (``regex``'s partial matching does not help either: it flags a
   match cut off at the end of the text, not an earlier one that looked past it.) So each pattern's
   rule is proven, by hand, once, and looked up in :data:`PATTERN_RULES`:

   * :data:`BEFORE_WHITESPACE` — GPT-2's pattern and ``\\S+|\\s+``: cut before a whitespace character
     that follows a non-whitespace one. (a) No alternative of either pattern matches a non-whitespace
     character followed by a whitespace one (GPT-2's optional space comes first, its other loops exclude
     ``\\s``, its ``\\s+`` loops only ``\\s``). (b) A match attempt that starts before ``p`` and reads
     the character at ``p`` does so in a loop or literal that excludes whitespace, which stops (or
     fails) there just as it does at the end of the text; a ``\\s+`` run cannot reach ``p``, since
     ``p - 1`` is not whitespace, so ``(?!\\S)`` is only ever evaluated before ``p``. (c) Neither
     pattern looks behind.
   * :data:`AFTER_WHITESPACE` — ``\\S+\\s+|\\S+|\\s+`` (each word with the whitespace after it): cut
     after a whitespace character that is followed by a non-whitespace one. (a) A match is ``\\S*\\s*``,
     never whitespace then non-whitespace. (b) The only loop an attempt starting before ``p`` can carry
     up to ``p`` is a ``\\s+`` (``p - 1`` is whitespace, so a ``\\S+`` run ends before it), and ``\\s+``
     stops at the non-whitespace character at ``p`` just as at the end of the text. (c) No lookbehind.

   GPT-2's rule is *not* safe for the third pattern (``"word "`` is one pre-token there), and the third
   pattern's rule is not safe for GPT-2's (``\\s+(?!\\S)`` gives the last space of a run to the next
   word): the rule belongs to the pattern.

   Any other pattern is cut only at the edges of isolated special tokens (rule ``None``), which is safe
   for every pattern. A corpus with such a pattern and no special token is then one chunk: read or
   encoded by one process, which is slower, never wrong.

Candidates on the whitespace side of a cut are ASCII whitespace bytes only (found with ``bytes.find``,
so GPT-2's common case stays fast); the character on the other side may be anything, and non-ASCII
whitespace (U+3000, U+00A0) counts as whitespace there. An ASCII byte is never part of a longer UTF-8
sequence, so the pieces decode to the same characters as the whole, with ``errors="replace"`` too.
Read with ``errors="replace"``, a corpus whose special tokens hold U+FFFD is not cut at all
(:func:`replacement_hides_specials`): invalid bytes decode to U+FFFD there, out of this byte search's sight.
A cut at a document edge can give one piece an empty document, and an empty-matching pattern an empty
match more or less; both hold no bytes, so they change no pair count and no id.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO, Literal

from core.pretokenize.patterns import GPT2_PATTERN

PatternRule = Literal["before whitespace", "after whitespace"]

BEFORE_WHITESPACE: PatternRule = "before whitespace"
"""Cut before an ASCII whitespace byte whose previous character is not whitespace."""

AFTER_WHITESPACE: PatternRule = "after whitespace"
"""Cut after an ASCII whitespace byte whose next character is not whitespace."""

PATTERN_RULES: dict[str, PatternRule] = {
    GPT2_PATTERN: BEFORE_WHITESPACE,
    r"\S+|\s+": BEFORE_WHITESPACE,
    r"\S+\s+|\S+|\s+": AFTER_WHITESPACE,
}
"""The patterns whose cuts inside a document are proven safe (see the module docstring), and where."""

ASCII_WHITESPACE = frozenset(" \t\n\x0b\x0c\r")
"""What ``\\s`` matches in ``regex`` among ASCII characters (a test checks it against ``regex``)."""
_WHITESPACE_BYTES = b" \n\t\r\x0b\x0c"

_FIRST_SEARCH_BYTES = 1 << 12
"""How far past a target offset the search for a cut first reads. A cut nearly always turns up within a
few bytes (the next space), and reading a large block at every cut delayed an export before the work
could be shared out. Each further search reads twice as far, up to :data:`_MAX_SEARCH_BYTES`."""
_MAX_SEARCH_BYTES = 1 << 20


def replacement_hides_specials(special_tokens: list[str], errors: str) -> bool:
    """Whether a corpus read with ``errors`` must not be cut at all: with ``"replace"``, invalid bytes become
    U+FFFD, so a special token holding U+FFFD can occur in the text where its bytes are not in the file, and
    no search of the bytes can keep a cut out of it (or out of a token it overlaps).

    >>> replacement_hides_specials(["<\ufffd>"], "replace"), replacement_hides_specials(["<\ufffd>"], "strict")
    (True, False)
    """
    return errors == "replace" and any("\ufffd" in token for token in special_tokens)


def cut_pattern(pattern: str, normalizer: str | None) -> str:
    """The pattern to cut a corpus by for a model that normalizes its text to ``normalizer`` before splitting
    it (Qwen2's NFC): ``pattern``, or, where its rule's cuts are not safe after normalizing, ``pattern`` in a
    group, which no rule names, so the corpus is cut only at special tokens.

    The cuts of both rules are at ASCII whitespace, which normalizes to itself and joins with no neighbour, so
    each side normalizes alone as within the whole. A cut before whitespace stays one: no character's normal
    form ends in whitespace unless it is whitespace. A cut after whitespace does not under NFKC and NFKD,
    which make characters that are not whitespace start with a space (``¨`` is a space and U+0308): both
    sides of the cut are then whitespace, which ``\\s+`` joins.

    >>> after = r"\\S+\\s+|\\S+|\\s+"
    >>> cut_pattern(after, "NFC") == after, pattern_rule(cut_pattern(after, "NFKC"))
    (True, None)
    """
    unsafe = normalizer in ("NFKC", "NFKD") and pattern_rule(pattern) == AFTER_WHITESPACE
    return f"(?:{pattern})" if unsafe else pattern


def pattern_rule(pattern: str) -> PatternRule | None:
    """Where ``pattern`` may be cut inside a document, or ``None``: only at the edges of special tokens.

    >>> pattern_rule(GPT2_PATTERN), pattern_rule(r"\\S+\\s+|\\S+|\\s+"), pattern_rule(r"\\w+|\\W")
    ('before whitespace', 'after whitespace', None)
    """
    return PATTERN_RULES.get(pattern)


def char_before_is_whitespace(data: bytes, p: int) -> bool:
    """Whether the character ending just before byte ``p`` of ``data`` is whitespace (``\\s`` in ``regex``).

    >>> char_before_is_whitespace(b"a b", 2), char_before_is_whitespace("\\u3000b".encode(), 3)
    (True, True)
    """
    if p and data[p - 1] < 0x80:
        return data[p - 1] in _WHITESPACE_BYTES
    start = p - 1
    while start > 0 and p - start < 4 and 0x80 <= data[start] < 0xC0:
        start -= 1
    return _is_whitespace(data[start:p].decode("utf-8", errors="replace")[-1:])


def char_at_is_whitespace(data: bytes, p: int) -> bool:
    """Whether the character starting at byte ``p`` of ``data`` is whitespace (``\\s`` in ``regex``).

    >>> char_at_is_whitespace(b"a b", 1), char_at_is_whitespace("\\u3000b".encode(), 0)
    (True, True)
    """
    if p < len(data) and data[p] < 0x80:
        return data[p] in _WHITESPACE_BYTES
    return _is_whitespace(data[p : p + 4].decode("utf-8", errors="replace")[:1])


def _is_whitespace(char: str) -> bool:
    if not char:
        return False
    if char.isascii():
        return char in ASCII_WHITESPACE
    import regex  # here: only corpora with non-ASCII text need it, and it takes about 25 ms to import

    return regex.match(r"\s", char) is not None


def _occurrences(data: bytes, token: bytes, lo: int, hi: int) -> Iterator[int]:
    """Starts of ``token`` in ``data`` at positions ``lo <= at < hi``."""
    stop = hi + len(token) - 1  # an occurrence starting before ``hi`` ends by here
    at = data.find(token, max(lo, 0), stop)
    while at != -1:
        yield at
        at = data.find(token, at + 1, stop)


def _inside_special(data: bytes, p: int, specials: list[bytes]) -> bool:
    """Whether some occurrence of a special token has ``p`` strictly inside it."""
    return any(True for token in specials for _ in _occurrences(data, token, p - len(token) + 1, p))


def _isolated(data: bytes, start: int, end: int, specials: list[bytes]) -> bool:
    """Whether the occurrence ``[start, end)`` overlaps no other occurrence of a special token."""
    for token in specials:
        for at in _occurrences(data, token, start - len(token) + 1, end):
            if (at, at + len(token)) != (start, end):
                return False
    return True


def first_safe_cut(data: bytes, lo: int, hi: int, specials: list[bytes], rule: PatternRule | None) -> int | None:
    """The earliest safe cut ``p`` with ``lo <= p < hi`` in ``data`` (see the module docstring), or ``None``.

    ``rule`` is the pattern's (:func:`pattern_rule`). ``data`` must extend twice the longest special
    token's length plus 4 bytes beyond both ends of ``[lo, hi)`` (or be the whole file there), so that no
    occurrence around a candidate and no character next to one is missed.

    >>> first_safe_cut(b"ab  cd ef", 1, 9, [], BEFORE_WHITESPACE)
    2
    >>> first_safe_cut(b"ab  cd ef", 1, 9, [], AFTER_WHITESPACE)
    4
    >>> first_safe_cut(b"x<s>y z", 1, 7, [b"<s>"], None)
    1
    """
    best: int | None = None
    if rule == BEFORE_WHITESPACE:
        for space in _WHITESPACE_BYTES:
            at = data.find(space, max(lo, 1), hi if best is None else best)
            while at != -1:
                if not char_before_is_whitespace(data, at) and not _inside_special(data, at, specials):
                    best = at
                    break
                at = data.find(space, at + 1, hi if best is None else best)
    elif rule == AFTER_WHITESPACE:
        for space in _WHITESPACE_BYTES:
            at = data.find(space, max(lo - 1, 0), (hi if best is None else best) - 1)
            while at != -1:
                p = at + 1
                if p < len(data) and not char_at_is_whitespace(data, p) and not _inside_special(data, p, specials):
                    best = p
                    break
                at = data.find(space, p, (hi if best is None else best) - 1)
    for token in specials:
        # Occurrences with an edge in [lo, best): the first isolated one has this token's earliest edge,
        # since the later ones start at or after its end.
        for at in _occurrences(data, token, lo - len(token), hi if best is None else best):
            edge = at if at >= lo else at + len(token)
            if (best is None or edge < best) and edge < hi and _isolated(data, at, at + len(token), specials):
                best = edge
                break
    return best


class _CutSearch:
    """Finds the first safe cut at or after an offset of an open file, reading only a window around it."""

    def __init__(self, handle: BinaryIO, size: int, special_tokens: list[str], pattern: str, *,
                 nul_ends: bool = False) -> None:
        self.handle = handle
        self.size = size
        self.nul_ends = nul_ends
        self.specials = [token.encode("utf-8") for token in special_tokens]
        self.rule = pattern_rule(pattern)
        self.margin = 2 * max(map(len, self.specials), default=0) + 4

    def after(self, lo: int) -> int | None:
        """The first safe cut ``p`` with ``lo <= p < size``, or ``None`` if the rest of the file has none."""
        if self.rule is None and not self.specials:
            return None  # nothing could ever be a cut: do not read the rest of the file to learn it
        block = _FIRST_SEARCH_BYTES
        while lo < self.size:
            base = max(0, lo - self.margin)
            self.handle.seek(base)
            data = self.handle.read(lo - base + block + self.margin)
            hi = lo + block if base + len(data) < self.size else base + len(data)
            found = first_safe_cut(data, lo - base, hi - base, self.specials, self.rule)
            if found is not None:
                return base + found
            nul = data.find(b"\0", lo - base, hi - base) if self.nul_ends else -1
            if nul >= 0:
                # Training refuses a file at its first NUL byte, where the chunk that holds it is read; a
                # sparse file or a disk image (gigabytes of NULs, no cut) was read to its end first.
                return base + nul
            lo = hi
            block = min(2 * block, _MAX_SEARCH_BYTES)
        return None


def chunk_ranges(
    path: Path, special_tokens: list[str], pattern: str, chunk_bytes: int, first_chunk_bytes: int | None = None
) -> Iterator[tuple[int, int]]:
    """Byte ranges ``(start, end)`` covering ``path`` in order, each ending at the first safe cut at least
    ``chunk_bytes`` past its start (``first_chunk_bytes`` for the first one, when given): export's chunks.

    Reads only a window around each target offset. A chunk grows until a safe cut turns up, so a file with
    none (one huge pre-token, or a pattern with no rule and no special token) is one chunk.

    >>> import tempfile
    >>> path = Path(tempfile.mkdtemp()) / "c.txt"; _ = path.write_bytes(b"one two  three")
    >>> list(chunk_ranges(path, [], GPT2_PATTERN, 4))
    [(0, 7), (7, 14)]
    >>> list(chunk_ranges(path, [], r"\\S+\\s+|\\S+|\\s+", 4))
    [(0, 4), (4, 9), (9, 14)]
    >>> list(chunk_ranges(path, [], GPT2_PATTERN, 20, first_chunk_bytes=2))
    [(0, 3), (3, 14)]
    """
    size = path.stat().st_size
    start = 0
    with open(path, "rb") as handle:
        search = _CutSearch(handle, size, special_tokens, pattern)
        while start < size:
            cut = search.after(start + (first_chunk_bytes if start == 0 and first_chunk_bytes else chunk_bytes))
            end = size if cut is None else cut
            yield start, end
            start = end


def chunk_boundaries(path: Path, special_tokens: list[str], pattern: str, n_chunks: int) -> list[int]:
    """Byte offsets ``[0, ..., size]`` cutting ``path`` into at most ``n_chunks`` chunks of about equal size,
    each cut the first safe one at or after its target: training's chunks. Where a search meets a NUL
    byte before any safe cut, it cuts there: training refuses the file at that byte anyway.

    >>> import tempfile; p = Path(tempfile.mkstemp()[1]); _ = p.write_bytes(b"ab cd ef gh")
    >>> chunk_boundaries(p, [], GPT2_PATTERN, 4)
    [0, 2, 5, 8, 11]
    >>> chunk_boundaries(p, [], r"\\S+\\s+|\\S+|\\s+", 4)
    [0, 3, 6, 9, 11]
    >>> chunk_boundaries(p, [], r"\\w+|\\W", 4)
    [0, 11]
    """
    size = path.stat().st_size
    bounds = [0]
    with open(path, "rb") as handle:
        search = _CutSearch(handle, size, special_tokens, pattern, nul_ends=True)
        for i in range(1, n_chunks):
            cut = search.after(max(size * i // n_chunks, bounds[-1] + 1))
            if cut is None:
                break  # the search read to the end of the file: no later target can find one either
            bounds.append(cut)
    bounds.append(size)
    return bounds
