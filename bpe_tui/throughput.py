"""How long a corpus of a given size would take at a measured rate: CS336's "how long for the Pile?".

Shared by ``bpe-tui export --estimate SIZE`` and the dashboard's training estimate. Sizes are read the
way people write them (``825GB``, ``1.5 TB``, ``300MiB``): decimal units are powers of 1,000 and binary
ones (``KiB``, ``MiB``...) powers of 1,024, as disk and dataset sizes are usually quoted.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from typing import TYPE_CHECKING

from bpe_tui.text import format_bytes, format_duration, format_rate

if TYPE_CHECKING:
    from core.train.events import ShardsRead

_UNITS = {
    "": 1, "b": 1,
    "kb": 10**3, "mb": 10**6, "gb": 10**9, "tb": 10**12, "pb": 10**15,
    "kib": 2**10, "mib": 2**20, "gib": 2**30, "tib": 2**40, "pib": 2**50,
}
_SIZE = re.compile(r"\s*(\d+(?:\.\d*)?|\.\d+)\s*([A-Za-z]*)\s*")


@dataclass(frozen=True, slots=True)
class CorpusSize:
    """A size given by the user: ``text`` as it is shown back (``"825 GB"``) and its ``bytes``."""

    text: str
    bytes: int


def parse_size(text: str) -> CorpusSize:
    """A size such as ``825GB``, ``1.5TB`` or ``300MiB`` (a bare number is bytes; units in any case).

    Raises:
        ValueError: not a size; the message names the text and gives examples.

    >>> parse_size("825GB"), parse_size("1.5 tb").bytes, parse_size("300MiB").bytes
    (CorpusSize(text='825 GB', bytes=825000000000), 1500000000000, 314572800)
    >>> parse_size("lots")
    Traceback (most recent call last):
    ValueError: 'lots' is not a size; give a number and a unit, like 825GB, 1.5TB or 300MiB
    """
    match = _SIZE.fullmatch(text)
    unit = match[2].lower() if match else ""
    if match is None or unit not in _UNITS:
        raise ValueError(f"{text!r:.40} is not a size; give a number and a unit, like 825GB, 1.5TB or 300MiB")
    scaled = float(match[1]) * _UNITS[unit]
    if not math.isfinite(scaled):  # hundreds of digits: round() would raise OverflowError
        raise ValueError(f"{text!r:.40} is too large a size; give one like 825GB or 1.5TB")
    size = round(scaled)
    if size <= 0:
        raise ValueError(f"{text!r:.40} is no size at all; give a size above 0, like 825GB")
    shown_unit = unit[0].upper() + unit[1:-1] + "B" if len(unit) > 1 else "B"
    return CorpusSize(f"{float(match[1]):g} {shown_unit}", size)


def format_long_duration(seconds: float) -> str:
    """A duration that may run to days: days with a decimal from two days on, otherwise as usual.

    >>> format_long_duration(125), format_long_duration(3 * 86400 + 7200)
    ('2m 05s', '3.1 days')
    """
    if seconds >= 2 * 86400:
        return f"{seconds / 86400:,.1f} days"
    return format_duration(seconds)


def estimate_line(bytes_per_second: float, size: CorpusSize) -> str:
    """The estimate for ``size`` at a measured byte rate, in one line.

    >>> estimate_line(2 * 2**20, parse_size("825GB"))
    '825 GB would take 4.6 days at 2.0 MiB/s'
    """
    return f"{size.text} would take {format_long_duration(size.bytes / bytes_per_second)} at " \
           f"{format_rate(bytes_per_second, 'B')}"


PILE_SIZE = CorpusSize("825 GB", 825 * 10**9)
"""The dashboard's reference corpus: the Pile, the one CS336 asks about."""


RATE_MIN_BYTES = 4 << 20
"""Reading less than this says nothing about the rate: starting the reading processes takes most of the
time (the bundled samples read at tens of KiB/s), and 825 GB at that rate would be a nonsense estimate."""


def small_sample_note(measured_bytes: int) -> str | None:
    """What to add to an estimate made from a rate measured on less than :data:`RATE_MIN_BYTES` of text, or None.

    Encoding a few KiB (CS336's "sample 10 documents") is mostly starting the processes and merging words seen for
    the first time: its rate made ``export --estimate 825GB`` say 160 days where a few MiB of the same text say 2.

    >>> small_sample_note(8_000)
    'measured on only 8,000 bytes, mostly start-up and first-seen words: export 4.0 MiB or more for a rate that holds'
    >>> small_sample_note(RATE_MIN_BYTES) is None
    True
    """
    if measured_bytes >= RATE_MIN_BYTES:
        return None
    return (f"measured on only {measured_bytes:,} bytes, mostly start-up and first-seen words: export "
            f"{format_bytes(RATE_MIN_BYTES)} or more for a rate that holds")


def reading_rate(done: int, total: int, phase_elapsed: float, *, settle_seconds: float) -> float | None:
    """Bytes per second of a training run's reading phase, once it means something: after
    ``settle_seconds`` and :data:`RATE_MIN_BYTES`, or at the end of a shorter phase that read that much
    (its whole rate); None before, and for a corpus too small to tell.

    >>> reading_rate(8 << 20, 100 << 20, 2.0, settle_seconds=1.0), reading_rate(10, 100, 0.1, settle_seconds=1.0)
    (4194304.0, None)
    >>> reading_rate(8 << 20, 8 << 20, 0.5, settle_seconds=1.0)
    16777216.0
    >>> reading_rate(30_000, 30_000, 0.5, settle_seconds=1.0) is None  # a small corpus: start-up, not reading
    True
    """
    if done < RATE_MIN_BYTES or phase_elapsed <= 0 or (phase_elapsed < settle_seconds and done < total):
        return None
    return done / phase_elapsed


def text_rate(rate: float | None, shards: ShardsRead | None, stored: int) -> float | None:
    """A reading ``rate`` in the corpus's stored bytes as a rate of its text, for a corpus of shards: the Pile's
    825 GB are text, and a compressed or Parquet shard holds several times its size of it. ``stored`` bytes
    have been read so far, holding ``shards.text_bytes`` of text; a text file (no shards) is its text.

    >>> from core.train.events import ShardsRead
    >>> text_rate(2.0, ShardsRead(1, 2, 10, 0, 1, text_bytes=400), 100), text_rate(2.0, None, 100)
    (8.0, 2.0)
    """
    if rate is None or shards is None or not shards.text_bytes or stored <= 0:
        return rate
    return rate * shards.text_bytes / stored


def training_estimate_line(bytes_per_second: float | None, *, read_over: bool = False) -> str:
    """The dashboard's one-line estimate: reading and counting (the part of training that grows with the
    corpus) of the Pile at a run's reading rate. Merging depends on the vocab size and the number of
    distinct pre-tokens, not on the bytes, so it is left out, and the line says so. With no rate once
    the reading is over (``read_over``), the corpus was too small to time, and the line says that instead
    of promising an estimate that will not come.

    >>> training_estimate_line(None)
    'the Pile (825 GB): time to read it once a run has read 4 MiB'
    >>> training_estimate_line(None, read_over=True)
    'the Pile (825 GB): no estimate from a corpus under 4 MiB'
    >>> training_estimate_line(10 * 2**20)
    'the Pile (825 GB): 21h 51m to read at 10.0 MiB/s (merging aside)'
    """
    if bytes_per_second is None and read_over:
        return f"the Pile ({PILE_SIZE.text}): no estimate from a corpus under {RATE_MIN_BYTES >> 20} MiB"
    if bytes_per_second is None:
        return f"the Pile ({PILE_SIZE.text}): time to read it once a run has read {RATE_MIN_BYTES >> 20} MiB"
    return (f"the Pile ({PILE_SIZE.text}): {format_long_duration(PILE_SIZE.bytes / bytes_per_second)} to read "
            f"at {format_rate(bytes_per_second, 'B')} (merging aside)")
