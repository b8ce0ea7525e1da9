"""The tokenizer: exact byte-level BPE encode and decode, with the CS336 interface and tiktoken's extras.

``Tokenizer(vocab, merges, special_tokens)`` is Stanford CS336 assignment 1's interface, exactly;
``encode_ordinary``, ``encode(..., allowed_special=, disallowed_special=)`` and the ``decode_*bytes``
family follow tiktoken. Text is cut at special tokens (longest first), split into pre-tokens by the
model's pattern, and each pre-token is merged by rank (:mod:`core.encode.piece_merge`). The hot loop is
``findall`` plus one dict lookup per pre-token, so English runs near the speed of the regex alone.

``encode`` must return exactly :func:`core.reference.encode` for the same vocab, merges, special tokens
and pattern. The reference rescans every pre-token from its bytes; here a pre-token seen before is one
cache lookup, and a new one is merged on token ids by :mod:`core.encode.piece_merge`.
"""

from __future__ import annotations

import os
import re
from array import array
from collections.abc import Collection, Iterable, Iterator, Mapping, Set
from operator import index
from dataclasses import replace
from typing import Literal

from core.errors import BPEError, SettingsError
from core.pretokenize.fast_split import splitter_for
from core.encode.piece_merge import BoundedMemo, MergeEngine
from core.model import BPEModel
from core.pretokenize.patterns import GPT2_PATTERN, special_token_pattern
from core.encode.spans import TokenSpan, token_spans

PIECE_CACHE_LIMIT = 1 << 14
"""Pre-tokens remembered (only those of up to 64 bytes) before the cache is cleared; bounds memory."""

_SPLIT_CHARS = 1 << 20  # longer special-free text is pre-tokenised in slices of this many characters
_HELD_PIECES = 3  # a streamed buffer's last pieces may still change; two suffice for GPT-2's pattern
_SURROGATES = re.compile("[\ud800-\udfff]")


def replace_surrogates(text: str) -> str:
    """Replace each surrogate code point (not encodable as UTF-8) with U+FFFD, keeping character offsets.

    >>> replace_surrogates("a\\ud800b") == "a\\ufffdb"
    True
    """
    return _SURROGATES.sub("\ufffd", text)


def _worth_caching(piece: str) -> bool:
    return len(piece) <= 16 or len(piece.encode("utf-8")) <= 64


class InvalidTokenIdError(BPEError):
    """An id passed to a decode method is not in the vocabulary."""


class TokenIdTypeError(InvalidTokenIdError, TypeError):
    """An id passed to a decode method is not an integer (a ``TypeError``, as in tiktoken, and an
    :class:`InvalidTokenIdError`, so one ``except`` catches every bad id)."""


class DisallowedSpecialTokenError(SettingsError):
    """``encode`` met a special token's text that the caller marked as disallowed."""


class Tokenizer:
    """A byte-level BPE tokenizer.

    Args:
        vocab: id -> token bytes; must hold all 256 single bytes.
        merges: merge rules in rank order as (left bytes, right bytes); each side and their concatenation
            must be in ``vocab``.
        special_tokens: strings never split and encoded as one id each. Those missing from ``vocab`` are
            appended with new ids after the largest one, in the order given.

    Raises:
        TypeError: an argument of the wrong type, named in the message (``special_tokens="<s>"``
            instead of ``["<s>"]``, str tokens in ``vocab``...).
        SettingsError: a single byte is missing from ``vocab``, a merge names a token it lacks, an id is
            negative, or a special token is empty or holds a lone surrogate (which UTF-8 cannot encode).

    >>> tok = Tokenizer({i: bytes([i]) for i in range(256)} | {256: b"hi"}, [(b"h", b"i")], ["<|eot|>"])
    >>> tok.encode("hi!<|eot|>")
    [256, 33, 257]
    >>> tok.decode([256, 33])
    'hi!'
    """

    stream_block_chars: int = 1 << 14
    """How much text :meth:`encode_iterable` gathers before encoding what is certain (memory vs. overhead)."""

    def __init__(
        self,
        vocab: dict[int, bytes],
        merges: list[tuple[bytes, bytes]],
        special_tokens: list[str] | None = None,
    ) -> None:
        self._setup(vocab, merges, special_tokens, GPT2_PATTERN, None)

    @classmethod
    def from_files(
        cls,
        vocab_filepath: str | os.PathLike[str],
        merges_filepath: str | os.PathLike[str],
        special_tokens: list[str] | None = None,
    ) -> Tokenizer:
        """Load GPT-2 style ``vocab.json`` + ``merges.txt`` (GPT-2 byte alphabet).

        The files go through the same checks as :func:`core.formats.load_tokenizer`'s, so a
        ``TokenizerFileError`` names the file and line for a missing, corrupt or inconsistent file,
        including a vocab holding tokens that no merge makes and that are neither in ``special_tokens``
        nor named like one (``<|...|>``): the sign of a ``merges.txt`` cut short.

        >>> Tokenizer.from_files("samples/gpt2/vocab.json",
        ...                      "samples/gpt2/merges.txt").encode("Hello world")  # doctest: +SKIP
        [15496, 995]
        """
        from pathlib import Path

        from core.formats.gpt2 import read

        specials = list(dict.fromkeys(_checked_specials(special_tokens))) if special_tokens is not None else None
        # The loaders' reader and checks (ids, bytes, merges, every token made); specials missing from the
        # vocab are appended by it exactly as the constructor would, so the ids are CS336's.
        model = read(Path(vocab_filepath), Path(merges_filepath), special_tokens=specials)
        return cls(model.vocab, model.merges, special_tokens)

    @classmethod
    def from_model(cls, model: BPEModel) -> Tokenizer:
        """The tokenizer for a :class:`~core.model.BPEModel`, keeping its pattern.

        >>> vocab = {i: bytes([i]) for i in range(256)}
        >>> Tokenizer.from_model(BPEModel(vocab, [], pattern=r"\\S+|\\s+")).encode_ordinary("ab c")
        [97, 98, 32, 99]
        """
        tokenizer = cls.__new__(cls)
        tokenizer._setup(model.vocab, model.merges, model.special_tokens, model.pattern, model)
        return tokenizer

    def _setup(
        self,
        vocab: dict[int, bytes],
        merges: list[tuple[bytes, bytes]],
        special_tokens: list[str] | None,
        pattern: str,
        source: BPEModel | None,
    ) -> None:
        self.vocab: dict[int, bytes] = _checked_vocab(vocab)
        self.merges: list[tuple[bytes, bytes]] = _checked_merges(merges)
        self.pattern = pattern
        encoder: dict[bytes, int] = {}
        for token_id in sorted(self.vocab):  # with duplicate bytes the lowest id encodes
            encoder.setdefault(self.vocab[token_id], token_id)
        missing = [b for b in range(256) if bytes([b]) not in encoder]
        if missing:
            raise SettingsError(
                f"the vocab lacks {len(missing)} single bytes (first: {bytes(missing[:1])!r}); "
                "a byte-level BPE vocab must hold all 256"
            )
        next_id = max(self.vocab) + 1
        self.special_tokens: list[str] = list(dict.fromkeys(_checked_specials(special_tokens)))
        self._special_ids: dict[str, int] = {}
        for token in self.special_tokens:
            data = token.encode("utf-8")
            if data not in encoder:
                self.vocab[next_id] = data
                encoder[data] = next_id
                next_id += 1
            self._special_ids[token] = encoder[data]
        pair_ranks: dict[tuple[int, int], int] = {}
        merged_ids: list[int] = []
        for rank, (left, right) in enumerate(self.merges):
            ids = (encoder.get(left), encoder.get(right), encoder.get(left + right))
            if None in ids:
                absent = (left, right, left + right)[ids.index(None)]
                raise SettingsError(f"merge {rank} ({left!r}, {right!r}) needs token {absent!r}, which the vocab lacks")
            pair_ranks.setdefault((ids[0], ids[1]), rank)  # a repeated merge keeps its first rank
            merged_ids.append(ids[2])  # type: ignore[arg-type]
        self._encoder = encoder
        self._engine = MergeEngine([encoder[bytes([b])] for b in range(256)], pair_ranks, merged_ids, self.vocab)
        self._split = splitter_for(pattern)
        # Long pieces are rarely repeated and costly to hold, so they are encoded but not remembered.
        self._cache = BoundedMemo(self._engine.encode_piece, PIECE_CACHE_LIMIT, keep=_worth_caching)
        self._special_res: dict[frozenset[str], object] = {}
        self._all_specials = special_token_pattern(self.special_tokens)
        self._longest_special = max(map(len, self.special_tokens), default=0)
        self._source = source

    # --- properties ---------------------------------------------------------------------------

    @property
    def piece_cache(self) -> BoundedMemo:
        """The cache of pre-token -> ids (pre-tokens of up to 64 bytes) that makes repeated text fast.

        Exposed so that the processes of a shared export can hand each other what they add to it
        (:meth:`BoundedMemo.adopt`) instead of each encoding every new word itself.
        """
        return self._cache

    @property
    def model(self) -> BPEModel:
        """This tokenizer as a :class:`~core.model.BPEModel` (with any appended special tokens)."""
        if self._source is not None:
            return replace(self._source, vocab=dict(self.vocab), special_tokens=list(self.special_tokens))
        return BPEModel(dict(self.vocab), list(self.merges), list(self.special_tokens), self.pattern)

    @property
    def n_vocab(self) -> int:
        """One more than the largest id (tiktoken's name; ids may have gaps)."""
        return max(self.vocab) + 1

    @property
    def special_token_ids(self) -> dict[str, int]:
        """Special token text -> id."""
        return dict(self._special_ids)

    # --- encoding -----------------------------------------------------------------------------

    def encode(
        self,
        text: str,
        *,
        allowed_special: Literal["all"] | Set[str] = "all",
        disallowed_special: Literal["all"] | Collection[str] = "all",
    ) -> list[int]:
        """Encode ``text``; special tokens in ``allowed_special`` become their ids.

        The default keeps CS336's behaviour: every special token of this tokenizer is recognised.
        (tiktoken's default is the opposite, ``allowed_special=set()``, so there a special token's text
        raises.) Special tokens that are neither allowed nor disallowed are encoded as plain text;
        ``disallowed_special="all"`` means every special token not allowed. Surrogate code points, which
        UTF-8 cannot hold, are encoded as U+FFFD, one each (tiktoken does much the same).

        Each argument is ``"all"`` or a collection of special-token strings (a set, as in tiktoken; a list
        or tuple is read the same way). ``None`` is a ``TypeError``, as in tiktoken, rather than "none":
        pass ``set()`` or ``()`` for that; so is a string other than ``"all"``, which would otherwise be
        read as a set of characters.

        Raises:
            TypeError: ``text`` is not a str, or an argument is neither ``"all"`` nor a collection of str.
            DisallowedSpecialTokenError: the text contains a disallowed special token.
            SettingsError: a name in either argument is not a special token of this tokenizer.

        >>> tok = Tokenizer({i: bytes([i]) for i in range(256)}, [], ["<s>"])
        >>> tok.encode("a<s>"), tok.encode("a<s>", allowed_special=set(), disallowed_special=())
        ([97, 256], [97, 60, 115, 62])
        >>> tok.encode("a", allowed_special=None)
        Traceback (most recent call last):
        TypeError: allowed_special must be "all" or a set of special-token strings, not None; pass set() for none
        """
        if allowed_special == "all" and disallowed_special == "all":
            return self._encode_text(_checked_text(text, "encode"), self._all_specials)
        _checked_text(text, "encode")
        allowed = (
            set(self.special_tokens) if allowed_special == "all" else _special_names(allowed_special, "allowed_special")
        )
        disallowed = (
            set(self.special_tokens) - allowed
            if disallowed_special == "all"
            else _special_names(disallowed_special, "disallowed_special")
        )
        unknown = (allowed | disallowed) - set(self.special_tokens)
        if unknown:
            raise SettingsError(f"{sorted(unknown)[0]!r} is not a special token of this tokenizer")
        if disallowed:
            found = self._special_re(disallowed).search(text)
            if found:
                raise DisallowedSpecialTokenError(
                    f"the text contains the special token {found.group()!r}, which is disallowed; "
                    "allow it (allowed_special) to encode it as one token, or pass disallowed_special=() "
                    "to encode it as text"
                )
        return self._encode_text(text, self._special_re(allowed) if allowed else None)

    def encode_ordinary(self, text: str) -> list[int]:
        """Encode ``text`` with special tokens treated as plain text.

        >>> Tokenizer({i: bytes([i]) for i in range(256)}, [], ["<s>"]).encode_ordinary("<s>")
        [60, 115, 62]
        """
        return self._encode_text(_checked_text(text, "encode_ordinary"), None)

    def encode_iterable(self, iterable: Iterable[str]) -> Iterator[int]:
        """Lazily encode a stream of text chunks (e.g. an open file) in bounded memory.

        Yields exactly ``encode("".join(iterable))``, even when a pre-token or special token straddles
        chunks: a gathered buffer is encoded only up to where later text cannot change the result, and
        the rest waits for more. (Memory grows only with a single unbroken pre-token, which must be whole.)

        Raises:
            TypeError: ``iterable`` is not an iterable of str (checked at once), or an item is not a str
                (raised when the stream reaches it, naming its position: a file opened in binary mode
                gives bytes).

        >>> tok = Tokenizer({i: bytes([i]) for i in range(256)}, [], ["<s>"])
        >>> list(tok.encode_iterable(["a<", "s>b"]))
        [97, 256, 98]
        """
        if isinstance(iterable, (bytes, bytearray, memoryview)) or not isinstance(iterable, Iterable):
            raise TypeError(
                f"encode_iterable() takes an iterable of str (a list of strings, a file opened in text mode), "
                f"not {type(iterable).__name__}"
            )
        return self._encode_stream(iterable)

    def _encode_stream(self, iterable: Iterable[str]) -> Iterator[int]:
        block = self.stream_block_chars
        parts: list[str] = []
        size = 0
        wait = block
        for position, chunk in enumerate(iterable):
            if type(chunk) is not str and not isinstance(chunk, str):
                hint = "; open the file in text mode" if isinstance(chunk, (bytes, bytearray)) else ""
                raise TypeError(f"encode_iterable(): item {position} is {chunk!r:.40}, not a str{hint}")
            if not chunk:
                continue
            if not chunk.isascii() and _SURROGATES.search(chunk):
                chunk = replace_surrogates(chunk)
            parts.append(chunk)
            size += len(chunk)
            if size < wait:
                continue
            buffer = "".join(parts)
            ids, rest = self._encode_certain_prefix(buffer)
            yield from ids
            parts, size = [rest], len(rest)
            wait = size + block if size < len(buffer) else 2 * size  # no progress: wait for twice as much
        if parts:
            yield from self.encode("".join(parts))

    def encode_with_spans(self, text: str) -> list[TokenSpan]:
        """Encode ``text`` and describe where each token lies; see :func:`core.encode.spans.token_spans`."""
        return token_spans(self, _checked_text(text, "encode_with_spans"))

    def _encode_certain_prefix(self, buffer: str) -> tuple[list[int], str]:
        """Encode the part of ``buffer`` that no following text can change; return its ids and the rest.

        A special token starting at or after ``len - longest + 1`` may be cut off, so the final segment
        is only pre-tokenised up to there, and its last pieces are held back: a piece can change when
        text is added after it (``\\s+(?!\\S)`` backs off one space, ``'l`` becomes ``'ll``).
        """
        out: list[int] = []
        start, end = 0, len(buffer)
        specials = self._all_specials
        if specials is not None:
            end -= self._longest_special - 1
            for match in specials.finditer(buffer):
                if match.start() >= end:
                    break
                if match.start() > start:
                    out += self._encode_plain(buffer[start : match.start()])
                out.append(self._special_ids[match.group()])
                start = match.end()
            if start >= end:
                return out, buffer[start:]
        ids, cut = self._encode_settled(buffer, start, end)
        out += ids
        return out, buffer[cut:]

    def _encode_settled(self, text: str, start: int, end: int) -> tuple[list[int], int]:
        """Ids of ``text[start:cut]``, the longest prefix of ``text[start:end]`` whose pre-tokens cannot
        change whatever follows ``end`` (all but the last few), and ``cut``; ``text[start]`` must begin one."""
        pieces = self._split(text[start:end])
        if len(pieces) > _HELD_PIECES and sum(map(len, pieces)) == end - start:
            cut = end - sum(map(len, pieces[-_HELD_PIECES:]))
            return self._encode_split(text[start:cut], pieces[:-_HELD_PIECES]), cut
        return [], start

    def _special_re(self, tokens: Set[str]):  # -> regex.Pattern
        key = frozenset(tokens)
        found = self._special_res.get(key)
        if found is None:
            found = self._special_res[key] = special_token_pattern(key)
        return found

    def _encode_text(self, text: str, specials) -> list[int]:  # specials: regex.Pattern | None
        try:
            return self._encode_segments(text, specials)
        except UnicodeEncodeError:  # only surrogates make str.encode("utf-8") fail
            return self._encode_segments(replace_surrogates(text), specials)

    def _encode_segments(self, text: str, specials) -> list[int]:
        if specials is None:
            return self._encode_plain(text)
        out: list[int] = []
        start = 0
        for match in specials.finditer(text):
            if match.start() > start:
                out += self._encode_plain(text[start : match.start()])
            out.append(self._special_ids[match.group()])
            start = match.end()
        if start < len(text):
            out += self._encode_plain(text[start:])
        return out

    def _encode_plain(self, text: str) -> list[int]:
        if len(text) <= _SPLIT_CHARS:
            return self._encode_split(text, self._split(text))
        # A huge text is pre-tokenised a slice at a time, so its pieces are never all in memory at once.
        out: list[int] = []
        start, size = 0, _SPLIT_CHARS
        while len(text) - start > size:
            ids, cut = self._encode_settled(text, start, start + size)
            out += ids
            size = _SPLIT_CHARS if cut > start else 2 * size  # one piece longer than the slice: widen
            start = cut
        return out + self._encode_split(text[start:], self._split(text[start:]))

    def _encode_split(self, text: str, pieces: list[str]) -> list[int]:
        """Ids for ``text`` without special tokens, given its pre-tokens."""
        # Text of mostly wide characters: pre-tokens rarely repeat, their characters do.
        if len(pieces) > 32 and not text.isascii() and len(text.encode("utf-8")) > 2 * len(text):
            ids = self._engine.encode_text(text, pieces, self._cache)
            if ids is not None:
                return ids
        return self._encode_pieces(pieces)

    def _encode_pieces(self, pieces: list[str]) -> list[int]:
        # The hot loop: one C-level dict lookup per pre-token; misses go to BoundedMemo.__missing__.
        out: list[int] = []
        extend = out.extend
        for ids in map(self._cache.__getitem__, pieces):
            extend(ids)
        return out

    # --- decoding -----------------------------------------------------------------------------

    def decode(self, ids: Iterable[int]) -> str:
        """Decode ids to text; bytes that are not valid UTF-8 become U+FFFD.

        Raises:
            InvalidTokenIdError: an id is not in the vocabulary (negative, too large, or a gap).
            TokenIdTypeError: an id is not an integer (a float, a str, ``None``); also a ``TypeError``.
            TypeError: ``ids`` is not a sequence of ids (``bytes`` or a ``str``: decode those with
                ``bytes.decode``; one id: wrap it in a list).

        >>> Tokenizer({i: bytes([i]) for i in range(256)}, []).decode([104, 105, 0xE3])
        'hi\\ufffd'
        """
        return self._bytes_of(ids, "decode").decode("utf-8", errors="replace")

    def decode_bytes(self, ids: Iterable[int]) -> bytes:
        """Decode ids to the raw bytes they stand for.

        >>> Tokenizer({i: bytes([i]) for i in range(256)}, []).decode_bytes([0xE3, 0x81])
        b'\\xe3\\x81'
        """
        return self._bytes_of(ids, "decode_bytes")

    def _bytes_of(self, ids: Iterable[int], method: str) -> bytes:
        ids = self._id_sequence(ids, method)
        try:
            return b"".join(map(self.vocab.__getitem__, ids))
        except (KeyError, TypeError):
            self._check_ids(ids)
            raise

    def decode_single_token_bytes(self, token_id: int) -> bytes:
        """The bytes of one token.

        >>> Tokenizer({i: bytes([i]) for i in range(256)}, []).decode_single_token_bytes(65)
        b'A'
        """
        try:
            return self.vocab[index(token_id)]
        except (KeyError, TypeError):
            self._check_ids([token_id])
            raise

    def decode_tokens_bytes(self, ids: Iterable[int]) -> list[bytes]:
        """The bytes of each token, one entry per id.

        >>> Tokenizer({i: bytes([i]) for i in range(256)}, []).decode_tokens_bytes([72, 105])
        [b'H', b'i']
        """
        ids = self._id_sequence(ids, "decode_tokens_bytes")
        try:
            return list(map(self.vocab.__getitem__, ids))
        except (KeyError, TypeError):
            self._check_ids(ids)
            raise

    def _id_sequence(self, ids: Iterable[int], method: str) -> list[int] | tuple[int, ...]:
        """``ids`` as a list or tuple, refusing what is not a sequence of integers.

        A float equal to an integer would find that id in the vocab dict, so the ids' types are checked
        (in C, by ``array``: a tenth of the cost of decoding) rather than left to the lookups.
        """
        if isinstance(ids, (str, bytes, bytearray, memoryview)):
            hint = "decode bytes with bytes.decode" if not isinstance(ids, str) else "that is text already"
            raise TypeError(f"{method}() takes a sequence of token ids, not {type(ids).__name__} ({hint})")
        if not isinstance(ids, (list, tuple)):
            try:
                ids = list(ids)
            except TypeError:
                raise TypeError(
                    f"{method}() takes a sequence of token ids, not {type(ids).__name__}; wrap one id in a list"
                ) from None
        try:
            array("q", ids)
        except (TypeError, OverflowError):
            self._check_ids(ids)
            raise
        return ids

    def _check_ids(self, ids: Iterable[object]) -> None:
        """Raise for the first id that is not an integer or not in the vocabulary, naming it and its position."""
        for position, token_id in enumerate(ids):
            try:
                number = index(token_id)  # type: ignore[arg-type]
            except TypeError:
                raise TokenIdTypeError(
                    f"token id {token_id!r:.40} (position {position}) is a {type(token_id).__name__}, "
                    "not an integer"
                ) from None
            if number in self.vocab:
                continue
            why = "negative ids do not exist" if number < 0 else f"valid ids are 0..{max(self.vocab)}"
            gap = "" if number < 0 or number > max(self.vocab) else " (an unused id)"
            raise InvalidTokenIdError(
                f"token id {token_id!r} (position {position}) is not in the vocabulary{gap}; {why}"
            )

    def __reduce__(self) -> tuple[object, ...]:
        # Pickled as its model (for worker processes): caches and compiled patterns are rebuilt, not sent.
        return (Tokenizer.from_model, (self.model,))

    def __repr__(self) -> str:
        return (
            f"Tokenizer(vocab_size={len(self.vocab)}, merges={len(self.merges)}, "
            f"special_tokens={self.special_tokens})"
        )


def _checked_text(text: object, method: str) -> str:
    """``text`` if it is a str, else a ``TypeError`` naming what it is (bytes must be decoded first)."""
    if type(text) is str or isinstance(text, str):
        return text  # type: ignore[return-value]
    hint = "; decode bytes first, e.g. data.decode('utf-8')" if isinstance(text, (bytes, bytearray)) else ""
    raise TypeError(f"{method}() text must be str, not {type(text).__name__}{hint}")


def _special_names(value: object, argument: str) -> set[str]:
    """The special-token names in ``allowed_special``/``disallowed_special`` (other than ``"all"``).

    >>> sorted(_special_names(["<a>", "<b>"], "allowed_special"))
    ['<a>', '<b>']
    >>> _special_names("<a>", "allowed_special")
    Traceback (most recent call last):
    TypeError: allowed_special must be "all" or a set of special-token strings, not the str '<a>'; write {'<a>'}
    """
    if value is None:
        raise TypeError(f'{argument} must be "all" or a set of special-token strings, not None; pass set() for none')
    if isinstance(value, str):
        raise TypeError(
            f'{argument} must be "all" or a set of special-token strings, not the str {value!r:.40}; write {{{value!r:.40}}}'
        )
    if not isinstance(value, Collection) or isinstance(value, (bytes, bytearray, Mapping)):
        raise TypeError(f'{argument} must be "all" or a set of special-token strings, not {type(value).__name__}')
    for name in value:
        if not isinstance(name, str):
            raise TypeError(f"{argument} holds {name!r:.40} ({type(name).__name__}); special tokens are strings")
    return set(value)


def _checked_vocab(vocab: object) -> dict[int, bytes]:
    """A copy of ``vocab``, after checking it maps whole numbers >= 0 to bytes."""
    if not isinstance(vocab, Mapping):
        raise TypeError(f"vocab must be a dict of id -> token bytes, not {type(vocab).__name__}")
    copy = dict(vocab)
    for token_id, token in copy.items():
        if not isinstance(token_id, int):
            raise TypeError(f"vocab key {token_id!r:.40} is a {type(token_id).__name__}; ids are ints")
        if token_id < 0:
            raise SettingsError(f"vocab id {token_id} is negative; ids are whole numbers >= 0")
        if type(token) is not bytes:
            hint = f"; write {token!r:.30}.encode('utf-8')" if isinstance(token, str) else ""
            raise TypeError(f"vocab[{token_id}] is a {type(token).__name__}, not bytes{hint}")
    return copy


def _checked_merges(merges: object) -> list[tuple[bytes, bytes]]:
    """``merges`` as a list of byte pairs, after checking each is one."""
    if isinstance(merges, (str, bytes, Mapping)) or not isinstance(merges, Iterable):
        raise TypeError(f"merges must be a list of (left bytes, right bytes) pairs, not {type(merges).__name__}")
    checked = list(merges)
    for rank, merge in enumerate(checked):
        if not (isinstance(merge, (tuple, list)) and len(merge) == 2 and all(type(p) is bytes for p in merge)):
            raise TypeError(f"merges[{rank}] is {merge!r:.60}; each merge is a pair of bytes, (left, right)")
    return [(left, right) for left, right in checked]


def _checked_specials(special_tokens: object) -> list[str]:
    """``special_tokens`` as a list of non-empty strings that UTF-8 can encode.

    >>> _checked_specials("<s>")
    Traceback (most recent call last):
    TypeError: special_tokens must be a list of strings, not the str '<s>' (which would make one special token per character); write ['<s>']
    """
    if special_tokens is None:
        return []
    if isinstance(special_tokens, str):
        raise TypeError(
            f"special_tokens must be a list of strings, not the str {special_tokens!r:.40} (which would make one "
            f"special token per character); write [{special_tokens!r:.40}]"
        )
    if isinstance(special_tokens, (bytes, bytearray, Mapping)) or not isinstance(special_tokens, Iterable):
        raise TypeError(f"special_tokens must be a list of strings, not {type(special_tokens).__name__}")
    tokens = list(special_tokens)
    for position, token in enumerate(tokens):
        if not isinstance(token, str):
            raise TypeError(f"special_tokens[{position}] is {token!r:.40} ({type(token).__name__}), not a str")
        if not token:
            raise SettingsError("a special token is the empty string; every special token needs some text")
        surrogate = _SURROGATES.search(token)
        if surrogate is not None:
            raise SettingsError(
                f"special token {token!r:.40} holds a lone surrogate (U+{ord(surrogate.group()):04X}), which UTF-8 "
                "cannot encode; remove it"
            )
    return tokens
