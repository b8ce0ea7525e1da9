"""``bpe-tui train``: train a tokenizer on a corpus file from the shell, with progress on stderr and atomic saves.

The command is a loop over :meth:`core.train.TrainingRun.events`, the same events the app shows. Each event
goes to a reporter (a live ``rich`` display when stderr is a terminal, plain lines otherwise) and,
with ``--events``, to a JSON-lines file. Nothing is written until training has finished: the tokenizer
and the events file each appear by an atomic rename, so an error or Ctrl-C leaves no partial file.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any, BinaryIO

from core.byte_alphabet import encode_bytes
from core.errors import SettingsError
from core.events import MergeMade, PhaseProgress, TrainingEvent, TrainingFinished
from core.formats import save_tokenizer
from core.formats.atomic import OutputError, atomic_open
from core.memory import RSSProbe, peak_rss_self_bytes
from core.model import BPEModel
from core.train import TrainingRun

REFRESH_SECONDS = 0.1
"""Least time between two redraws of the live display: ~10 a second."""

MEMORY_SAMPLE_SECONDS = 0.5
"""Least time between two RSS samples: finding a process's children scans /proc, several ms each time."""

BAR_CELLS = 40
"""Width of the live display's progress bar."""

PLAIN_STEPS = 10
"""Without a terminal, one line per this fraction (1/10) of the merges, and of the bytes read."""

TOKEN_SHOWN_CHARS = 32
"""Longer tokens are cut to this many characters in progress output (they can be long runs of kanji)."""

EVENTS_FORMAT = "bpe-tui-events"
EVENTS_VERSION = 1

_STOP_REASONS = {
    "vocab_size": "vocab size reached",
    "no_pairs": "stopped early: no pair left to merge",
    "min_frequency": "stopped early: the best pair's count fell below --min-frequency",
    "max_merges": "stopped at the merge limit",
}

Clock = Callable[[], float]


# ---------------------------------------------------------------------------------------------- arguments


def add_parser(subparsers: Any) -> None:
    """Register ``train`` and its options with the dispatcher's subparsers."""
    parser = subparsers.add_parser(
        "train",
        help="train a byte-level BPE tokenizer on a text file",
        description=(
            "Train a byte-level BPE tokenizer (Stanford CS336 semantics) on a UTF-8 text file and save it "
            "in bpe-tui's JSON format. Progress goes to stderr: a live display on a terminal, plain lines "
            "otherwise. Nothing is written if training fails or is interrupted."
        ),
    )
    parser.add_argument("corpus", metavar="CORPUS", help="UTF-8 text file to train on")
    parser.add_argument(
        "--vocab-size", type=int, required=True, metavar="N",
        help="final vocabulary size: 256 byte tokens + the special tokens + the merges",
    )
    parser.add_argument(
        "--special-token", action="append", default=[], dest="special_tokens", metavar="S",
        help="a special token such as '<|endoftext|>' (repeatable); documents are split at it, no merge spans it",
    )
    parser.add_argument(
        "--workers", type=int, default=None, metavar="K",
        help="worker processes for reading and merging (default: all cores; the result is the same for any K)",
    )
    parser.add_argument(
        "--min-frequency", type=int, default=0, metavar="F",
        help="stop early when the most frequent pair occurs fewer than F times (default: 0, never)",
    )
    parser.add_argument(
        "--errors", choices=("strict", "replace"), default="strict",
        help="invalid UTF-8 in the corpus: 'strict' (default) stops with its byte offset, 'replace' uses U+FFFD",
    )
    parser.add_argument(
        "-o", "--output", type=Path, default=None, metavar="OUT.json",
        help="where to save the tokenizer (default: <corpus stem>-<N>.json in the current directory)",
    )
    parser.add_argument(
        "--events", type=Path, default=None, metavar="EVENTS.jsonl",
        help="also save every training event, one JSON object a line",
    )


# -------------------------------------------------------------------------------------------------- command


def run(args: argparse.Namespace) -> int:
    """Train as ``args`` say, report progress on stderr, save the result; 0 on success.

    Raises:
        BPEError: bad input (corpus, settings or output path); the dispatcher prints it as one line.
        KeyboardInterrupt: Ctrl-C; the run is cancelled and nothing is written.
    """
    return train_command(args)


def train_command(
    args: argparse.Namespace,
    *,
    stderr: IO[str] | None = None,
    clock: Clock = time.monotonic,
    probe: RSSProbe | None = None,
    interactive: bool | None = None,
) -> int:
    """:func:`run` with its surroundings injectable: the stream, clock and RSS probe, and whether to draw live."""
    # Loaded now rather than at the first progress line, so its import time does not show up as a stall.
    import bpe_tui.render  # noqa: F401

    stream = stderr if stderr is not None else sys.stderr
    if args.workers is not None and args.workers < 1:
        raise SettingsError(f"--workers {args.workers} must be at least 1")
    training = TrainingRun(
        args.corpus,
        args.vocab_size,
        args.special_tokens,
        workers=args.workers,
        min_frequency=args.min_frequency,
        errors=args.errors,
    )
    assert training.path is not None
    output = args.output if args.output is not None else default_output(training.path, args.vocab_size)
    check_outputs(training.path, output, args.events)

    if interactive is None:
        interactive = _is_terminal(stream)
    stats = TrainingStats(clock=clock, probe=probe if probe is not None else RSSProbe())
    reporter: Reporter = (
        LiveReporter(stats, stream, corpus=training.path, output=output)
        if interactive
        else PlainReporter(stats, stream)
    )
    with _interrupt_main_process_only(), reporter:
        events_file = atomic_open(args.events) if args.events is not None else contextlib.nullcontext()
        with events_file as sink:
            if sink is not None:
                sink.write(_json_line(start_record(training)))
            finished = drive(training, reporter, sink)
            # Inside the events file's block: if saving the tokenizer fails, the events file is dropped too.
            written = save_tokenizer(finished.model, output, format="bpe-tui")
    reporter.finish(summary_line(stats, finished, written, args.events))
    return 0


def drive(training: TrainingRun, reporter: Reporter, sink: BinaryIO | None) -> TrainingFinished:
    """Iterate the run's events into the reporter and the events file; return the final event.

    On Ctrl-C the run is cancelled and its generator closed, which stops any worker processes, before
    the interrupt goes on to the dispatcher.
    """
    events = training.events()
    finished: TrainingFinished | None = None
    try:
        for event in events:
            reporter.observe(event)
            if sink is not None:
                sink.write(_json_line(event_record(event)))
            if isinstance(event, TrainingFinished):
                finished = event
    except BaseException:
        training.cancel()
        raise
    finally:
        events.close()
    if finished is None:
        # The run ended without finishing: only cancel() does that, and only Ctrl-C calls it here.
        raise KeyboardInterrupt
    return finished


def default_output(corpus: Path, vocab_size: int) -> Path:
    """``<corpus stem>-<vocab size>.json`` in the current directory.

    >>> default_output(Path("data/english.txt"), 400)
    PosixPath('english-400.json')
    """
    return Path(f"{corpus.stem}-{vocab_size}.json")


def check_outputs(corpus: Path, output: Path, events: Path | None) -> None:
    """Refuse, before any training, output paths that could not be written or would overwrite an input.

    Raises:
        OutputError: a directory is missing or not writable, or a path is a directory.
        SettingsError: an output path is the corpus, or both outputs are the same file.
    """
    for path, option in ((output, "-o"), (events, "--events")):
        if path is None:
            continue
        directory = path.parent
        if not directory.is_dir():
            raise OutputError(f"cannot write {path} ({option}): directory {directory} does not exist; create it first")
        if path.is_dir():
            raise OutputError(f"cannot write {path} ({option}): it is a directory; give a file name")
        if not os.access(directory, os.W_OK | os.X_OK):
            raise OutputError(f"cannot write {path} ({option}): directory {directory} is not writable")
        if path.exists() and path.resolve() == corpus.resolve():
            raise SettingsError(f"{option} {path} is the corpus itself; choose another output file")
    if events is not None and events.resolve() == output.resolve():
        raise SettingsError(f"--events {events} is also the tokenizer output; give two different files")


@contextlib.contextmanager
def _interrupt_main_process_only() -> Iterator[None]:
    """While training, let Ctrl-C raise KeyboardInterrupt in this process only.

    A terminal sends SIGINT to the whole process group, including the trainer's workers (pre-tokenising
    pools, merge shards), which inherit this handler across ``fork``. Left alone, each worker would print its own traceback; with
    it they keep quiet and the parent, cancelling the run, terminates them. A SIGINT that was being
    ignored (a background job) or handled by someone else is left as it was.
    """
    main_pid = os.getpid()

    def on_sigint(signum: int, frame: Any) -> None:
        if os.getpid() == main_pid:
            raise KeyboardInterrupt

    previous: Any = None
    try:
        if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
            previous = signal.signal(signal.SIGINT, on_sigint)
    except ValueError:  # not the main thread: signals are not ours to handle
        previous = None
    try:
        yield
    finally:
        if previous is not None:
            signal.signal(signal.SIGINT, previous)


def _is_terminal(stream: IO[str]) -> bool:
    try:
        return stream.isatty() and os.environ.get("TERM") != "dumb"
    except (AttributeError, ValueError):
        return False


# ------------------------------------------------------------------------------------------ events file


def start_record(training: TrainingRun) -> dict[str, Any]:
    """The events file's first line: what it is and the settings of the run."""
    return {
        "event": "start",
        "format": EVENTS_FORMAT,
        "version": EVENTS_VERSION,
        "corpus": str(training.path),
        "vocab_size": training.vocab_size,
        "special_tokens": list(training.special_tokens),
        "min_frequency": training.min_frequency,
        "errors": training.errors,
        "pattern": training.pattern,
    }


def event_record(event: TrainingEvent) -> dict[str, Any]:
    """One event as a JSON-ready dict. Merged tokens are given twice: in GPT-2's byte alphabet (readable,
    as in ``vocab.json``) and in hex (needs no table). Records hold no times, so the same run gives the
    same lines.

    >>> record = event_record(MergeMade(0, b" ", b"t", 256, 90, 80, False))
    >>> record["event"], record["new_id"], record["left"], record["left_hex"], record["right"], record["count"]
    ('merge', 256, 'Ġ', '20', 't', 90)
    >>> event_record(PhaseProgress("reading", 10, 20))
    {'event': 'phase', 'phase': 'reading', 'done': 10, 'total': 20}
    """
    if isinstance(event, MergeMade):
        return {
            "event": "merge",
            "rank": event.rank,
            "new_id": event.new_id,
            "left": encode_bytes(event.left),
            "right": encode_bytes(event.right),
            "left_hex": event.left.hex(),
            "right_hex": event.right.hex(),
            "count": event.count,
            "runner_up_count": event.runner_up_count,
            "won_tie": event.won_tie,
        }
    if isinstance(event, PhaseProgress):
        return {"event": "phase", "phase": event.phase, "done": event.done, "total": event.total}
    return {
        "event": "finished",
        "reason": event.reason,
        "merges": len(event.model.merges),
        "vocab_size": event.model.vocab_size,
    }


def _json_line(record: dict[str, Any]) -> bytes:
    return (json.dumps(record, ensure_ascii=False) + "\n").encode("utf-8")


# ---------------------------------------------------------------------------------------- progress state


class TrainingStats:
    """What the progress displays show, kept up to date from the events (no I/O, clock and probe injected).

    Attributes:
        phase: the current phase (``reading``, ``counting``, ``merging``) or ``None`` before the first event.
        done, total: progress within the phase (bytes while reading, pre-tokens while counting, merges).
        merges: merges made so far.
        longest: the longest token made so far, and ``longest_rank`` the merge that made it.
        rss: the process tree's resident memory at the last sample.
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
        self._sampled_at: float | None = None

    def observe(self, event: TrainingEvent) -> bool:
        """Take in one event; true when it starts a new phase."""
        if isinstance(event, MergeMade):
            self.merges = self.done = event.rank + 1
            token = event.left + event.right
            if len(token) > len(self.longest):
                self.longest, self.longest_rank = token, event.rank
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
        seconds = self.clock() - self.phase_started
        return self.done / seconds if self.done and seconds > 0 else None

    @property
    def eta(self) -> float | None:
        """Seconds left in the phase at the current rate (merges tend to get faster, so it errs long)."""
        rate = self.rate
        if rate is None or self.phase == "counting" or self.total <= 0:
            return None
        return max(0.0, (self.total - self.done) / rate)

    def longest_shown(self) -> str:
        """The longest token, safe to print (see :func:`show_token`), with its length in bytes."""
        if not self.longest:
            return "none yet"
        return f"{show_token(self.longest)} ({len(self.longest)} bytes, merge {self.longest_rank + 1:,})"


def show_token(token: bytes, limit: int = TOKEN_SHOWN_CHARS) -> str:
    """A token on one line, safe for any terminal: whitespace as glyphs, control characters escaped,
    bytes that are not a whole UTF-8 character as ``\\xNN``, cut to ``limit`` characters.

    >>> show_token(b" the\\n")
    '·the↵'
    >>> show_token(b"\\x1b[2J\\xe3\\x81")
    '\\\\x1b[2J\\\\xe3\\\\x81'
    >>> show_token("あ".encode() * 50, limit=5)
    'ああああ…'
    """
    # Imported here, not at the top: the dispatcher imports every command to build its parser, and this
    # brings in Textual. train_command loads it before training so it never stalls a progress line.
    from bpe_tui.render import render_token

    shown = render_token(token)
    return shown if len(shown) <= limit else shown[: limit - 1] + "…"


def format_bytes(n: float) -> str:
    """A size in binary units.

    >>> format_bytes(812), format_bytes(49650), format_bytes(3 * 2**20)
    ('812 B', '48.5 KiB', '3.0 MiB')
    """
    if n < 1024:
        return f"{int(n)} B"
    for unit in ("KiB", "MiB", "GiB", "TiB"):
        n /= 1024
        if n < 1024 or unit == "TiB":
            break
    return f"{n:.1f} {unit}"


def format_duration(seconds: float) -> str:
    """A duration: seconds with a decimal under a minute, then minutes and hours.

    >>> format_duration(0.42), format_duration(125), format_duration(3725)
    ('0.4 s', '2m 05s', '1h 02m')
    """
    if seconds < 60:
        return f"{seconds:.1f} s"
    whole = int(seconds)
    if whole < 3600:
        return f"{whole // 60}m {whole % 60:02d}s"
    return f"{whole // 3600}h {whole % 3600 // 60:02d}m"


def summary_line(stats: TrainingStats, finished: TrainingFinished, written: list[Path], events: Path | None) -> str:
    """The one line said at the end: merges, vocab size, time, peak RSS and where the files went."""
    model: BPEModel = finished.model
    reason = _STOP_REASONS.get(finished.reason, finished.reason)
    where = ", ".join(str(path) for path in written)
    line = (
        f"trained {len(model.merges):,} merges ({reason}), vocab size {model.vocab_size:,}, "
        f"in {format_duration(stats.elapsed)}, peak RSS {format_bytes(stats.peak_rss)}; saved to {where}"
    )
    if events is not None:
        line += f", events in {events}"
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
                self._say(f"merging: up to {stats.total:,} merges")
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
        eta = stats.eta
        tail = f", ETA {format_duration(eta)}" if eta is not None and stats.done < stats.total else ""
        memory = f"RSS {format_bytes(stats.rss)} (peak {format_bytes(stats.peak_rss)})"
        if stats.phase == "reading":
            rate = stats.rate or 0
            return (
                f"reading: {percent} ({format_bytes(stats.done)} of {format_bytes(stats.total)}), "
                f"{format_bytes(rate)}/s{tail}, {memory}"
            )
        return (
            f"merging: {percent} ({stats.done:,}/{stats.total:,} merges), {stats.rate or 0:,.0f} merges/s{tail}, "
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
        """The display as one ``rich`` Text, built from plain strings: corpus and token text is never markup.

        A Text of fixed lines redraws in well under a millisecond; a Table grid took several.
        """
        from rich.text import Text

        stats = self.stats
        fraction = stats.fraction
        filled = round(BAR_CELLS * (fraction or 0.0))
        eta = stats.eta
        text = Text(no_wrap=True, overflow="ellipsis")
        text.append(f"{'training':>8}  ", style="bold").append(f"{self.corpus.name} -> {self.output}\n")
        text.append(f"{stats.phase or 'starting':>8}  ", style="bold cyan")
        text.append("━" * filled, style="magenta").append("━" * (BAR_CELLS - filled), style="bright_black")
        text.append(f" {100 * fraction:3.0f}%\n" if fraction is not None else "\n")
        details = [self._phase_detail(), f"ETA {format_duration(eta)}" if eta is not None else "",
                   f"elapsed {format_duration(stats.elapsed)}"]
        text.append(" " * 10 + "   ".join(part for part in details if part) + "\n")
        speed = f"{stats.rate:,.0f} merges/s" if stats.phase == "merging" and stats.rate else "-"
        text.append(f"{'speed':>8}  ", style="bold").append(speed + "\n")
        text.append(f"{'memory':>8}  ", style="bold")
        text.append(f"RSS {format_bytes(stats.rss)}   peak {format_bytes(stats.peak_rss)}\n")
        text.append(f"{'longest':>8}  ", style="bold").append(stats.longest_shown())
        return text

    def _phase_detail(self) -> str:
        stats = self.stats
        if stats.phase == "reading":
            return f"{format_bytes(stats.done)} of {format_bytes(stats.total)} read"
        if stats.phase == "counting":
            return f"pairs in {stats.unique_pretokens:,} unique pre-tokens"
        if stats.phase == "merging":
            return f"{stats.done:,} of {stats.total:,} merges"
        return ""

    def finish(self, summary: str) -> None:
        from rich.text import Text

        self.console.print(Text(summary))
