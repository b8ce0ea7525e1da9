"""``train`` and ``export`` on corpora of shards from the shell: the merges and ids of the joined documents,
bad records reported in one line or skipped and counted, shard progress, an unquoted glob explained."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from bpe_tui.__main__ import main
from bpe_tui.text import format_bytes
from core import reference
from core.encode.tokenizer import Tokenizer
from core.formats import load_tokenizer
from tests.cli.cli_cases import assert_one_line_error, run_cli
from tests.core.corpus.corpus_cases import SPECIAL, joined_text, sample_documents, write_shard

DOCUMENTS = sample_documents()[:120]


def make_corpus(folder: Path) -> Path:
    write_shard(folder / "web", "a.jsonl.gz", DOCUMENTS[:60])
    write_shard(folder / "web", "b.parquet", DOCUMENTS[60:])
    (folder / "web" / "README.md").write_text("about the shards", encoding="utf-8")
    return folder / "web"


@pytest.mark.parametrize("workers", ["1", "2"])
def test_train_a_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
                        workers: str) -> None:
    corpus = make_corpus(tmp_path)
    monkeypatch.chdir(tmp_path)
    code = main(["train", str(corpus), "--vocab-size", "300", "--special-token", SPECIAL, "--workers", workers,
                 "--events", "events.jsonl"])
    err = capsys.readouterr().err
    assert code == 0, err
    model = load_tokenizer(tmp_path / "web-300.json")  # named after the folder
    assert (model.vocab, model.merges) == reference.train(joined_text(DOCUMENTS), 300, [SPECIAL])
    assert "2/2 shards, 120 documents" in err
    shards = [json.loads(line) for line in (tmp_path / "events.jsonl").read_text().splitlines()
              if '"shards"' in line]
    assert shards[0]["done"] == 0 and shards[-1] == {"event": "shards", "done": 2, "total": 2, "documents": 120,
                                                    "skipped": 0, "workers": shards[-1]["workers"],
                                                    "text_bytes": sum(len(d.encode()) for d in DOCUMENTS)}


def test_an_events_file_written_into_the_corpus_folder_is_not_read_as_a_shard(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``train web --events web/run.jsonl`` put a JSON-lines log among the shards; the next ``train web``
    read it as a shard and stopped at its line 1 ("no 'text' field"). A folder search leaves it out."""
    corpus = make_corpus(tmp_path)
    first = main(["train", str(corpus), "--vocab-size", "300", "-o", str(tmp_path / "a.json"),
                  "--events", str(corpus / "run.jsonl")])
    assert first == 0 and (corpus / "run.jsonl").exists()
    capsys.readouterr()
    code = main(["train", str(corpus), "--vocab-size", "300", "--special-token", SPECIAL,
                 "-o", str(tmp_path / "b.json")])
    err = capsys.readouterr().err
    assert code == 0, err
    assert "2/2 shards, 120 documents" in err
    model = load_tokenizer(tmp_path / "b.json")
    assert (model.vocab, model.merges) == reference.train(joined_text(DOCUMENTS), 300, [SPECIAL])


def test_skip_bad_records_reports_them(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    corpus = make_corpus(tmp_path)
    (corpus / "c.jsonl").write_bytes(b'{"text": "fine"}\n{"text": 7}\nnot json\n')
    out = tmp_path / "tok.json"
    code = main(["train", str(corpus), "--vocab-size", "300", "-o", str(out)])
    captured = capsys.readouterr()
    # Progress lines for the shards read before the bad one may come first; the error is one line, last.
    last = captured.err.strip().splitlines()[-1]
    assert code == 2 and "Traceback" not in captured.err
    assert last.startswith("bpe-tui train: error: ") and last.endswith("fix the record or skip bad records")
    assert f"{corpus / 'c.jsonl'}: line 2: the 'text' value is a number" in last
    assert not out.exists()
    code = main(["train", str(corpus), "--vocab-size", "300", "-o", str(out), "--skip-bad-records",
                 "--special-token", SPECIAL])
    err = capsys.readouterr().err
    assert code == 0
    assert f"skipped 2 bad records in 1 shard; the first: {corpus / 'c.jsonl'}: line 2: the 'text' value" in err
    assert load_tokenizer(out).merges == reference.train(joined_text(DOCUMENTS + ["fine"]), 300, [SPECIAL])[1]


def test_export_reports_one_skipped_record_in_the_singular(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    corpus = make_corpus(tmp_path)
    (corpus / "c.jsonl").write_bytes(b'{"text": "fine"}\n{"text": 7}\n')
    (tmp_path / "good.txt").write_text("low lower lowest\n" * 20, encoding="utf-8")
    assert main(["train", str(tmp_path / "good.txt"), "--vocab-size", "260", "-o", str(tmp_path / "tok.json")]) == 0
    code = main(["export", str(corpus), str(tmp_path / "tok.json"), "-o", str(tmp_path / "ids.npy"),
                 "--skip-bad-records", "--workers", "1"])
    err = capsys.readouterr().err
    assert code == 0
    assert f"skipped 1 bad record; the first: {corpus / 'c.jsonl'}: line 2: the 'text' value is a number" in err


def test_skipping_every_record_is_refused_not_trained_on_nothing(tmp_path: Path) -> None:
    # Told "set the text field" and given --skip-bad-records instead, train saved a tokenizer of the 256
    # bytes alone and exited 0; now it says nothing was left to train on, and what the first record lacked.
    path = tmp_path / "c.jsonl"
    path.write_text("".join(json.dumps({"body": d}) + "\n" for d in DOCUMENTS[:3]), encoding="utf-8")
    out = tmp_path / "tok.json"
    for command in (["train", path, "--vocab-size", "300", "-o", out], ["study", path, "--sizes", "300"]):
        result = run_cli(*command, "--skip-bad-records", cwd=tmp_path)
        last = result.stderr.strip().splitlines()[-1]  # after the progress lines of the reading
        assert (result.returncode, result.stdout) == (2, "") and "Traceback" not in result.stderr
        assert last.startswith(f"bpe-tui {command[0]}: error: every record was bad (3 skipped), so there is "
                               f"nothing to train on; the first: {path}: line 1: no 'text' field")
        assert last.endswith("set the text field to the one holding the text")
    assert not out.exists()


def test_exporting_a_corpus_whose_every_record_is_skipped_is_refused(tmp_path: Path) -> None:
    # It wrote an empty array (and its sidecar), exit 0, as if the corpus held no text.
    path = tmp_path / "c.jsonl"
    path.write_text("".join(json.dumps({"body": d}) + "\n" for d in DOCUMENTS[:3]), encoding="utf-8")
    (tmp_path / "good.txt").write_text("low lower lowest\n" * 20, encoding="utf-8")
    assert run_cli("train", "good.txt", "--vocab-size", "260", "-o", "tok.json", cwd=tmp_path).returncode == 0
    for out in (["-o", "ids.npy"], ["-o", "per", "--per-shard"]):
        result = run_cli("export", path, "tok.json", *out, "--skip-bad-records", "--workers", "1", cwd=tmp_path)
        last = result.stderr.strip().splitlines()[-1]
        assert (result.returncode, result.stdout) == (2, "") and "Traceback" not in result.stderr
        assert last == (f"bpe-tui export: error: every record was bad (3 skipped), so there is nothing to export; "
                        f"the first: {path}: line 1: no 'text' field (fields: 'body'); set the text field to the one "
                        "holding the text")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.jsonl", "good.txt", "tok.json"]


def test_files_a_folder_search_leaves_out_for_their_names_are_noted(tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """Source code beside a .txt is no shard: training a repository trained on its notes.txt alone, and said
    nothing of the .py files; a note now says what was left out, and the glob that reads it."""
    repo = tmp_path / "repo"
    (repo / "pkg").mkdir(parents=True)
    for name in ("a.py", "b.py"):
        (repo / "pkg" / name).write_text("def f(x):\n    return x + 1\n", encoding="utf-8")
    (repo / "README.md").write_text("# repo\n", encoding="utf-8")
    (repo / ".gitignore").write_text("*.pyc\n", encoding="utf-8")  # hidden: not worth a word
    (repo / "notes.txt").write_text("low lower lowest\n" * 20, encoding="utf-8")
    (repo / "ids.npy").write_bytes(b"\x93NUMPY")  # no text: not worth a word either
    glob = repo / "**" / "*.py"
    note = f"note: left out 3 files of {repo} whose names are no shard's (2 .py, 1 .md); a quoted glob ('{glob}') reads such files as text"
    assert main(["train", str(repo), "--vocab-size", "260", "-o", str(tmp_path / "tok.json")]) == 0
    assert f"bpe-tui train: {note}\n" in capsys.readouterr().err
    assert main(["export", str(repo), str(tmp_path / "tok.json"), "-o", str(tmp_path / "ids.npy")]) == 0
    assert f"bpe-tui export: {note}\n" in capsys.readouterr().err
    assert main(["train", str(glob), "--vocab-size", "260", "-o", str(tmp_path / "py.json")]) == 0
    assert "note:" not in capsys.readouterr().err
    (repo / "notes.txt").unlink()
    code = main(["train", str(repo), "--vocab-size", "260", "-o", str(tmp_path / "tok.json"), "--force"])
    captured = capsys.readouterr()
    assert_one_line_error((code, captured.out, captured.err), "holds no corpus shard", f"give a folder of shards "
                          f"or a file, or a quoted glob ('{glob}') to read other files as text")


def test_a_tokenizer_given_for_the_corpus_is_named_as_such(tmp_path: Path) -> None:
    # A saved tokenizer (one JSON object over many lines) was read as JSON lines: "line 1: not valid JSON;
    # fix the record or skip bad records", advice that could only skip every line of it.
    (tmp_path / "c.txt").write_text("low lower lowest\n" * 20, encoding="utf-8")
    assert run_cli("train", "c.txt", "--vocab-size", "260", "-o", "tok.json", cwd=tmp_path).returncode == 0
    for command in (["train", "tok.json", "--vocab-size", "300", "--skip-bad-records"],
                    ["study", "tok.json", "--sizes", "300"], ["export", "tok.json", "tok.json", "-o", "ids.npy"]):
        assert_one_line_error(run_cli(*command, cwd=tmp_path), f"bpe-tui {command[0]}: error: tok.json: one JSON "
                              "object over several lines (a tokenizer?), not JSON lines (one record a line); give "
                              "the corpus")
    assert sorted(path.name for path in tmp_path.iterdir()) == ["c.txt", "tok.json"]


def test_text_field(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "c.jsonl"
    path.write_text("".join(json.dumps({"body": d}) + "\n" for d in DOCUMENTS), encoding="utf-8")
    code = main(["train", str(path), "--vocab-size", "300", "--special-token", SPECIAL, "--text-field", "body",
                 "-o", str(tmp_path / "tok.json")])
    assert code == 0, capsys.readouterr().err
    assert load_tokenizer(tmp_path / "tok.json").merges == reference.train(joined_text(DOCUMENTS), 300, [SPECIAL])[1]


def test_an_unquoted_glob_is_explained(tmp_path: Path) -> None:
    corpus = make_corpus(tmp_path)
    write_shard(corpus, "c.jsonl", DOCUMENTS[:3])
    result = run_cli("train", corpus / "a.jsonl.gz", corpus / "c.jsonl", "--vocab-size", "300", cwd=tmp_path)
    assert_one_line_error(result, "2 corpus paths given", "quote a glob")


@pytest.mark.parametrize(("command", "positionals"), [("train", "CORPUS"), ("study", "CORPUS"),
                                                      ("export", "CORPUS TOKENIZER")])
def test_help_shows_one_corpus(capsys: pytest.CaptureFixture[str], command: str, positionals: str) -> None:
    # The usage read "CORPUS [CORPUS ...]", as if several corpora were taken; a second path is refused.
    assert main([command, "--help"]) == 0
    usage = capsys.readouterr().out.split("\n\n", 1)[0]
    assert usage.split()[-len(positionals.split()):] == positionals.split() and "[CORPUS" not in usage


def test_a_quoted_glob_trains(tmp_path: Path) -> None:
    corpus = make_corpus(tmp_path)
    result = run_cli("train", str(corpus / "*.parquet"), "--vocab-size", "300", "-o", tmp_path / "t.json",
                     "--special-token", SPECIAL, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert load_tokenizer(tmp_path / "t.json").merges == reference.train(SPECIAL.join(DOCUMENTS[60:]), 300, [SPECIAL])[1]


def test_export_one_array_and_per_shard(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    corpus = make_corpus(tmp_path)
    assert main(["train", str(corpus), "--vocab-size", "300", "--special-token", SPECIAL,
                 "-o", str(tmp_path / "tok.json")]) == 0
    tokenizer = Tokenizer.from_model(load_tokenizer(tmp_path / "tok.json"))
    assert main(["export", str(corpus), str(tmp_path / "tok.json"), "-o", str(tmp_path / "ids.npy"),
                 "--workers", "2"]) == 0
    assert np.load(tmp_path / "ids.npy").tolist() == tokenizer.encode(joined_text(DOCUMENTS))
    # The bytes read are the text's, as in the one .txt of the corpus: the files' sizes (gzip, Parquet) were
    # given as if they were, so the rate and an --estimate of 825 GB of text went by compressed bytes.
    size = (corpus / "a.jsonl.gz").stat().st_size + (corpus / "b.parquet").stat().st_size
    text = len(joined_text(DOCUMENTS).encode("utf-8"))
    assert f"from {text:,} bytes of text ({format_bytes(size)} of shards) to " in capsys.readouterr().err
    assert main(["export", str(corpus), str(tmp_path / "tok.json"), "-o", str(tmp_path / "per"),
                 "--per-shard"]) == 0
    each = len(joined_text(DOCUMENTS[:60]).encode("utf-8")) + len(joined_text(DOCUMENTS[60:]).encode("utf-8"))
    assert f"from {each:,} bytes of text ({format_bytes(size)} of shards) to " in capsys.readouterr().err
    assert np.load(tmp_path / "per" / "a.jsonl.npy").tolist() == tokenizer.encode(joined_text(DOCUMENTS[:60]))
    assert np.load(tmp_path / "per" / "b.parquet.npy").tolist() == tokenizer.encode(joined_text(DOCUMENTS[60:]))
    capsys.readouterr()
    code = main(["export", str(corpus), str(tmp_path / "tok.json"), "-o", str(tmp_path / "per"), "--per-shard"])
    captured = capsys.readouterr()
    assert_one_line_error((code, captured.out, captured.err), "per: already exists")


def test_verify_shard_exports_with_their_corpus(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    corpus = make_corpus(tmp_path)
    assert main(["train", str(corpus), "--vocab-size", "300", "--special-token", SPECIAL,
                 "-o", str(tmp_path / "tok.json")]) == 0
    assert main(["export", str(corpus), str(tmp_path / "tok.json"), "-o", str(tmp_path / "ids.npy")]) == 0
    assert main(["export", str(corpus), str(tmp_path / "tok.json"), "-o", str(tmp_path / "per"), "--per-shard"]) == 0
    assert sorted(p.name for p in (tmp_path / "per").iterdir()) == [
        "a.jsonl.npy", "a.jsonl.npy.json", "b.parquet.npy", "b.parquet.npy.json"]
    capsys.readouterr()
    assert main(["verify", str(tmp_path / "ids.npy"), str(tmp_path / "tok.json"), "--corpus", str(corpus)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("ok: ") and out.endswith(
        f"decoding them gives the documents of {corpus}, joined by '{SPECIAL}', back byte for byte, "
        "and its shards' SHA-256 matches\n")
    for array, shard in (("a.jsonl.npy", "a.jsonl.gz"), ("b.parquet.npy", "b.parquet")):
        assert main(["verify", str(tmp_path / "per" / array), str(tmp_path / "tok.json"),
                     "--corpus", str(corpus / shard)]) == 0
    capsys.readouterr()
    code = main(["verify", str(tmp_path / "per" / "a.jsonl.npy"), str(tmp_path / "tok.json"), "--corpus", str(corpus)])
    captured = capsys.readouterr()
    assert code == 1 and captured.err.startswith("bpe-tui verify: error: ") and captured.err.count("\n") == 1
    assert "gives only the first" in captured.err


def test_verify_reads_the_corpus_with_the_exports_text_field(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    corpus = tmp_path / "body.jsonl"
    corpus.write_text("".join(json.dumps({"body": d}) + "\n" for d in DOCUMENTS[:20]), encoding="utf-8")
    tok = Path(__file__).resolve().parents[2] / "samples" / "gpt2" / "vocab.json"
    assert main(["export", str(corpus), str(tok), "-o", str(tmp_path / "ids.npy"), "--text-field", "body"]) == 0
    capsys.readouterr()
    code = main(["verify", str(tmp_path / "ids.npy"), str(tok), "--corpus", str(corpus)])
    captured = capsys.readouterr()
    assert_one_line_error((code, captured.out, captured.err), "no 'text' field")
    assert main(["verify", str(tmp_path / "ids.npy"), str(tok), "--corpus", str(corpus), "--text-field", "body"]) == 0


def test_a_sidecar_in_the_corpus_folder_is_no_shard(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    corpus = make_corpus(tmp_path)
    tok = Path(__file__).resolve().parents[2] / "samples" / "gpt2" / "vocab.json"
    assert main(["export", str(corpus), str(tok), "-o", str(corpus / "ids.npy")]) == 0
    first = np.load(corpus / "ids.npy").tolist()
    assert main(["export", str(corpus), str(tok), "-o", str(tmp_path / "again.npy")]) == 0
    assert np.load(tmp_path / "again.npy").tolist() == first


def test_export_onto_a_shard_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    corpus = make_corpus(tmp_path)
    assert main(["train", str(corpus), "--vocab-size", "300", "-o", str(tmp_path / "tok.json")]) == 0
    capsys.readouterr()
    code = main(["export", str(corpus), str(tmp_path / "tok.json"), "-o", str(corpus / "b.parquet"), "--force"])
    captured = capsys.readouterr()
    assert_one_line_error((code, captured.out, captured.err), "b.parquet")
    assert (corpus / "b.parquet").read_bytes()[:4] == b"PAR1"


def test_an_empty_corpus_trains_with_a_warning(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A 0-byte corpus (a failed download) trained a tokenizer of the 256 bytes alone and reported only
    'trained 0 merges (no pair left to merge)'; one warning line now says the corpus was empty."""
    (tmp_path / "empty.txt").write_bytes(b"")
    (tmp_path / "shards").mkdir()
    (tmp_path / "shards" / "a.jsonl").write_bytes(b"")
    (tmp_path / "shards" / "b.txt").write_bytes(b"")
    for corpus, problem in ((tmp_path / "empty.txt", "empty.txt is empty (0 bytes)"),
                            (tmp_path / "shards", "shards has 2 shards, all empty (0 bytes)")):
        code = main(["train", str(corpus), "--vocab-size", "300", "-o", str(tmp_path / "tok.json"), "--force"])
        err = capsys.readouterr().err
        assert code == 0 and "Traceback" not in err
        [warning] = [line for line in err.splitlines() if "warning" in line]
        assert warning.endswith(f"{problem}: the tokenizer will hold the bytes and special tokens alone")
    (tmp_path / "full.txt").write_text("a b", encoding="utf-8")
    code = main(["train", str(tmp_path / "full.txt"), "--vocab-size", "300", "-o", str(tmp_path / "tok.json"),
                 "--force"])
    assert code == 0 and "warning" not in capsys.readouterr().err


def test_a_corpus_of_no_text_that_is_not_empty_trains_with_a_warning(tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """A Parquet file of no rows, a compressed file of nothing, records all "" or a file of special tokens
    alone are not 0 bytes, so no warning was given: 'trained 0 merges (no pair left to merge)' was all."""
    import gzip

    import pyarrow
    import pyarrow.parquet

    pyarrow.parquet.write_table(pyarrow.table({"text": pyarrow.array([], pyarrow.string())}), tmp_path / "none.parquet")
    (tmp_path / "nothing.jsonl.gz").write_bytes(gzip.compress(b""))
    (tmp_path / "blank.jsonl").write_text('{"text": ""}\n' * 3, encoding="utf-8")
    (tmp_path / "specials.txt").write_text(SPECIAL * 2, encoding="utf-8")
    for corpus, held in (("none.parquet", "no documents"), ("nothing.jsonl.gz", "no documents"),
                         ("blank.jsonl", "3 documents, all empty"), ("specials.txt", "special tokens alone")):
        code = main(["train", str(tmp_path / corpus), "--vocab-size", "300", "--special-token", SPECIAL,
                     "-o", str(tmp_path / "tok.json"), "--force"])
        err = capsys.readouterr().err
        assert code == 0 and "Traceback" not in err
        [warning] = [line for line in err.splitlines() if "warning" in line]
        assert warning == (f"bpe-tui train: warning: {tmp_path / corpus} held no text to train on ({held}): the "
                           "tokenizer holds the bytes and special tokens alone")
    (tmp_path / "blank.jsonl").write_text('{"text": ""}\n{"text": "a b"}\n', encoding="utf-8")
    assert main(["train", str(tmp_path / "blank.jsonl"), "--vocab-size", "300", "-o", str(tmp_path / "tok.json"),
                 "--force"]) == 0
    assert "warning" not in capsys.readouterr().err


@pytest.mark.parametrize("command", ["train", "export", "study", "verify", "diff"])
def test_record_options_on_plain_text_are_said_to_be_unused(tmp_path: Path, command: str) -> None:
    """``--text-field`` and ``--skip-bad-records`` apply to records; on a plain-text corpus they were
    silently unused, so a user who meant another corpus was not told. One warning; the run goes on."""
    from tests.cli.cli_cases import tokenizer_file

    text = tmp_path / "plain.txt"
    text.write_text("low lower lowest\n" * 20, encoding="utf-8")
    tok = tokenizer_file(tmp_path)
    ids = tmp_path / "ids.npy"
    assert run_cli("export", text, tok, "-o", ids, cwd=tmp_path).returncode == 0
    args = {
        "train": ["train", text, "--vocab-size", "260", "-o", tmp_path / "t.json"],
        "export": ["export", text, tok, "-o", tmp_path / "again.npy"],
        "study": ["study", text, "--sizes", "258,260"],
        "verify": ["verify", ids, tok, "--corpus", text],
        "diff": ["diff", tok, tok, "--corpus", text],
    }[command]
    result = run_cli(*args, "--text-field", "body", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    [warning] = [line for line in result.stderr.splitlines() if "warning" in line]
    assert warning == (f"bpe-tui {command}: warning: --text-field is for JSON lines and Parquet records, and "
                       f"{text} holds plain text only: it is not used")
    quiet = run_cli(*args, cwd=tmp_path) if command not in ("train", "export") else None
    assert quiet is None or "warning" not in quiet.stderr
