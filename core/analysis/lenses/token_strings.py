"""How lenses write a token's bytes as a string in their results: UTF-8 where it is text, ``\\xNN`` where not.

JSON output promises token lists as strings. A token that ends inside a multi-byte character is not
valid UTF-8 by itself, so its stray bytes are written as backslash escapes: the string still says
exactly which bytes the token holds, and a whole-character token reads as itself.
"""

from __future__ import annotations

from collections.abc import Iterable


def token_string(token: bytes) -> str:
    """``token`` as a string: its text, with each byte that is not part of a whole character as ``\\xNN``.

    >>> token_string(b" the"), token_string("日".encode()), token_string(b"\\xe6\\x97")
    (' the', '日', '\\\\xe6\\\\x97')
    """
    return token.decode("utf-8", errors="backslashreplace")


def token_strings(tokens: Iterable[bytes]) -> list[str]:
    """:func:`token_string` of each token, in order.

    >>> token_strings([b"lo", b"w"])
    ['lo', 'w']
    """
    return [token_string(token) for token in tokens]
