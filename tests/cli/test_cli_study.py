"""``bpe-tui study``: the issue's JSON, with every size's token counts equal to a separately trained tokenizer's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.cli.cli_cases import assert_one_line_error, run_cli
from tests.data_paths import SAMPLES

from bpe_tui.__main__ import main
from core.encode.tokenizer import Tokenizer
from core.train.run import TrainingRun

CORPUS = SAMPLES / "mixed.txt"


def study(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, str, str]:
    """Run study; stderr without the warning that samples/mixed.txt's <|endoftext|> markers get when they are not
    given with --special-token (the tests below study it as plain text on purpose)."""
    code = main(["study", *map(str, args)])
    captured = capsys.readouterr()
    err = "".join(line for line in captured.err.splitlines(keepends=True)
                  if not (line.startswith("bpe-tui study: warning: ") and "markers are not special tokens" in line))
    return code, captured.out, err


def test_json_tokens_equal_separately_trained_tokenizers(capsys: pytest.CaptureFixture[str]) -> None:
    extra = SAMPLES / "toy.txt"
    code, out, err = study(
        capsys, CORPUS, "--sizes", "400,300", "--eval", extra, "--d", "16", "--json", "--workers", "1"
    )
    assert (code, err) == (0, "")
    data = json.loads(out)
    assert [entry["vocab"] for entry in data["sizes"]] == [300, 400]
    texts = {name: (SAMPLES / f"{file}.txt").read_text(encoding="utf-8")
             for name, file in (("corpus", "mixed"), ("english", "english"), ("japanese", "japanese"), ("toy", "toy"))}
    for entry in data["sizes"]:
        assert set(entry) >= {"vocab", "seconds", "tokens", "bytes_per_token", "longest_token", "embedding"}
        run = TrainingRun(CORPUS, entry["vocab"], [], workers=1)
        for _ in run.events():
            pass
        tokenizer = Tokenizer.from_model(run.result())
        assert entry["tokens"] == {name: len(tokenizer.encode(text)) for name, text in texts.items()}
        assert entry["embedding"] == entry["vocab"] * 16 and entry["seconds"] >= 0


def test_table(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = study(capsys, CORPUS, "--sizes", "300,350", "--workers", "1")
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert "vocab" in lines[1] and "japanese" in lines[1] and "longest token" in lines[1]
    assert lines[2].split()[0] == "300" and lines[3].split()[0] == "350"


@pytest.mark.parametrize("args, needle", [
    (["--sizes", "300,abc"], "'abc' is not a whole number"),
    (["--sizes", "200"], "too small"),
    (["--sizes", "300", "--eval", "missing.txt"], "missing.txt"),
])
def test_bad_input_is_one_line(tmp_path: Path, args: list[str], needle: str) -> None:
    assert_one_line_error(run_cli("study", CORPUS, *args, cwd=tmp_path), "bpe-tui study: error:", needle)


def test_json_coverage_per_size_and_existing_fields_kept(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = study(capsys, CORPUS, "--sizes", "300", "--windows", "64,1k", "--json", "--workers", "1")
    assert (code, err) == (0, "")
    entry = json.loads(out)["sizes"][0]
    assert set(entry) == {"vocab", "seconds", "tokens", "bytes_per_token", "longest_token", "japanese_bare_bytes",
                          "embedding", "coverage"}
    run = TrainingRun(CORPUS, 300, [], workers=1)
    for _ in run.events():
        pass
    tokenizer = Tokenizer.from_model(run.result())
    japanese = (SAMPLES / "japanese.txt").read_text(encoding="utf-8")
    pieces = tokenizer.decode_tokens_bytes(tokenizer.encode(japanese))
    first_64 = b"".join(pieces[:64])
    # The bytes of the first 64 tokens; the characters among them are those whose bytes are all there (a
    # character cut at the end is dropped by errors="ignore", the only undecodable bytes being its start).
    chars = len(first_64.decode("utf-8", errors="ignore"))
    assert entry["coverage"]["japanese"]["64"] == {"chars": chars, "bytes": len(first_64)}
    assert set(entry["coverage"]) == {"corpus", "english", "japanese"}
    assert set(entry["coverage"]["corpus"]) == {"64", "1024"}



def test_a_jsonl_corpus_studies_as_its_documents_joined_in_a_txt(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    docs = (SAMPLES / "english.txt").read_text(encoding="utf-8").split("\n\n")
    jsonl = tmp_path / "docs.jsonl"
    jsonl.write_text("".join(json.dumps({"body": doc}) + "\n" for doc in docs), encoding="utf-8")
    txt = tmp_path / "docs.txt"
    txt.write_text("<|endoftext|>".join(docs), encoding="utf-8")
    common = ["--sizes", "300,600", "--special-token", "<|endoftext|>", "--json", "--workers", "1"]
    code, from_jsonl, err = study(capsys, jsonl, "--text-field", "body", *common)
    assert (code, err) == (0, "")
    code, from_txt, err = study(capsys, txt, *common)
    assert (code, err) == (0, "")
    as_jsonl, as_txt = json.loads(from_jsonl)["sizes"], json.loads(from_txt)["sizes"]
    assert [e["tokens"] for e in as_jsonl] == [e["tokens"] for e in as_txt]
    assert [e["coverage"] for e in as_jsonl] == [e["coverage"] for e in as_txt]


def test_bad_records_stop_as_in_train_or_are_skipped_and_reported(tmp_path: Path) -> None:
    jsonl = tmp_path / "bad.jsonl"
    jsonl.write_text('{"text": "low low lower"}\nnot json\n{"text": "newest"}\n', encoding="utf-8")
    stopped = assert_one_line_error(run_cli("study", jsonl, "--sizes", "260", cwd=tmp_path), "bpe-tui study: error:")
    trained = assert_one_line_error(run_cli("train", jsonl, "--vocab-size", "260", cwd=tmp_path),
                                    "bpe-tui train: error:")
    assert stopped.removeprefix("bpe-tui study: error:") == trained.removeprefix("bpe-tui train: error:")
    skipped = run_cli("study", jsonl, "--sizes", "260", "--skip-bad-records", "--json", cwd=tmp_path)
    assert skipped.returncode == 0
    assert skipped.stderr.startswith("skipped 1 bad record in 1 shard; the first: ") and "line 2" in skipped.stderr
    assert json.loads(skipped.stdout)["sizes"][0]["vocab"] == 260


def test_table_has_a_coverage_section_matching_the_json(capsys: pytest.CaptureFixture[str]) -> None:
    args = [CORPUS, "--sizes", "300", "--windows", "128 8k", "--workers", "1"]
    code, out, err = study(capsys, *args)
    assert (code, err) == (0, "")
    coverage = json.loads(study(capsys, *args, "--json")[1])["sizes"][0]["coverage"]
    lines = out.splitlines()
    start = lines.index("context coverage: characters / bytes of each text the first window of N tokens holds")
    assert lines[start + 1].split() == ["vocab", "text", "128", "8,192"]
    rows = lines[start + 2:]
    assert len(rows) == 3 and rows[0].split()[:2] == ["300", "corpus"]
    for row, name in zip(rows, ("corpus", "english", "japanese")):
        cells = [f"{coverage[name][w]['chars']:,} / {coverage[name][w]['bytes']:,}" for w in ("128", "8192")]
        assert all(cell in row for cell in cells), (row, cells)


def test_bad_windows_are_one_line(tmp_path: Path) -> None:
    assert_one_line_error(run_cli("study", CORPUS, "--sizes", "300", "--windows", "12x", cwd=tmp_path),
                          "bpe-tui study: error:", "'12x' is not a number of tokens")


def test_a_corpus_that_is_not_utf8_is_studied_with_errors_replace_as_the_error_advises(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The error advises errors 'replace'; study takes it as train does (--errors), and trains and evaluates
    # on U+FFFD in place of the bad bytes, as a tokenizer trained by train --errors replace encodes them.
    corpus = tmp_path / "latin1.txt"
    corpus.write_bytes("café crème, déjà vu; low lower lowest\n".encode("latin-1") * 20)
    refused = assert_one_line_error(run_cli("study", corpus, "--sizes", "270", cwd=tmp_path),
                                    "bpe-tui study: error:", "errors 'replace'")
    assert "invalid UTF-8" in refused
    code, out, err = study(capsys, corpus, "--sizes", "270", "--errors", "replace", "--json", "--workers", "1")
    assert (code, err) == (0, "")
    run = TrainingRun(corpus, 270, [], workers=1, errors="replace")
    for _ in run.events():
        pass
    text = corpus.read_bytes().decode("utf-8", errors="replace")
    assert json.loads(out)["sizes"][0]["tokens"]["corpus"] == len(Tokenizer.from_model(run.result()).encode(text))


def test_columns_line_up_under_a_japanese_eval_name() -> None:
    # A kanji takes two terminal cells: a name padded by characters pushed every column after it right.
    from bpe_tui.cli.study import table_lines
    from bpe_tui.text import cell_width
    from core.analysis.study import SizeResult, Study

    names = ("corpus", "技術文書", "技術文書サンプルの評価用テキスト")
    size = SizeResult(300, 0.5, dict.fromkeys(names, 10), dict.fromkeys(names, 2.0), b"ab", 0.25, 300,
                      dict.fromkeys(names, {128: (7, 8)}))
    lines = table_lines(Study((size,), text_names=names, windows=(128,)))
    header, row = lines[1], lines[2]
    assert cell_width(header[: header.index("ja bare") + 7]) == cell_width(row[: row.index("25.0%") + 5])
    window_end = cell_width(lines[-4])  # "  vocab text    128"
    assert [cell_width(line) for line in lines[-3:]] == [window_end] * 3


def test_a_held_out_jsonl_eval_is_measured_on_its_documents_not_its_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # json.dumps writes Japanese as \u escapes: read as text, the column measured those escapes instead.
    import gzip

    docs = [f"検証用の文書 {i}。東京都千代田区。" for i in range(40)]
    jsonl = tmp_path / "held.jsonl"
    jsonl.write_text("".join(json.dumps({"text": doc}) + "\n" for doc in docs), encoding="utf-8")
    (tmp_path / "held_gz.jsonl.gz").write_bytes(gzip.compress(jsonl.read_bytes()))
    (tmp_path / "held_txt.txt").write_text("<|endoftext|>".join(docs), encoding="utf-8")
    code, out, err = study(capsys, CORPUS, "--sizes", "300", "--special-token", "<|endoftext|>", "--json",
                           "--workers", "1", *(arg for name in ("held.jsonl", "held_gz.jsonl.gz", "held_txt.txt")
                                               for arg in ("--eval", tmp_path / name)))
    assert (code, err) == (0, "")
    tokens = json.loads(out)["sizes"][0]["tokens"]
    assert tokens["held"] == tokens["held_gz"] == tokens["held_txt"]


def test_markers_not_given_as_special_tokens_are_warned_of_as_train_does(tmp_path: Path) -> None:
    # study trains on the corpus as train does, but said nothing of <|endoftext|> left out of --special-token:
    # every size was measured with pieces of it in the vocabulary.
    corpus = tmp_path / "docs.txt"
    corpus.write_text("<|endoftext|>".join(["The cat sat on the mat."] * 30), encoding="utf-8")
    result = run_cli("study", corpus, "--sizes", "260", "--workers", "1", "--json", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stderr.startswith("bpe-tui study: warning: ") and "29 <|…|> markers are not special tokens" in result.stderr
    given = run_cli("study", corpus, "--sizes", "260", "--workers", "1", "--json", "--special-token", "<|endoftext|>",
                    cwd=tmp_path)
    assert (given.returncode, given.stderr) == (0, "")
