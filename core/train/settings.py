"""The checks of a training run's settings that need no corpus: a wrong value is refused before any work,
with one line that says what to change.

Apart from :mod:`core.train.run` so that the corpus form can check what is typed into it without loading
the trainer.
"""

from __future__ import annotations

import operator
import re
from collections import Counter
from collections.abc import Sequence
from typing import TypeVar

from core.errors import SettingsError
from core.train.pair_queue import MAX_TOKEN_ID

_SURROGATE = re.compile("[\ud800-\udfff]")

T = TypeVar("T")


def whole_number(value: T) -> T | int:
    """``value`` as an int if it is an integer of another type (a NumPy integer, which has ``__index__``), else
    unchanged, for the checks to judge: a float, a bool or a str is left as it is.

    >>> import numpy as np
    >>> whole_number(np.int64(300)), type(whole_number(np.uint16(7))).__name__, whole_number(300.0), whole_number(True)
    (300, 'int', 300.0, True)
    """
    if isinstance(value, (int, float, str, bytes)) or value is None or not hasattr(type(value), "__index__"):
        return value
    return operator.index(value)  # type: ignore[call-overload]


def validate_settings(vocab_size: int, special_tokens: Sequence[str], min_frequency: int, errors: str) -> None:
    """Reject settings that cannot work, with one line that says what to change."""
    if isinstance(special_tokens, str):
        raise SettingsError("special_tokens must be a list of strings, not one string; wrap it in a list")
    if not isinstance(special_tokens, Sequence):  # None, or a set or generator: no order to give ids in
        raise SettingsError(
            f"special_tokens must be a list of strings (their ids follow its order), not {type(special_tokens).__name__}; "
            "pass [] for none"
        )
    for token in special_tokens:
        if not isinstance(token, str) or token == "":
            raise SettingsError(f"special token {token!r} is empty or not a string; give non-empty strings")
        if not token.isascii() and any("\ud800" <= char <= "\udfff" for char in token):
            raise SettingsError(f"special token {token!r} holds a lone surrogate, which UTF-8 cannot encode; remove it")
        if len(token) == 1 and token.isascii():  # its byte is token ord(token) already: one token, two ids
            raise SettingsError(
                f"special token {token!r} is a single byte, which is token {ord(token)} already; "
                "give a longer one, such as '<|name|>'"
            )
    seen = Counter(special_tokens)
    duplicates = [t for t, n in seen.items() if n > 1]
    if duplicates:
        raise SettingsError(f"special token {duplicates[0]!r} is given twice; give each special token once")
    minimum = 256 + len(special_tokens)
    if not isinstance(vocab_size, int) or isinstance(vocab_size, bool):  # "too small" would send them astray
        raise SettingsError(f"vocab size {vocab_size!r} must be a whole number (an int), not {type(vocab_size).__name__}")
    if vocab_size < minimum:
        raise SettingsError(
            f"vocab size {vocab_size!r} is too small: it must be at least {minimum} "
            f"(256 bytes + {len(special_tokens)} special token{'' if len(special_tokens) == 1 else 's'})"
        )
    if vocab_size > MAX_TOKEN_ID + 1:
        raise SettingsError(f"vocab size {vocab_size} is too large: at most {MAX_TOKEN_ID + 1} tokens are supported")
    if not isinstance(min_frequency, int) or min_frequency < 0:
        raise SettingsError(f"min frequency {min_frequency!r} must be a whole number >= 0")
    if errors not in ("strict", "replace"):
        raise SettingsError(f"errors={errors!r} is not understood; use 'strict' or 'replace'")


def check_text_field(text_field: object) -> None:
    """Refuse a text field that names no JSON field or Parquet column (``bpe-tui train --text-field``, the
    corpus form's text field).

    >>> check_text_field("content")
    >>> check_text_field("")
    Traceback (most recent call last):
    core.errors.SettingsError: text field '' must be a non-empty field or column name
    """
    if not isinstance(text_field, str) or not text_field:
        raise SettingsError(f"text field {text_field!r} must be a non-empty field or column name")


def check_training_text(text: object) -> None:
    """Refuse in-memory text to train on (``TrainingRun.from_text``) that is not a str UTF-8 can encode: bytes
    failed with "'bytes' object has no attribute 'encode'" and a lone surrogate with a UnicodeEncodeError, both
    from inside the run.

    >>> check_training_text("low lower")
    >>> check_training_text(b"low")
    Traceback (most recent call last):
    core.errors.SettingsError: text must be a str, not bytes; decode it first, e.g. data.decode('utf-8')
    >>> check_training_text("a\\udce9b")
    Traceback (most recent call last):
    core.errors.SettingsError: text holds a lone surrogate (U+DCE9) at index 1, which UTF-8 cannot encode; decode the bytes with errors='replace' (U+FFFD) or remove it
    """
    if not isinstance(text, str):
        hint = "; decode it first, e.g. data.decode('utf-8')" if isinstance(text, (bytes, bytearray)) else ""
        raise SettingsError(f"text must be a str, not {type(text).__name__}{hint}")
    if not text.isascii():
        surrogate = _SURROGATE.search(text)
        if surrogate is not None:
            raise SettingsError(
                f"text holds a lone surrogate (U+{ord(surrogate.group()):04X}) at index {surrogate.start():,}, which "
                "UTF-8 cannot encode; decode the bytes with errors='replace' (U+FFFD) or remove it"
            )
