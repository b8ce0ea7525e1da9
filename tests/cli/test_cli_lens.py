"""``bpe-tui lens``: the list, one-line errors for unknown lenses and foreign or bad flags, text and JSON output."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.cli.cli_cases import assert_one_line_error, small_model, tokenizer_file

from bpe_tui.__main__ import main
from bpe_tui.lenses.registry import LENSES
from bpe_tui.text import cell_width
from core.formats import save_tokenizer
from core.train.run import TrainingRun
from tests.core.encode.tokenizer_cases import tiktoken_gpt2


def lens(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, str, str]:
    code = main(["lens", *map(str, args)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize("args", [(), ("--list",)])
def test_lens_alone_or_list_names_every_lens(capsys: pytest.CaptureFixture[str], args: tuple[str, ...]) -> None:
    code, out, err = lens(capsys, *args)
    assert (code, err) == (0, "")
    names = [line.split()[0] for line in out.splitlines()]
    assert names == [spec.name for spec in LENSES]
    assert "--merges" in out.splitlines()[0]


def test_an_unknown_lens_is_one_line_listing_the_lenses(capsys: pytest.CaptureFixture[str]) -> None:
    line = assert_one_line_error(lens(capsys, "kaleidoscope"), "kaleidoscope", "slider", "fragments")
    assert line.startswith("bpe-tui lens: error:")


def test_a_flag_of_another_lens_is_refused_naming_this_lenss_flags(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert_one_line_error(lens(capsys, "fragments", tokenizer_file(tmp_path), "--merges", "3"),
                          "fragments lens takes no --merges", "--text")


@pytest.mark.parametrize("value, needle", [("-1", "outside 0.."), ("abc", "'abc' is not a whole number")])
def test_bad_merges_are_one_line(capsys: pytest.CaptureFixture[str], tmp_path: Path, value: str, needle: str) -> None:
    assert_one_line_error(lens(capsys, "slider", tokenizer_file(tmp_path), f"--merges={value}"), needle)


def test_a_missing_tokenizer_file_is_one_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert_one_line_error(lens(capsys, "slider", tmp_path / "absent.json"), "absent.json")


def test_slider_json_on_the_default_tokenizer_is_gpt2(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = lens(capsys, "slider", "--text", "Hello world", "--json")
    assert (code, err) == (0, "")
    data = json.loads(out)
    assert data["merges"] == 50_000
    assert data["ids"] == tiktoken_gpt2().encode("Hello world")
    assert data["tokens"] == ["Hello", " world"]


def test_slider_text_on_a_tokenizer_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    model = small_model()
    code, out, err = lens(capsys, "slider", tokenizer_file(tmp_path), "--text", "The cat", "--merges", "0")
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[0] == f"after 0 of {len(model.merges)} merges: 7 tokens (7 bytes)"
    assert lines[1] == '"T" "h" "e" " " "c" "a" "t"'
    assert lines[2] == "[84, 104, 101, 32, 99, 97, 116]"


def test_fragments_json_shape(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, _ = lens(capsys, "fragments", tokenizer_file(tmp_path), "--text", "a  b", "--json")
    assert code == 0
    data = json.loads(out)
    assert [(f["text"], f["bytes"]) for f in data["fragments"]] == [("a", 1), (" ", 1), (" b", 2)]
    assert data["crossing"] == 0


def test_fragments_no_specials_reads_a_special_tokens_text_as_text(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = lens(capsys, "fragments", "--text", "a<|endoftext|>", "--no-specials", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["specials"] is False
    assert [i for f in data["fragments"] for i in f["ids"]] == tiktoken_gpt2().encode_ordinary("a<|endoftext|>")


def test_replay_json_ids_are_gpt2s(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = lens(capsys, "replay", "--word", " unbelievably", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["word"] == " unbelievably" and data["ids"] == tiktoken_gpt2().encode(" unbelievably")
    assert all(set(step) >= {"rank", "pair", "tokens"} and isinstance(step["rank"], int) for step in data["steps"])
    assert data["steps"][-1]["tokens"] == [tiktoken_gpt2().decode([i]) for i in data["ids"]]


def test_replay_refuses_a_text_too_long_to_show_step_by_step(capsys: pytest.CaptureFixture[str]) -> None:
    # Each step holds every token of the word: 10 KB of prose took a gigabyte and printed 200 MB.
    assert_one_line_error(lens(capsys, "replay", "--word", "あ" * 334), "at most 1,000 bytes", "not 1,002", "slider")
    code, out, _ = lens(capsys, "replay", "--word", "あ" * 333, "--json")
    assert code == 0 and json.loads(out)["ids"] == tiktoken_gpt2().encode("あ" * 333)


def test_unigram_refuses_a_text_too_long_for_its_table(capsys: pytest.CaptureFixture[str]) -> None:
    # The k-best table keeps 200 cuts at every byte: 10 KB took 12 s and 350 MB, a pasted page gigabytes.
    assert_one_line_error(lens(capsys, "unigram", "--word", "あ" * 334), "at most 1,000 bytes", "not 1,002")
    code, out, _ = lens(capsys, "unigram", "--word", "あ" * 333, "--top", "1", "--json")
    assert code == 0 and json.loads(out)["bpe"]["tokens"] == [tiktoken_gpt2().decode([i]) for i in tiktoken_gpt2().encode("あ" * 333)]


def test_vocab_text_and_json_on_a_small_tokenizer(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    model = small_model()
    path = tokenizer_file(tmp_path)
    code, out, _ = lens(capsys, "vocab", path)
    assert code == 0
    assert out.splitlines()[0] == f"this tokenizer: 256 bytes + {len(model.merges)} merges + 1 special = {len(model.vocab)}"
    code, out, _ = lens(capsys, "vocab", path, "--json")
    data = json.loads(out)
    assert (data["bytes"], data["merges"], data["specials"], data["total"]) == (256, len(model.merges), 1, len(model.vocab))
    assert [rung["name"] for rung in data["ladder"]] == ["GPT-2", "cl100k_base", "o200k_base", "Gemma"]


def test_pairs_on_the_bundled_word_counts(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = lens(capsys, "pairs", "--passes", "2", "--json")
    assert code == 0
    passes = json.loads(out)["passes"]
    assert [(p["pair"], p["count"], p["tied_with"]) for p in passes] == [(["l", "o"], 22, []), (["s", "t"], 19, [["lo", "w"]])]
    assert passes[1]["symbols"] == passes[0]["symbols"] - 19


def test_pairs_corpus_errors_are_one_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert_one_line_error(lens(capsys, "pairs", "--corpus", tmp_path / "absent.txt"), "absent.txt")
    bad = tmp_path / "latin1.txt"
    bad.write_bytes(b"caf\xe9 3\n")
    assert_one_line_error(lens(capsys, "pairs", "--corpus", bad), "not valid UTF-8")
    assert_one_line_error(lens(capsys, "pairs", "--passes", "0"), "--passes 0 is outside 1..200")


@pytest.mark.parametrize("name", ["pairs", "wordpiece", "unigram"])
def test_a_corpus_too_large_for_a_lens_is_one_line(name: str, capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """A training corpus given to a lens was read whole and counted in memory, about 17 bytes a byte of it:
    1.3 GB for 76 MB, and an 11 GB corpus ran the machine out of memory."""
    import bpe_tui.lenses.corpus_files

    monkeypatch.setattr(bpe_tui.lenses.corpus_files, "MAX_BYTES", 1000, raising=False)
    corpus = tmp_path / "big.txt"
    corpus.write_text("low lower lowest\n" * 100, encoding="utf-8")
    assert_one_line_error(lens(capsys, name, "--corpus", corpus), "big.txt is larger than", "a lens reads",
                          "head -n 100000 FILE > part.txt")
    corpus.write_text("low lower lowest\n" * 50, encoding="utf-8")  # 850 bytes: read as before
    assert lens(capsys, name, "--corpus", corpus)[0] == 0


@pytest.mark.parametrize("name", ["pairs", "wordpiece"])
@pytest.mark.parametrize(("line", "needle"), [("lower 0", "count of 0"), ("lower " + "9" * 5000, "over 18 digits")],
                         ids=["zero", "5000-digits"])
def test_a_word_count_of_zero_or_thousands_of_digits_is_one_line(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                                 name: str, line: str, needle: str) -> None:
    # A count of 0 made pairs of count 0 merge and WordPiece divide 0 by 0; 5,000 digits were int()'s ValueError.
    corpus = tmp_path / "counts.txt"
    corpus.write_text(f"# words\nlow 5\n{line}\n", encoding="utf-8")
    assert_one_line_error(lens(capsys, name, "--corpus", corpus), "counts.txt: line 3:", needle, "from 1 to")


def test_longest_match_json_on_gpt2(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = lens(capsys, "longest-match", "--text", "strawberry", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["replay"] == tiktoken_gpt2().encode("strawberry")
    assert data["same"] is False and data["longest_match"] != data["replay"]
    assert tiktoken_gpt2().decode(data["longest_match"]) == "strawberry"


def test_wordpiece_json(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    corpus = tmp_path / "toy_counts.txt"
    corpus.write_text("hug 10\npug 5\npun 12\nbun 4\nhugs 5\n", encoding="utf-8")
    code, out, _ = lens(capsys, "wordpiece", "--corpus", corpus, "--merges", "2", "--json")
    assert code == 0
    data = json.loads(out)
    assert (data["bpe"], data["wordpiece"], data["shared"]) == ([["u", "g"], ["u", "n"]], [["g", "s"], ["u", "n"]], 1)


def test_unigram_json_on_gpt2(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = lens(capsys, "unigram", "--word", " tokenization", "--top", "3", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["word"] == " tokenization" and isinstance(data["count"], int) and data["count"] > 3
    assert len(data["segmentations"]) == 3
    logprobs = [s["logprob"] for s in data["segmentations"]]
    assert logprobs == sorted(logprobs, reverse=True)
    assert all("".join(s["tokens"]) == " tokenization" for s in data["segmentations"])
    assert data["bpe"]["tokens"] == [tiktoken_gpt2().decode([i]) for i in tiktoken_gpt2().encode(" tokenization")]


@pytest.mark.parametrize("args, column", [
    (("fragments", "--text", "吾輩は猫である。 Hello 名前はまだ無い"), " bytes"),
    (("spelling", "--words", "strawberry 日本語 ab ｶﾀｶﾅ"), " characters"),
    (("replay", "--word", " 名前は"), "->"),
])
def test_text_columns_line_up_in_cells_after_japanese(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                      args: tuple[str, ...], column: str) -> None:
    # Padded with str.ljust, a kanji counted one cell for its two: "吾輩は猫である" pushed its byte count
    # seven cells right of the others'. The tokenizer merges the kanji, so replay's pairs hold some.
    run = TrainingRun.from_text("名前は 名前は 吾輩は 日本語 " * 3, 256 + 40, [], workers=1)
    for _ in run.events():
        pass
    model = run.result()
    code, out, err = lens(capsys, *args[:1], save_tokenizer(model, tmp_path / "ja.json", format="bpe-tui")[0], *args[1:])
    assert (code, err) == (0, "")
    starts = {cell_width(line[: line.index(column)]) for line in out.splitlines() if column in line}
    assert len([line for line in out.splitlines() if column in line]) >= 3
    assert len(starts) == 1, out


def test_bytes_column_of_long_tokens_lines_up(capsys: pytest.CaptureFixture[str]) -> None:
    # GPT-2 has " understand", 11 bytes: its hex is longer than the 24 characters the column had.
    code, out, err = lens(capsys, "bytes", "--text", " understand 日本 x")
    assert (code, err) == (0, "")
    rows = [line for line in out.splitlines() if '"' in line]
    assert len(rows) >= 3 and len({line.index('"') for line in rows}) == 1, out


def test_help_gives_every_lens_options_default_under_a_heading_that_fits() -> None:
    # --mix, --d, --layers, budget's --merges and the texts had no default in --help; --text, --merges,
    # --corpus, --word and --words, taken by several lenses, were filed under the first one's heading.
    import argparse

    from bpe_tui.cli import build_parser
    from bpe_tui.cli.lens import option_flags

    [sub] = [a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)]
    parser = sub.choices["lens"]
    helps = {flag: action.help for action in parser._actions for flag in action.option_strings}
    for flag, (option, takers) in option_flags().items():
        parts = helps[flag].split("; ") if len(takers) > 1 else [helps[flag]]
        assert len(parts) == len(takers) and all("default" in part for part in parts), flag
    assert "(default 50)" in helps["--mix"] and "(default 768)" in helps["--d"]
    titles = {group.title: [a.option_strings[0] for a in group._group_actions if a.option_strings]
              for group in parser._action_groups}
    assert titles["options of several lenses"] == ["--text", "--merges", "--corpus", "--word", "--words"]
    assert "slider lens" not in titles and titles["budget lens"] == ["--mix"]


def test_counts_of_one_take_the_singular(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    # "1 fragments", "1 bytes" and "1 pairs merged by both" were printed.
    tok = tokenizer_file(tmp_path)
    code, out, _ = lens(capsys, "fragments", tok, "--text", "a")
    assert code == 0 and out.startswith("1 fragment;") and '"a"     1 byte  ->' in out
    code, out, _ = lens(capsys, "slider", tok, "--text", "a")
    assert code == 0 and out.startswith(f"after {len(small_model().merges)} of {len(small_model().merges)} merges: "
                                        "1 token (1 byte)")
    corpus = tmp_path / "words.txt"
    corpus.write_text("ab 5\n", encoding="utf-8")
    code, out, _ = lens(capsys, "wordpiece", tok, "--corpus", corpus, "--merges", "1")
    assert code == 0 and out.startswith("1 merge each; 1 pair merged by both (marked *)")


@pytest.mark.parametrize("encoding", ["ascii", "latin-1"])
def test_json_stays_json_on_a_stream_that_is_not_utf8(encoding: str, tmp_path: Path) -> None:
    """With PYTHONIOENCODING=ascii (or a Latin-1 terminal) a character the stream could not encode was written
    as \\xe9 or \\U0001f600, which JSON has no such escape for: scripts got text no JSON reader took. (study
    --json writes through the same json_line.)"""
    import os
    import subprocess
    import sys

    filled = ["lens", "bytes", str(tokenizer_file(tmp_path)), "--text", "日本 é😀"]

    def run(**env: str) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run([sys.executable, "-m", "bpe_tui", *filled, "--json"], cwd=tmp_path, capture_output=True,
                              stdin=subprocess.DEVNULL, timeout=120, env={**os.environ, **env})

    plain, narrow = run(PYTHONIOENCODING="utf-8"), run(PYTHONIOENCODING=encoding)
    assert (plain.returncode, narrow.returncode) == (0, 0), narrow.stderr
    assert narrow.stdout.isascii()
    assert json.loads(narrow.stdout) == json.loads(plain.stdout.decode("utf-8"))


@pytest.mark.parametrize("name", ["pairs", "unigram"])
def test_a_corpus_of_json_lines_is_read_as_its_documents(name: str, capsys: pytest.CaptureFixture[str],
                                                         tmp_path: Path) -> None:
    # Read as plain text, a .jsonl was counted as its JSON: braces, quotes, "text" and \u escapes.
    import gzip

    documents = ["low lower lowest", "newer wider 日本語"]
    lines = "".join(json.dumps({"text": document}) + "\n" for document in documents)
    (tmp_path / "corpus.jsonl").write_text(lines, encoding="utf-8")
    (tmp_path / "packed.jsonl.gz").write_bytes(gzip.compress(lines.encode("utf-8")))
    (tmp_path / "corpus.txt").write_text("\n".join(documents), encoding="utf-8")
    outputs = [lens(capsys, name, "--corpus", tmp_path / file, "--json")
               for file in ("corpus.txt", "corpus.jsonl", "packed.jsonl.gz")]
    assert [code for code, _, _ in outputs] == [0, 0, 0]
    assert outputs[1][1] == outputs[0][1] == outputs[2][1]
    assert '"\\"' not in outputs[1][1] and "\\\\u" not in outputs[1][1]


def test_shards_too_large_for_a_lens_are_one_line(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    import bpe_tui.lenses.corpus_files

    monkeypatch.setattr(bpe_tui.lenses.corpus_files, "MAX_BYTES", 1000, raising=False)
    corpus = tmp_path / "big.jsonl"
    corpus.write_text(json.dumps({"text": "low lower lowest " * 100}) + "\n", encoding="utf-8")
    assert_one_line_error(lens(capsys, "pairs", "--corpus", corpus), "big.jsonl holds more than", "first records")
