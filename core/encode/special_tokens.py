"""Special tokens in text: which ones count (tiktoken's ``allowed_special``/``disallowed_special``) and cutting
text at them.

Special tokens are found before pre-tokenisation, longest first where they overlap, and each becomes one
id; the text between them is encoded as plain text. This is :func:`core.reference.split_on_special_tokens`
with one compiled alternation per set of allowed tokens, kept for reuse.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Set
from typing import Literal

from core.encode.arguments import special_names
from core.errors import SettingsError
from core.pretokenize.patterns import special_token_pattern


class DisallowedSpecialTokenError(SettingsError):
    """``encode`` met a special token's text that the caller marked as disallowed."""


class SpecialTokens:
    """A tokenizer's special tokens (text -> id) and the patterns that find them.

    >>> specials = SpecialTokens({"<s>": 9})
    >>> specials.encode("a<s>b", specials.every, lambda text: [ord(text)])
    [97, 9, 98]
    """

    def __init__(self, ids: dict[str, int]) -> None:
        self.ids = ids
        self.every: re.Pattern[str] | None = special_token_pattern(ids)
        """Matches any of them (``None`` when there are none)."""
        self.longest = max(map(len, ids), default=0)
        """The length of the longest, in characters (how far back a token cut off by a chunk may start)."""
        self._patterns: dict[frozenset[str], re.Pattern[str] | None] = {}

    def allowed_pattern(
        self,
        text: str,
        allowed_special: Literal["all"] | Set[str],
        disallowed_special: Literal["all"] | Collection[str],
    ) -> re.Pattern[str] | None:
        """The pattern of the special tokens ``encode`` must recognise in ``text``, after checking the arguments.

        Raises:
            TypeError: an argument is neither ``"all"`` nor a collection of str.
            SettingsError: a name in either argument is not one of these special tokens.
            DisallowedSpecialTokenError: ``text`` contains a disallowed special token.
        """
        if allowed_special == "all" and disallowed_special == "all":
            return self.every
        every = set(self.ids)
        allowed = every if allowed_special == "all" else special_names(allowed_special, "allowed_special")
        disallowed = (
            every - allowed if disallowed_special == "all" else special_names(disallowed_special, "disallowed_special")
        )
        unknown = (allowed | disallowed) - every
        if unknown:
            raise SettingsError(f"{sorted(unknown)[0]!r} is not a special token of this tokenizer")
        if disallowed:
            found = self._pattern(disallowed).search(text)  # type: ignore[union-attr]
            if found:
                raise DisallowedSpecialTokenError(
                    f"the text contains the special token {found.group()!r}, which is disallowed; "
                    "allow it (allowed_special) to encode it as one token, or pass disallowed_special=() "
                    "to encode it as text"
                )
        return self._pattern(allowed) if allowed else None

    def encode(self, text: str, pattern: re.Pattern[str] | None, encode_plain: Callable[[str], list[int]]) -> list[int]:
        """Ids of ``text``: one for each match of ``pattern``, ``encode_plain`` of the text between matches."""
        if pattern is None:
            return encode_plain(text)
        ids = self.ids
        out: list[int] = []
        start = 0
        for match in pattern.finditer(text):
            if match.start() > start:
                out += encode_plain(text[start : match.start()])
            out.append(ids[match.group()])
            start = match.end()
        if start < len(text):
            out += encode_plain(text[start:])
        return out

    def _pattern(self, tokens: Set[str]) -> re.Pattern[str] | None:
        key = frozenset(tokens)
        if key not in self._patterns:
            self._patterns[key] = special_token_pattern(key)
        return self._patterns[key]
