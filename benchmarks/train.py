"""Training benchmark: bpe-tui vs Hugging Face ``tokenizers``, each as a whole process, time and peak memory.

For every corpus and vocab size, each round runs bpe-tui (all cores), Hugging Face's byte-level BPE
trainer, and bpe-tui with one worker, one after the other, so that a change in machine load hits all
three alike; the bpe-tui/HF and 1-worker/all-cores ratios are taken within each round, and the medians of
those ratios are reported. Targets (issue 5): at vocab 10,000, time <= 1.0x HF on English and <= 1.5x on
Japanese, and peak RSS <= HF's.

Usage: ``python benchmarks/train.py [--runs N] [--quick] [--vocab N ...] [extra corpus files...]``
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _common as c  # noqa: E402

CORPORA = ["tinystories_2M.txt", "tinyshakespeare.txt", "ja_aozora.txt"]
VOCABS = [1000, 10000]
TIME_TARGETS = {"ja_aozora.txt": 1.5}  # time ratio targets at vocab 10,000; other corpora 1.0
TARGET_VOCAB = 10000


# --- tasks (run in child processes) --------------------------------------------------------------------

def train_ours(path: str, vocab_size: int, workers: int) -> dict[str, Any]:
    """Train with bpe-tui; return the time inside the process and what was produced."""
    from core.train.run import train_bpe

    t0 = time.perf_counter()
    vocab, merges = train_bpe(path, vocab_size, [c.SPECIAL], workers=workers)
    return {"inner_s": time.perf_counter() - t0, "vocab": len(vocab), "merges": len(merges)}


def train_hf(path: str, vocab_size: int) -> dict[str, Any]:
    """Train Hugging Face's byte-level BPE with the GPT-2 split pattern and ``<|endoftext|>``."""
    from tokenizers import Regex, Tokenizer, models, pre_tokenizers, trainers

    from core.pretokenize.patterns import GPT2_PATTERN

    t0 = time.perf_counter()
    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(GPT2_PATTERN), behavior="isolated"),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
    ])
    # Registered before training so that, as in bpe-tui, its text is cut out of the corpus, not counted.
    tokenizer.add_special_tokens([c.SPECIAL])
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=[c.SPECIAL],
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
    tokenizer.train([path], trainer)
    return {"inner_s": time.perf_counter() - t0, "vocab": tokenizer.get_vocab_size()}


# --- the benchmark -------------------------------------------------------------------------------------

def measure(path: Path, vocab_size: int, runs: int, *, workers: int | None = None,
            single_worker: bool = True, timeout: float = 1800.0) -> dict[str, Any]:
    """Interleaved runs of bpe-tui (``workers``, default all cores), HF and bpe-tui with one worker.

    Returns medians per side (wall, peak tree RSS and PSS, ``ru_maxrss``, in-process seconds) and the
    medians of the per-round ratios.
    """
    workers = workers or os.cpu_count() or 1
    cases = [
        ("bpe-tui", lambda: c.run_task("train", "train_ours", {"path": str(path), "vocab_size": vocab_size,
                                                                "workers": workers}, timeout=timeout)),
        ("hf", lambda: c.run_task("train", "train_hf", {"path": str(path), "vocab_size": vocab_size}, timeout=timeout)),
    ]
    if single_worker and workers > 1:
        cases.append(("bpe-tui-1w", lambda: c.run_task("train", "train_ours", {
            "path": str(path), "vocab_size": vocab_size, "workers": 1}, timeout=timeout)))
    raw = c.interleaved(runs, cases)
    sides = {name: c.summarise(ms, inner="inner_s") for name, ms in raw.items()}
    for name, ms in raw.items():
        sides[name]["vocab"] = next((m.result.get("vocab") for m in ms if m.ok), None)

    def per_round(a: str, b: str, key: str) -> float | None:
        if a not in raw or b not in raw:
            return None
        return c.median(c.ratio(getattr(x, key), getattr(y, key)) if x.ok and y.ok else None
                        for x, y in zip(raw[a], raw[b]))

    return {
        "corpus": path.name,
        "corpus_bytes": path.stat().st_size,
        "vocab_size": vocab_size,
        "workers": workers,
        "sides": sides,
        "ratio_time_vs_hf": per_round("bpe-tui", "hf", "wall_s"),
        "ratio_rss_vs_hf": per_round("bpe-tui", "hf", "peak_rss_tree"),
        "ratio_pss_vs_hf": per_round("bpe-tui", "hf", "peak_pss_tree"),
        "ratio_maxrss_vs_hf": per_round("bpe-tui", "hf", "maxrss_main"),
        "speedup_all_vs_1w": per_round("bpe-tui-1w", "bpe-tui", "wall_s"),
    }


def report(cases: list[dict[str, Any]]) -> list[str]:
    """Print the tables and the targets; return the verdict lines."""
    times, memory = [], []
    for case in cases:
        s = case["sides"]
        ours, hf, one = s["bpe-tui"], s["hf"], s.get("bpe-tui-1w", {})
        name, vocab = case["corpus"], f"{case['vocab_size']:,}"
        times.append([name, vocab, c.fmt_s(ours["wall_s"]), c.fmt_s(hf["wall_s"]), c.fmt_x(case["ratio_time_vs_hf"]),
                      c.fmt_s(one.get("wall_s")), c.fmt_x(case["speedup_all_vs_1w"])])
        memory.append([name, vocab, c.fmt_mib(ours["peak_rss_tree"]), c.fmt_mib(hf["peak_rss_tree"]),
                       c.fmt_x(case["ratio_rss_vs_hf"]), c.fmt_mib(ours["peak_pss_tree"]),
                       c.fmt_x(case["ratio_pss_vs_hf"]), c.fmt_mib(ours["maxrss_main"]), c.fmt_mib(hf["maxrss_main"]),
                       c.fmt_mib(one.get("peak_rss_tree"))])
    print()
    print(c.table(["corpus", "vocab", f"ours ({cases[0]['workers']}w)" if cases else "ours", "HF", "ours/HF",
                   "ours 1w", "speed-up"], times))
    print()
    print(c.table(["corpus", "vocab", "RSS ours", "RSS HF", "ours/HF", "PSS ours", "PSS ours/HF",
                   "maxrss ours", "maxrss HF", "RSS ours 1w"], memory))
    print("\n(wall time of the whole process, median of runs; RSS = peak of the sum over the process tree, sampled"
          "\n every 20 ms; PSS = the same with shared copy-on-write pages counted once (HF is one process, so"
          "\n its PSS is its RSS); maxrss = kernel ru_maxrss of the main process; ratios = medians of per-round"
          "\n ratios; speed-up = 1-worker time / all-cores time)")
    for case in cases:
        c.print_errors(f"{case['corpus']} (vocab {case['vocab_size']:,})", case["sides"])
    verdicts = []
    for case in cases:
        if case["vocab_size"] != TARGET_VOCAB:
            continue
        limit = TIME_TARGETS.get(case["corpus"], 1.0)
        name = case["corpus"]
        verdicts.append(f"{name} time vs HF: {c.verdict(case['ratio_time_vs_hf'], limit, at_most=True)}")
        verdicts.append(f"{name} peak RSS (tree sum) vs HF: {c.verdict(case['ratio_rss_vs_hf'], 1.0, at_most=True)}")
        verdicts.append(f"{name} peak PSS (tree) vs HF: {c.verdict(case['ratio_pss_vs_hf'], 1.0, at_most=True)}")
    if verdicts:
        print("\nTargets at vocab 10,000:")
        print("\n".join("  " + v for v in verdicts))
    return verdicts


def main(argv: list[str] | None = None) -> int:
    p = c.parser(__doc__.splitlines()[0])
    p.add_argument("--vocab", type=int, nargs="+", help=f"vocab sizes (default {VOCABS})")
    p.add_argument("--no-single-worker", action="store_true", help="skip the 1-worker runs")
    args = p.parse_args(argv)
    c.require_data(c.CORPORA, *args.corpora)
    paths = [c.CORPORA / name for name in CORPORA] + list(args.corpora)
    c.require_data(*paths)
    vocabs = args.vocab or ([1000] if args.quick else VOCABS)
    runs = 1 if args.quick else args.runs
    header = c.start(args)
    cases = []
    for path in paths:
        for vocab_size in vocabs:
            c.progress(f"{path.name}, vocab {vocab_size:,}:")
            cases.append(measure(path, vocab_size, runs, single_worker=not args.no_single_worker))
    verdicts = report(cases)
    saved = c.save("train", {**header, "cases": cases, "verdicts": verdicts}, enabled=not args.no_save)
    if saved:
        print(f"\nresults: {saved.relative_to(c.REPO)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
