"""Streaming decode: turn ids into text one at a time, holding back the bytes of an unfinished character.

A model generating GPT-2 ids emits Japanese characters in pieces (``e3 81`` then ``82``); showing each
piece decoded on its own would flash U+FFFD. The stream decoder returns only whole characters and
exposes the held-back bytes, so a display can show them as bytes until the character completes.
"""

from __future__ import annotations

import codecs
from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from core.encode.tokenizer import Tokenizer


class StreamDecoder:
    """Incremental UTF-8 decoding of a token stream; invalid bytes become U+FFFD as soon as they are known bad.

    >>> from core.encode.tokenizer import Tokenizer
    >>> decoder = StreamDecoder(Tokenizer({i: bytes([i]) for i in range(256)}, []))
    >>> decoder.feed(0xE3), decoder.feed(0x81), decoder.pending, decoder.feed(0x82), decoder.pending
    ('', '', b'\\xe3\\x81', 'あ', b'')
    """

    def __init__(self, tokenizer: Tokenizer) -> None:
        self._tokenizer = tokenizer
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")

    def feed(self, token_id: int) -> str:
        """Add one id; return the text that became complete (possibly empty).

        Raises ``InvalidTokenIdError`` for an id outside the vocabulary (the stream is left unchanged).
        """
        return self._decoder.decode(self._tokenizer.decode_single_token_bytes(token_id))

    def feed_many(self, ids: Iterable[int]) -> str:
        """Add several ids; return the text that became complete.

        >>> from core.encode.tokenizer import Tokenizer
        >>> StreamDecoder(Tokenizer({i: bytes([i]) for i in range(256)}, [])).feed_many([104, 105, 0xE3])
        'hi'
        """
        return "".join(map(self.feed, ids))

    @property
    def pending(self) -> bytes:
        """The bytes of a character begun but not finished (at most three)."""
        return self._decoder.getstate()[0]

    def flush(self) -> str:
        """End the stream: held-back bytes become U+FFFD. The decoder can then start a new stream.

        >>> from core.encode.tokenizer import Tokenizer
        >>> decoder = StreamDecoder(Tokenizer({i: bytes([i]) for i in range(256)}, []))
        >>> decoder.feed(0xE3), decoder.flush(), decoder.pending
        ('', '\\ufffd', b'')
        """
        text = self._decoder.decode(b"", final=True)
        self._decoder.reset()
        return text

    def reset(self) -> None:
        """Drop any held-back bytes and start a new stream."""
        self._decoder.reset()
