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

Texts: English (tinystories_2M), Japanese (ja_aozora), any files given, and three pathological 1 MB inputs
made of one repeated character (``a``, space, ``あ``), each one single pre-token. The encoders' ids are
compared (count and digest) and a disagreement is flagged. Targets (issue 5): bpe-tui cold >= 0.5x
tiktoken on English, >= 0.25x on Japanese, >= 1 MB/s on the pathological inputs.

Usage: ``python benchmarks/encode.py [--runs N] [--quick] [extra corpus files...]``
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

ENCODERS = ["bpe-tui", "tiktoken", "hf", "hf-docs", "regex-finditer", "regex-findall", "bpe-tui-split"]
PATHOLOGICAL = {"1 MB of 'a'": "a", "1 MB of spaces": " ", "1 MB of 'あ'": "あ"}
TARGETS = {"tinystories_2M.txt": 0.5, "ja_aozora.txt": 0.25}
PATHOLOGICAL_MBPS = 1.0


# --- tasks (run in child processes) --------------------------------------------------------------------

def load_text(spec: dict[str, Any]) -> str:
    """The text a case names: ``{"path": ...}`` (UTF-8 file) or ``{"repeat": ch, "bytes": n}``.

    >>> len(load_text({"repeat": "あ", "bytes": 10}).encode())
    9
    """
    if "path" in spec:
        return Path(spec["path"]).read_text(encoding="utf-8")
    unit = spec["repeat"]
    return unit * (spec["bytes"] // len(unit.encode("utf-8")))


def _digest(ids: list[int]) -> str:
    return hashlib.sha1(array("q", ids).tobytes()).hexdigest()[:16]


def _build(encoder: str, vocab_json: str, merges_txt: str):
    """An ``encode(text) -> ids`` function (``None`` result for the floor, which makes no ids) and the tokenizer."""
    if encoder == "bpe-tui":
        from core.encode.tokenizer import Tokenizer

        return Tokenizer.from_files(vocab_json, merges_txt, [c.SPECIAL]).encode
    if encoder == "tiktoken":
        import tiktoken

        from core.formats.gpt2 import read_gpt2_files
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
    t1 = time.perf_counter()
    ids = encode(data)
    first_s = time.perf_counter() - t1
    t2 = time.perf_counter()
    encode(data)
    second_s = time.perf_counter() - t2
    return {
        "bytes": len(data.encode("utf-8")),
        "load_s": load_s,
        "first_s": first_s,
        "second_s": second_s,
        "tokens": None if ids is None else len(ids),
        "digest": None if ids is None else _digest(ids),
    }


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

        rows.append([
            case["text"], cell("bpe-tui"), cell("bpe-tui", "second_mbps"), cell("tiktoken"), cell("hf"),
            cell("hf-docs"), c.fmt_x(case["ratio_cold_vs_tiktoken"]), c.fmt_x(case["ratio_warm_vs_tiktoken"]),
            cell("regex-finditer"), cell("regex-findall"), cell("bpe-tui-split"),
            "NO: " + ",".join(disagree) if disagree else "yes",
        ])
    print()
    print(c.table(["text", "ours cold", "ours warm", "tiktoken", "HF", "HF docs", "cold/tt", "warm/tt", "regex finditer",
                   "regex findall", "our split", "same ids"], rows))
    print("\n(MB/s = 10^6 bytes of UTF-8 input per second, median of runs, one thread, whole text in one call; "
          "\n cold = first encode on a fresh tokenizer, warm = second; ratios = medians of per-round ratios to "
          "\n tiktoken's first pass; regex = the GPT-2 pattern alone, the floor for a pure-Python encoder)")
    for case in cases:
        c.print_errors(case["text"], case["sides"])
    verdicts = []
    for case in cases:
        if case["text"] in TARGETS:
            verdicts.append(f"{case['text']} cold vs tiktoken: "
                            + c.verdict(case["ratio_cold_vs_tiktoken"], TARGETS[case["text"]], at_most=False))
        elif case["text"] in PATHOLOGICAL:
            value = rate(case, "bpe-tui")
            verdicts.append(f"{case['text']}: " + c.verdict(value, PATHOLOGICAL_MBPS, at_most=False, unit=" MB/s"))
    if verdicts:
        print("\nTargets (bpe-tui cold):")
        print("\n".join("  " + v for v in verdicts))
    return verdicts


def main(argv: list[str] | None = None) -> int:
    p = c.parser(__doc__.splitlines()[0])
    p.add_argument("--no-pathological", action="store_true", help="skip the 1 MB single-character inputs")
    p.add_argument("--pathological-bytes", type=int, default=1_000_000, help="size of each pathological input")
    args = p.parse_args(argv)
    vocab_json, merges_txt = c.GPT2_VOCAB, c.GPT2_MERGES
    texts = ["tinystories_2M.txt", "ja_aozora.txt"]
    c.require_data(vocab_json, merges_txt, *(c.CORPORA / t for t in texts), *args.corpora)
    cases_in: list[tuple[str, dict[str, Any]]] = [(t, {"path": str(c.CORPORA / t)}) for t in texts]
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
    saved = c.save("encode", {**header, "cases": cases, "verdicts": verdicts}, enabled=not args.no_save)
    if saved:
        print(f"\nresults: {saved.relative_to(c.REPO)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
