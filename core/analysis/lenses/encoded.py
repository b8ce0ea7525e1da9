"""One short text with the ids and tokens a tokenizer gives it: the row most lenses show several of.

Lenses encode user text with ``encode_ordinary``: a special token's text typed into a lens is shown as
the plain text it is, never turned into a control id.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from core.analysis.lenses.token_strings import token_strings
from core.encode.tokenizer import Tokenizer


@dataclass(frozen=True, slots=True)
class EncodedText:
    """A text and its tokenization.

    Attributes:
        text: the text encoded.
        ids: its token ids.
        tokens: the bytes of each token, in order.
    """

    text: str
    ids: tuple[int, ...]
    tokens: tuple[bytes, ...]

    @property
    def count(self) -> int:
        """How many tokens the text costs."""
        return len(self.ids)

    def to_json(self) -> dict[str, Any]:
        return {"text": self.text, "ids": list(self.ids), "tokens": token_strings(self.tokens), "count": self.count}


def encode_text(tokenizer: Tokenizer, text: str) -> EncodedText:
    """``text`` encoded with ``tokenizer`` (special tokens' text as plain text).

    >>> tok = Tokenizer({i: bytes([i]) for i in range(256)} | {256: b"hi"}, [(b"h", b"i")])
    >>> encode_text(tok, "hi!").to_json()
    {'text': 'hi!', 'ids': [256, 33], 'tokens': ['hi', '!'], 'count': 2}
    """
    ids = tokenizer.encode_ordinary(text)
    return EncodedText(text=text, ids=tuple(ids), tokens=tuple(tokenizer.decode_tokens_bytes(ids)))
