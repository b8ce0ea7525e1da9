"""Shared benchmark machinery: run a task as a whole child process, measure its wall time and peak RSS, report.

A *task* is a module-level function of a benchmark script that takes JSON-able keyword arguments and returns
a JSON-able dict. :func:`run_task` starts a fresh interpreter (``sys.executable -c``) that imports the
script, calls the function and writes its result to a file, while the parent

* times the whole child from ``Popen`` to reaping (interpreter start-up and imports included, as a user
  would see it),
* samples the RSS of the child's whole process tree every ~20 ms in a thread and keeps the maximum (our
  trainer and exporter fork workers, Hugging Face uses threads: a tree sum is fair to both; it counts
  copy-on-write pages once per process, so it errs high for forked workers), and
* for a tree of several processes, also samples the sum of PSS, which splits shared pages between their
  sharers: the fair figure for forked workers (reading ``smaps_rollup`` is not free, so the sampler
  spends at most 1/20 of its time on it: every ~20 ms for small processes, less often for large ones);
* reaps the child with ``os.wait4`` to read the kernel's ``ru_maxrss`` (the main process; Linux folds in
  the largest descendant it has waited for), which no sampling interval can miss.

Benchmark scripts keep heavy imports (``core``, ``tokenizers``, ``tiktoken``) inside their task functions,
so a child pays only for what it measures. Results go to ``benchmarks/results/<name>-<timestamp>.json``
with the machine, the git commit and the load average before and after every run.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

BENCH_DIR = Path(__file__).resolve().parent
if str(BENCH_DIR) not in sys.path:  # benchmarks/ is not a package; its helpers import each other by name
    sys.path.insert(0, str(BENCH_DIR))

import _process_tree as process_tree  # noqa: E402
import shared_data  # noqa: E402

REPO = BENCH_DIR.parent
DATA = shared_data.data_dir()
"""The shared data (``$BPE_TUI_SHARED/data``, else ``../shared/data``): see :mod:`shared_data`."""
CORPORA = DATA / "corpora"
GPT2_VOCAB = REPO / "samples" / "gpt2" / "vocab.json"
GPT2_MERGES = REPO / "samples" / "gpt2" / "merges.txt"
"""GPT-2's files, bundled with the repository (``samples/gpt2``)."""
RESULTS = BENCH_DIR / "results"

SPECIAL = "<|endoftext|>"
SAMPLE_SECONDS = 0.02
TREE_EVERY = 5
PSS_DUTY = 20
MB = 1_000_000  # throughput is in decimal megabytes of UTF-8 input per second, as tiktoken reports

_BOOT = """
import json, sys
bench_dir, repo, module, function, kwargs, out = sys.argv[1:7]
sys.path[:0] = [bench_dir, repo]
result = getattr(__import__(module), function)(**json.loads(kwargs))
with open(out, "w", encoding="utf-8") as handle:
    json.dump(result, handle)
"""


@dataclass
class Measurement:
    """One child process: how long it took, how much memory it held, and what its task returned."""

    status: str
    """``"ok"``, ``"timeout"`` (killed after the time limit) or ``"error"`` (non-zero exit)."""
    wall_s: float
    peak_rss_tree: int
    """Largest sampled sum of RSS over the child and its live descendants, in bytes."""
    maxrss_main: int
    """``ru_maxrss`` from ``os.wait4``, in bytes."""
    peak_pss_tree: int
    """Like ``peak_rss_tree`` but counting shared (copy-on-write) pages once: the sum of PSS over the tree,
    sampled less often while the child has descendants (see above); while it is alone, its RSS."""
    result: dict[str, Any] = field(default_factory=dict)
    error: str = ""
    load_before: float = 0.0
    load_after: float = 0.0

    @property
    def ok(self) -> bool:
        return self.status == "ok"


def _child_environment() -> dict[str, str]:
    """This environment, minus PYTHONDONTWRITEBYTECODE: with it set (as in some sandboxes) every child
    would compile bpe-tui's modules from source at each start, which a normal install does only once."""
    return {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}


def run_task(module: str, function: str, kwargs: dict[str, Any] | None = None, *, timeout: float = 600.0,
             env: dict[str, str] | None = None, pss_duty: int = PSS_DUTY) -> Measurement:
    """Run ``module.function(**kwargs)`` in a fresh interpreter and measure the whole process.

    ``module`` is a file name in ``benchmarks/`` without ``.py``. A child still running after ``timeout``
    seconds is killed (with its process group) and reported as ``"timeout"``. The sampler spends at most
    ``1/pss_duty`` of its time reading PSS (see the module docstring).

    >>> m = run_task("_common", "echo_task", {"value": 3})
    >>> m.status, m.result, m.wall_s > 0, m.peak_rss_tree > 0
    ('ok', {'value': 3}, True, True)
    """
    with tempfile.TemporaryDirectory(prefix="bpe-bench-") as folder:
        out = Path(folder) / "result.json"
        err = Path(folder) / "stderr.txt"
        argv = [sys.executable, "-c", _BOOT, str(BENCH_DIR), str(REPO), module, function,
                json.dumps(kwargs or {}), str(out)]
        load_before = os.getloadavg()[0]
        peak = peak_pss = 0
        done = threading.Event()
        with open(err, "wb") as err_handle:
            start = time.perf_counter()
            proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=err_handle, cwd=folder,
                                    env={**_child_environment(), **(env or {})}, start_new_session=True)

            def sample() -> None:
                nonlocal peak, peak_pss
                next_pss = 0.0
                procs: list[Any] = []
                for tick in itertools.count():
                    if done.wait(SAMPLE_SECONDS):
                        break
                    if tick % TREE_EVERY == 0:  # listing descendants is the costly part: not every sample
                        procs = process_tree.tree(proc.pid)
                    rss = process_tree.rss_sum(procs)
                    peak = max(peak, rss)
                    if len(procs) <= 1 or not process_tree.HAVE_ROLLUP:
                        peak_pss = max(peak_pss, rss)
                    elif time.perf_counter() >= next_pss:
                        # Reading smaps costs time in proportion to what is mapped: keep it to 1/pss_duty of the time.
                        begun = time.perf_counter()
                        peak_pss = max(peak_pss, process_tree.pss_sum(procs))
                        next_pss = begun + (time.perf_counter() - begun) * pss_duty

            sampler = threading.Thread(target=sample, daemon=True)
            sampler.start()
            timed_out = threading.Event()

            def kill() -> None:
                timed_out.set()
                _kill_group(proc.pid)

            timer = threading.Timer(timeout, kill)
            timer.start()
            _, exit_status, rusage = os.wait4(proc.pid, 0)
            timer.cancel()
            status = "timeout" if timed_out.is_set() else "ok"
            wall = time.perf_counter() - start
            proc.returncode = os.waitstatus_to_exitcode(exit_status)  # reaped here, not by Popen
            done.set()
            sampler.join()
        error = ""
        result: dict[str, Any] = {}
        if status == "ok" and proc.returncode != 0:
            status = "error"
        if status == "ok":
            result = json.loads(out.read_text(encoding="utf-8"))
        elif status == "error":
            lines = err.read_text(encoding="utf-8", errors="replace").strip().splitlines()
            error = lines[-1] if lines else f"exit code {proc.returncode}"
        else:
            error = f"killed after {timeout:g} s"
    maxrss = rusage.ru_maxrss * 1024 if rusage else 0
    if not peak:
        # The child ended before the sampler's first look (a short task on a loaded machine): the kernel's
        # peak for the main process is then the only figure there is, rather than none.
        peak = peak_pss = maxrss
    return Measurement(status, wall, peak, maxrss, peak_pss or peak, result, error, load_before, os.getloadavg()[0])


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, 9)
    except (ProcessLookupError, PermissionError):
        pass


def echo_task(value: Any) -> dict[str, Any]:
    """A trivial task, for checking the runner."""
    return {"value": value}


# --- summarising ---------------------------------------------------------------------------------------

def median(values: Iterable[float | None]) -> float | None:
    """Median of the values that are not ``None``; ``None`` when there are none.

    >>> median([3.0, None, 1.0, 2.0]), median([None])
    (2.0, None)
    """
    present = [v for v in values if v is not None]
    return statistics.median(present) if present else None


def summarise(measurements: Sequence[Measurement], inner: str | None = None) -> dict[str, Any]:
    """Median wall time, peak tree RSS and ``ru_maxrss`` over the successful runs, plus every run's raw figures.

    ``inner`` names a key of each task result (seconds timed inside the child) to take the median of too.
    """
    good = [m for m in measurements if m.ok]
    summary: dict[str, Any] = {
        "runs": len(measurements),
        "ok_runs": len(good),
        "status": "ok" if len(good) == len(measurements) else (measurements[-1].status if not good else "partial"),
        "wall_s": median(m.wall_s for m in good),
        "peak_rss_tree": median(m.peak_rss_tree for m in good),
        "maxrss_main": median(m.maxrss_main for m in good),
        "peak_pss_tree": median(m.peak_pss_tree for m in good),
        "raw": [asdict(m) for m in measurements],
    }
    if inner is not None:
        summary[inner] = median(m.result.get(inner) for m in good)
    errors = sorted({m.error for m in measurements if m.error})
    if errors:
        summary["errors"] = errors
    return summary


def ratio(a: float | None, b: float | None) -> float | None:
    """``a / b``, or ``None`` when either is missing or ``b`` is zero."""
    if a is None or b is None or b == 0:
        return None
    return a / b


def verdict(value: float | None, target: float, *, at_most: bool, unit: str = "x") -> str:
    """Whether ``value`` meets ``target`` (``at_most``: value <= target, else value >= target), and by how much.

    >>> verdict(1.2, 1.0, at_most=True), verdict(0.6, 0.5, at_most=False)
    ('MISSED by 20% (1.20x vs <= 1.00x)', 'met (0.60x vs >= 0.50x)')
    """
    if value is None:
        return "n/a"
    sign = "<=" if at_most else ">="
    met = value <= target if at_most else value >= target
    figures = f"{value:.2f}{unit} vs {sign} {target:.2f}{unit}"
    if met:
        return f"met ({figures})"
    off = value / target - 1 if at_most else 1 - value / target
    return f"MISSED by {off:.0%} ({figures})"


# --- printing ------------------------------------------------------------------------------------------

def print_errors(label: str, sides: dict[str, dict[str, Any]]) -> None:
    """One note line for each distinct error or timeout of the sides of one case."""
    for name, side in sides.items():
        for error in side.get("errors", []):
            print(f"  note: {name} on {label}: {side['status']}: {error}")


def fmt_s(seconds: float | None) -> str:
    return "-" if seconds is None else f"{seconds:.2f} s"


def fmt_mib(nbytes: float | None) -> str:
    return "-" if not nbytes else f"{nbytes / 2**20:.0f} MiB"


def fmt_x(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}x"


def fmt_rate(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f} MB/s"


def table(headers: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    """A plain-text table with a header rule; first column left-aligned, the others right-aligned.

    >>> print(table(["a", "b"], [["x", 1], ["yy", 22]]))
    a    b
    --  --
    x    1
    yy  22
    """
    cells = [[str(c) for c in headers]] + [[str(c) for c in row] for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]

    def line(row: Sequence[str]) -> str:
        return "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths))).rstrip()

    return "\n".join([line(cells[0]), line(["-" * w for w in widths]), *map(line, cells[1:])])


# --- command line, data, machine -----------------------------------------------------------------------

def parser(description: str, *, default_runs: int = 3) -> argparse.ArgumentParser:
    """The options every benchmark shares: ``--runs``, ``--quick``, extra corpus files, load waiting, output."""
    p = argparse.ArgumentParser(description=description)
    # Resolved here: the children run in a temporary directory.
    p.add_argument("corpora", nargs="*", type=lambda s: Path(s).resolve(), help="extra corpus files to include")
    p.add_argument("--runs", type=int, default=default_runs, help=f"runs per measurement, median taken (default {default_runs})")
    p.add_argument("--quick", action="store_true", help="fewer cases and one run: a check that everything works")
    p.add_argument("--wait-load", type=float, default=0.0, metavar="SECONDS",
                   help="first wait up to this long for the 1-minute load average to fall below --max-load")
    p.add_argument("--max-load", type=float, default=1.0, help="load average to wait for (default 1.0)")
    p.add_argument("--no-save", action="store_true", help="print only; do not write benchmarks/results/*.json")
    return p


def require_data(*paths: Path) -> None:
    """Exit with status 2 when any of ``paths`` (shared data or files given) is missing, naming each one."""
    missing = [p for p in paths if not p.exists()]
    if missing:
        for path in missing:
            print(f"benchmark data not found: {path}", file=sys.stderr)
        print(f"The benchmarks read their corpora from {DATA}: {shared_data.HOW_TO_GET}. "
              "Files named on the command line must exist.", file=sys.stderr)
        raise SystemExit(2)


def wait_for_quiet(max_wait: float, threshold: float, *, poll: float = 15.0) -> float:
    """Wait (up to ``max_wait`` seconds) for the 1-minute load average to drop below ``threshold``; return it."""
    deadline = time.monotonic() + max_wait
    load = os.getloadavg()[0]
    while load >= threshold and time.monotonic() < deadline:
        print(f"load average {load:.2f} >= {threshold:g}; waiting...", file=sys.stderr, flush=True)
        time.sleep(min(poll, max(0.0, deadline - time.monotonic())))
        load = os.getloadavg()[0]
    return load


def machine() -> dict[str, Any]:
    """Where the figures were measured: cores, CPU model, Python, peer versions, git commit.

    ``core_dirty`` says whether ``core/`` differs from the commit, and ``core_digest`` (a hash of every
    ``core/*.py``) tells which version of the working tree was measured.
    """
    cpu = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        cpu = platform.processor() or "unknown"
    versions = {}
    for name in ("tiktoken", "tokenizers", "numpy", "regex"):
        try:
            from importlib.metadata import version

            versions[name] = version(name)
        except Exception:
            versions[name] = None
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True,
                                text=True, check=True).stdout.strip()
        dirty = bool(subprocess.run(["git", "status", "--porcelain", "--", "core"], cwd=REPO,
                                    capture_output=True, text=True).stdout.strip())
    except (OSError, subprocess.CalledProcessError):
        commit, dirty = "unknown", False
    import hashlib

    digest = hashlib.sha1()
    for source in sorted((REPO / "core").rglob("*.py")):
        digest.update(source.relative_to(REPO).as_posix().encode() + b"\0" + source.read_bytes())
    return {
        "nproc": os.cpu_count(),
        "cpu": cpu,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "versions": versions,
        "git_commit": commit,
        "core_dirty": dirty,
        "core_digest": digest.hexdigest()[:12],
        "loadavg": list(os.getloadavg()),
    }


def save(name: str, payload: dict[str, Any], *, enabled: bool = True) -> Path | None:
    """Write ``payload`` (plus the machine and a timestamp) to ``benchmarks/results/<name>-<timestamp>.json``."""
    if not enabled:
        return None
    stamp = time.strftime("%Y%m%d-%H%M%S")
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / f"{name}-{stamp}.json"
    body = {"benchmark": name, "timestamp": stamp, "machine": payload.get("machine") or machine(), **payload,
            "loadavg_end": list(os.getloadavg())}
    path.write_text(json.dumps(body, indent=2) + "\n", encoding="utf-8")
    return path


def start(args: argparse.Namespace) -> dict[str, Any]:
    """Wait for a quiet machine if asked, print the load, and return the header fields of the results."""
    load = wait_for_quiet(args.wait_load, args.max_load) if args.wait_load > 0 else os.getloadavg()[0]
    print(f"load average at start: {load:.2f} (1 min) on {os.cpu_count()} cores", flush=True)
    # Taken now, not at the end: the git commit and core/ digest must be those of the code measured.
    return {"machine": machine(), "runs": args.runs, "quick": args.quick, "loadavg_start": list(os.getloadavg())}


def progress(message: str) -> None:
    """One line on stderr, so that tables on stdout stay clean."""
    print(message, file=sys.stderr, flush=True)


def interleaved(runs: int, cases: Sequence[tuple[str, Callable[[], Measurement]]]) -> dict[str, list[Measurement]]:
    """Run each case once per round, ``runs`` rounds (A, B, A, B, ...), so drifting load hits all alike."""
    out: dict[str, list[Measurement]] = {name: [] for name, _ in cases}
    for round_ in range(runs):
        for name, run in cases:
            m = run()
            out[name].append(m)
            progress(f"  [{round_ + 1}/{runs}] {name}: {m.status} {m.wall_s:.2f} s, "
                     f"tree {fmt_mib(m.peak_rss_tree)}, load {m.load_before:.2f}" + (f" ({m.error})" if m.error else ""))
    return out
