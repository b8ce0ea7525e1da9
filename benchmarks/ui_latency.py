"""Keypress-to-screen latency of pane switches in the real app, idle and while a big training run reads and merges.

The app runs in a tmux session as a user would run it (``TERM=xterm-256color``, no ``COLORTERM``), on a
corpus made of joined copies of the shared English and Japanese corpora. The script presses ``1`` and
``2`` in turn (corpus pane, training dashboard) and, for each key, times from just before ``tmux
send-keys`` until ``tmux capture-pane`` shows the pane the key asks for. It does this first with nothing
running (idle), then after starting training from the corpus form, until the run is done. Each switch is
filed under the phase the dashboard showed last: reading (and counting pairs), or merging.

What a figure includes: the tmux client starting for ``send-keys`` and each ``capture-pane`` (a few ms,
measured as ``floor``: the median time of one capture), the app reading the key, switching screens and
drawing, and tmux taking the output. Captures are taken every ``--poll`` seconds, so figures are rounded
up to that. The target of issue 13 item 13: p95 under 150 ms during training on 2 cores.

    python benchmarks/ui_latency.py [--copies 8] [--ja-copies 2] [--vocab 8000] [--gap 0.25] [--size 100x30]
"""

from __future__ import annotations

import os
import re
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

BENCH_DIR = Path(__file__).resolve().parent
if str(BENCH_DIR) not in sys.path:
    sys.path.insert(0, str(BENCH_DIR))

import _common as c  # noqa: E402

PANES = {"1": "Train a tokenizer on this file", "2": "Counts · bytes/token"}
"""Each key pressed, and text that only the pane it opens shows (the corpus form's title, a dashboard box)."""
PHASE = re.compile(r"│ (starting|reading|counting pairs|merging|done|failed|stopped)\b")
"""The dashboard's phase label, at the start of the line under the run's title."""
SESSION = f"bpe-ui-latency-{os.getpid()}"


class Terminal:
    """The app in a detached tmux session: keys in, screen text out."""

    def __init__(self, command: str, width: int, height: int) -> None:
        self.name = SESSION
        subprocess.run(
            ["tmux", "new-session", "-d", "-s", self.name, "-x", str(width), "-y", str(height), command],
            check=True,
        )

    def send(self, *keys: str) -> None:
        subprocess.run(["tmux", "send-keys", "-t", self.name, *keys], check=True)

    def screen(self) -> str:
        return subprocess.run(
            ["tmux", "capture-pane", "-p", "-t", self.name], check=True, capture_output=True, text=True
        ).stdout

    def wait_for(self, text: str, timeout: float, poll: float) -> tuple[float, str]:
        """Seconds until ``text`` is on screen (from now), and that screen; raises TimeoutError."""
        started = time.monotonic()
        while True:
            screen = self.screen()
            if text in screen:
                return time.monotonic() - started, screen
            if time.monotonic() - started > timeout:
                raise TimeoutError(f"{text!r} not on screen after {timeout:g} s; last screen:\n{screen}")
            time.sleep(poll)

    def close(self) -> None:
        subprocess.run(["tmux", "kill-session", "-t", self.name], capture_output=True)


def set_vocab(term: Terminal, vocab: int, poll: float) -> None:
    """Type ``vocab`` into the corpus form's first field, tabbing along the pane until the field takes it.

    Tab moves focus along the pane (tree, preview, then the form's fields); a field reached by
    Tab has its text selected, so typing replaces it. After each Tab one digit is typed: outside a field
    it is a pane key, so the pane it opened is left with ``1`` (focus stays where it was on the corpus
    pane) and the next Tab goes on from there. Counting Tabs instead broke whenever the pane's focus
    order changed.
    """
    digits = str(vocab)
    for _ in range(10):
        term.send("Tab")
        term.send(digits[0])
        try:
            term.wait_for(f"vocab size {digits[0]} ", 2.0, poll)
        except TimeoutError:
            if PANES["1"] not in term.screen():
                switch(term, "1", poll)
            continue
        term.send(*digits[1:])
        term.wait_for(f"vocab size {vocab} ", 2.0, poll)
        return
    raise TimeoutError(f"could not type vocab size {vocab} into the corpus form:\n{term.screen()}")


def switch(term: Terminal, key: str, poll: float, timeout: float = 30.0) -> tuple[float, str]:
    """Press ``key`` and return the seconds until its pane is on screen, and that screen."""
    started = time.monotonic()
    term.send(key)
    _, screen = term.wait_for(PANES[key], timeout, poll)
    return time.monotonic() - started, screen


def phase_of(screen: str) -> str | None:
    found = PHASE.search(screen)
    return found.group(1) if found else None


def capture_floor(term: Terminal, rounds: int = 20) -> float:
    """The median time of one ``capture-pane``: the resolution of every figure here."""
    times = []
    for _ in range(rounds):
        started = time.monotonic()
        term.screen()
        times.append(time.monotonic() - started)
    return statistics.median(times)


def niceness(term: Terminal) -> dict[str, Any]:
    """The niceness of the app, and of the processes it started (the trainer and its reading workers)."""
    import psutil

    out = subprocess.run(["tmux", "list-panes", "-t", term.name, "-F", "#{pane_pid}"], capture_output=True, text=True)
    if out.returncode != 0 or not out.stdout.strip():
        return {}
    try:
        shell = psutil.Process(int(out.stdout.split()[0]))
        tree = [shell, *shell.children(recursive=True)]
        app = next(p for p in tree if "bpe_tui" in p.cmdline())
        return {"app": app.nice(), "training": sorted({child.nice() for child in app.children(recursive=True)})}
    except (psutil.Error, StopIteration):
        return {}


def percentile(values: list[float], q: float) -> float | None:
    """The ``q``-th percentile (nearest rank) of ``values``, or None for none."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, -(-len(ordered) * q // 100))
    return ordered[int(rank) - 1]


def summary(samples: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """p50, p95, max and count of the latencies (ms) of each phase."""
    out: dict[str, dict[str, Any]] = {}
    for phase in ("idle", "reading", "merging"):
        values = [s["ms"] for s in samples if s["phase"] == phase]
        out[phase] = {
            "n": len(values),
            "p50_ms": percentile(values, 50),
            "p95_ms": percentile(values, 95),
            "max_ms": max(values) if values else None,
        }
    return out


def build_corpus(folder: Path, copies: int, ja_copies: int) -> Path:
    """``copies`` of tinystories_2M and ``ja_copies`` of ja_aozora, joined by ``<|endoftext|>``."""
    out = folder / "big.txt"
    separator = c.SPECIAL.encode()
    parts = [c.CORPORA / "tinystories_2M.txt"] * copies + [c.CORPORA / "ja_aozora.txt"] * ja_copies
    with open(out, "wb") as handle:
        for index, part in enumerate(parts):
            if index:
                handle.write(separator)
            handle.write(part.read_bytes())
    return out


def measure(corpus: Path, *, repo: Path, vocab: int, size: tuple[int, int], gap: float, poll: float,
            idle_switches: int, max_seconds: float) -> dict[str, Any]:
    """Run the app of ``repo`` on ``corpus``, time pane switches idle and during training, return every sample."""
    app = f"{shlex.quote(sys.executable)} -m bpe_tui --no-train {shlex.quote(str(corpus))}"
    command = (f"cd {shlex.quote(str(corpus.parent))} && env -u COLORTERM TERM=xterm-256color "
               f"PYTHONPATH={shlex.quote(str(repo))} {app}")
    term = Terminal(command, *size)
    samples: list[dict[str, Any]] = []
    nice: dict[str, Any] = {}
    started: float | None = None
    try:
        term.wait_for(PANES["1"], 60.0, poll)
        term.wait_for("documents", 120.0, poll)  # the corpus pane's scan of the file is done
        floor = capture_floor(term)
        c.progress(f"  capture floor {floor * 1000:.1f} ms; idle switches")
        keys = ["2", "1"]
        for key in keys:  # each pane is built on its first visit: that once-only cost is not a switch
            switch(term, key, poll)
        for index in range(idle_switches):
            key = keys[index % 2]
            seconds, _ = switch(term, key, poll)
            samples.append({"phase": "idle", "key": key, "ms": seconds * 1000, "t": time.monotonic()})
            time.sleep(gap)
        set_vocab(term, vocab, poll)
        term.send("C-t")
        term.wait_for(PANES["2"], 30.0, poll)  # the app shows the dashboard as the run starts
        c.progress(f"  training {corpus.stat().st_size / 2**20:.0f} MiB to vocab {vocab:,}; switching panes")
        started = time.monotonic()
        phase = "starting"
        key_index = 1  # on the dashboard now: press 1 first
        while time.monotonic() - started < max_seconds:
            key = keys[key_index % 2]
            key_index += 1
            seconds, screen = switch(term, key, poll)
            if key == "2":
                phase = phase_of(screen) or phase
                if not nice.get("training") and phase in ("reading", "merging"):
                    nice = niceness(term)
            if phase in ("done", "failed", "stopped"):
                break
            filed = "reading" if phase in ("starting", "reading", "counting pairs") else phase
            samples.append({"phase": filed, "key": key, "ms": seconds * 1000, "t": time.monotonic() - started})
            time.sleep(gap)
        else:
            c.progress(f"  stopped after {max_seconds:g} s: the run had not finished")
        term.send("C-q")
        time.sleep(0.5)
    finally:
        term.close()
    return {"samples": samples, "floor_ms": floor * 1000, "niceness": nice,
            "training_seconds": time.monotonic() - started if started is not None else None}


def fmt_ms(value: float | None) -> str:
    return "—" if value is None else f"{value:.0f} ms"


def main(argv: list[str] | None = None) -> int:
    p = c.parser(__doc__.splitlines()[0], default_runs=1)
    p.add_argument("--copies", type=int, default=8, help="copies of tinystories_2M in the corpus (default 8)")
    p.add_argument("--ja-copies", type=int, default=2, help="copies of ja_aozora in the corpus (default 2)")
    p.add_argument("--vocab", type=int, default=8000, help="vocab size to train to (default 8000)")
    p.add_argument("--size", default="100x30", help="terminal size, WIDTHxHEIGHT (default 100x30)")
    p.add_argument("--gap", type=float, default=0.25, help="seconds between key presses (default 0.25)")
    p.add_argument("--poll", type=float, default=0.003, help="seconds between screen captures (default 0.003)")
    p.add_argument("--idle-switches", type=int, default=40, help="switches timed before training (default 40)")
    p.add_argument("--max-seconds", type=float, default=600.0, help="give up on a run after this long")
    p.add_argument("--compare", type=lambda s: Path(s).resolve(), default=None, metavar="CHECKOUT",
                   help="also run the app of another checkout, alternating with this one round by round")
    args = p.parse_args(argv)
    if subprocess.run(["tmux", "-V"], capture_output=True).returncode != 0:
        print("ui_latency needs tmux on the PATH", file=sys.stderr)
        return 2
    c.require_data(c.CORPORA / "tinystories_2M.txt", c.CORPORA / "ja_aozora.txt")
    width, height = (int(n) for n in args.size.lower().split("x"))
    if args.quick:
        args.copies, args.ja_copies, args.vocab, args.idle_switches = 1, 0, 1000, 6
    header = c.start(args)
    checkouts = {"this": c.REPO} | ({"compared": args.compare} if args.compare is not None else {})
    rounds: dict[str, list[dict[str, Any]]] = {name: [] for name in checkouts}
    with tempfile.TemporaryDirectory(prefix="bpe-bench-ui-") as folder:
        corpus = build_corpus(Path(folder), args.copies, args.ja_copies)
        for round_ in range(args.runs):
            for name, repo in checkouts.items():
                c.progress(f"round {round_ + 1}/{args.runs}, {name} ({repo}):")
                rounds[name].append(measure(
                    corpus, repo=repo, vocab=args.vocab, size=(width, height), gap=args.gap, poll=args.poll,
                    idle_switches=args.idle_switches, max_seconds=args.max_seconds,
                ))
    tables = {name: summary([s for r in runs for s in r["samples"]]) for name, runs in rounds.items()}
    floor = statistics.median(r["floor_ms"] for runs in rounds.values() for r in runs)
    print(c.table(
        ["checkout", "phase", "switches", "p50", "p95", "max"],
        [[name, phase, row["n"], fmt_ms(row["p50_ms"]), fmt_ms(row["p95_ms"]), fmt_ms(row["max_ms"])]
         for name, table in tables.items() for phase, row in table.items()],
    ))
    print(f"capture floor {floor:.1f} ms · niceness {rounds['this'][-1]['niceness'] or 'not read'} · "
          f"load average now {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    training = [row["p95_ms"] for phase, row in tables["this"].items() if phase != "idle" and row["p95_ms"] is not None]
    if training:
        print(c.verdict(max(training), 150.0, at_most=True, unit=" ms") + " (p95 during training, target 150 ms)")
    payload = {**header, "args": {k: str(v) if isinstance(v, Path) else v for k, v in vars(args).items()
                                  if k != "corpora"},
               "summary": tables, "floor_ms": floor, "checkouts": {k: str(v) for k, v in checkouts.items()},
               "rounds": rounds}
    saved = c.save("ui_latency", payload, enabled=not args.no_save)
    if saved:
        print(f"\nresults: {saved.relative_to(c.REPO)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
