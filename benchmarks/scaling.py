"""Scaling benchmark: bpe-tui training time and peak memory as the corpus grows, with and without Dask.

Two measurements. The default (``--factors``) trains on 1x, 2x, 4x and 8x the English corpus, below.
``--corpus-mb 100 500 1000`` instead builds corpora of those sizes from all the shared corpora and trains
on them at ``--vocab`` (32,000 there): bpe-tui with its local worker pool, bpe-tui counting on a Dask
``LocalCluster`` (``--dask-workers``, default all cores), and Hugging Face ``tokenizers`` on the same
documents. The shared corpora (English stories, Shakespeare, Japanese) are cut into documents and
repeated; repeat ``r`` > 0 gives every word of five or more letters a suffix of its own (``r`` in base
26), so each repeat adds new pre-tokens and the unique pre-tokens grow with the size, as in a real
corpus, instead of staying flat. bpe-tui reads them as shards of JSON lines (about 16 MB each, the unit
of work of both the pool and the cluster); HF reads the same documents joined by ``<|endoftext|>`` in
one text file. Both bpe-tui runs must give the same merges (checked, by a digest).

The copies of tinystories_2M are joined with ``<|endoftext|>`` (so no word is glued across a seam) into
temporary files. Every copy adds the same pre-tokens again, so the number of *unique* pre-tokens, which
the trainer's memory should follow, stays the same while the bytes grow: time should grow about linearly
with size (reading and counting) plus a constant (merging), and peak memory should stay flat. The sizes
are run in rotation (1x, 2x, 4x, 8x, 1x, ...), ``--runs`` rounds, medians reported.

Usage: ``python benchmarks/scaling.py [--runs N] [--quick] [--vocab N] [--workers K] [--factors 1 2 4 8]
[corpus file]`` (a corpus given replaces tinystories_2M), or ``python benchmarks/scaling.py --corpus-mb 100
[500 1000] [--vocab 32000] [--dask-workers K] [--runs N]``.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sys
import tempfile
import time
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


# --- corpora of 100 MB and more, with growing unique pre-tokens ---------------------------------------

SOURCES = ("tinystories_2M.txt", "tinyshakespeare.txt", "ja_aozora.txt")
SHARD_BYTES = 16_000_000
"""About how large each JSON-lines shard of a built corpus is."""
_LONG_WORD = re.compile(r"\b([A-Za-z]{5,})\b")


def source_documents(paths: list[Path]) -> list[str]:
    """The shared corpora cut into documents: at ``<|endoftext|>``, or at blank lines where there is none."""
    documents: list[str] = []
    for path in paths:
        text = path.read_text(encoding="utf-8")
        parts = text.split(c.SPECIAL) if c.SPECIAL in text else text.split("\n\n")
        documents += [part for part in parts if part.strip()]
    return documents


def repeat_suffix(repeat: int) -> str:
    """The suffix repeat ``repeat`` gives long words: ``repeat`` in base 26 (a, b, ..., z, ba, ...).

    >>> repeat_suffix(1), repeat_suffix(25), repeat_suffix(26)
    ('b', 'z', 'ba')
    """
    letters = ""
    while True:
        repeat, digit = divmod(repeat, 26)
        letters = "abcdefghijklmnopqrstuvwxyz"[digit] + letters
        if repeat == 0:
            return letters


def varied(document: str, repeat: int) -> str:
    """``document`` as repeat ``repeat`` has it: unchanged the first time, then with new long words.

    >>> varied("the quick brown fox", 0), varied("the quick brown fox", 27)
    ('the quick brown fox', 'the quickbb brownbb fox')
    """
    if repeat == 0:
        return document
    suffix = repeat_suffix(repeat)
    return _LONG_WORD.sub(lambda m: m.group(1) + suffix, document)


def build_corpus(documents: list[str], target_bytes: int, folder: Path) -> tuple[Path, Path, int]:
    """Shards (``folder/shards/*.jsonl``) and the joined text (``folder/joined.txt``) of about ``target_bytes``
    of varied documents; returns both paths and the number of documents."""
    shards = folder / "shards"
    shards.mkdir(parents=True)
    written = count = index = 0
    shard = None
    shard_written = 0
    with open(folder / "joined.txt", "w", encoding="utf-8", newline="") as joined:
        repeat = 0
        while written < target_bytes:
            for document in documents:
                text = varied(document, repeat)
                if shard is None or shard_written >= SHARD_BYTES:
                    if shard is not None:
                        shard.close()
                    shard = open(shards / f"part-{index:04d}.jsonl", "w", encoding="utf-8")
                    index, shard_written = index + 1, 0
                line = json.dumps({"text": text}, ensure_ascii=False) + "\n"
                shard.write(line)
                shard_written += len(line)
                if count:
                    joined.write(c.SPECIAL)
                joined.write(text)
                written += len(text.encode("utf-8"))
                count += 1
                if written >= target_bytes:
                    break
            repeat += 1
    if shard is not None:
        shard.close()
    return shards, folder / "joined.txt", count


def train_shards(path: str, vocab_size: int, workers: int, dask: str | None = None) -> dict[str, Any]:
    """Train bpe-tui on the shards (child task); the time, the unique pre-tokens and a digest of the merges."""
    from core.train.events import PhaseProgress
    from core.train.run import TrainingRun

    t0 = time.perf_counter()
    run = TrainingRun(path, vocab_size, [c.SPECIAL], workers=workers, dask=dask)
    unique = 0
    read_s = None
    for event in run.events():
        if isinstance(event, PhaseProgress) and event.phase == "counting":
            unique = event.total
            if read_s is None:
                read_s = time.perf_counter() - t0
    merges = run.result().merges
    digest = hashlib.sha256(repr(merges).encode()).hexdigest()[:16]
    return {"inner_s": time.perf_counter() - t0, "read_s": read_s, "unique": unique, "merges": len(merges),
            "digest": digest}


def measure_corpora(sizes_mb: list[int], runs: int, *, vocab_size: int, workers: int, dask_workers: int,
                    timeout: float = 7200.0) -> dict[str, Any]:
    """Build each size, then run bpe-tui (pool), bpe-tui (LocalCluster) and HF on it, ``runs`` rounds."""
    documents = source_documents([c.CORPORA / name for name in SOURCES])
    rows = []
    for size in sizes_mb:
        with tempfile.TemporaryDirectory(prefix=f"bpe-bench-scaling-{size}mb-") as tmp:
            c.progress(f"building {size} MB ...")
            shards, joined, count = build_corpus(documents, size * c.MB, Path(tmp))
            cases = [
                ("pool", lambda: c.run_task("scaling", "train_shards", {
                    "path": str(shards), "vocab_size": vocab_size, "workers": workers}, timeout=timeout)),
                ("dask", lambda: c.run_task("scaling", "train_shards", {
                    "path": str(shards), "vocab_size": vocab_size, "workers": workers,
                    "dask": f"local:{dask_workers}"}, timeout=timeout)),
                ("hf", lambda: c.run_task("train", "train_hf", {"path": str(joined), "vocab_size": vocab_size},
                                          timeout=timeout)),
            ]
            raw = c.interleaved(runs, cases)
            row: dict[str, Any] = {"mb": size, "documents": count, "shards": len(list(shards.iterdir()))}
            for name, ms in raw.items():
                row[name] = c.summarise(ms, inner="inner_s")
                results = [m.result for m in ms if m.status == "ok" and m.result]
                if results:
                    row[name]["result"] = results[0]
            rows.append(row)
    return {"vocab_size": vocab_size, "workers": workers, "dask_workers": dask_workers, "sizes": rows}


def report_corpora(result: dict[str, Any]) -> list[str]:
    """Print the corpora table: time and peak memory of each side, and the unique pre-tokens."""
    table_rows = []
    notes = []
    for row in result["sizes"]:
        pool, dask, hf = row["pool"], row["dask"], row["hf"]
        unique = (pool.get("result") or {}).get("unique")
        table_rows.append([
            f"{row['mb']} MB", f"{unique:,}" if unique else "-", c.fmt_s(pool["inner_s"]), c.fmt_mib(pool["peak_pss_tree"]),
            c.fmt_s(dask["inner_s"]), c.fmt_mib(dask["peak_pss_tree"]), c.fmt_s(hf["inner_s"]),
            c.fmt_mib(hf["peak_pss_tree"]), c.fmt_x(c.ratio(pool["inner_s"], hf["inner_s"])),
        ])
        same = (pool.get("result") or {}).get("digest") == (dask.get("result") or {}).get("digest")
        notes.append(f"{row['mb']} MB: pool and LocalCluster merges " + ("identical" if same else "DIFFER"))
        reads = [(pool.get("result") or {}).get("read_s"), (dask.get("result") or {}).get("read_s")]
        if None not in reads:
            notes.append(f"{row['mb']} MB: reading and counting took {reads[0]:.1f} s on the pool, {reads[1]:.1f} s "
                         "on the LocalCluster (its start included); the rest is merging, here, the same for both")
        for name in ("pool", "dask", "hf"):
            c.print_errors(f"{row['mb']} MB {name}", {name: row[name]})
    print()
    print(f"vocab {result['vocab_size']:,}; pool of {result['workers']} workers; LocalCluster of "
          f"{result['dask_workers']} worker processes")
    print(c.table(["corpus", "unique pre-tokens", "pool", "PSS", "LocalCluster", "PSS", "HF", "PSS", "pool/HF"],
                  table_rows))
    print("\n(times: the training call inside its own process, median; PSS: peak over the process tree)")
    print("\n" + "\n".join("  " + n for n in notes))
    return notes


def main(argv: list[str] | None = None) -> int:
    p = c.parser(__doc__.splitlines()[0])
    p.add_argument("--vocab", type=int, default=None, help="vocab size (default 1,000; 32,000 with --corpus-mb)")
    p.add_argument("--workers", type=int, default=None, help="trainer workers (default: all cores)")
    p.add_argument("--factors", type=int, nargs="+", default=None, help=f"copies to train on (default {FACTORS})")
    p.add_argument("--corpus-mb", type=int, nargs="+", default=None, metavar="MB",
                   help="build corpora of these sizes (100 500 1000) from the shared corpora instead")
    p.add_argument("--dask-workers", type=int, default=None, help="LocalCluster workers (default: all cores)")
    args = p.parse_args(argv)
    if args.corpus_mb:
        c.require_data(*(c.CORPORA / name for name in SOURCES))
        header = c.start(args)
        workers = args.workers or os.cpu_count() or 1
        result = measure_corpora(args.corpus_mb, 1 if args.quick else args.runs, vocab_size=args.vocab or 32_000,
                                 workers=workers, dask_workers=args.dask_workers or workers)
        notes = report_corpora(result)
        saved = c.save("scaling-corpora", {**header, **result, "notes": notes}, enabled=not args.no_save)
        if saved:
            print(f"\nresults: {saved.relative_to(c.REPO)}")
        return 0
    args.vocab = args.vocab or 1000
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
