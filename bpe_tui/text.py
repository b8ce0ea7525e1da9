"""Plain-text helpers that the CLI and the app share: tokens made safe to show, corpus warnings, sizes, rates, ETAs.

Nothing here imports Textual or rich, so ``bpe-tui train`` can use it without loading either; the app's
styled rendering (:mod:`bpe_tui.render`) builds on it. Token text comes from arbitrary corpora and
files, so it is always escaped before it is shown: control and invisible characters become escapes
(``\\x07``, ``\\u200b``) that cannot move the cursor or reorder a line, and bytes that are not a whole
UTF-8 character are shown as ``\\xe3`` rather than as a bare U+FFFD. Sizes are in binary units
(KiB, MiB, GiB), the units of the kernel's memory figures.
"""

from __future__ import annotations

import os
import unicodedata
from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from core.analysis.markers import MarkerCounts
    from core.train.events import ShardsRead

SPACE_GLYPH = "·"
NEWLINE_GLYPH = "↵"
TAB_GLYPH = "→"
GLYPHS = {" ": SPACE_GLYPH, "\n": NEWLINE_GLYPH, "\t": TAB_GLYPH}
"""Whitespace drawn as visible marks, so a token's leading space or trailing newline can be seen."""

ELLIPSIS = "…"

BASE_GLYPH = "◌"
"""Drawn before a token that starts with a zero-width character (a combining mark such as Thai ``ั`` or
Devanagari ``्``), as code charts show a lone mark: on its own it takes no cell and a terminal draws it on
the character before it (in a table, on the gap before the column), so the token had no cell for its
background or the cursor, and could not be seen for what it is."""

_NAMED_ESCAPES = {"\n": "\\n", "\t": "\\t", "\r": "\\r"}
_QUOTED = {"\\": "\\\\", '"': '\\"'}
# Control, format (zero-width, bidi overrides), private, surrogate and unassigned code points, and the
# line and paragraph separators: none of them shows as itself on a terminal line.
_UNSHOWABLE = frozenset({"Cc", "Cf", "Co", "Cs", "Cn", "Zl", "Zp"})
PRESENTATION_SELECTORS = frozenset("\ufe0e\ufe0f")
"""The text and emoji presentation selectors: invisible, yet they change how wide a terminal draws the
character before them, and terminals disagree (❤️ takes one cell in xterm, VTE and tmux, two in kitty,
WezTerm and iTerm2, and two in Rich's count): drawn for people as their code point, a row holding one
takes the same cells everywhere."""
_WRITTEN_SELECTORS = {ord(ch): f"\\u{ord(ch):04x}" for ch in PRESENTATION_SELECTORS}
_OTHER_SPACES = frozenset(ch for ch in map(chr, range(0x80, 0x3001)) if unicodedata.category(ch) == "Zs")
"""Space separators other than the space (no-break, en, em, thin, ideographic...): drawn for people as
their code point, since a blank would pass for a space (U+3000 fills Japanese text)."""
_VARIATION_SELECTORS = frozenset(map(chr, [*range(0x180B, 0x1810), *range(0xFE00, 0xFE10), *range(0xE0100, 0xE01F0)]))
"""Variation selectors (Mongolian, standard VS1-16 as in ☺ + U+FE0F, ideographic VS17-256 as in 葛 + U+E0100,
the registered form of a name in legal and address text): drawn for people as their code point, since a
terminal shows none of them, so a token of one alone was blank and ``葛`` + U+E0100 passed for ``葛``."""
_SUBSCRIPTS = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")
_BYTE_UNITS = ("KiB", "MiB", "GiB", "TiB")


# ------------------------------------------------------------------------------------------------ tokens


def hex_bytes(data: bytes) -> str:
    """Bytes as spaced lower-case hex.

    >>> hex_bytes("あ".encode())
    'e3 81 82'
    """
    return data.hex(" ")


def _sequence_length(lead: int) -> int:
    """Length of the UTF-8 sequence a lead byte announces; 1 for bytes that cannot start one."""
    if 0xC2 <= lead <= 0xDF:
        return 2
    if 0xE0 <= lead <= 0xEF:
        return 3
    if 0xF0 <= lead <= 0xF4:
        return 4
    return 1


def token_pieces(token: bytes) -> list[tuple[str, str | bytes]]:
    """Split token bytes into decoded text and stray bytes, in order.

    Stray bytes are the ones that do not form a whole character inside the token: the tail of a
    character the previous token started, the head of one the next token finishes, or invalid UTF-8.

    >>> token_pieces(b"\\x82 \\xe3\\x81")
    [('bytes', b'\\x82'), ('text', ' '), ('bytes', b'\\xe3\\x81')]
    >>> token_pieces("日本".encode())
    [('text', '日本')]
    """
    pieces: list[tuple[str, str | bytes]] = []
    text: list[str] = []
    stray = bytearray()
    i = 0
    while i < len(token):
        size = _sequence_length(token[i])
        try:
            ch = token[i : i + size].decode("utf-8")
        except UnicodeDecodeError:
            ch = ""
        if ch:
            if stray:
                pieces.append(("bytes", bytes(stray)))
                stray.clear()
            text.append(ch)
            i += size
        else:
            if text:
                pieces.append(("text", "".join(text)))
                text.clear()
            stray.append(token[i])
            i += 1
    if text:
        pieces.append(("text", "".join(text)))
    if stray:
        pieces.append(("bytes", bytes(stray)))
    return pieces


@lru_cache(maxsize=1 << 16)
def is_split(token: bytes) -> bool:
    """Whether ``token`` holds bytes that are not a whole character (it splits a multi-byte character).

    >>> is_split(b"\\xe3\\x81"), is_split("の".encode())
    (True, False)
    """
    return any(kind == "bytes" for kind, _ in token_pieces(token))


def escape_char(ch: str) -> str | None:
    """The escape for a character that cannot be shown as itself, ``None`` for one that can.

    Code points are written ``\\xNN`` below 0x80 and ``\\uNNNN`` above, so a C1 control such as U+0085
    is never mistaken for the stray byte ``\\x85``.

    >>> escape_char("\\x07"), escape_char("\\n"), escape_char("\\u200b"), escape_char("a")
    ('\\\\x07', '\\\\n', '\\\\u200b', None)
    """
    named = _NAMED_ESCAPES.get(ch)
    if named is not None:
        return named
    if unicodedata.category(ch) in _UNSHOWABLE:
        code = ord(ch)
        return f"\\x{code:02x}" if code < 0x80 else f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"
    return None


def _shown_units(token: bytes | str, glyphs: bool, quote: bool) -> list[str]:
    """What each character (or stray byte) of ``token`` is shown as, one string per character."""
    pieces = [("text", token)] if isinstance(token, str) else token_pieces(token)
    units: list[str] = []
    for _, value in pieces:
        if isinstance(value, bytes):
            units.extend(f"\\x{byte:02x}" for byte in value)
            continue
        for ch in value:
            if quote and ch in _QUOTED:
                units.append(_QUOTED[ch])
            elif glyphs and ch in GLYPHS:
                units.append(GLYPHS[ch])
            elif glyphs and ch in _OTHER_SPACES:
                units.append(f"\\u{ord(ch):04x}")  # blank like a space, but another token: say which
            elif glyphs and ch in _VARIATION_SELECTORS:
                code = ord(ch)
                units.append(f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}")  # invisible: say which
            else:
                units.append(escape_char(ch) or ch)
    if glyphs and isinstance(token, bytes) and units and units[0] == pieces[0][1][:1] and cell_width(units[0]) == 0:
        units[0] = BASE_GLYPH + units[0]  # a token's lone mark; a character of a text (a str) stays on its letter
    return units


@lru_cache(maxsize=1 << 17)
def escape_token(
    token: bytes | str,
    *,
    glyphs: bool = True,
    quote: bool = False,
    limit: int | None = None,
) -> str:
    """A token (its bytes, or text) as one line that is safe to print anywhere.

    Control and invisible characters are escaped and bytes that are not a whole UTF-8 character are
    written ``\\xNN``. Cached: tables and progress lines show the same tokens over and over.

    Args:
        token: the token's bytes, or a string (a special token, a pattern, a character of a text).
        glyphs: draw a space, newline and tab as ``·``, ``↵`` and ``→``, and other spaces and the
            variation selectors as their code point (``\\u3000``, ``❤\\ufe0f``, ``葛\\U000e0100``), and
            put a token (bytes) that starts with a combining mark on a ``◌``, for people; otherwise a space
            is itself, a newline and tab are ``\\n`` and ``\\t``, and the others are themselves.
        quote: put the result in double quotes, escaping ``"`` and ``\\`` inside, so that where a token
            starts and ends is never in doubt (for output that scripts read).
        limit: cut what is shown (quotes aside) to at most this many characters, ending in ``…``; an
            escape is never cut in two.

    >>> escape_token(b" the\\n"), escape_token(b"\\x1b[2J\\xe3\\x81")
    ('·the↵', '\\\\x1b[2J\\\\xe3\\\\x81')
    >>> print(escape_token(b'say "hi"\\n', glyphs=False, quote=True))
    "say \\"hi\\"\\n"
    >>> escape_token("あ" * 50, limit=5), escape_token(b"\\x07" * 9, limit=6)
    ('ああああ…', '\\\\x07…')
    >>> escape_token("\u094d".encode()), escape_token("\u0915\u094d".encode())  # a lone virama sits on ◌
    ('◌्', 'क्')
    """
    units = _shown_units(token, glyphs, quote)
    if limit is not None and sum(map(len, units)) > limit:
        kept: list[str] = []
        room = limit - len(ELLIPSIS)
        for unit in units:
            if len(unit) > room:
                break
            kept.append(unit)
            room -= len(unit)
        units = [*kept, ELLIPSIS]
    shown = "".join(units)
    return f'"{shown}"' if quote else shown


def shown_text(text: str | os.PathLike[str]) -> str:
    """A name or path from a file or the file system, safe to show in one line: control characters and
    escape sequences written out, undecodable bytes as ``\\xNN``, spaces kept as spaces, and the
    presentation selectors written out as in tokens (a file named ``❤️.txt`` broke the corpus pane's
    boxes in tmux, which draws ❤️ a cell narrower than the app counted).

    >>> shown_text("evil\\x1b]0;pwned\\x07 name"), shown_text("[bold]x"), shown_text("❤️.txt")
    ('evil\\\\x1b]0;pwned\\\\x07 name', '[bold]x', '❤\\\\ufe0f.txt')
    """
    shown = escape_token(os.fsdecode(os.fspath(text)).encode("utf-8", "surrogateescape"), glyphs=False)
    return shown.translate(_WRITTEN_SELECTORS)


def with_selectors_written(text: str) -> str:
    """``text`` with the presentation selectors written as their code points, for a read-only view of a
    file's own text: a terminal draws ❤️ one cell wide or two, and a box line holding one then ends early or
    late (in tmux the preview box's right border moved a cell). Editable text boxes keep them as typed.

    >>> with_selectors_written("I ❤\ufe0f it")
    'I ❤\\\\ufe0f it'
    """
    return text.translate(_WRITTEN_SELECTORS)


def subscript(number: int) -> str:
    """``number`` in subscript digits, the compact form of an inline token id.

    >>> subscript(262)
    '₂₆₂'
    """
    return str(number).translate(_SUBSCRIPTS)


def cell_width(text: str) -> int:
    """Terminal cells ``text`` takes, as a terminal's ``wcwidth`` counts them: two for a wide or fullwidth
    East Asian character, none for a combining mark or a format character, one for anything else.

    Without rich, which the CLI does not load; the app measures with ``rich.cells.cell_len``.

    >>> cell_width("ab"), cell_width("日本語"), cell_width("สวัสดี"), cell_width("ｶﾀｶﾅ")
    (2, 6, 4, 4)
    """
    width = 0
    for ch in text:
        if unicodedata.category(ch) in ("Mn", "Me", "Cf"):
            continue
        width += 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1
    return width


def pad_cells(text: str, width: int) -> str:
    """``text`` followed by spaces up to ``width`` terminal cells (:func:`cell_width`), for a column of text
    in which some is Japanese: ``str.ljust`` counts characters, and a kanji takes two cells.

    >>> pad_cells("日本", 6) + "|", pad_cells("ab", 6) + "|", pad_cells("abcdefg", 6) + "|"
    ('日本  |', 'ab    |', 'abcdefg|')
    """
    return text + " " * (width - cell_width(text))


def display_part(text: str, limit: int) -> str:
    """The start of ``text`` to draw: whole lines up to ``limit`` characters (a cut mid-line if it must).

    >>> display_part("ab\\ncd\\nef", 6)
    'ab\\ncd\\n'
    """
    if len(text) <= limit:
        return text
    cut = text.rfind("\n", 0, limit)
    return text[: cut + 1] if cut > 0 else text[:limit]


# ------------------------------------------------------------------------------------------------ corpus


def unlisted_markers_line(markers: MarkerCounts, *, shown: int = 3, fate: str = "trained") -> str:
    """What the app and ``bpe-tui train`` say about markers that are not special tokens (the remedy is theirs);
    ``export`` says they will be ``fate="encoded"``.

    Marker names are ASCII letters, digits, ``_.:-`` and DeepSeek's ``▁`` between ``|`` or full-width ``｜`` bars
    (see :mod:`core.analysis.markers`): safe to show as they are.

    >>> from core.analysis.markers import MarkerCounts
    >>> unlisted_markers_line(MarkerCounts((("<|im_start|>", 2), ("<|im_end|>", 1)), 3))
    '3 <|…|> markers are not special tokens (<|im_start|> ×2, <|im_end|> ×1) and will be trained as ordinary text'
    >>> unlisted_markers_line(MarkerCounts((("<|a|>", 1),), 1))
    '1 <|…|> marker is not a special token (<|a|> ×1) and will be trained as ordinary text'
    """
    names = [f"{name} ×{count:,}" for name, count in markers.counts[:shown]]
    if len(markers.counts) > shown or markers.more_kinds:
        names.append(ELLIPSIS)
    what = "marker is not a special token" if markers.total == 1 else "markers are not special tokens"
    return f"{markers.total:,} <|…|> {what} ({', '.join(names)}) and will be {fate} as ordinary text"


# ------------------------------------------------------------------------------------------------ counts


def share_text(share: float) -> str:
    """A share from 0 to 1 with two decimals, never rounded to an end it is not at: a Jaccard index of
    499/500 reads ``>0.99``, not ``1.00``, which would say the two vocabularies are the same.

    >>> share_text(1.0), share_text(0.998), share_text(0.5), share_text(0.001), share_text(0.0)
    ('1.00', '>0.99', '0.50', '<0.01', '0.00')
    """
    shown = f"{share:.2f}"
    if shown == "1.00" and share < 1:
        return ">0.99"
    if shown == "0.00" and share > 0:
        return "<0.01"
    return shown


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """``count`` with thousands separators and ``noun`` in the number it takes (``plural`` if not noun + s).

    >>> counted(1, "special"), counted(0, "special"), counted(12_000, "merge"), counted(1, "byte")
    ('1 special', '0 specials', '12,000 merges', '1 byte')
    >>> counted(3, "process", "processes")
    '3 processes'
    """
    return f"{count:,} {noun if count == 1 else (plural or noun + 's')}"


# ----------------------------------------------------------------------------------- sizes, rates, times


def shards_line(shards: ShardsRead) -> str:
    """Shard progress of a run in a few words, as the CLI and the dashboard show it.

    >>> from core.train.events import ShardsRead
    >>> shards_line(ShardsRead(3, 10, 1200, 2, 4)), shards_line(ShardsRead(0, 1, 0, 0, 1))
    ('3/10 shards, 1,200 documents, 2 skipped, 4 workers', '0/1 shards, 0 documents, 1 worker')
    """
    skipped = f", {shards.skipped:,} skipped" if shards.skipped else ""
    workers = f"{shards.workers} worker{'s' if shards.workers != 1 else ''}"
    return f"{shards.done}/{shards.total} shards, {shards.documents:,} documents{skipped}, {workers}"


def format_bytes(n: float) -> str:
    """A size in binary units (1 KiB = 1,024 bytes), with one decimal above a KiB.

    >>> format_bytes(812), format_bytes(49650), format_bytes(3 * 2**20), format_bytes(5 * 2**40)
    ('812 B', '48.5 KiB', '3.0 MiB', '5.0 TiB')
    """
    if n < 1024:
        return f"{int(n)} B"
    unit = _BYTE_UNITS[0]
    for unit in _BYTE_UNITS:
        n /= 1024
        if n < 1024:
            break
    return f"{n:.1f} {unit}"


def rate(done: float, seconds: float) -> float | None:
    """Units done per second, or ``None`` while there is nothing to go on (nothing done, no time passed).

    >>> rate(300, 1.5), rate(0, 2.0), rate(5, 0.0)
    (200.0, None, None)
    """
    return done / seconds if done > 0 and seconds > 0 else None


def format_rate(per_second: float | None, unit: str) -> str:
    """A rate for people: ``unit`` ``"B"`` gives a byte rate in binary units, any other is counted.

    >>> format_rate(1234.4, "merges"), format_rate(3 * 2**20, "B"), format_rate(None, "merges")
    ('1,234 merges/s', '3.0 MiB/s', '— merges/s')
    """
    if per_second is None:
        return f"— {unit}/s"
    if unit == "B":
        return f"{format_bytes(per_second)}/s"
    return f"{per_second:,.0f} {unit}/s"


def eta(done: float, total: float, elapsed: float) -> float | None:
    """Seconds left at the rate so far, ``None`` until there is a rate to go on.

    Merging speeds up as pairs get rarer, so during merging this errs long.

    >>> eta(25, 100, 5.0), eta(0, 100, 5.0), eta(10, 100, 0.0), eta(120, 100, 3.0)
    (15.0, None, None, 0.0)
    """
    per_second = rate(done, elapsed)
    if per_second is None or total <= 0:
        return None
    return max(total - done, 0) / per_second


def format_duration(seconds: float) -> str:
    """A duration: seconds with a decimal under a minute, then minutes and seconds, then hours and minutes.

    >>> format_duration(0.42), format_duration(125), format_duration(3725)
    ('0.4 s', '2m 05s', '1h 02m')
    """
    if seconds < 60:
        return f"{seconds:.1f} s"
    whole = int(seconds)
    if whole < 3600:
        return f"{whole // 60}m {whole % 60:02d}s"
    return f"{whole // 3600}h {whole % 3600 // 60:02d}m"


def format_eta(seconds: float | None) -> str:
    """``ETA`` and the time left, or a dash when it is not known yet.

    >>> format_eta(125), format_eta(None)
    ('ETA 2m 05s', 'ETA —')
    """
    return "ETA —" if seconds is None else f"ETA {format_duration(seconds)}"
