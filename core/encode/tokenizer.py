"""The tokenizer: exact byte-level BPE encode and decode, with the CS336 interface and tiktoken's extras.

``Tokenizer(vocab, merges, special_tokens)`` is Stanford CS336 assignment 1's interface, exactly;
``encode_ordinary``, ``encode(..., allowed_special=, disallowed_special=)`` and the ``decode_*bytes``
family follow tiktoken. This module builds the tables and holds the public methods; the work is done by

* :mod:`core.encode.special_tokens`: cutting text at special tokens (longest first);
* :mod:`core.encode.plain_text`: pre-tokenising the text between them, each pre-token looked up in the
  cache of :mod:`core.encode.piece_cache`;
* :mod:`core.encode.piece_merge`: merging one new pre-token by rank;
* :mod:`core.encode.streaming`: ``encode_iterable``'s bounded-memory streaming;
* :mod:`core.encode.decoding` and :mod:`core.encode.arguments`: decoding, and checking what callers pass.

``encode`` must return exactly :func:`core.reference.encode` for the same vocab, merges, special tokens
and pattern. The reference rescans every pre-token from its bytes; here a pre-token seen before is one
cache lookup, and a new one is merged on token ids.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Iterable, Iterator, Set
from dataclasses import replace
from operator import add, itemgetter
from typing import Literal

from core.encode import decoding
from core.encode.arguments import (
    checked_merges,
    checked_specials,
    checked_text,
    checked_vocab,
    replace_surrogates,
)
from core.encode.decoding import InvalidTokenIdError, TokenIdTypeError
from core.char_base import char_token_ids
from core.encode.char_merge import CharMergeEngine
from core.encode.normalized_encoding import normalize_in
from core.encode.piece_merge import MergeEngine
from core.encode.piece_cache import PIECE_CACHE_LIMIT, PieceCache
from core.encode.plain_text import PlainTextEncoder
from core.encode.spans import TokenSpan, token_spans
from core.encode.special_tokens import DisallowedSpecialTokenError, SpecialTokens
from core.encode.streaming import certain_prefix, encode_stream
from core.errors import SettingsError
from core.model import BYTE_BASE, CHAR_BASE, BPEModel
from core.pretokenize.fast_split import splitter_for, tiles_every_text
from core.pretokenize.patterns import GPT2_PATTERN, SETTLING_PATTERNS

__all__ = [
    "PIECE_CACHE_LIMIT",
    "DisallowedSpecialTokenError",
    "InvalidTokenIdError",
    "TokenIdTypeError",
    "Tokenizer",
    "replace_surrogates",
]


class Tokenizer:
    """A BPE tokenizer: byte-level, or with a character base when made by :meth:`from_model` from such a model.

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
        vocab_filepath: str | bytes | os.PathLike[str],
        merges_filepath: str | bytes | os.PathLike[str],
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

        specials = list(dict.fromkeys(checked_specials(special_tokens))) if special_tokens is not None else None
        # The loaders' reader and checks (ids, bytes, merges, every token made); specials missing from the
        # vocab are appended by it exactly as the constructor would, so the ids are CS336's.
        model = read(Path(os.fsdecode(vocab_filepath)), Path(os.fsdecode(merges_filepath)), special_tokens=specials)
        return cls(model.vocab, model.merges, special_tokens)

    @classmethod
    def from_model(cls, model: BPEModel) -> Tokenizer:
        """The tokenizer for a :class:`~core.model.BPEModel`, keeping its pattern and its base (bytes or characters).

        >>> vocab = {i: bytes([i]) for i in range(256)}
        >>> Tokenizer.from_model(BPEModel(vocab, [], pattern=r"\\S+|\\s+")).encode_ordinary("ab c")
        [97, 98, 32, 99]
        """
        tokenizer = cls.__new__(cls)
        tokenizer._setup(model.vocab, model.merges, model.special_tokens, model.pattern, model)
        if model.normalizer is not None:  # Qwen2's NFC: replaces _encode_text, _certain_prefix, _token_spans
            normalize_in(tokenizer, model.normalizer)
        return tokenizer

    def _setup(
        self,
        vocab: dict[int, bytes],
        merges: list[tuple[bytes, bytes]],
        special_tokens: list[str] | None,
        pattern: str,
        source: BPEModel | None,
    ) -> None:
        self.vocab: dict[int, bytes] = checked_vocab(vocab)
        self.merges: list[tuple[bytes, bytes]] = checked_merges(merges)
        self.pattern = pattern
        ids = sorted(self.vocab)
        # With duplicate bytes the lowest id encodes: it comes last in reverse order, and the last value stays.
        encoder = dict(zip(map(self.vocab.__getitem__, reversed(ids)), reversed(ids)))
        missing = [b for b in range(256) if bytes([b]) not in encoder]
        if missing:
            raise SettingsError(
                f"the vocab lacks {len(missing)} single bytes (first: {bytes(missing[:1])!r}); "
                "a byte-level BPE vocab must hold all 256"
            )
        next_id = max(self.vocab) + 1
        self.special_tokens: list[str] = list(dict.fromkeys(checked_specials(special_tokens)))
        special_ids: dict[str, int] = {}
        for token in self.special_tokens:
            data = token.encode("utf-8")
            if data not in encoder:
                self.vocab[next_id] = data
                encoder[data] = next_id
                next_id += 1
            special_ids[token] = encoder[data]
        # (C-level maps: GPT-2 has 50,000 merges, and a tokenizer is built for every step the stepper shows)
        lefts, rights = list(map(itemgetter(0), self.merges)), list(map(itemgetter(1), self.merges))
        left_ids, right_ids = list(map(encoder.get, lefts)), list(map(encoder.get, rights))
        merged_ids = list(map(encoder.get, map(add, lefts, rights)))
        if None in left_ids or None in right_ids or None in merged_ids:
            for rank, (left, right) in enumerate(self.merges):
                for absent in (left, right, left + right):
                    if absent not in encoder:
                        raise SettingsError(
                            f"merge {rank} ({left!r}, {right!r}) needs token {absent!r}, which the vocab lacks"
                        )
        pair_ranks = dict(zip(zip(left_ids, right_ids), range(len(left_ids))))
        if len(pair_ranks) < len(left_ids):  # a repeated merge keeps its first rank
            pair_ranks = {}
            for rank, pair in enumerate(zip(left_ids, right_ids)):
                pair_ranks.setdefault(pair, rank)
        self._encoder = encoder
        byte_ids = [encoder[bytes([b])] for b in range(256)]
        self.base = source.base if source is not None else BYTE_BASE
        """What encoding starts from: ``"bytes"``, or ``"chars"`` (each character with a token of its own)."""
        if self.base == CHAR_BASE:
            self._engine = CharMergeEngine(byte_ids, pair_ranks, merged_ids, self.vocab, char_token_ids(self.vocab))
        else:
            self._engine = MergeEngine(byte_ids, pair_ranks, merged_ids, self.vocab)
        self._plain = PlainTextEncoder(
            self._engine, splitter_for(pattern), tiles=tiles_every_text(pattern), short_slices=pattern in SETTLING_PATTERNS
        )
        self._specials = SpecialTokens(special_ids)
        self._source = source

    # --- properties ---------------------------------------------------------------------------

    @property
    def piece_cache(self) -> PieceCache:
        """The cache of pre-token -> ids (pre-tokens of up to 64 bytes) that makes repeated text fast.

        Exposed so that the processes of a shared export can hand each other what they add to it
        (:meth:`~core.encode.bounded_memo.BoundedMemo.adopt`) instead of each encoding every new word itself.
        """
        return self._plain.cache

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
        return dict(self._specials.ids)

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
        specials = self._specials.allowed_pattern(
            checked_text(text, "encode"), allowed_special, disallowed_special
        )
        return self._encode_text(text, specials)

    def encode_ordinary(self, text: str) -> list[int]:
        """Encode ``text`` with special tokens treated as plain text.

        >>> Tokenizer({i: bytes([i]) for i in range(256)}, [], ["<s>"]).encode_ordinary("<s>")
        [60, 115, 62]
        """
        return self._encode_text(checked_text(text, "encode_ordinary"), None)

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
        return encode_stream(
            iterable,
            self.stream_block_chars,
            self._certain_prefix,
            self.encode,
        )

    def _certain_prefix(self, buffer: str) -> tuple[list[int], str]:
        return certain_prefix(buffer, self._specials, self._plain)

    def encode_with_spans(self, text: str) -> list[TokenSpan]:
        """Encode ``text`` and describe where each token lies; see :func:`core.encode.spans.token_spans`."""
        return self._token_spans(checked_text(text, "encode_with_spans"))

    def _token_spans(self, text: str) -> list[TokenSpan]:
        return token_spans(self, text)

    def _encode_text(self, text: str, specials) -> list[int]:  # specials: re.Pattern | None
        try:
            return self._specials.encode(text, specials, self._plain.encode)
        except UnicodeEncodeError:  # only surrogates make str.encode("utf-8") fail
            return self._specials.encode(replace_surrogates(text), specials, self._plain.encode)

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
        return decoding.joined_bytes(self.vocab, ids, "decode").decode("utf-8", errors="replace")

    def decode_bytes(self, ids: Iterable[int]) -> bytes:
        """Decode ids to the raw bytes they stand for.

        >>> Tokenizer({i: bytes([i]) for i in range(256)}, []).decode_bytes([0xE3, 0x81])
        b'\\xe3\\x81'
        """
        return decoding.joined_bytes(self.vocab, ids, "decode_bytes")

    def decode_single_token_bytes(self, token_id: int) -> bytes:
        """The bytes of one token.

        >>> Tokenizer({i: bytes([i]) for i in range(256)}, []).decode_single_token_bytes(65)
        b'A'
        """
        return decoding.single_token_bytes(self.vocab, token_id)

    def decode_tokens_bytes(self, ids: Iterable[int]) -> list[bytes]:
        """The bytes of each token, one entry per id.

        >>> Tokenizer({i: bytes([i]) for i in range(256)}, []).decode_tokens_bytes([72, 105])
        [b'H', b'i']
        """
        return decoding.tokens_bytes(self.vocab, ids, "decode_tokens_bytes")

    def __reduce__(self) -> tuple[object, ...]:
        # Pickled as its model (for worker processes): caches and compiled patterns are rebuilt, not sent.
        return (Tokenizer.from_model, (self.model,))

    def __repr__(self) -> str:
        return (
            f"Tokenizer(vocab_size={len(self.vocab)}, merges={len(self.merges)}, "
            f"special_tokens={self.special_tokens})"
        )
