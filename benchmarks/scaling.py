"""Scaling benchmark: bpe-tui training time and peak memory on 1x, 2x, 4x and 8x the English corpus.

The copies of tinystories_2M are joined with ``<|endoftext|>`` (so no word is glued across a seam) into
temporary files. Every copy adds the same pre-tokens again, so the number of *unique* pre-tokens, which
the trainer's memory should follow, stays the same while the bytes grow: time should grow about linearly
with size (reading and counting) plus a constant (merging), and peak memory should stay flat. The sizes
are run in rotation (1x, 2x, 4x, 8x, 1x, ...), ``--runs`` rounds, medians reported.

Usage: ``python benchmarks/scaling.py [--runs N] [--quick] [--vocab N] [--workers K] [--factors 1 2 4 8]
[corpus file]`` (a corpus given replaces tinystories_2M).
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _common as c  # noqa: E402

FACTORS = [1, 2, 4, 8]


def concatenate(source: Path, factor: int, folder: Path) -> Path:
    """Write ``factor`` copies of ``source`` joined by ``<|endoftext|>`` into ``folder``; return the path.

    >>> import tempfile; d = Path(tempfile.mkdtemp()); s = d / "s.txt"; _ = s.write_text("ab")
    >>> concatenate(s, 3, d).read_text()
    'ab<|endoftext|>ab<|endoftext|>ab'
    """
    out = folder / f"{source.stem}-x{factor}{source.suffix}"
    data = source.read_bytes()
    with open(out, "wb") as handle:
        for index in range(factor):
            if index:
                handle.write(c.SPECIAL.encode())
            handle.write(data)
    return out


def unique_pretokens(path: Path) -> int:
    """How many distinct pre-tokens the corpus holds (what the trainer keeps in memory)."""
    from core.pretokenize.patterns import pretokenize

    return len(set(pretokenize(path.read_text(encoding="utf-8"), [c.SPECIAL])))


def measure(source: Path, factors: list[int], runs: int, *, vocab_size: int, workers: int | None = None,
            folder: Path | None = None, timeout: float = 1800.0) -> dict[str, Any]:
    """Train on each concatenation ``runs`` times (sizes in rotation); medians and per-MB figures."""
    workers = workers or os.cpu_count() or 1
    with tempfile.TemporaryDirectory(prefix="bpe-bench-scaling-", dir=folder) as tmp:
        files = {f: concatenate(source, f, Path(tmp)) for f in factors}
        uniques = unique_pretokens(source)
        cases = [(f"{f}x", (lambda p=p: c.run_task("train", "train_ours", {
            "path": str(p), "vocab_size": vocab_size, "workers": workers}, timeout=timeout)))
            for f, p in files.items()]
        raw = c.interleaved(runs, cases)
        sizes = {f"{f}x": p.stat().st_size for f, p in files.items()}
    rows = []
    base = None
    for (name, ms), factor in zip(raw.items(), factors):
        summary = c.summarise(ms, inner="inner_s")
        summary["factor"] = factor
        summary["bytes"] = sizes[name]
        if summary["wall_s"] is not None:
            summary["s_per_mb"] = summary["inner_s"] / (sizes[name] / c.MB)
        if base is None:
            base = summary
        summary["time_vs_1x"] = c.ratio(summary["inner_s"], base["inner_s"])
        summary["rss_vs_1x"] = c.ratio(summary["peak_rss_tree"], base["peak_rss_tree"])
        summary["pss_vs_1x"] = c.ratio(summary["peak_pss_tree"], base["peak_pss_tree"])
        rows.append(summary)
    return {"corpus": source.name, "vocab_size": vocab_size, "workers": workers,
            "unique_pretokens": uniques, "sizes": rows}


def report(result: dict[str, Any]) -> list[str]:
    """Print the table and the linear-time / flat-memory checks; return them.

    Memory is judged on the main process, which holds the unique pre-tokens and the merge state; worker
    processes only hold the chunk they are counting, which grows with the file until chunks reach their
    size cap, so the tree's figure is reported with how much it still grows at the largest size.
    """
    rows = [[f"{s['factor']}x", f"{s['bytes'] / c.MB:.1f} MB", c.fmt_s(s["inner_s"]),
             c.fmt_x(s["time_vs_1x"]), "-" if s.get("s_per_mb") is None else f"{s['s_per_mb']:.3f}",
             c.fmt_s(s["wall_s"]), c.fmt_mib(s["peak_rss_tree"]), c.fmt_mib(s["peak_pss_tree"]),
             c.fmt_x(s["pss_vs_1x"]), c.fmt_mib(s["maxrss_main"])] for s in result["sizes"]]
    print()
    print(f"{result['corpus']} copies, vocab {result['vocab_size']:,}, {result['workers']} workers, "
          f"{result['unique_pretokens']:,} unique pre-tokens at every size")
    print(c.table(["size", "bytes", "train", "vs 1x", "s/MB", "process", "RSS tree", "PSS tree", "PSS vs 1x",
                   "maxrss"], rows))
    print("\n(train = train_bpe inside the child, median; process = whole child; RSS = peak sum over the "
          "\n process tree, PSS = the same with shared pages counted once; maxrss = main process)")
    c.print_errors(result["corpus"], {f"{s['factor']}x": s for s in result["sizes"]})
    sizes = [s for s in result["sizes"] if s["inner_s"] is not None]
    notes = []
    if len(sizes) >= 2:
        first, last = sizes[0], sizes[-1]
        grow = last["factor"] / first["factor"]
        notes.append(f"time x{last['time_vs_1x']:.2f} for x{grow:g} the bytes "
                     f"(s/MB {first['s_per_mb']:.3f} -> {last['s_per_mb']:.3f}: "
                     + ("at most linear" if last["time_vs_1x"] <= grow * 1.1 else "WORSE than linear") + ")")
        main = c.ratio(last["maxrss_main"], first["maxrss_main"])
        notes.append(f"main process peak (ru_maxrss, holds the pre-token table) x{main:.2f} for x{grow:g} the bytes ("
                     + ("flat" if main <= 1.25 else "NOT flat") + ": within 25% of 1x)")
        notes.append(f"peak PSS of the process tree x{last['pss_vs_1x']:.2f}, tree RSS x{last['rss_vs_1x']:.2f}")
        if len(sizes) >= 3:
            before = sizes[-2]
            step = c.ratio(last["peak_pss_tree"], before["peak_pss_tree"])
            notes.append(f"tree PSS from {before['factor']}x to {last['factor']}x: x{step:.2f} "
                         + ("(levelled off)" if step <= 1.1 else "(still growing)"))
        print("\n" + "\n".join("  " + n for n in notes))
    return notes


def main(argv: list[str] | None = None) -> int:
    p = c.parser(__doc__.splitlines()[0])
    p.add_argument("--vocab", type=int, default=1000, help="vocab size (default 1,000)")
    p.add_argument("--workers", type=int, default=None, help="trainer workers (default: all cores)")
    p.add_argument("--factors", type=int, nargs="+", default=None, help=f"copies to train on (default {FACTORS})")
    args = p.parse_args(argv)
    source = args.corpora[0] if args.corpora else c.CORPORA / "tinystories_2M.txt"
    c.require_data(source)
    factors = args.factors or ([1, 2] if args.quick else FACTORS)
    runs = 1 if args.quick else args.runs
    header = c.start(args)
    c.progress(f"{source.name} x {factors}, vocab {args.vocab:,}:")
    result = measure(source, factors, runs, vocab_size=args.vocab, workers=args.workers)
    notes = report(result)
    saved = c.save("scaling", {**header, **result, "notes": notes}, enabled=not args.no_save)
    if saved:
        print(f"\nresults: {saved.relative_to(c.REPO)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
