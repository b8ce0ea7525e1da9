"""``bpe-tui verify``: 0 when the ids belong to the tokenizer, 1 and one line when not, 2 when it cannot check."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.cli.cli_cases import TEXT, small_model, tokenizer_file
from tests.core.export.test_verify import without_last_merge

from bpe_tui.__main__ import main
from core.formats import save_tokenizer

ROOT = Path(__file__).resolve().parents[2]
GPT2 = ROOT / "samples" / "gpt2" / "vocab.json"


@pytest.fixture
def exported(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    corpus = tmp_path / "corpus.txt"
    corpus.write_text(TEXT * 4, encoding="utf-8", newline="")
    assert main(["export", str(corpus), str(tokenizer_file(tmp_path)), "-o", str(tmp_path / "ids.npy")]) == 0
    capsys.readouterr()
    return tmp_path


def verify(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, str, str]:
    code = main(["verify", *map(str, args)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _one_line(err: str, *needles: str) -> None:
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("bpe-tui verify: error: "), err
    assert "Traceback" not in err
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])


def test_ids_that_belong_pass(exported: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = verify(capsys, exported / "ids.npy", exported / "tok.json", "--corpus", exported / "corpus.txt")
    assert (code, err) == (0, "")
    assert out.startswith("ok: ") and "made by text-330" in out and "back byte for byte" in out


@pytest.mark.parametrize("other", ["gpt2", "one merge fewer"])
def test_a_mismatch_is_one_line_and_status_1(exported: Path, capsys: pytest.CaptureFixture[str], other: str) -> None:
    if other == "gpt2":
        tokenizer = GPT2
    else:
        tokenizer = save_tokenizer(without_last_merge(small_model()), exported / "fewer.json", format="bpe-tui")[0]
    code, out, err = verify(capsys, exported / "ids.npy", tokenizer)
    assert (code, out) == (1, "")
    _one_line(err, "was made by another tokenizer")


def test_a_truncated_array_is_status_1(exported: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ids = exported / "ids.npy"
    ids.write_bytes(ids.read_bytes()[:-3])
    code, _, err = verify(capsys, ids, exported / "tok.json")
    assert code == 1
    _one_line(err, "is cut short")


@pytest.mark.parametrize(("content", "needle"), [
    (None, "has no sidecar (ids.npy.json is missing)"),
    (b"garbage", "is not JSON"),
    ("tokens", "holds"),
])
def test_a_missing_garbage_or_edited_sidecar_is_status_1(
    exported: Path, capsys: pytest.CaptureFixture[str], content: bytes | str | None, needle: str,
) -> None:
    sidecar = exported / "ids.npy.json"
    if content is None:
        sidecar.unlink()
    elif content == "tokens":
        raw = json.loads(sidecar.read_text(encoding="utf-8"))
        sidecar.write_text(json.dumps(raw | {"tokens": raw["tokens"] + 1}), encoding="utf-8")
    else:
        sidecar.write_bytes(content)  # type: ignore[arg-type]
    code, _, err = verify(capsys, exported / "ids.npy", exported / "tok.json")
    assert code == 1
    _one_line(err, needle)


def test_what_cannot_be_checked_is_status_2(exported: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = verify(capsys, exported / "absent.npy", exported / "tok.json")
    assert code == 2 and "absent.npy" in err and err.count("\n") == 1
    code, _, err = verify(capsys, exported / "ids.npy", exported / "tok.json", "--corpus", exported / "absent.txt")
    assert code == 2 and "absent.txt" in err and err.count("\n") == 1


@pytest.mark.parametrize("option", [("--text-field", "body"), ("--skip-bad-records",)])
def test_shard_options_without_a_corpus_are_refused(exported: Path, capsys: pytest.CaptureFixture[str],
                                                    option: tuple[str, ...]) -> None:
    # They say how to read --corpus; without it they were ignored and verify printed ok as if it had read by them.
    code, out, err = verify(capsys, exported / "ids.npy", exported / "tok.json", *option)
    assert (code, out) == (2, "")
    _one_line(err, "--text-field and --skip-bad-records say how to read --corpus; add --corpus CORPUS or drop them")


def test_ids_of_a_normalizing_tokenizer_say_the_corpus_comes_back_normalized(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A Qwen2-style tokenizer (NFC) decodes e + U+0301 as é: the corpus does not come back byte for byte as it
    # is, and the ok line said it did.
    import dataclasses

    corpus = tmp_path / "corpus.txt"
    corpus.write_text("cafe\u0301 か\u3099 " * 50, encoding="utf-8", newline="")
    tokenizer = save_tokenizer(dataclasses.replace(small_model(), normalizer="NFC"), tmp_path / "nfc.json",
                               format="hf")[0]
    assert main(["export", str(corpus), str(tokenizer), "-o", str(tmp_path / "ids.npy")]) == 0
    capsys.readouterr()
    code, out, err = verify(capsys, tmp_path / "ids.npy", tokenizer, "--corpus", corpus)
    assert (code, err) == (0, "")
    assert out.rstrip().endswith(f"decoding them gives {corpus} back in NFC byte for byte")
