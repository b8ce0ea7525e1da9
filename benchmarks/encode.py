"""Encoding benchmark: MB/s of bpe-tui (cold and warm), tiktoken and Hugging Face with GPT-2's vocabulary.

Every encoder is built offline from GPT-2's ``vocab.json`` + ``merges.txt`` bundled in ``samples/gpt2/``
(never ``tiktoken.get_encoding``) with ``<|endoftext|>`` as a special token, and runs in its own child
process, one thread, on the whole text in one call:

* ``bpe-tui cold``: the first ``encode`` of a freshly built ``Tokenizer`` (empty pre-token cache);
  ``bpe-tui warm``: a second ``encode`` of the same text on the same tokenizer;
* ``tiktoken``: ``Encoding.encode(text, allowed_special={"<|endoftext|>"})`` (single-threaded);
* ``HF``: ``Tokenizer.encode(text)`` on the whole text at once (``models.BPE`` from the same files, the
  GPT-2 split regex then byte-level mapping, ``<|endoftext|>`` added as a special token); ``HF docs``:
  the same, one call per document between ``<|endoftext|>`` (same ids; HF is faster on shorter strings);
* the floor: the GPT-2 pattern alone with the ``regex`` module (``finditer`` and ``findall``), plus
  bpe-tui's own splitter (``core.pretokenize.fast_split``, stdlib ``re``) for reference.

Texts: English with a tiny vocabulary (tinystories_2M), varied English (tinyshakespeare, Python's docs, and
both joined with licence texts: see ``varied_text.py``), Japanese (ja_aozora), any files given, and three
pathological 1 MB inputs made of one repeated character (``a``, space, ``あ``), each one single pre-token.
For each text the table gives its distinct pre-tokens and the share of pre-tokens the cold and the warm
pass found in bpe-tui's pre-token cache (none for wide text such as Japanese, which is encoded character
by character, bypassing that cache). The encoders' ids are compared (count and digest) and a
disagreement is flagged.

Targets (issues 5 and 16): bpe-tui cold >= 0.5x tiktoken on English (TinyStories and the varied texts),
warm >= 0.8x on the varied texts, cold >= 0.4x on Japanese, >= 1 MB/s on the pathological inputs.
``--memory`` also streams 100 MB through ``encode_iterable`` (``memory_task``) and reports the peak memory.

Usage: ``python benchmarks/encode.py [--runs N] [--quick] [--memory] [extra corpus files...]``
"""

from __future__ import annotations

import hashlib
import sys
import time
from array import array
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _common as c  # noqa: E402
import varied_text  # noqa: E402

ENCODERS = ["bpe-tui", "tiktoken", "hf", "hf-docs", "regex-finditer", "regex-findall", "bpe-tui-split"]
PATHOLOGICAL = {"1 MB of 'a'": "a", "1 MB of spaces": " ", "1 MB of 'あ'": "あ"}
SHAKESPEARE = "tinyshakespeare.txt"
PYTHON_DOCS = "Python docs"
VARIED = "varied English"
TARGETS = {"tinystories_2M.txt": 0.5, SHAKESPEARE: 0.5, PYTHON_DOCS: 0.5, VARIED: 0.5, "ja_aozora.txt": 0.4}
"""Cold bpe-tui vs tiktoken, at least."""
WARM_TARGETS = {SHAKESPEARE: 0.8, PYTHON_DOCS: 0.8, VARIED: 0.8}
"""Warm bpe-tui (a second pass) vs tiktoken, at least."""
PATHOLOGICAL_MBPS = 1.0
MEMORY_MB = 100
NEW_WORDS_MB = 10
"""The stream of never-seen words misses on every pre-token (slow): 10 MB turns the cache over many times."""


# --- tasks (run in child processes) --------------------------------------------------------------------

def load_text(spec: dict[str, Any]) -> str:
    """The text a case names: ``{"path": ...}`` (UTF-8 file), ``{"parts": [...]}`` (see ``varied_text.joined``)
    or ``{"repeat": ch, "bytes": n}``.

    >>> len(load_text({"repeat": "あ", "bytes": 10}).encode())
    9
    """
    if "path" in spec:
        return Path(spec["path"]).read_text(encoding="utf-8")
    if "parts" in spec:
        return varied_text.joined(spec["parts"])
    unit = spec["repeat"]
    return unit * (spec["bytes"] // len(unit.encode("utf-8")))


def _digest(ids: list[int]) -> str:
    return hashlib.sha1(array("q", ids).tobytes()).hexdigest()[:16]


def _build(encoder: str, vocab_json: str, merges_txt: str):
    """An ``encode(text) -> ids`` function (``None`` result for the floor, which makes no ids) and the tokenizer."""
    if encoder == "bpe-tui":
        from core.encode.tokenizer import Tokenizer

        return Tokenizer.from_files(vocab_json, merges_txt, [c.SPECIAL]).encode  # its tokenizer: .__self__
    if encoder == "tiktoken":
        import tiktoken

        from core.formats.gpt2_files import read_gpt2_files
        from core.pretokenize.patterns import GPT2_PATTERN

        vocab, _ = read_gpt2_files(vocab_json, merges_txt)
        special_id = next(i for i, b in vocab.items() if b == c.SPECIAL.encode())
        ranks = {token: i for i, token in vocab.items() if i != special_id}
        enc = tiktoken.Encoding("gpt2-offline", pat_str=GPT2_PATTERN, mergeable_ranks=ranks,
                                special_tokens={c.SPECIAL: special_id})
        allowed = {c.SPECIAL}
        return lambda text: enc.encode(text, allowed_special=allowed)
    if encoder in ("hf", "hf-docs"):
        from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers

        from core.pretokenize.patterns import GPT2_PATTERN

        vocab, merges = models.BPE.read_file(vocab_json, merges_txt)
        tok = Tokenizer(models.BPE(vocab, merges))
        tok.pre_tokenizer = pre_tokenizers.Sequence([
            pre_tokenizers.Split(Regex(GPT2_PATTERN), behavior="isolated"),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
        ])
        tok.decoder = decoders.ByteLevel()
        tok.add_special_tokens([c.SPECIAL])
        if encoder == "hf":
            return lambda text: tok.encode(text, add_special_tokens=False).ids
        special_id = tok.token_to_id(c.SPECIAL)

        def by_document(text: str) -> list[int]:
            # Cutting at the special token cannot change the ids, and HF is faster on smaller strings.
            ids: list[int] = []
            for index, document in enumerate(text.split(c.SPECIAL)):
                if index:
                    ids.append(special_id)
                ids += tok.encode(document, add_special_tokens=False).ids
            return ids

        return by_document
    if encoder in ("regex-finditer", "regex-findall"):
        from core.pretokenize.patterns import compile_pattern

        pattern = compile_pattern()
        if encoder == "regex-findall":
            return lambda text: pattern.findall(text) and None

        def finditer(text: str) -> None:
            for _ in pattern.finditer(text):
                pass

        return finditer
    if encoder == "bpe-tui-split":
        from core.pretokenize.fast_split import splitter_for
        from core.pretokenize.patterns import GPT2_PATTERN

        split = splitter_for(GPT2_PATTERN)
        return lambda text: split(text) and None
    raise ValueError(f"unknown encoder {encoder!r}")


def encode_task(encoder: str, text: dict[str, Any], vocab_json: str, merges_txt: str) -> dict[str, Any]:
    """Build ``encoder``, then time two passes over the text; return seconds, token count and digest."""
    data = load_text(text)
    t0 = time.perf_counter()
    encode = _build(encoder, vocab_json, merges_txt)
    load_s = time.perf_counter() - t0
    cache = encode.__self__.piece_cache if encoder == "bpe-tui" else None
    t1 = time.perf_counter()
    ids = encode(data)
    first_s = time.perf_counter() - t1
    computed_cold = cache.computed if cache is not None else 0
    t2 = time.perf_counter()
    encode(data)
    second_s = time.perf_counter() - t2
    result = {
        "bytes": len(data.encode("utf-8")),
        "load_s": load_s,
        "first_s": first_s,
        "second_s": second_s,
        "tokens": None if ids is None else len(ids),
        "digest": None if ids is None else _digest(ids),
    }
    if cache is not None:
        # Counted after the clock: the pre-tokens and how many each pass had to compute (cache misses).
        pieces = pretokens(data)
        # Wide text (Japanese) is encoded character by character: its pre-tokens bypass the cache.
        wide = not data.isascii() and len(data.encode("utf-8")) > 2 * len(data)
        result.update(
            pretokens=len(pieces),
            unique_pretokens=len(set(pieces)),
            hit_rate_cold=None if wide else 1 - computed_cold / max(1, len(pieces)),
            hit_rate_warm=None if wide else 1 - (cache.computed - computed_cold) / max(1, len(pieces)),
            cache_held=cache.held,
        )
    return result


def pretokens(text: str) -> list[str]:
    """The GPT-2 pre-tokens of ``text``, cut at ``<|endoftext|>`` first, as the tokenizer sees them.

    >>> pretokens("Hi there<|endoftext|>!")
    ['Hi', ' there', '!']
    """
    from core.pretokenize.patterns import GPT2_PATTERN, special_token_pattern
    from core.pretokenize.fast_split import splitter_for

    split = splitter_for(GPT2_PATTERN)
    return [piece for document in special_token_pattern([c.SPECIAL]).split(text) for piece in split(document)]


def memory_task(kind: str, megabytes: int, parts: list[str], vocab_json: str, merges_txt: str) -> dict[str, Any]:
    """Stream ``megabytes`` MB of text through ``encode_iterable`` (ids counted, not kept); the parent reads
    the peak memory. ``kind``: ``"corpora"`` cycles through the texts ``parts`` names (``load_text`` specs);
    ``"new words"`` is words never seen before (a counter spelt in letters), so the cache turns over all along.
    """
    import resource

    from core.encode.tokenizer import Tokenizer

    tokenizer = Tokenizer.from_files(vocab_json, merges_txt, [c.SPECIAL])
    built_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    budget = megabytes * c.MB
    block = 1 << 16

    def corpora():
        texts = [load_text(spec) for spec in parts]
        sent = 0
        while True:
            for text in texts:
                for start in range(0, len(text), block):
                    chunk = text[start : start + block]
                    yield chunk
                    sent += len(chunk.encode("utf-8"))
                    if sent >= budget:
                        return

    def new_words():
        letters = "abcdefghijklmnopqrstuvwxyz"
        sent = n = 0
        while sent < budget:
            words = []
            for _ in range(4096):
                n += 1
                word, m = [], n
                while m:
                    m, digit = divmod(m, 26)
                    word.append(letters[digit])
                words.append(" " + "".join(word))
            chunk = "".join(words) + ".\n"
            yield chunk
            sent += len(chunk)

    t0 = time.perf_counter()
    count = sum(1 for _ in tokenizer.encode_iterable(corpora() if kind == "corpora" else new_words()))
    seconds = time.perf_counter() - t0
    cache = tokenizer.piece_cache
    return {"kind": kind, "bytes": budget, "tokens": count, "seconds": seconds, "built_rss": built_rss,
            "cache_held": cache.held, "cache_limit": 2 * cache._limit, "computed": cache.computed}


# --- the benchmark -------------------------------------------------------------------------------------

def measure(name: str, text: dict[str, Any], runs: int, *, vocab_json: Path, merges_txt: Path,
            encoders: list[str] = ENCODERS, timeout: float = 600.0) -> dict[str, Any]:
    """Run every encoder on one text ``runs`` times (interleaved); medians of MB/s, ratios to tiktoken."""
    args = {"text": text, "vocab_json": str(vocab_json), "merges_txt": str(merges_txt)}
    cases = [(e, (lambda e=e: c.run_task("encode", "encode_task", {"encoder": e, **args}, timeout=timeout)))
             for e in encoders]
    raw = c.interleaved(runs, cases)
    sides: dict[str, Any] = {}
    size = None
    for encoder, ms in raw.items():
        good = [m for m in ms if m.ok]
        summary = c.summarise(ms)
        if good:
            size = good[0].result["bytes"]
            summary.update(
                bytes=size,
                tokens=good[0].result["tokens"],
                digest=good[0].result["digest"],
                load_s=c.median(m.result["load_s"] for m in good),
                first_s=c.median(m.result["first_s"] for m in good),
                second_s=c.median(m.result["second_s"] for m in good),
                first_mbps=c.median(m.result["bytes"] / m.result["first_s"] / c.MB for m in good),
                second_mbps=c.median(m.result["bytes"] / m.result["second_s"] / c.MB for m in good),
            )
            for key in ("pretokens", "unique_pretokens", "hit_rate_cold", "hit_rate_warm", "cache_held"):
                if key in good[0].result:
                    summary[key] = good[0].result[key]
        sides[encoder] = summary
    reference = sides.get("tiktoken", {}).get("digest")
    for encoder, summary in sides.items():
        digest = summary.get("digest")
        summary["agrees_with_tiktoken"] = None if digest is None or reference is None else digest == reference

    def vs_tiktoken(encoder: str, key: str) -> float | None:
        if encoder not in raw or "tiktoken" not in raw:
            return None
        # A speed ratio: tiktoken's seconds over ours, round by round.
        return c.median(c.ratio(y.result["first_s"], x.result[key]) if x.ok and y.ok else None
                        for x, y in zip(raw[encoder], raw["tiktoken"]))

    return {
        "text": name,
        "bytes": size,
        "sides": sides,
        "ratio_cold_vs_tiktoken": vs_tiktoken("bpe-tui", "first_s"),
        "ratio_warm_vs_tiktoken": vs_tiktoken("bpe-tui", "second_s"),
        "ratio_hf_vs_tiktoken": vs_tiktoken("hf", "first_s"),
    }


def rate(case: dict[str, Any], encoder: str, key: str = "first_mbps") -> float | None:
    return case["sides"].get(encoder, {}).get(key)


def _load_ms(sides: dict[str, Any]) -> str:
    """Milliseconds to build bpe-tui's tokenizer and tiktoken's from the same files (outside the clock of
    "cold", which starts with a built tokenizer): work done once per tokenizer shows here."""
    ours, theirs = sides.get("bpe-tui", {}).get("load_s"), sides.get("tiktoken", {}).get("load_s")
    if ours is None or theirs is None:
        return "-"
    return f"{ours * 1000:.0f} / {theirs * 1000:.0f}"


def report(cases: list[dict[str, Any]]) -> list[str]:
    """Print the table and the targets; return the verdict lines."""
    rows = []
    for case in cases:
        s = case["sides"]
        disagree = [e for e, v in s.items() if v.get("agrees_with_tiktoken") is False]

        def cell(encoder: str, key: str = "first_mbps") -> str:
            side = s.get(encoder)
            if side is None:
                return "-"
            return c.fmt_rate(side.get(key)) if side.get(key) is not None else side["status"]

        ours = s.get("bpe-tui", {})
        rows.append([
            case["text"], cell("bpe-tui"), cell("bpe-tui", "second_mbps"), cell("tiktoken"), cell("hf"),
            cell("hf-docs"), c.fmt_x(case["ratio_cold_vs_tiktoken"]), c.fmt_x(case["ratio_warm_vs_tiktoken"]),
            cell("regex-finditer"), cell("regex-findall"), cell("bpe-tui-split"),
            f"{ours['unique_pretokens']:,}" if "unique_pretokens" in ours else "-",
            _percent(ours.get("hit_rate_cold")), _percent(ours.get("hit_rate_warm")),
            "NO: " + ",".join(disagree) if disagree else "yes",
            _load_ms(s),
        ])
    print()
    print(c.table(["text", "ours cold", "ours warm", "tiktoken", "HF", "HF docs", "cold/tt", "warm/tt", "regex finditer",
                   "regex findall", "our split", "distinct", "hits cold", "hits warm", "same ids", "load ms ours/tt"], rows))
    print("\n(MB/s = 10^6 bytes of UTF-8 input per second, median of runs, one thread, whole text in one call; "
          "\n cold = first encode on a fresh tokenizer, warm = second; ratios = medians of per-round ratios to "
          "\n tiktoken's first pass; regex = the GPT-2 pattern alone, the floor for a pure-Python encoder;"
          "\n distinct = distinct pre-tokens; hits = share of pre-tokens found in bpe-tui's pre-token cache;"
          "\n wide text such as Japanese goes character by character, its pre-tokens bypassing that cache;"
          "\n load = reading GPT-2's files and building the tokenizer, before the clock starts)")
    for case in cases:
        c.print_errors(case["text"], case["sides"])
    verdicts = []
    for case in cases:
        if case["text"] in TARGETS:
            verdicts.append(f"{case['text']} cold vs tiktoken: "
                            + c.verdict(case["ratio_cold_vs_tiktoken"], TARGETS[case["text"]], at_most=False))
        if case["text"] in WARM_TARGETS:
            verdicts.append(f"{case['text']} warm vs tiktoken: "
                            + c.verdict(case["ratio_warm_vs_tiktoken"], WARM_TARGETS[case["text"]], at_most=False))
        elif case["text"] in PATHOLOGICAL:
            value = rate(case, "bpe-tui")
            verdicts.append(f"{case['text']}: " + c.verdict(value, PATHOLOGICAL_MBPS, at_most=False, unit=" MB/s"))
    if verdicts:
        print("\nTargets (bpe-tui):")
        print("\n".join("  " + v for v in verdicts))
    return verdicts


def _percent(value: float | None) -> str:
    return "-" if value is None else f"{value:.1%}"


def measure_memory(kind: str, parts: list[dict[str, Any]], *, vocab_json: Path, merges_txt: Path,
                   megabytes: int = MEMORY_MB) -> dict[str, Any]:
    """Run :func:`memory_task` in a child process; its result plus the peak memory the parent measured."""
    m = c.run_task("encode", "memory_task", {"kind": kind, "megabytes": megabytes, "parts": parts,
                                             "vocab_json": str(vocab_json), "merges_txt": str(merges_txt)},
                   timeout=3600)
    return {"status": m.status, "error": m.error, "maxrss": m.maxrss_main, "peak_rss_tree": m.peak_rss_tree,
            **m.result}


def report_memory(results: list[dict[str, Any]]) -> None:
    rows = []
    for r in results:
        if r["status"] != "ok":
            rows.append([r.get("kind", "?"), r["status"], r["error"], "", "", "", ""])
            continue
        rows.append([r["kind"], f"{r['bytes'] / c.MB:.0f} MB", c.fmt_rate(r["bytes"] / r["seconds"] / c.MB),
                     c.fmt_mib(r["built_rss"]), c.fmt_mib(r["maxrss"]),
                     f"{r['cache_held']:,} of {r['cache_limit']:,}", f"{r['computed']:,}"])
    print()
    print(c.table(["stream", "size", "rate", "RSS built", "peak RSS", "cache entries", "computed"], rows))
    print("\n(encode_iterable over 64 KiB chunks, ids counted and dropped; RSS built = after building the"
          "\n tokenizer; peak = ru_maxrss of the whole process; computed = pre-tokens merged, cache misses)")


def main(argv: list[str] | None = None) -> int:
    p = c.parser(__doc__.splitlines()[0])
    p.add_argument("--no-pathological", action="store_true", help="skip the 1 MB single-character inputs")
    p.add_argument("--pathological-bytes", type=int, default=1_000_000, help="size of each pathological input")
    p.add_argument("--memory", action="store_true",
                   help=f"also stream {MEMORY_MB} MB through encode_iterable and report the peak memory")
    args = p.parse_args(argv)
    vocab_json, merges_txt = c.GPT2_VOCAB, c.GPT2_MERGES
    files = ["tinystories_2M.txt", SHAKESPEARE, "ja_aozora.txt"]
    c.require_data(vocab_json, merges_txt, *(c.CORPORA / t for t in files), *args.corpora)
    spec = {t: {"path": str(c.CORPORA / t)} for t in files}
    varied = varied_text.varied_parts(c.CORPORA / SHAKESPEARE)
    c.progress(f"varied English: {', '.join(Path(part).name for part in varied)}")
    cases_in: list[tuple[str, dict[str, Any]]] = [("tinystories_2M.txt", spec["tinystories_2M.txt"]),
                                                  (SHAKESPEARE, spec[SHAKESPEARE])]
    if varied_text.PYDOC_TOPICS in varied:
        cases_in.append((PYTHON_DOCS, {"parts": [varied_text.PYDOC_TOPICS]}))
    cases_in += [(VARIED, {"parts": varied}), ("ja_aozora.txt", spec["ja_aozora.txt"])]
    cases_in += [(p.name, {"path": str(p.resolve())}) for p in args.corpora]
    if not args.no_pathological:
        cases_in += [(name, {"repeat": unit, "bytes": args.pathological_bytes}) for name, unit in PATHOLOGICAL.items()]
    runs = 1 if args.quick else args.runs
    header = c.start(args)
    cases = []
    for name, text in cases_in:
        c.progress(f"{name}:")
        # A repeated character holds no special token: per-document HF would be plain HF again.
        encoders = [e for e in ENCODERS if not ("repeat" in text and e == "hf-docs")]
        cases.append(measure(name, text, runs, vocab_json=vocab_json, merges_txt=merges_txt, encoders=encoders))
    verdicts = report(cases)
    memory = []
    if args.memory:
        streams = [{"parts": varied}, spec["tinystories_2M.txt"], spec["ja_aozora.txt"]]
        for kind, megabytes in (("corpora", MEMORY_MB), ("new words", NEW_WORDS_MB)):
            c.progress(f"memory, {megabytes} MB of {kind}:")
            memory.append(measure_memory(kind, streams, vocab_json=vocab_json, merges_txt=merges_txt,
                                         megabytes=megabytes))
        report_memory(memory)
    saved = c.save("encode", {**header, "cases": cases, "verdicts": verdicts, "memory": memory,
                              "varied_parts": varied}, enabled=not args.no_save)
    if saved:
        print(f"\nresults: {saved.relative_to(c.REPO)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
