"""The bytes lens: a Japanese sentence token by token, each with its UTF-8 bytes, bare byte tokens marked.

A kana or kanji character is three UTF-8 bytes. A tokenizer that never merged them sees three tokens,
each a third of a character that means nothing alone: a "bare byte" token. The lens shows every token's
bytes, marks those that start or end inside a character, and counts characters, bytes and tokens per
script, which is where Japanese's higher token cost comes from.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from core.analysis.compare import tokens_by_script
from core.analysis.lenses.token_strings import token_string
from core.analysis.script_mix import SCRIPTS, script_mix
from core.encode.spans import TokenSpan
from core.encode.tokenizer import Tokenizer, replace_surrogates
from core.errors import SettingsError

DEFAULT_SENTENCE = "駅前の小さな本屋で、古い地図を三枚買いました。"
"""The lens's sentence unless given another (written for bpe-tui: "At the small bookshop by the station, I bought three old maps.")."""


@dataclass(frozen=True, slots=True)
class ScriptCost:
    """What one script class of the text holds and costs.

    Attributes:
        chars: its characters.
        bytes: their UTF-8 bytes.
        tokens: the tokens credited to it (each token to the letter script holding most of its bytes).
    """

    chars: int
    bytes: int
    tokens: int

    def to_json(self) -> dict[str, int]:
        return {"chars": self.chars, "bytes": self.bytes, "tokens": self.tokens}


@dataclass(frozen=True, slots=True)
class ByteTokens:
    """A text's tokens with their bytes, and its cost per script.

    Attributes:
        text: the text.
        spans: each token with where it lies and whether it splits a character.
        scripts: script class -> its characters, bytes and tokens (every class of ``SCRIPTS``).
    """

    text: str
    spans: tuple[TokenSpan, ...]
    scripts: dict[str, ScriptCost]

    @property
    def bare_tokens(self) -> int:
        """Tokens that start or end inside a character: a byte or two of it, not a whole one."""
        return sum(span.splits_char for span in self.spans)

    def to_json(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "tokens": [
                {"id": span.id, "text": token_string(span.token), "bytes": span.token.hex(" "), "bare": span.splits_char}
                for span in self.spans
            ],
            "bare": self.bare_tokens,
            "chars": len(self.text),
            "bytes": len(self.text.encode("utf-8")),
            "count": len(self.spans),
            "scripts": {script: cost.to_json() for script, cost in self.scripts.items()},
        }


def byte_tokens(tokenizer: Tokenizer, text: str = DEFAULT_SENTENCE) -> ByteTokens:
    """Each token of ``text`` with its bytes, and characters/bytes/tokens per script.

    A lone surrogate (which has no UTF-8) is read as U+FFFD, as ``encode`` reads it.

    Raises:
        SettingsError: ``text`` is empty.

    >>> vocab = {i: bytes([i]) for i in range(256)} | {256: b"\\xe3\\x81"}
    >>> result = byte_tokens(Tokenizer(vocab, [(b"\\xe3", b"\\x81")]), "あa")
    >>> [(t["bytes"], t["bare"]) for t in result.to_json()["tokens"]]
    [('e3 81', True), ('82', True), ('61', False)]
    >>> result.scripts["kana"].to_json(), result.bare_tokens
    ({'chars': 1, 'bytes': 3, 'tokens': 2}, 2)
    """
    if not isinstance(text, str) or not text:
        raise SettingsError("give the bytes lens a non-empty text")
    text = replace_surrogates(text)  # a lone surrogate has no UTF-8: U+FFFD, as encode reads it
    spans = tuple(span for span in tokenizer.encode_with_spans(text))
    mix = script_mix(text)
    tokens = tokens_by_script(text, spans)
    scripts = {
        script: ScriptCost(chars=mix.chars[script], bytes=mix.bytes[script], tokens=tokens[script].tokens)
        for script in SCRIPTS
    }
    return ByteTokens(text=text, spans=spans, scripts=scripts)
