"""Context coverage: how much of a text the first window of N tokens holds, for a few window sizes.

A model sees a text through a context window counted in tokens, so how much text fits depends on the
tokenizer: a window of 1,024 GPT-2 tokens holds about 4 KB of English but much less Japanese. The app
shows these numbers in the workbench and in Compare, one set per tokenizer.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import accumulate
from typing import Any

from core.errors import SettingsError

DEFAULT_WINDOWS = (128, 1024, 8192)
"""Window sizes shown until the user picks others: a small, a GPT-2-sized and a long context."""

MAX_WINDOW = 10_000_000
"""Largest window accepted; past this a window covers any text the app can show."""

MAX_WINDOWS = 4
"""Windows shown at once; more would not fit a line at 80 columns."""


@dataclass(frozen=True, slots=True)
class Coverage:
    """What the first ``window`` tokens of a text cover.

    Attributes:
        window: the window size in tokens.
        tokens: tokens actually in the window (fewer than ``window`` when the text is shorter).
        chars: characters wholly inside the window (a character whose bytes the window cuts is not covered).
        bytes: UTF-8 bytes inside the window.
        whole: whether the window holds the whole text.
    """

    window: int
    tokens: int
    chars: int
    bytes: int
    whole: bool


def context_coverage(text: str, token_lengths: Sequence[int], windows: Iterable[int] = DEFAULT_WINDOWS) -> list[Coverage]:
    """For each window size, the characters and bytes of ``text`` its first window of tokens covers.

    Args:
        text: the text that was tokenized.
        token_lengths: the byte length of each token of ``text``, in order (they add up to its UTF-8 size).
        windows: window sizes in tokens, each at least 1.

    Raises:
        ValueError: if the token lengths do not add up to the text's size in bytes.

    >>> text = "ab日本"  # bytes: a, b, then 3 each for 日 and 本
    >>> [(c.window, c.chars, c.bytes, c.whole) for c in context_coverage(text, [2, 2, 4], [1, 2, 3, 5])]
    [(1, 2, 2, False), (2, 2, 4, False), (3, 4, 8, True), (5, 4, 8, True)]
    """
    char_ends = list(accumulate(len(ch.encode("utf-8", errors="surrogatepass")) for ch in text))
    total_bytes = char_ends[-1] if char_ends else 0
    byte_ends = list(accumulate(token_lengths))
    if (byte_ends[-1] if byte_ends else 0) != total_bytes:
        raise ValueError(f"token lengths add up to {sum(token_lengths)} bytes, the text has {total_bytes}")
    result = []
    for window in windows:
        if window < 1:
            raise ValueError(f"a context window must hold at least one token, not {window}")
        tokens = min(window, len(byte_ends))
        covered = byte_ends[tokens - 1] if tokens else 0
        result.append(
            Coverage(
                window=window,
                tokens=tokens,
                chars=bisect_right(char_ends, covered),
                bytes=covered,
                whole=tokens == len(byte_ends),
            )
        )
    return result


def typed_lengths(tokenizer: Any, text: str, ids: Sequence[int], *, normalizes: bool) -> list[int]:
    """The bytes of ``text`` each of its tokens ``ids`` covers, adding up to its UTF-8 size, as
    :func:`context_coverage` takes them: each token's own length, unless the tokenizer ``normalizes`` the text
    first (Qwen2's NFC makes ``e`` + U+0301, three bytes, one ``é`` of two). Then each token covers ``text``
    up to where its span ends in the text as typed (:meth:`~core.encode.tokenizer.Tokenizer.encode_with_spans`).

    >>> from core.encode.tokenizer import Tokenizer
    >>> typed_lengths(Tokenizer({i: bytes([i]) for i in range(256)}, []), "ab", [97, 98], normalizes=False)
    [1, 1]
    """
    if not normalizes:
        return [len(token) for token in tokenizer.decode_tokens_bytes(ids)]
    ends = [span.byte_end for span in tokenizer.encode_with_spans(text)]
    return [end - start for start, end in zip([0, *ends], ends)]


_WINDOW = re.compile(r"(\d+(?:\.\d+)?)([kKmM]?)")


def _tokens(part: str) -> float:
    """The tokens ``part`` stands for (``"8k"`` is 8,192), or -1 if it is not a window size.

    >>> _tokens("1.5k"), _tokens("x")
    (1536.0, -1)
    """
    match = _WINDOW.fullmatch(part)
    if match is None:
        return -1
    number, unit = match.groups()
    return float(number) * {"": 1, "k": 1024, "m": 1024 * 1024}[unit.lower()]


def _window_parts(spec: str) -> list[str]:
    """The windows typed in ``spec``, each as typed (thousands separators removed).

    Spaces and semicolons separate windows; so do commas, except inside a number grouped by thousands:
    a first group of one to three digits followed by groups of exactly three (``1,024``, ``1,048,576``).
    A list item never starts with 0, so a group that does (``024``) says the commas group thousands;
    without one, ``64,128`` may be one window or two, and is refused rather than guessed.

    Raises:
        SettingsError: for such an ambiguous number.
    """
    parts: list[str] = []
    for chunk in filter(None, re.split(r"[\s;]+", spec.strip())):
        fields = chunk.split(",")
        index = 0
        while index < len(fields):
            end = index + 1
            if re.fullmatch(r"\d{1,3}", fields[index]):
                while end < len(fields) and re.fullmatch(r"\d{3}[kKmM]?", fields[end]):
                    end += 1
                    if not fields[end - 1].isdecimal():  # a unit ends the number: "1,024k"
                        break
            grouped = "".join(fields[index:end])
            groups = fields[index + 1 : end]
            if groups and not any(group.startswith("0") for group in groups):
                if _tokens(grouped) > MAX_WINDOW:  # too large for one window: a list
                    parts += fields[index:end]
                    index = end
                    continue
                whole = ",".join(fields[index:end])
                raise SettingsError(
                    f"context windows {whole!r} could be one window ({grouped} tokens) or {len(groups) + 1}: "
                    f"type {grouped}, or {' '.join(fields[index:end])}"
                )
            parts.append(grouped)
            index = end
    return parts


def parse_windows(spec: str) -> tuple[int, ...]:
    """Window sizes typed by a user: numbers separated by spaces or commas; ``k`` is 1,024 and ``m`` 1,024²,
    as context lengths are spoken of (an "8k context" holds 8,192 tokens).

    Sizes are kept in the order given, without repeats.

    Raises:
        SettingsError: for anything else, naming the part that is wrong.

    >>> parse_windows("128, 1k 8k")
    (128, 1024, 8192)
    >>> parse_windows("1,024")  # a comma inside a number is a thousands separator, not a list
    (1024,)
    >>> parse_windows("4096,512")  # but 4096 is no group of thousands: two windows
    (4096, 512)
    """
    parts = _window_parts(spec)
    windows: list[int] = []
    for part in filter(None, parts):
        size = _tokens(part)
        if size < 0:
            raise SettingsError(f"context window {part!r} is not a number of tokens: type sizes like 128 1024 8k")
        if not 1 <= size <= MAX_WINDOW or size != int(size):  # in range first: int(inf) raises OverflowError
            raise SettingsError(
                f"context window {part!r} must be a whole number of tokens from 1 to {MAX_WINDOW:,}"
            )
        if int(size) not in windows:
            windows.append(int(size))
    if not windows:
        raise SettingsError("no context window given: type one to four sizes, like 128 1024 8192")
    if len(windows) > MAX_WINDOWS:
        raise SettingsError(f"{len(windows)} context windows given: at most {MAX_WINDOWS} fit, e.g. 128 1024 8192")
    return tuple(windows)
