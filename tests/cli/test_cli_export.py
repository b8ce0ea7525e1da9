"""``bpe-tui export``: a .npy equal to encoding the whole file, plain progress lines off a terminal, no partial file."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
from tests.cli.cli_cases import TEXT, assert_one_line_error, run_cli, small_model, tokenizer_file

from bpe_tui.__main__ import main
from core.encode.tokenizer import Tokenizer


@pytest.mark.parametrize("workers", ["1", "2"])
def test_export_matches_encode(tmp_path: Path, capsys: pytest.CaptureFixture[str], workers: str) -> None:
    corpus = tmp_path / "corpus.txt"
    corpus.write_text(TEXT * 40, encoding="utf-8", newline="")
    out = tmp_path / "ids.npy"
    code = main(["export", str(corpus), str(tokenizer_file(tmp_path)), "-o", str(out), "--workers", workers])
    captured = capsys.readouterr()
    assert code == 0 and captured.out == ""
    ids = np.load(out)
    assert ids.dtype == np.uint16
    assert ids.tolist() == Tokenizer.from_model(small_model()).encode(TEXT * 40)
    last = captured.err.strip().splitlines()[-1]
    assert last.startswith(f"exported {len(ids):,} tokens (uint16)") and str(out) in last
    assert "\r" not in captured.err and "\x1b" not in captured.err  # stderr is not a terminal here


def test_export_in_a_real_process(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus.txt"
    corpus.write_text(TEXT, encoding="utf-8", newline="")
    result = run_cli("export", corpus, tokenizer_file(tmp_path, "hf"), "-o", tmp_path / "ids.npy", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert np.load(tmp_path / "ids.npy").tolist() == Tokenizer.from_model(small_model()).encode(TEXT)


def test_bad_input_leaves_no_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tok = tokenizer_file(tmp_path)
    corpus = tmp_path / "corpus.txt"
    corpus.write_bytes(b"fine text " * 50 + b"\xc3\x28 broken")
    before = sorted(p.name for p in tmp_path.iterdir())
    code = main(["export", str(corpus), str(tok), "-o", str(tmp_path / "ids.npy"), "--workers", "2"])
    captured = capsys.readouterr()
    assert_one_line_error((code, captured.out, captured.err), "corpus.txt", "byte offset 500")
    assert sorted(p.name for p in tmp_path.iterdir()) == before
    result = run_cli("export", tmp_path / "absent.txt", tok, "-o", tmp_path / "ids.npy", cwd=tmp_path)
    assert_one_line_error(result, "absent.txt", "no such file")
    result = run_cli("export", corpus, tmp_path / "absent.json", "-o", tmp_path / "ids.npy", cwd=tmp_path)
    assert_one_line_error(result, "absent.json")
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_output_option_is_required(tmp_path: Path) -> None:
    result = run_cli("export", "corpus.txt", "tok.json", cwd=tmp_path)
    assert result.returncode == 2 and "-o" in result.stderr and "Traceback" not in result.stderr


def test_ctrl_c_leaves_nothing(tmp_path: Path) -> None:
    """SIGINT to the process group mid-export, while workers hold chunks: exit 130, one line, no output and no
    temporary or part file (workers ignore the signal; the export stops them)."""
    import signal

    from tests.cli.test_cli_train import StderrWatcher, start_waiting
    from tests.waiting import wait_until

    corpus = tmp_path / "big.txt"
    corpus.write_text(" ".join(w for w in TEXT.split() if w.isascii()) * 2500, encoding="utf-8")  # 1 MB: many chunks
    tok = tokenizer_file(tmp_path)
    process, marks = start_waiting(tmp_path, "exporting", "export", str(corpus), str(tok),
                                   "-o", str(tmp_path / "ids.npy"), "--workers", "2")
    watcher = StderrWatcher(process)
    try:
        # This process and its worker each hold a chunk: the worker has started, the export is mid-way.
        wait_until(lambda: len(os.listdir(marks)) == 2 or process.poll() is not None, "both processes to wait")
        assert process.poll() is None, "".join(watcher.rest())
        os.killpg(process.pid, signal.SIGINT)
        assert process.wait(timeout=60) == 130, "".join(watcher.rest())
    finally:
        process.kill()
    err = watcher.rest()
    assert not any("Traceback" in line for line in err) and "interrupted" in err[-1], err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["big.txt", "tok.json"]


def test_markers_the_tokenizer_lacks_are_warned_of(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # A .tiktoken rank file holds no special tokens: exported with one, every <|endoftext|> became pieces of
    # text in the ids (the model never sees a document end), without a word; convert only notes the loss.
    corpus = tmp_path / "corpus.txt"
    corpus.write_text(TEXT * 4, encoding="utf-8", newline="")
    for fmt, warned in (("tiktoken", True), ("bpe-tui", False)):
        code = main(["export", str(corpus), str(tokenizer_file(tmp_path, fmt)), "-o", str(tmp_path / "ids.npy"),
                     "--force", "--workers", "1"])
        err = capsys.readouterr().err
        assert code == 0
        warning = [line for line in err.splitlines() if line.startswith("bpe-tui export: warning: ")]
        assert warning == ([f"bpe-tui export: warning: {corpus}: 20 <|…|> markers are not special tokens "
                            f"(<|endoftext|> ×20) and will be encoded as ordinary text by {tmp_path / 'tok.tiktoken'}, "
                            "each in pieces; export with a tokenizer that has them as special tokens (a .tiktoken "
                            "rank file holds none)"] if warned else [])


def test_documents_with_nothing_to_join_them_by_are_warned_of(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Records are joined by the tokenizer's first special token; a tokenizer without one (a .tiktoken rank file)
    # ran them together in the ids, without a word. A single text shard is one document: nothing to say; so is
    # each of a folder's text files exported --per-shard, each to its own array.
    import gzip
    import json

    records = tmp_path / "docs.jsonl"
    records.write_text("".join(json.dumps({"text": f"Document {i}."}) + "\n" for i in range(3)), encoding="utf-8")
    (tmp_path / "one.txt.gz").write_bytes(gzip.compress(b"One document."))
    for corpus, fmt, warned in (("docs.jsonl", "tiktoken", True), ("docs.jsonl", "bpe-tui", False),
                                ("one.txt.gz", "tiktoken", False)):
        tok = tokenizer_file(tmp_path, fmt)
        code = main(["export", str(tmp_path / corpus), str(tok), "-o", str(tmp_path / "ids.npy"), "--force"])
        err = capsys.readouterr().err
        assert code == 0
        assert [line for line in err.splitlines() if line.startswith("bpe-tui export: warning: ")] == (
            [f"bpe-tui export: warning: {tok} has no special token, so the ids of the corpus's documents follow one "
             "another with nothing to mark where each ends; export with a tokenizer that has one, such as "
             "<|endoftext|> (a .tiktoken rank file holds none)"] if warned else []
        ), (corpus, fmt)
    (tmp_path / "texts").mkdir()
    for name in ("a.txt", "b.txt"):
        (tmp_path / "texts" / name).write_text(f"Text {name}.", encoding="utf-8")
    tok = tokenizer_file(tmp_path, "tiktoken")
    for per_shard, warned in ((["--per-shard"], False), ([], True)):
        out = tmp_path / ("arrays" if per_shard else "texts.npy")
        assert main(["export", str(tmp_path / "texts"), str(tok), "-o", str(out), *per_shard]) == 0
        assert ("has no special token" in capsys.readouterr().err) == warned, per_shard
