"""Smoke tests for ``benchmarks/``: each benchmark's measurement runs on tiny synthetic input and gives well-formed results.

No timing is asserted (the figures are noise at this size); the point is that the scripts keep working
as ``core`` changes. The peers are optional: tests that need them skip when they are not installed.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from core.formats.byte_alphabet import encode_bytes

BENCH = Path(__file__).resolve().parent.parent / "benchmarks"
SPECIAL = "<|endoftext|>"
TEXT = "the cat sat on the mat.\nhello world, hello there!\n" * 40 + SPECIAL + "あいう日本語 hello\n" * 20


def load(name: str):
    """Import ``benchmarks/<name>.py`` under a private module name (``benchmarks/`` is not a package)."""
    spec = importlib.util.spec_from_file_location(f"bpe_bench_{name}", BENCH / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def common():
    return load("_common")


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    path = tmp_path / "tiny.txt"
    path.write_text(TEXT, encoding="utf-8")
    return path


@pytest.fixture
def gpt2_files(tmp_path: Path) -> tuple[Path, Path]:
    """A tiny GPT-2 style vocab.json + merges.txt: the 256 bytes, four merges, then ``<|endoftext|>``."""
    merges = [(b"h", b"e"), (b"l", b"l"), (b"he", b"ll"), (b" ", b"w")]
    vocab = {bytes([b]): b for b in range(256)}
    for left, right in merges:
        vocab[left + right] = len(vocab)
    spelled = {encode_bytes(token): i for token, i in vocab.items()} | {SPECIAL: len(vocab)}
    vocab_json, merges_txt = tmp_path / "vocab.json", tmp_path / "merges.txt"
    vocab_json.write_text(json.dumps(spelled), encoding="utf-8")
    merges_txt.write_text("#version: 0.2\n" + "".join(f"{encode_bytes(a)} {encode_bytes(b)}\n" for a, b in merges),
                          encoding="utf-8")
    return vocab_json, merges_txt


def test_run_task_measures_a_whole_child(common):
    m = common.run_task("_common", "echo_task", {"value": [1, "あ"]})
    assert m.status == "ok" and m.result == {"value": [1, "あ"]}
    assert m.wall_s > 0 and m.peak_rss_tree > 0 and m.maxrss_main > 0 and m.peak_pss_tree > 0
    failed = common.run_task("_common", "echo_task", {"wrong": 1})
    assert failed.status == "error" and "TypeError" in failed.error
    summary = common.summarise([m, failed])
    assert summary["status"] == "partial" and summary["ok_runs"] == 1 and summary["wall_s"] == m.wall_s


def test_the_sampler_finds_grandchildren_as_psutil_does():
    psutil = pytest.importorskip("psutil")
    process_tree = load("_process_tree")
    if not process_tree.HAVE_CHILDREN:
        pytest.skip("this kernel has no /proc/<pid>/task/<tid>/children")
    # A shell whose child starts a grandchild: the tree is three processes deep.
    shell = subprocess.Popen(["sh", "-c", "sh -c 'sleep 30' & sleep 30"])
    try:
        for _ in range(100):
            expected = [shell.pid] + [p.pid for p in psutil.Process(shell.pid).children(recursive=True)]
            if len(expected) >= 4:
                break
            time.sleep(0.05)
        assert len(expected) >= 4
        assert sorted(process_tree.descendant_pids(shell.pid)) == sorted(expected)
        assert sorted(p.pid for p in process_tree.tree(shell.pid)) == sorted(expected)
    finally:
        for proc in psutil.Process(shell.pid).children(recursive=True):
            proc.kill()
        shell.kill()
        shell.wait()


def test_run_task_kills_a_child_past_its_time(common):
    m = common.run_task("_common", "wait_for_quiet", {"max_wait": 30, "threshold": -1, "poll": 30}, timeout=0.3)
    assert m.status == "timeout" and m.wall_s < 10


def test_save_writes_json_with_the_machine(common, tmp_path, monkeypatch):
    monkeypatch.setattr(common, "RESULTS", tmp_path)
    path = common.save("smoke", {"cases": [1]})
    body = json.loads(path.read_text())
    assert path.name.startswith("smoke-") and body["cases"] == [1]
    assert body["machine"]["nproc"] >= 1 and len(body["machine"]["loadavg"]) == 3


def test_missing_data_exits_with_status_2(common, tmp_path, capsys):
    # Passes with the shared data or without it: the shared corpus asked for never exists.
    common.require_data(tmp_path, common.GPT2_VOCAB, common.GPT2_MERGES)  # all there: no exit
    with pytest.raises(SystemExit) as exit_info:
        common.require_data(tmp_path, common.CORPORA / "no-such-corpus.txt", tmp_path / "absent.txt")
    err = capsys.readouterr().err
    assert exit_info.value.code == 2
    assert f"not found: {common.CORPORA / 'no-such-corpus.txt'}" in err and f"not found: {tmp_path / 'absent.txt'}" in err
    assert f"not found: {tmp_path}\n" not in err and "BPE_TUI_SHARED" in err


def test_train_benchmark(corpus, capsys):
    pytest.importorskip("tokenizers", reason="Hugging Face tokenizers (the bench extra) is not installed")
    train = load("train")
    case = train.measure(corpus, 280, 1, workers=2)
    assert {side["status"] for side in case["sides"].values()} == {"ok"}
    assert case["sides"]["bpe-tui"]["vocab"] == 280 and case["sides"]["hf"]["vocab"] <= 280
    assert case["ratio_time_vs_hf"] > 0 and case["ratio_pss_vs_hf"] > 0 and case["speedup_all_vs_1w"] > 0
    assert train.report([case]) == []  # targets are only judged at vocab 10,000
    assert "tiny.txt" in capsys.readouterr().out
    json.dumps(case)


def test_encode_benchmark(gpt2_files, corpus, capsys):
    pytest.importorskip("tiktoken", reason="tiktoken (the bench extra) is not installed")
    pytest.importorskip("tokenizers", reason="Hugging Face tokenizers (the bench extra) is not installed")
    encode = load("encode")
    vocab_json, merges_txt = gpt2_files
    text = encode.measure("tinystories_2M.txt", {"path": str(corpus)}, 1, vocab_json=vocab_json,
                          merges_txt=merges_txt)
    odd = encode.measure("1 MB of 'あ'", {"repeat": "あ", "bytes": 3000}, 1, vocab_json=vocab_json,
                         merges_txt=merges_txt, encoders=["bpe-tui", "tiktoken"])
    for case in (text, odd):
        assert {side["status"] for side in case["sides"].values()} == {"ok"}
        assert case["ratio_cold_vs_tiktoken"] > 0 and case["sides"]["bpe-tui"]["first_mbps"] > 0
    assert all(text["sides"][e]["agrees_with_tiktoken"] for e in ("bpe-tui", "hf", "hf-docs"))
    assert text["sides"]["regex-finditer"]["tokens"] is None
    assert odd["bytes"] == 3000
    verdicts = encode.report([text, odd])
    assert len(verdicts) == 2 and "MB/s" in verdicts[1]
    json.dumps([text, odd])


def test_export_benchmark(gpt2_files, corpus, capsys):
    export = load("export")
    vocab_json, merges_txt = gpt2_files
    case = export.measure(corpus, 1, workers=2, vocab_json=vocab_json, merges_txt=merges_txt)
    assert {side["status"] for side in case["sides"].values()} == {"ok"}
    assert case["same_ids"] and case["speedup"] > 0
    assert all(side["numpy_ok"] is not False and side["tokens"] > 0 for side in case["sides"].values())
    assert 0.5 < case["ceiling"] < 3  # the CPU loop ran in two processes
    (verdict,) = export.report([case])
    assert "the machine's own ceiling" in verdict
    json.dumps(case)


def test_export_target_is_judged_on_sustained_runs_only(capsys):
    export = load("export")

    def case(name: str, single_s: float, speedup: float) -> dict:
        sides = {label: {"status": "ok", "export_s": seconds}
                 for label, seconds in (("1 worker", single_s), ("2 workers", single_s / speedup))}
        return {"corpus": name, "workers": 2, "sides": sides, "speedup": speedup, "same_ids": True}

    short, slow, fast = export.report([case("short", 0.2, 1.4), case("long", 1.3, 1.5), case("long2", 1.3, 1.7)])
    assert "not judged" in short and "MISSED" not in short and "1.40x" in short
    assert "MISSED" in slow
    assert fast.startswith("long2") and "met" in fast


def test_scaling_benchmark(corpus, capsys):
    scaling = load("scaling")
    result = scaling.measure(corpus, [1, 2], 1, vocab_size=270, workers=1)
    first, second = result["sizes"]
    assert first["status"] == second["status"] == "ok"
    assert second["bytes"] == 2 * first["bytes"] + len(SPECIAL) and result["unique_pretokens"] > 0
    assert first["time_vs_1x"] == 1.0 and second["s_per_mb"] > 0
    assert len(scaling.report(result)) == 3
    json.dumps(result)


def test_encode_benchmark_counts_pretokens_and_cache_hits(gpt2_files, corpus):
    encode = load("encode")
    vocab_json, merges_txt = gpt2_files
    result = encode.encode_task("bpe-tui", {"path": str(corpus)}, str(vocab_json), str(merges_txt))
    pieces = encode.pretokens(TEXT)
    assert result["pretokens"] == len(pieces) and result["unique_pretokens"] == len(set(pieces))
    # Cold, each distinct pre-token is computed once; warm, only those too long to keep.
    assert result["hit_rate_cold"] == pytest.approx(1 - len(set(pieces)) / len(pieces))
    assert result["hit_rate_warm"] == 1.0


def test_encode_memory_stream_stays_within_the_cache_bound(gpt2_files):
    encode = load("encode")
    vocab_json, merges_txt = gpt2_files
    result = encode.memory_task("new words", 1, [], str(vocab_json), str(merges_txt))
    assert result["tokens"] > 0 and result["bytes"] == 1_000_000
    assert 0 < result["cache_held"] <= result["cache_limit"]


def test_varied_text_joins_what_is_there(tmp_path):
    varied = load("varied_text")
    shakespeare = tmp_path / "tinyshakespeare.txt"
    shakespeare.write_text("First Citizen:\nBefore we proceed", encoding="utf-8")
    parts = varied.varied_parts(shakespeare)
    assert parts[0] == str(shakespeare) and all(p == varied.PYDOC_TOPICS or Path(p).is_file() for p in parts)
    assert varied.varied_parts(tmp_path / "absent.txt")[:1] != [str(tmp_path / "absent.txt")]
    written = varied.write_varied(shakespeare, tmp_path, copies=2)
    text = written.read_text(encoding="utf-8")
    assert text.startswith("First Citizen:") and text.count(SPECIAL) == 1


def test_scaling_corpora_grow_their_unique_pretokens(tmp_path: Path):
    """The built corpora: shards and joined text hold the same documents, and repeats add new pre-tokens."""
    from core import reference
    from core.corpus import open_corpus

    scaling = load("scaling")
    documents = ["the quick brown foxes jumped", "над ленивой собакой", "日本語の文章"]
    shards, joined, count = scaling.build_corpus(documents, 2_000, tmp_path)
    text = joined.read_text(encoding="utf-8")
    assert count == len(text.split(SPECIAL)) and len(open_corpus(shards).shards) == 1
    records = [json.loads(line)["text"] for line in next(shards.iterdir()).read_text(encoding="utf-8").splitlines()]
    assert records == text.split(SPECIAL)
    assert records[3] == "the quickb brownb foxesb jumpedb"  # the second repeat: long Latin words get a suffix
    once = len(reference.count_pretokens(SPECIAL.join(records[:3]), [SPECIAL]))
    assert len(reference.count_pretokens(text, [SPECIAL])) > 10 * once
    result = scaling.train_shards(str(shards), 300, 1)
    _, merges = reference.train(text, 300, [SPECIAL])
    assert result["merges"] == len(merges) and result["unique"] == len(reference.count_pretokens(text, [SPECIAL]))
