"""Checks of what callers hand the tokenizer: each wrong type or value becomes one error naming it and the fix.

The constructor, ``encode`` and friends are a public API used from notebooks and scripts, so a mistake
(``special_tokens="<s>"``, ``str`` tokens in a vocab, ``allowed_special=None``) must fail at once with a
message that says what to write instead, not deep inside the merge loop.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Mapping
from itertools import chain

from core.errors import SettingsError

SURROGATES = re.compile("[\ud800-\udfff]")
"""Lone surrogate code points: a ``str`` may hold them, UTF-8 cannot."""


def replace_surrogates(text: str) -> str:
    """Replace each surrogate code point (not encodable as UTF-8) with U+FFFD, keeping character offsets.

    >>> replace_surrogates("a\\ud800b") == "a\\ufffdb"
    True
    """
    return SURROGATES.sub("\ufffd", text)


def checked_text(text: object, method: str) -> str:
    """``text`` if it is a str, else a ``TypeError`` naming what it is (bytes must be decoded first).

    >>> checked_text(b"hi", "encode")
    Traceback (most recent call last):
    TypeError: encode() text must be str, not bytes; decode bytes first, e.g. data.decode('utf-8')
    """
    if type(text) is str or isinstance(text, str):
        return text  # type: ignore[return-value]
    hint = "; decode bytes first, e.g. data.decode('utf-8')" if isinstance(text, (bytes, bytearray)) else ""
    raise TypeError(f"{method}() text must be str, not {type(text).__name__}{hint}")


def special_names(value: object, argument: str) -> set[str]:
    """The special-token names in ``allowed_special``/``disallowed_special`` (other than ``"all"``).

    >>> sorted(special_names(["<a>", "<b>"], "allowed_special"))
    ['<a>', '<b>']
    >>> special_names("<a>", "allowed_special")
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


def checked_vocab(vocab: object) -> dict[int, bytes]:
    """A copy of ``vocab``, after checking it maps whole numbers >= 0 to bytes.

    >>> checked_vocab({0: "a"})
    Traceback (most recent call last):
    TypeError: vocab[0] is a str, not bytes; write 'a'.encode('utf-8')
    """
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


def checked_merges(merges: object) -> list[tuple[bytes, bytes]]:
    """``merges`` as a list of byte pairs, after checking each is one.

    >>> checked_merges([[b"a", b"b"]])
    [(b'a', b'b')]
    """
    if isinstance(merges, (str, bytes, Mapping)) or not isinstance(merges, Iterable):
        raise TypeError(f"merges must be a list of (left bytes, right bytes) pairs, not {type(merges).__name__}")
    checked = list(merges)
    # The usual case checked with no Python step per merge (GPT-2 has 50,000); otherwise find the culprit.
    pairs = set(map(type, checked)) <= {tuple} and set(map(len, checked)) <= {2}
    if pairs and set(map(type, chain.from_iterable(checked))) <= {bytes}:
        return checked
    for rank, merge in enumerate(checked):
        if not (isinstance(merge, (tuple, list)) and len(merge) == 2 and all(type(p) is bytes for p in merge)):
            raise TypeError(f"merges[{rank}] is {merge!r:.60}; each merge is a pair of bytes, (left, right)")
    return [(left, right) for left, right in checked]


def checked_specials(special_tokens: object) -> list[str]:
    """``special_tokens`` as a list of non-empty strings that UTF-8 can encode.

    >>> checked_specials("<s>")
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
    if isinstance(special_tokens, (set, frozenset)):  # the ids appended would follow hash order, per process
        raise TypeError(
            f"special_tokens must be a list of strings, not a {type(special_tokens).__name__}: the ids of those missing "
            "from the vocab follow its order; write a list, e.g. sorted(...)"
        )
    tokens = list(special_tokens)
    for position, token in enumerate(tokens):
        if not isinstance(token, str):
            raise TypeError(f"special_tokens[{position}] is {token!r:.40} ({type(token).__name__}), not a str")
        if not token:
            raise SettingsError("a special token is the empty string; every special token needs some text")
        surrogate = SURROGATES.search(token)
        if surrogate is not None:
            raise SettingsError(
                f"special token {token!r:.40} holds a lone surrogate (U+{ord(surrogate.group()):04X}), which UTF-8 "
                "cannot encode; remove it"
            )
    return tokens
