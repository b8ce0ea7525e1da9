"""``bpe-tui lens`` for lenses 9-16 (budget ... delete-merge): text for people and the JSON contract,
checked against tiktoken's GPT-2, the plain reference trainer and a toy tokenizer checked by hand."""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path

import pytest

from bpe_tui.__main__ import main
from core.analysis.lenses.budget import SEPARATOR, parallel_pair, training_mix
from core.formats import save_tokenizer
from core.model import BPEModel
from core.reference import encode as reference_encode
from core.reference import train as reference_train
from tests.cli.cli_cases import assert_one_line_error
from tests.core.encode.tokenizer_cases import gpt2_tokenizer, tiktoken_gpt2
from tests.data_paths import SAMPLES


def lens(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, str, str]:
    code = main(["lens", *map(str, args)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def lens_json(capsys: pytest.CaptureFixture[str], *args: str | Path) -> dict:
    code, out, err = lens(capsys, *args, "--json")
    assert (code, err) == (0, ""), err
    return json.loads(out)


def toy_file(folder: Path) -> Path:
    """The CS336 toy's tokenizer: merges o+w=256, l+ow=257, " "+low=258, e+r=259, " low"+er=260."""
    vocab, merges = reference_train("low low low lower lower newest", 256 + 5)
    return save_tokenizer(BPEModel(vocab, merges, name="toy"), folder / "toy.json", format="bpe-tui")[0]


def test_budget_json_equals_the_reference_trainer(capsys: pytest.CaptureFixture[str]) -> None:
    data = lens_json(capsys, "budget", "--merges", "32", "--mix", "100")
    english = (SAMPLES / "english.txt").read_text(encoding="utf-8")
    japanese = (SAMPLES / "japanese.txt").read_text(encoding="utf-8")
    pair = parallel_pair((SAMPLES / "parallel.txt").read_text(encoding="utf-8"))
    english_part, japanese_part = training_mix(english, japanese, 1.0)
    assert japanese_part == ""
    vocab, merges = reference_train(english_part + SEPARATOR, 256 + 1 + 32, [SEPARATOR])
    assert data["mix"] == 1.0
    assert data["merges"]["kana"] == data["merges"]["kanji"] == 0 and sum(data["merges"].values()) == 32
    assert data["tokens"] == {
        "en": len(reference_encode(pair[0], vocab, merges, [SEPARATOR])),
        "ja": len(reference_encode(pair[1], vocab, merges, [SEPARATOR])),
    }


def test_budget_text(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = lens(capsys, "budget", "--merges", "64", "--mix", "0")
    assert (code, err) == (0, "")
    assert out.startswith("0% English, 100% Japanese") and "64 of 64 merges made" in out
    assert "merges by script: latin 0," in out


def test_bytes_json_matches_tiktoken(capsys: pytest.CaptureFixture[str]) -> None:
    data = lens_json(capsys, "bytes")
    reference = tiktoken_gpt2()
    ids = reference.encode_ordinary(data["text"])
    assert [token["id"] for token in data["tokens"]] == ids
    tokens = reference.decode_tokens_bytes(ids)
    assert [bytes.fromhex(token["bytes"]) for token in data["tokens"]] == tokens
    whole = []
    for token in tokens:
        try:
            token.decode("utf-8")
            whole.append(True)
        except UnicodeDecodeError:
            whole.append(False)
    assert [token["bare"] for token in data["tokens"]] == [not w for w in whole]
    assert sum(script["tokens"] for script in data["scripts"].values()) == len(ids)
    assert sum(script["bytes"] for script in data["scripts"].values()) == len(data["text"].encode())


def test_bytes_text_marks_bare_tokens(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = lens(capsys, "bytes", "--text", "a日本")
    assert (code, err) == (0, "")
    reference = tiktoken_gpt2()
    tokens = reference.decode_tokens_bytes(reference.encode_ordinary("a日本"))
    rows = [line.split() for line in out.splitlines() if line.startswith("  ") and line.split()[0].isdigit()]
    assert [bytes.fromhex("".join(row[1:-2] if row[-1] == "bare" else row[1:-1])) for row in rows] == tokens
    bare = [row[-1] == "bare" for row in rows]
    assert bare[0] is False and any(bare)  # "a" is whole; GPT-2 splits 日 and 本 into pieces


def test_numbers_json_matches_tiktoken(capsys: pytest.CaptureFixture[str]) -> None:
    data = lens_json(capsys, "numbers", "--numbers", "1234567")
    reference = tiktoken_gpt2()
    single = [n for n in range(1000) if len(reference.encode_ordinary(str(n))) == 1]
    assert data["single_token"] == single and data["count"] == len(single)
    assert data["examples"][0]["groups"] == {"digits": list("1234567"), "triples": ["123", "456", "7"]}


def test_numbers_text_grid(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = lens(capsys, "numbers")
    assert (code, err) == (0, "")
    grid = [line for line in out.splitlines()[1:21]]
    assert sum(line.split(" ", 1)[1].strip().count("#") for line in grid) == int(out.split()[0])


def test_spelling_json_matches_tiktoken(capsys: pytest.CaptureFixture[str]) -> None:
    data = lens_json(capsys, "spelling", "--words", "strawberry cat", "--space")
    reference = tiktoken_gpt2()
    assert [row["ids"] for row in data["words"]] == [reference.encode_ordinary(" strawberry"), reference.encode_ordinary(" cat")]
    assert data["words"][0]["chars"] == list("strawberry")


def test_whitespace_json_matches_tiktoken(capsys: pytest.CaptureFixture[str]) -> None:
    data = lens_json(capsys, "whitespace", "--words", "hello world")
    reference = tiktoken_gpt2()
    texts = ["hello world", "hello world ", " hello world", "hello  world"]
    assert [row["text"] for row in data["variants"]] == texts
    assert [row["ids"] for row in data["variants"]] == [reference.encode_ordinary(text) for text in texts]


def test_whitespace_needs_two_words(capsys: pytest.CaptureFixture[str]) -> None:
    assert_one_line_error(lens(capsys, "whitespace", "--words", "hello"), "exactly two words")


def test_case_json_matches_tiktoken(capsys: pytest.CaptureFixture[str]) -> None:
    data = lens_json(capsys, "case", "--word", "Paris")
    reference = tiktoken_gpt2()
    forms = [" paris", "paris", " Paris", "Paris"]
    assert data["variants"] == [
        {"text": form, "ids": reference.encode_ordinary(form), "tokens": [t.decode() for t in reference.decode_tokens_bytes(reference.encode_ordinary(form))],
         "count": len(reference.encode_ordinary(form))}
        for form in forms
    ]


def test_case_text(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = lens(capsys, "case", "--word", "hello")
    assert (code, err) == (0, "")
    assert '" hello"' in out and "[23748]" in out and "[15496]" in out


def test_embedding_json_by_hand(capsys: pytest.CaptureFixture[str]) -> None:
    data = lens_json(capsys, "embedding", "--vocab", "50257", "--d", "1600", "--layers", "48")
    assert {key: data[key] for key in ("vocab", "d", "layers", "embedding", "blocks")} == {
        "vocab": 50257, "d": 1600, "layers": 48, "embedding": 50257 * 1600, "blocks": 12 * 48 * 1600 * 1600,
    }
    assert round(100 * data["share"], 1) == 5.2


def test_embedding_defaults_to_the_tokenizers_vocabulary(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    data = lens_json(capsys, "embedding", toy_file(tmp_path))
    assert (data["vocab"], data["d"], data["layers"]) == (261, 768, 12)
    code, out, err = lens(capsys, "embedding")
    assert "31.2%" in out and "xl" in out


def test_delete_merge_json_on_the_toy_by_hand(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    data = lens_json(capsys, "delete-merge", toy_file(tmp_path), "--rank", "2", "--text", "lower low lower")
    assert data["rank"] == 2
    assert data["ids_before"] == [257, 259, 258, 260]
    # Without " "+"low": "er" 259 -> 258, " low" splits into " " + "low", " lower" into " " + "low" + "er".
    assert data["ids_after"] == [257, 258, 32, 257, 32, 257, 258]
    assert data["changed_tokens"] == 2


def test_delete_merge_text_says_nothing_failed(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, err = lens(capsys, "delete-merge", toy_file(tmp_path), "--rank", "3", "--text", "lower")
    assert (code, err) == (0, "")
    assert out.startswith('merge 3 deleted: "e" + "r" -> "er", id 259')
    assert "no error was raised" in out


def test_delete_merge_rank_out_of_range_is_one_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert_one_line_error(lens(capsys, "delete-merge", toy_file(tmp_path), "--rank", "5"), "--rank", "0..4")


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (("numbers", "--numbers", "abc"), "whole numbers separated by spaces"),
        pytest.param(("numbers", "--numbers", "1" * 5000), "at most 1000 digits each", id="numbers-5000-digits"),
        (("case", "--word", ""), "one word without spaces"),
        (("spelling", "--words", ""), "at least one word"),
        (("embedding", "--d", "0"), "--d 0 is outside 64..16384"),
        (("budget", "--mix", "101"), "--mix 101 is outside 0..100"),
        (("budget", "--merges", "8"), "--merges 8 is outside 32..4096"),
        (("bytes", "--text", ""), "non-empty text"),
    ],
)
def test_bad_options_are_one_line(capsys: pytest.CaptureFixture[str], tmp_path: Path, args: tuple[str, ...], needle: str) -> None:
    assert_one_line_error(lens(capsys, args[0], toy_file(tmp_path), *args[1:]), needle)


def test_delete_merges_default_rank_is_the_earliest_merge_the_given_text_uses(capsys: pytest.CaptureFixture[str]) -> None:
    # It was the earliest merge of the lens's own sentence (" the"), which "hello world" never uses.
    data = lens_json(capsys, "delete-merge", "--text", "hello world")
    made = [left + right for left, right in gpt2_tokenizer().model.merges]
    assert data["rank"] == min(made.index(token) for token in (b"hello", b" world")) == made.index(b" world")
    assert data["changed_tokens"] == 1 and data["tokens_after"] == ["hello", " wor", "ld"]


def test_numbers_split_as_written_leading_zeros_kept(capsys: pytest.CaptureFixture[str]) -> None:
    # "007" was read as 7 and shown split as "7": a tokenizer sees other bytes.
    data = lens_json(capsys, "numbers", "--numbers", "007 0420")
    reference = tiktoken_gpt2()
    assert [(e["number"], e["written"], e["ids"]) for e in data["examples"]] == [
        (7, "007", reference.encode("007")), (420, "0420", reference.encode("0420"))]
    assert data["examples"][1]["groups"] == {"digits": ["0", "4", "2", "0"], "triples": ["042", "0"]}
    code, out, _ = lens(capsys, "numbers", "--numbers", "007")
    assert "      007  " in out


NASTY_WORD = "a\x1b[2J\u202eb\u009b31m"
"""A word holding an escape sequence (clear screen), a right-to-left override and a C1 control."""


@pytest.mark.parametrize("args", [
    ("slider", "--text"), ("fragments", "--text"), ("longest-match", "--text"), ("bytes", "--text"),
    ("delete-merge", "--text"), ("replay", "--word"), ("unigram", "--word"), ("case", "--word"),
    ("spelling", "--words"), ("whitespace", "--words"),
])
def test_a_text_with_terminal_controls_is_shown_escaped(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                        args: tuple[str, str]) -> None:
    # The spelling lens printed each word as typed: the escape sequence cleared the terminal.
    value = NASTY_WORD + " b" if args[0] == "whitespace" else NASTY_WORD
    code, out, err = lens(capsys, args[0], toy_file(tmp_path), args[1], value)
    assert (code, err) == (0, "")
    assert [ch for ch in out if ch != "\n" and unicodedata.category(ch) in ("Cc", "Cf")] == []


def test_case_of_a_word_without_capitals_says_two_forms(capsys: pytest.CaptureFixture[str]) -> None:
    # "four forms" was claimed where " Word" is " word" and "Word" is "word": two rows were the same.
    code, out, err = lens(capsys, "case", "--word", "日本")
    ids = {i for text in (" 日本", "日本") for i in tiktoken_gpt2().encode(text)}
    assert out.splitlines()[0] == f"'日本': 2 forms (it has no capital letter), {len(ids)} different ids between them"
    code, out, err = lens(capsys, "case", "--word", "hello")
    assert out.splitlines()[0].startswith("'hello': four forms, ")
