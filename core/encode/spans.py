"""Where each token of an encoded text lies: byte and character ranges, and whether it splits a character.

Display needs both kinds of offset: bytes are what BPE works on, characters are what a screen shows.
A Japanese character is three UTF-8 bytes and GPT-2 often splits it across tokens, so a token may start
or end inside a character. Such a token still gets a non-empty character range (the characters it
touches, as tiktoken's ``decode_with_offsets`` does), and flags saying that it shares them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol

_CONTINUATION = bytes(range(0x80, 0xC0))
"""UTF-8 continuation bytes (``10xxxxxx``): every other byte starts a character."""


class Encoder(Protocol):
    """The part of :class:`~core.encode.tokenizer.Tokenizer` that :func:`token_spans` uses.

    A protocol, so that this module needs nothing from the tokenizer's: the tokenizer imports it.
    """

    @property
    def special_token_ids(self) -> dict[str, int]: ...

    def encode(self, text: str) -> list[int]: ...

    def decode_tokens_bytes(self, ids: Iterable[int]) -> list[bytes]: ...


@dataclass(frozen=True, slots=True)
class TokenSpan:
    """One token of an encoded text and where it lies.

    Attributes:
        id: the token id.
        token: the token's bytes.
        byte_start: offset of its first byte in ``text.encode("utf-8")``.
        byte_end: offset just past its last byte.
        char_start: index in ``text`` of the character its first byte belongs to.
        char_end: index just past the character its last byte belongs to (so never equal to ``char_start``).
        starts_mid_char: its first byte continues a character begun by an earlier token.
        ends_mid_char: the character its last byte belongs to goes on into the next token.
        is_special: it is a special token.
    """

    id: int
    token: bytes
    byte_start: int
    byte_end: int
    char_start: int
    char_end: int
    starts_mid_char: bool
    ends_mid_char: bool
    is_special: bool

    @property
    def splits_char(self) -> bool:
        """Whether the token shares a character with a neighbour (show its bytes, not U+FFFD)."""
        return self.starts_mid_char or self.ends_mid_char


def token_spans(tokenizer: Encoder, text: str) -> list[TokenSpan]:
    """Encode ``text`` (special tokens allowed) and describe each token's place in it, in O(n).

    Surrogate code points count as U+FFFD, as in :meth:`Tokenizer.encode`.

    >>> from core.encode.tokenizer import Tokenizer
    >>> tok = Tokenizer({i: bytes([i]) for i in range(256)} | {256: b"\\xe3\\x81"}, [(b"\\xe3", b"\\x81")])
    >>> [(s.token, s.char_start, s.char_end, s.starts_mid_char, s.ends_mid_char) for s in token_spans(tok, "aあ")]
    [(b'a', 0, 1, False, False), (b'\\xe3\\x81', 1, 2, False, True), (b'\\x82', 1, 2, True, False)]
    """
    ids = tokenizer.encode(text)
    tokens = tokenizer.decode_tokens_bytes(ids)
    # The text's UTF-8 bytes, as encoding saw them: a surrogate, which UTF-8 cannot hold, became U+FFFD
    # there (one character for one, so character offsets are those of ``text``).
    data = b"".join(tokens)
    special_ids = set(tokenizer.special_token_ids.values())
    spans: list[TokenSpan] = []
    byte_start = 0
    chars_before = 0  # characters begun before byte_start
    for token_id, token in zip(ids, tokens):
        byte_end = byte_start + len(token)
        starts_mid = 0x80 <= token[0] < 0xC0
        ends_mid = byte_end < len(data) and 0x80 <= data[byte_end] < 0xC0
        begun = len(token.translate(None, _CONTINUATION))  # characters whose first byte is in this token
        spans.append(
            TokenSpan(
                id=token_id,
                token=token,
                byte_start=byte_start,
                byte_end=byte_end,
                char_start=chars_before - 1 if starts_mid else chars_before,
                char_end=chars_before + begun,
                starts_mid_char=starts_mid,
                ends_mid_char=ends_mid,
                is_special=token_id in special_ids,
            )
        )
        byte_start = byte_end
        chars_before += begun
    return spans
