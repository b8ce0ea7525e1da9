"""Facts about a corpus file for the corpus pane: size, lines, documents, script mix, forgotten markers, a preview.

Pure computation with no UI imports. ``scan_corpus`` reads the file in blocks and yields cumulative
``CorpusStats`` after each one, so a caller (the app's thread worker) can show progress on a big file and
stop early by simply not asking for more.
"""

from __future__ import annotations

import codecs
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path

import regex

from core.analysis.markers import NO_MARKERS, MarkerCounter, MarkerCounts
from core.analysis.script_mix import SCRIPTS, ScriptMix, script_mix
from core.errors import CorpusError
from core.input_files import HEAD_BYTES, check_regular_file, encoding_problem

_CONTROL = regex.compile(r"[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]")
_NAMED = {"\n": "\\n", "\t": "\\t", "\r": "\\r"}

BLOCK_BYTES = 1 << 20
"""How much ``scan_corpus`` reads per step (and per yielded update)."""

SCRIPT_SAMPLE_BYTES = 8 << 20
"""Script mix is measured on at most this many leading bytes; more changes the shares very little."""


def _combined(a: ScriptMix, b: ScriptMix) -> ScriptMix:
    """The mix of two texts one after the other."""
    return ScriptMix({s: a.chars[s] + b.chars[s] for s in SCRIPTS}, {s: a.bytes[s] + b.bytes[s] for s in SCRIPTS})


EMPTY_MIX = ScriptMix(dict.fromkeys(SCRIPTS, 0), dict.fromkeys(SCRIPTS, 0))


@dataclass(frozen=True)
class CorpusStats:
    """What the corpus pane shows about a file; cumulative while ``complete`` is false.

    Attributes:
        path: the file.
        size: its size in bytes.
        bytes_read: how far the scan has got.
        lines: newline-terminated lines, plus one for a final line without a newline.
        documents: non-blank stretches between special tokens (the whole file is one if none are given).
        mix: script mix of the first ``SCRIPT_SAMPLE_BYTES`` (or the whole file if smaller).
        mix_sampled: true when ``mix`` covers only the start of the file.
        invalid_utf8_at: byte offset of the first invalid UTF-8 sequence, ``None`` if all seen so far is valid.
        other_encoding: when the file is not UTF-8, what it looks like and the fix, if its start tells
            (UTF-16, Shift_JIS, EUC-JP: :func:`core.input_files.encoding_problem`): to convert it, not to read
            it with errors 'replace'.
        markers: ``<|name|>`` markers that are not among the special tokens (see :mod:`core.analysis.markers`).
        complete: the scan reached the end of the file.
    """

    path: Path
    size: int
    bytes_read: int = 0
    lines: int = 0
    documents: int = 0
    mix: ScriptMix = EMPTY_MIX
    mix_sampled: bool = False
    invalid_utf8_at: int | None = None
    other_encoding: str | None = None
    markers: MarkerCounts = NO_MARKERS
    complete: bool = False


class _DocumentCounter:
    """Counts non-blank documents between special tokens across blocks, exactly as one pass would.

    A separator can straddle two blocks, so the last ``longest - 1`` bytes of each block are held back
    and examined with the next one.
    """

    def __init__(self, special_tokens: Iterable[str]) -> None:
        tokens = sorted({t.encode("utf-8") for t in special_tokens if t}, key=lambda t: (-len(t), t))
        self._pattern = regex.compile(b"|".join(regex.escape(t) for t in tokens)) if tokens else None
        self._hold = max((len(t) for t in tokens), default=1) - 1
        self._carry = b""
        self._content = False
        self.documents = 0

    def feed(self, block: bytes, *, final: bool = False) -> None:
        buffer = self._carry + block
        limit = len(buffer) if final else len(buffer) - self._hold
        pos = 0
        if self._pattern is not None:
            for match in self._pattern.finditer(buffer):
                if match.end() > limit:
                    # It may be the start of a longer separator: look again with the next block.
                    limit = match.start()
                    break
                if buffer[pos : match.start()].strip():
                    self._content = True
                if self._content:
                    self.documents += 1
                self._content = False
                pos = match.end()
        keep = max(pos, limit)
        if buffer[pos:keep].strip():
            self._content = True
        self._carry = buffer[keep:]
        if final and self._content:
            self.documents += 1
            self._content = False


def scan_corpus(
    path: str | os.PathLike[str],
    special_tokens: Iterable[str] = (),
    *,
    block_bytes: int = BLOCK_BYTES,
    script_sample_bytes: int = SCRIPT_SAMPLE_BYTES,
) -> Iterator[CorpusStats]:
    """Yield cumulative stats of the file after each block; the last one has ``complete=True``.

    Raises:
        CorpusError: the file is missing, unreadable or not a regular file (one line, naming the path once).
        OSError: reading failed part-way (the system's words only; the caller names the path).

    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "c.txt"
    >>> _ = p.write_text("one\\n<|eot|>two\\nthree<|sep|>\\n", encoding="utf-8")
    >>> s = list(scan_corpus(p, ["<|eot|>"]))[-1]
    >>> s.lines, s.documents, s.markers.counts, s.complete
    (3, 2, (('<|sep|>', 1),), True)
    """
    path = check_regular_file(path, CorpusError)
    size = path.stat().st_size
    stats = CorpusStats(path=path, size=size, mix_sampled=size > script_sample_bytes)
    special_tokens = tuple(special_tokens)
    documents = _DocumentCounter(special_tokens)
    markers = MarkerCounter(special_tokens)
    decoder = codecs.getincrementaldecoder("utf-8")(errors="strict")
    lenient = codecs.getincrementaldecoder("utf-8")(errors="replace")
    newlines = 0
    last_byte = b""
    mix = EMPTY_MIX
    invalid_at: int | None = None
    head = b""  # the file's start: what it is, if it is not UTF-8
    with open(path, "rb") as handle:
        while True:
            block = handle.read(block_bytes)
            final = not block
            offset = stats.bytes_read
            documents.feed(block, final=final)
            markers.feed(block, final=final)
            newlines += block.count(b"\n")
            if block:
                last_byte = block[-1:]
                head += block[: HEAD_BYTES - len(head)]
            if invalid_at is None:
                try:
                    decoder.decode(block, final=final)
                except UnicodeDecodeError as error:
                    invalid_at = offset + error.start
            if offset < script_sample_bytes:
                mix = _combined(mix, script_mix(lenient.decode(block[: script_sample_bytes - offset], final=final)))
            lines = newlines + (1 if last_byte not in (b"", b"\n") else 0)
            stats = replace(
                stats,
                bytes_read=offset + len(block),
                lines=lines,
                documents=documents.documents,
                mix=mix,
                invalid_utf8_at=invalid_at,
                other_encoding=None if invalid_at is None else encoding_problem(head),
                markers=markers.result(),
                complete=final,
            )
            yield stats
            if final:
                return


def corpus_stats(path: str | os.PathLike[str], special_tokens: Iterable[str] = (), **options: int) -> CorpusStats:
    """The complete stats of a file in one call (``scan_corpus`` to the end)."""
    stats = None
    for stats in scan_corpus(path, special_tokens, **options):
        pass
    assert stats is not None
    return stats


def preview_text(path: str | os.PathLike[str], max_bytes: int = 4096) -> str:
    """The start of a file as safe display text: invalid UTF-8 replaced, control characters escaped.

    Newlines and tabs are kept (they lay the preview out); any other control or format character becomes
    a ``\\xNN``/``\\uNNNN`` escape so it cannot move the cursor or change the terminal's state.

    Raises:
        CorpusError, OSError: as :func:`scan_corpus`.

    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "c.txt"
    >>> _ = p.write_bytes(b"a\\x1b[31mb\\n")
    >>> preview_text(p)
    'a\\\\x1b[31mb\\n'
    """
    with open(check_regular_file(path, CorpusError), "rb") as handle:
        data = handle.read(max_bytes)
    text = codecs.getincrementaldecoder("utf-8")(errors="replace").decode(data, final=False)
    return escape_controls(text)


def escape_controls(text: str, *, keep: str = "\n\t") -> str:
    """Replace control and format characters (except those in ``keep``) with visible escapes.

    >>> escape_controls("a\\x00b\\u200bc\\n", keep="")
    'a\\\\x00b\\\\u200bc\\\\n'
    """

    def escape(match: regex.Match[str]) -> str:
        char = match.group()
        if char in keep:
            return char
        if char in _NAMED:
            return _NAMED[char]
        code = ord(char)
        return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"

    return _CONTROL.sub(escape, text)
