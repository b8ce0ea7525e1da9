"""Progress displays of ``bpe-tui train``: a live ``rich`` display on a terminal, plain lines otherwise.

Both are fed the run's events one by one. :class:`TrainingStats` keeps what they show (phase, rate,
ETA, memory, the longest token) with the clock and RSS probe injected, so tests can freeze them.
Tokens, sizes, rates and times are written by :mod:`bpe_tui.text`, as in the app. ``rich`` is
imported only when the live display is built, so the plain path loads neither rich nor Textual.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from bpe_tui.text import counted, escape_token, eta, format_bytes, format_duration, format_eta, format_rate, rate, shards_line
from core.model import BPEModel
from core.train.events import MergeMade, PhaseProgress, ShardsRead, StopReason, TrainingEvent, TrainingFinished
from core.train.memory import RSSProbe, peak_rss_self_bytes

REFRESH_SECONDS = 0.1
"""Least time between two redraws of the live display: ~10 a second."""

MEMORY_SAMPLE_SECONDS = 0.5
"""Least time between two RSS samples: finding a process's children scans /proc, too slow for every event."""

BAR_CELLS = 40
"""Width of the live display's progress bar."""

PLAIN_STEPS = 10
"""Without a terminal, one line per this fraction (1/10) of the merges, and of the bytes read."""

TOKEN_SHOWN_CHARS = 32
"""Longer tokens are cut to this many characters in progress output (they can be long runs of kanji)."""

Clock = Callable[[], float]


# ---------------------------------------------------------------------------------------- progress state


class TrainingStats:
    """What the progress displays show, kept up to date from the events (no I/O, clock and probe injected).

    Attributes:
        phase: the current phase (``reading``, ``counting``, ``merging``) or ``None`` before the first event.
        done, total: progress within the phase (bytes while reading, pre-tokens while counting, merges).
        merges: merges made so far.
        longest: the longest token made so far, and ``longest_rank`` the merge that made it.
        rss: the process tree's resident memory at the last sample.
        shards: the latest shard progress of a corpus of shards (``None`` for one text file).
    """

    def __init__(self, *, clock: Clock, probe: RSSProbe, kernel_peak: Callable[[], int] = peak_rss_self_bytes):
        self.clock = clock
        self.probe = probe
        self.kernel_peak = kernel_peak
        self.started = clock()
        self.phase: str | None = None
        self.phase_started = self.started
        self.done = 0
        self.total = 0
        self.merges = 0
        self.corpus_bytes = 0
        self.unique_pretokens = 0
        self.longest = b""
        self.longest_rank = -1
        self.rss = 0
        self.shards: ShardsRead | None = None
        self._sampled_at: float | None = None

    def observe(self, event: TrainingEvent) -> bool:
        """Take in one event; true when it starts a new phase."""
        if isinstance(event, MergeMade):
            self.merges = self.done = event.rank + 1
            token = event.left + event.right
            if len(token) > len(self.longest):
                self.longest, self.longest_rank = token, event.rank
            return False
        if isinstance(event, ShardsRead):
            self.shards = event
            return False
        if isinstance(event, PhaseProgress):
            changed = event.phase != self.phase
            if changed:
                self.phase = event.phase
                self.phase_started = self.clock()
            self.done, self.total = event.done, event.total
            if event.phase == "reading":
                self.corpus_bytes = event.total
            elif event.phase == "counting":
                self.unique_pretokens = event.total
            return changed
        return False

    def sample_memory(self, *, force: bool = False) -> None:
        """Sample the RSS of the process tree, at most every :data:`MEMORY_SAMPLE_SECONDS` unless forced."""
        now = self.clock()
        if force or self._sampled_at is None or now - self._sampled_at >= MEMORY_SAMPLE_SECONDS:
            self._sampled_at = now
            self.rss = self.probe.sample()

    @property
    def peak_rss(self) -> int:
        """The highest RSS seen: the probe's samples, or the kernel's record for this process if higher."""
        return max(self.probe.peak, self.kernel_peak())

    @property
    def elapsed(self) -> float:
        return self.clock() - self.started

    @property
    def fraction(self) -> float | None:
        """How far through the phase, 0..1, or ``None`` when the phase's size is unknown or zero."""
        return min(1.0, self.done / self.total) if self.total > 0 else None

    @property
    def rate(self) -> float | None:
        """Units (bytes, merges) per second in the current phase so far."""
        return rate(self.done, self.clock() - self.phase_started)

    @property
    def eta(self) -> float | None:
        """Seconds left in the phase at the current rate; none while counting, which jumps from 0 to all."""
        if self.phase == "counting":
            return None
        return eta(self.done, self.total, self.clock() - self.phase_started)

    def shards_shown(self) -> str:
        """Shard progress in a few words (empty for one text file).

        >>> stats = TrainingStats(clock=lambda: 0.0, probe=RSSProbe())
        >>> _ = stats.observe(ShardsRead(3, 10, 1200, 2, 4)); stats.shards_shown()
        '3/10 shards, 1,200 documents, 2 skipped, 4 workers'
        """
        return shards_line(self.shards) if self.shards is not None else ""

    def longest_shown(self) -> str:
        """The longest token, escaped and cut to :data:`TOKEN_SHOWN_CHARS`, with its length in bytes."""
        if not self.longest:
            return "none yet"
        shown = escape_token(self.longest, limit=TOKEN_SHOWN_CHARS)
        return f"{shown} ({len(self.longest)} bytes, merge {self.longest_rank + 1:,})"


def _shown(path: Path | str) -> str:
    """A path as it is printed: control characters escaped, so a file name cannot drive the terminal."""
    return escape_token(str(path), glyphs=False)


def summary_line(stats: TrainingStats, finished: TrainingFinished, written: list[Path], events: Path | None) -> str:
    """The one line said at the end: merges, vocab size, time, peak RSS and where the files went."""
    model: BPEModel = finished.model
    reason = StopReason(finished.reason).wording
    where = ", ".join(_shown(path) for path in written)
    line = (
        f"trained {counted(len(model.merges), 'merge')} ({reason}), vocab size {model.vocab_size:,}, "
        f"in {format_duration(stats.elapsed)}, peak RSS {format_bytes(stats.peak_rss)}; saved to {where}"
    )
    if events is not None:
        line += f", events in {_shown(events)}"
    return line


# ------------------------------------------------------------------------------------------------ reporters


class Reporter:
    """Shows training progress; a context manager around the training loop."""

    def __enter__(self) -> Reporter:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def observe(self, event: TrainingEvent) -> None:
        raise NotImplementedError

    def finish(self, summary: str) -> None:
        raise NotImplementedError


class PlainReporter(Reporter):
    """Plain lines for logs and pipes: one per phase change, one per tenth of the bytes read and of the
    merges, and the summary. No control codes, so the output reads the same in a file or a CI log.

    Nothing is printed when reading starts, only as it progresses: a corpus error found in the first
    chunk (binary data, invalid UTF-8) is then the only line the user sees.
    """

    def __init__(self, stats: TrainingStats, stream: IO[str]) -> None:
        self.stats = stats
        self.stream = stream
        self._step = 0

    def _say(self, line: str) -> None:
        print(line, file=self.stream, flush=True)

    def observe(self, event: TrainingEvent) -> None:
        stats = self.stats
        previous = stats.phase
        changed = stats.observe(event)
        stats.sample_memory(force=changed)
        if changed:
            self._step = 0
            if stats.phase == "counting":
                self._say(
                    f"counting: pairs in {stats.unique_pretokens:,} unique pre-tokens "
                    f"(read {format_bytes(stats.corpus_bytes)} in {format_duration(stats.elapsed)})"
                )
            elif stats.phase == "merging":
                self._say(f"merging: up to {counted(stats.total, 'merge')}")
            elif previous is not None:
                self._say(f"{stats.phase}:")
        if stats.phase in ("reading", "merging") and stats.total > 0:
            step = stats.done * PLAIN_STEPS // stats.total
            if step > self._step:
                self._step = step
                self._say(self._progress_line())

    def _progress_line(self) -> str:
        stats = self.stats
        percent = f"{100 * (stats.fraction or 0):3.0f}%"
        left = stats.eta
        tail = f", {format_eta(left)}" if left is not None and stats.done < stats.total else ""
        memory = f"RSS {format_bytes(stats.rss)} (peak {format_bytes(stats.peak_rss)})"
        if stats.phase == "reading":
            return (
                f"reading: {percent} ({format_bytes(stats.done)} of {format_bytes(stats.total)}), "
                f"{format_rate(stats.rate, 'B')}{tail}, {memory}"
                + (f", {stats.shards_shown()}" if stats.shards is not None else "")
            )
        return (
            f"merging: {percent} ({stats.done:,}/{stats.total:,} merges), {format_rate(stats.rate, 'merges')}{tail}, "
            f"{memory}, longest token {stats.longest_shown()}"
        )

    def finish(self, summary: str) -> None:
        self._say(summary)


class LiveReporter(Reporter):
    """A live ``rich`` display on a terminal, redrawn at most every :data:`REFRESH_SECONDS`.

    It is redrawn from the training loop, never from a timer thread: the reading phase forks worker
    processes, and forking while another thread runs can deadlock. The price is that the display holds
    still while the core computes without yielding (building pair counts). The display is cleared at
    the end, leaving only the summary (or the error) on screen.
    """

    def __init__(self, stats: TrainingStats, stream: IO[str], *, corpus: Path, output: Path,
                 console: Any = None) -> None:
        from rich.console import Console

        self.stats = stats
        self.console = console if console is not None else Console(file=stream, highlight=False)
        self.corpus = corpus
        self.output = output
        self._live: Any = None
        self._drawn_at: float | None = None
        self.redraws = 0

    def __enter__(self) -> LiveReporter:
        from rich.live import Live

        self.stats.sample_memory(force=True)
        self._live = Live(
            self.render(),
            console=self.console,
            auto_refresh=False,
            transient=True,
            redirect_stdout=False,
            redirect_stderr=False,
        )
        self._live.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._live is not None:
            self._live.__exit__(*exc)
            self._live = None

    def observe(self, event: TrainingEvent) -> None:
        changed = self.stats.observe(event)
        now = self.stats.clock()
        last = isinstance(event, TrainingFinished) or (
            isinstance(event, MergeMade) and self.stats.merges == self.stats.total
        )
        if changed or last or self._drawn_at is None or now - self._drawn_at >= REFRESH_SECONDS:
            self._drawn_at = now
            self.stats.sample_memory(force=changed or last)
            self.redraws += 1
            if self._live is not None:
                self._live.update(self.render(), refresh=True)

    def render(self) -> Any:
        """The display as one ``rich`` Text of fixed lines, built from plain strings: corpus and token text
        is never markup. A Text rather than a Table grid, which is far slower to lay out, because it is
        redrawn up to ten times a second from the training loop.
        """
        from rich.text import Text

        stats = self.stats
        fraction = stats.fraction
        filled = round(BAR_CELLS * (fraction or 0.0))
        left = stats.eta
        text = Text(no_wrap=True, overflow="ellipsis")
        text.append(f"{'training':>8}  ", style="bold").append(f"{_shown(self.corpus.name)} -> {_shown(self.output)}\n")
        text.append(f"{stats.phase or 'starting':>8}  ", style="bold cyan")
        text.append("━" * filled, style="magenta").append("━" * (BAR_CELLS - filled), style="bright_black")
        text.append(f" {100 * fraction:3.0f}%\n" if fraction is not None else "\n")
        details = [self._phase_detail(), format_eta(left) if left is not None else "",
                   f"elapsed {format_duration(stats.elapsed)}"]
        text.append(" " * 10 + "   ".join(part for part in details if part) + "\n")
        speed = format_rate(stats.rate, "merges") if stats.phase == "merging" else "-"
        text.append(f"{'speed':>8}  ", style="bold").append(speed + "\n")
        text.append(f"{'memory':>8}  ", style="bold")
        text.append(f"RSS {format_bytes(stats.rss)}   peak {format_bytes(stats.peak_rss)}\n")
        text.append(f"{'longest':>8}  ", style="bold").append(stats.longest_shown())
        return text

    def _phase_detail(self) -> str:
        stats = self.stats
        if stats.phase == "reading":
            shards = f" ({stats.shards_shown()})" if stats.shards is not None else ""
            return f"{format_bytes(stats.done)} of {format_bytes(stats.total)} read{shards}"
        if stats.phase == "counting":
            return f"pairs in {stats.unique_pretokens:,} unique pre-tokens"
        if stats.phase == "merging":
            return f"{stats.done:,} of {counted(stats.total, 'merge')}"
        return ""

    def finish(self, summary: str) -> None:
        from rich.text import Text

        self.console.print(Text(summary))
