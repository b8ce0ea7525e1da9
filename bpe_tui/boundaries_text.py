"""The workbench's text measured and described: counts, context coverage and ids of a whole text, the
tokens as JSON for the clipboard, and the one-line detail of the token under the cursor.

Apart from the screen (``bpe_tui.screens.boundaries``) because none of it touches a widget: measuring runs
in a worker thread, and the rest turns a result into text.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual.content import Content

from bpe_tui.render import token_body
from bpe_tui.session import LoadedTokenizer
from bpe_tui.text import display_part, hex_bytes
from core.analysis.compare import TextStats, text_stats
from core.analysis.coverage import Coverage, context_coverage, typed_lengths

if TYPE_CHECKING:
    from core.encode.spans import TokenSpan


DISPLAY_CHARS = 6000
"""Longest text drawn as tokens (the header says when a sample is cut); the stats table still covers the
whole sample. Laying out a 50 KB sample's tokens is a noticeable pause on the UI thread for text no one
scrolls through."""

DETAIL_TOKEN_CELLS = 24
"""Most cells the token's text takes in the detail line, so that at 80 columns its flags and ranges still
fit after it (a rule of 120 ``=`` or a long run of kanji left room for nothing else)."""

SIDE_BY_SIDE = ("english", "japanese")
"""The samples drawn side by side, and measured beside the main text."""


def shown(text: str) -> str:
    """The part of ``text`` the pane draws (see ``DISPLAY_CHARS``)."""
    return display_part(text, DISPLAY_CHARS)


def sample_stats(loaded: LoadedTokenizer, samples: dict[str, str]) -> dict[str, TextStats]:
    """Counts of the side-by-side samples under ``loaded`` (those of them that ``samples`` holds)."""
    return {
        name: text_stats(samples[name], loaded.tokenizer.encode(samples[name]))
        for name in SIDE_BY_SIDE
        if name in samples
    }


@dataclass(frozen=True)
class Measured:
    """The whole workbench text measured with one tokenizer (the view draws only its first part)."""

    stats: TextStats
    coverage: list[Coverage]
    ids: tuple[int, ...]
    """Every token id of the text, what ``c`` copies."""


def measure_text(loaded: LoadedTokenizer, text: str, windows: tuple[int, ...]) -> Measured:
    """Counts, context coverage and ids of the whole of ``text`` (in a worker: a big paste takes a while)."""
    ids = loaded.tokenizer.encode(text)
    lengths = typed_lengths(loaded.tokenizer, text, ids, normalizes=loaded.model.normalizer is not None)
    return Measured(text_stats(text, ids), context_coverage(text, lengths, windows), tuple(ids))


def tokens_json(tokens: list[bytes]) -> str:
    """Tokens as a JSON list of strings, what ``C`` copies; bytes that are not whole UTF-8 become ``\\xNN``.

    >>> print(tokens_json([b"Hi", b" \\xe6\\x97", b"\\xa5"]))
    ["Hi", " \\\\xe6\\\\x97", "\\\\xa5"]
    """
    return json.dumps([token.decode("utf-8", errors="backslashreplace") for token in tokens], ensure_ascii=False)


def detail_line(index: int, total: int, span: TokenSpan) -> Content:
    """One line about the token under the cursor: position, id, text, what is special about it, char and byte
    range, bytes.

    The flags come before the ranges and the bytes, the one part as long as the token: at 80 columns the end
    of the line is cut, and "splits a character" was cut to "splits a". The token's text is cut too, to
    ``DETAIL_TOKEN_CELLS`` cells ending in ``…``.
    """
    body = Content("").join(token_body(span.token).split("\n"))  # keep the newline glyph, drop the break
    if body.cell_length > DETAIL_TOKEN_CELLS:
        body = body.truncate(DETAIL_TOKEN_CELLS - 1) + "…"
    parts: list[Content | str | tuple[str, str]] = [
        (f"token {index + 1:,}/{total:,}", "bold"),
        f"  id {span.id}  ",
        body.stylize("reverse"),
    ]
    if span.is_special:
        parts.append(("  special", "bold $readable-warning"))
    if span.starts_mid_char or span.ends_mid_char:
        parts.append(("  splits a character", "bold $error"))
    parts.append(f"  chars {span.char_start}–{span.char_end}  bytes {span.byte_start}–{span.byte_end}: "
                 f"{hex_bytes(span.token)}")
    return Content.assemble(*parts)
