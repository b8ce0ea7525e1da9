"""How lenses print tokens for people: each quoted and escaped, so a token's ends and control bytes show.

>>> tokens_line([b"Hi", b" there\\n"])
'"Hi" " there\\\\n"'
>>> pair_text((b"l", b"ow"))
'"l" + "ow"'
"""

from __future__ import annotations

from collections.abc import Iterable

from bpe_tui.text import escape_token


def quoted(token: bytes | str) -> str:
    """One token, quoted, with control characters and stray bytes escaped."""
    return escape_token(token, glyphs=False, quote=True)


def shown_word(word: str) -> str:
    """A word the user typed, unquoted, with control and invisible characters escaped so that none of
    them reaches the terminal (an escape sequence, a right-to-left override).

    >>> shown_word("caf\\u00e9"), shown_word("a\\x1b[31m\\u202e")
    ('café', 'a\\\\x1b[31m\\\\u202e')
    """
    return escape_token(word, glyphs=False)


def tokens_line(tokens: Iterable[bytes | str]) -> str:
    """Tokens side by side, each quoted."""
    return " ".join(quoted(token) for token in tokens)


def pair_text(pair: tuple[bytes, bytes] | tuple[str, str]) -> str:
    """A merge pair as ``"a" + "b"``."""
    return f"{quoted(pair[0])} + {quoted(pair[1])}"


def symbols_text(word: Iterable[bytes], count: int) -> str:
    """A word as its symbols joined by spaces (a space shown as ``·``), with how often it occurs.

    >>> symbols_text((b"lo", b"w"), 7), symbols_text((b" ", b"a"), 2)
    ('lo w ×7', '· a ×2')
    """
    return " ".join(escape_token(symbol) for symbol in word) + f" ×{count}"


def ids_line(ids: Iterable[int]) -> str:
    """Ids as a bracketed list, the form scripts and people both read."""
    return "[" + ", ".join(map(str, ids)) + "]"
