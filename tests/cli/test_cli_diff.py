"""``bpe-tui diff``: the report and ``--json`` for a bpe-tui file against one trained by HF tokenizers, and
one-line errors for bad input."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from tests.cli.cli_cases import assert_one_line_error, run_cli
from tests.core.analysis.test_diff import CORPUS, hf_trained, ours_trained

from bpe_tui.__main__ import main
from core import reference
from core.analysis.study import prefix_model
from core.formats import save_tokenizer
from core.train.run import TrainingRun
from core.formats.byte_alphabet import decode_bytes


def diff(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, str, str]:
    code = main(["diff", *map(str, args)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("diff")
    ours = save_tokenizer(ours_trained(CORPUS, 500), folder / "ours.json", format="bpe-tui")[0]
    return ours, hf_trained(CORPUS, 500, folder)


def test_json_names_the_first_divergence_and_its_tie(
    files: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    ours, hf = files
    code, out, err = diff(capsys, ours, hf, "--corpus", CORPUS, "--json")
    assert (code, err) == (0, "")
    data = json.loads(out)
    merges_ours = [tuple(decode_bytes(part) for part in entry[:2]) for entry in json.loads(ours.read_text())["merges"]]
    merges_hf = [
        tuple(map(decode_bytes, m.split(" ") if isinstance(m, str) else m))
        for m in json.loads(hf.read_text())["model"]["merges"]
    ]
    rank = data["shared_prefix"]
    assert merges_ours[:rank] == merges_hf[:rank] and merges_ours[rank] != merges_hf[rank]
    divergence = data["first_divergence"]
    assert divergence["rank"] == rank
    assert tuple(map(decode_bytes, divergence["a"])) == merges_ours[rank]
    assert tuple(map(decode_bytes, divergence["b"])) == merges_hf[rank]
    words = reference.count_words(CORPUS.read_text(encoding="utf-8"))
    for pair in merges_ours[:rank]:
        words = reference.merge_words(words, pair)
    pairs = reference.count_pairs(words)
    assert divergence["tie"] is (pairs[merges_ours[rank]] == pairs[merges_hf[rank]]) is True
    vocab_ours = set(map(decode_bytes, json.loads(ours.read_text())["vocab"].values()))
    vocab_hf = set(map(decode_bytes, json.loads(hf.read_text())["model"]["vocab"]))
    assert data["overlap"] == {
        "both": len(vocab_ours & vocab_hf), "only_a": len(vocab_ours - vocab_hf), "only_b": len(vocab_hf - vocab_ours)
    }


def test_text_report(files: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    ours, hf = files
    code, out, err = diff(capsys, ours, hf, "--text", "The keeper climbed the stairs.")
    assert (code, err) == (0, "")
    assert "first divergence: merge" in out and "a tie (from A's recorded runner-up count)" in out
    assert "text:            A " in out


@pytest.mark.parametrize("which", ["corpus", "tokenizer"])
def test_missing_input_is_one_line(files: tuple[Path, Path], tmp_path: Path, which: str) -> None:
    ours, hf = files
    missing = tmp_path / "nope.txt"
    args = [ours, hf, "--corpus", missing] if which == "corpus" else [ours, missing]
    result = run_cli("diff", *args, cwd=tmp_path)
    assert_one_line_error(result, "bpe-tui diff: error:", "nope.txt")


@pytest.mark.parametrize("with_corpus", [False, True])
def test_a_smaller_vocabulary_of_the_same_run_is_said_to_end_not_to_tie(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], with_corpus: bool
) -> None:
    # Vocab 300 is vocab 400's first merges: there was no choice between two pairs. The report said "tie
    # unknown" and sent the user to --corpus, which then said "tie unknown" again.
    model = ours_trained(CORPUS, 400)
    small = save_tokenizer(prefix_model(model, 300), tmp_path / "small.json", format="bpe-tui")[0]
    large = save_tokenizer(model, tmp_path / "large.json", format="bpe-tui")[0]
    extra = ["--corpus", CORPUS] if with_corpus else []
    code, out, err = diff(capsys, small, large, *extra)
    assert (code, err) == (0, "")
    assert "tie" not in out.replace("one list ends", "")
    assert "one list ends: A has no more merges; its 44 are B's first 44" in out  # 300 - 256 merges
    code, out, err = diff(capsys, large, small, *extra)
    assert "B has no more merges; its 44 are A's first 44" in out and "tie" not in out
    assert json.loads(diff(capsys, large, small, "--json", *extra)[1])["first_divergence"]["tie"] is None
    bytes_only = save_tokenizer(prefix_model(model, 256), tmp_path / "bytes.json", format="bpe-tui")[0]
    assert "one list ends: B has no merges at all" in diff(capsys, large, bytes_only, *extra)[1]


def test_corpus_of_shards_is_recounted_by_its_records_not_as_json_text(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A tokenizer trained on JSON-lines shards is recounted on them: the file was read as plain text, so the
    # JSON around each record ({"text": ..., escapes) was counted with it, and the counts were silently off.
    documents = CORPUS.read_text(encoding="utf-8").split("<|endoftext|>")
    shards = tmp_path / "shards"
    shards.mkdir()
    for index in range(2):
        lines = [json.dumps({"id": n, "body": text}) + "\n" for n, text in enumerate(documents) if n % 2 == index]
        (shards / f"part-{index}.jsonl").write_text("".join(lines), encoding="utf-8")
    run = TrainingRun(shards, 400, ["<|endoftext|>"], workers=1, text_field="body")
    for _ in run.events():
        pass
    ours = save_tokenizer(run.result(), tmp_path / "ours.json", format="bpe-tui")[0]
    hf = hf_trained(CORPUS, 400, tmp_path)
    code, out, err = diff(capsys, ours, hf, "--corpus", shards, "--text-field", "body", "--json")
    assert (code, err) == (0, "")
    from_shards = json.loads(out)["first_divergence"]
    code, out, err = diff(capsys, ours, hf, "--corpus", CORPUS, "--json")
    assert from_shards == json.loads(out)["first_divergence"]  # the same documents, joined in a text file
    assert from_shards["count_a"] == run.result().merge_count(from_shards["rank"])
    code, out, err = diff(capsys, ours, hf, "--corpus", shards / "part-0.jsonl", "--text-field", "nope")
    assert code != 0 and "nope" in err and out == ""


def test_equal_merges_with_another_pattern_are_explained(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # The same merges under another split pattern encode "Hello there" otherwise; the report said the merge lists
    # and vocabularies were equal and nothing else, leaving the different split unexplained.
    model = ours_trained(CORPUS, 400)
    one_char = dataclasses.replace(model, pattern=r"(?s).")  # every character a pre-token: no merge applies
    a = save_tokenizer(model, tmp_path / "a.json", format="bpe-tui")[0]
    b = save_tokenizer(one_char, tmp_path / "b.json", format="bpe-tui")[0]
    code, out, err = diff(capsys, a, b, "--text", "Hello there")
    assert (code, err) == (0, "")
    assert "first divergence: none" in out and "the same tokens" not in out
    assert "settings:        differ in pattern (how text splits into pre-tokens)" in out
    assert json.loads(diff(capsys, a, b, "--json")[1])["other_settings"] == ["pattern"]
    code, out, err = diff(capsys, a, a)
    assert "settings:" not in out and json.loads(diff(capsys, a, a, "--json")[1])["other_settings"] == []


def test_equal_merges_with_a_normalizer_are_explained(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Qwen2's NFC makes "cafe" + U+0301 "café" before splitting: the same merges without it encode otherwise, and
    # the report said only that merges and vocabularies were equal.
    model = ours_trained(CORPUS, 400)
    a = save_tokenizer(model, tmp_path / "a.json", format="bpe-tui")[0]
    b = save_tokenizer(dataclasses.replace(model, normalizer="NFC"), tmp_path / "b.json", format="hf")[0]
    code, out, err = diff(capsys, a, b, "--text", "cafe\u0301")
    assert (code, err) == (0, "") and "the same tokens" not in out
    assert "settings:        differ in normalizer (the Unicode form the text is put in first)" in out


def test_a_vocabulary_one_token_apart_is_not_called_identical(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A rank file holds no special tokens: against its bpe-tui file it lacks one token of 400, and the
    # Jaccard index 0.9975 was printed "1.00", which reads as "the same vocabulary".
    model = ours_trained(CORPUS, 400)
    ours = save_tokenizer(model, tmp_path / "ours.json", format="bpe-tui")[0]
    with_special = dataclasses.replace(model, vocab={**model.vocab, 400: b"<|x|>"}, special_tokens=["<|x|>"])
    special = save_tokenizer(with_special, tmp_path / "special.json", format="bpe-tui")[0]
    code, out, err = diff(capsys, special, ours)
    assert "both 400  only A 1  only B 0  (jaccard >0.99)" in out
    assert "(jaccard 1.00)" in diff(capsys, ours, ours)[1]


def test_a_lone_gpt2_vocab_gets_advice_the_command_can_follow(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # "pass it with --merges" was said by diff (no such option), lens (its --merges is a count) and the app.
    import argparse
    import shutil

    from bpe_tui.cli import MERGES_OPTION, build_parser
    from tests.data_paths import GPT2_MERGES, GPT2_VOCAB

    [sub] = [a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)]
    takes_path = {name for name, parser in sub.choices.items() for action in parser._actions
                  if "--merges" in action.option_strings and action.metavar == "PATH"}
    assert takes_path == MERGES_OPTION
    vocab = tmp_path / "vocab.json"
    shutil.copyfile(GPT2_VOCAB, vocab)
    text = tmp_path / "t.txt"
    text.write_text("hi\n", encoding="utf-8")
    problem = f"{vocab}: a GPT-2 vocab.json needs its merges file, not found at {tmp_path / 'merges.txt'}"
    for args in (["diff", vocab, vocab], ["lens", "slider", vocab]):
        assert main([*map(str, args)]) == 2
        assert capsys.readouterr().err == f"bpe-tui {args[0]}: error: {problem}; put it there\n"
    assert main(["encode", str(vocab), str(text)]) == 2
    assert capsys.readouterr().err == f"bpe-tui encode: error: {problem}; pass it with --merges, or put it there\n"
    shutil.copyfile(GPT2_MERGES, tmp_path / "merges.txt")  # as told
    assert main(["diff", str(vocab), str(vocab)]) == 0
