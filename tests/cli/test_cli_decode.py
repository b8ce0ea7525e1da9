"""``bpe-tui decode``: ids (a .npy or text) back to tiktoken's text and bytes; bad ids, outputs and sidecars."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import numpy as np
import pytest
from tests.cli.cli_cases import TEXT, assert_one_line_error, run_cli, tokenizer_file
from tests.core.encode.tokenizer_cases import tiktoken_gpt2

from bpe_tui.__main__ import main
from bpe_tui.cli.decode import text_ids

ROOT = Path(__file__).resolve().parents[2]
GPT2 = ROOT / "samples" / "gpt2" / "vocab.json"
SAMPLE = "Hello, world! 日本語のテキスト 🦙\n\tindented code\r\n<|endoftext|>the end"


def run_main(capsys: pytest.CaptureFixture[bytes], *args: str | Path) -> tuple[int, bytes, str]:
    code = main(["decode", *map(str, args)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err.decode("utf-8")


def test_text_ids_decode_as_tiktoken_does(tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    reference = tiktoken_gpt2()
    ids = reference.encode(SAMPLE, allowed_special="all")
    spaced = tmp_path / "spaced.txt"
    spaced.write_text(" ".join(map(str, ids)) + "\n", encoding="utf-8")
    commas = tmp_path / "commas.txt"
    commas.write_text(",\n".join(map(str, ids)), encoding="utf-8")
    for source in (spaced, commas):
        code, out, err = run_main(capsysbinary, GPT2, source)
        assert (code, err) == (0, "")
        assert out == reference.decode(ids).encode("utf-8") == SAMPLE.encode("utf-8")


def test_a_list_of_ids_as_python_prints_it_or_json_holds_it_decodes(
    tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes],
) -> None:
    # print(tokenizer.encode(text)) gives "[15496, 11, ...]": it failed at '[15496' as 'not a token id'.
    ids = tiktoken_gpt2().encode(SAMPLE, allowed_special="all")
    for name, text in (("printed.txt", str(ids)), ("ids.json", json.dumps(ids))):
        (tmp_path / name).write_text(text, encoding="utf-8")
        code, out, err = run_main(capsysbinary, GPT2, tmp_path / name)
        assert (code, out, err) == (0, SAMPLE.encode("utf-8"), "")


def test_a_split_character_becomes_a_replacement_and_bytes_stay_exact(
    tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes],
) -> None:
    reference = tiktoken_gpt2()
    llama = reference.encode("🦙")  # four bytes over several tokens
    assert len(llama) > 1
    cut = llama[:-1] + reference.encode(" ok")
    ids = tmp_path / "ids.txt"
    ids.write_text(" ".join(map(str, cut)), encoding="utf-8")
    code, out, _ = run_main(capsysbinary, GPT2, ids)
    assert code == 0 and out == reference.decode(cut, errors="replace").encode("utf-8")
    assert "\ufffd".encode() in out
    code, out, _ = run_main(capsysbinary, GPT2, ids, "--bytes")
    assert code == 0 and out == reference.decode_bytes(cut)


def test_an_exported_array_decodes_to_its_corpus(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus.txt"
    corpus.write_text(TEXT * 20, encoding="utf-8", newline="")
    tok = tokenizer_file(tmp_path)
    assert run_cli("export", corpus, tok, "-o", tmp_path / "ids.npy", cwd=tmp_path).returncode == 0
    result = run_cli("decode", tok, tmp_path / "ids.npy", "-o", tmp_path / "back.txt", cwd=tmp_path)
    assert (result.returncode, result.stderr) == (0, "")
    assert (tmp_path / "back.txt").read_bytes() == corpus.read_bytes()
    # The ids from stdin, as encode prints them.
    ids = " ".join(map(str, np.load(tmp_path / "ids.npy").tolist()))
    result = run_cli("decode", tok, "-", cwd=tmp_path, stdin=ids)
    assert result.returncode == 0 and result.stdout == corpus.read_text(encoding="utf-8").replace("\r\n", "\n")


def test_an_array_numpy_saved_decodes_too(tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    reference = tiktoken_gpt2()
    np.save(tmp_path / "ids.npy", np.array(reference.encode("numpy saved these"), dtype=np.int64))
    code, out, err = run_main(capsysbinary, GPT2, tmp_path / "ids.npy")
    assert (code, out, err) == (0, b"numpy saved these", "")


def _small_ids(tmp_path: Path) -> tuple[Path, list[int]]:
    """The small tokenizer's file and its ids of ``TEXT`` (GPT-2's 50,257 tokens take long to load)."""
    from core.encode.tokenizer import Tokenizer
    from tests.cli.cli_cases import small_model

    model = small_model()
    return tokenizer_file(tmp_path), Tokenizer(model.vocab, model.merges, model.special_tokens).encode(TEXT)


def test_raw_ids_decode_with_their_dtype(tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    """nanoGPT's ``train.bin`` (``ids.astype(np.uint16).tofile(...)``, read back with ``np.memmap``) has no
    header: it was "not text ids (not UTF-8)", with no way to say what it holds. ``--dtype`` says it."""
    tok, ids = _small_ids(tmp_path)
    for dtype in ("uint16", "uint32", "int32", "int64"):
        raw = tmp_path / f"train-{dtype}.bin"
        np.array(ids, dtype=dtype).tofile(raw)
        code, out, err = run_main(capsysbinary, tok, raw, "--dtype", dtype)
        assert (code, out, err) == (0, TEXT.encode("utf-8"), "")
    code, out, err = run_main(capsysbinary, tok, tmp_path / "train-uint16.bin")
    assert code == 2 and err.rstrip().endswith("or for raw ids (nanoGPT's train.bin) their type: --dtype uint16")
    np.array(ids[:3], dtype="uint16").tofile(tmp_path / "three.bin")
    code, _, err = run_main(capsysbinary, tok, tmp_path / "three.bin", "--dtype", "int64")
    assert code == 2 and "three.bin holds 6 bytes, not a whole number of 8-byte int64 ids; check --dtype" in err
    np.array(ids[:4], dtype="uint16").tofile(tmp_path / "four.bin")
    code, _, err = run_main(capsysbinary, tok, tmp_path / "four.bin", "--dtype", "uint32")
    assert code == 2 and "four.bin (read as raw uint32): id " in err and "is not in the vocabulary" in err
    np.save(tmp_path / "ids.npy", np.array(ids, dtype=np.uint16))
    code, _, err = run_main(capsysbinary, tok, tmp_path / "ids.npy", "--dtype", "uint16")
    assert code == 2 and "ids.npy is a .npy array, which says its own id type; leave out --dtype" in err


def _llmc_file(path: Path, ids: list[int], version: int, count: int | None = None) -> Path:
    """A token file as llm.c's data scripts write it: 256 int32s (magic, version, count), then the ids."""
    header = np.zeros(256, dtype=np.int32)
    header[:3] = (20240520, version, len(ids) if count is None else count)
    path.write_bytes(header.tobytes() + np.array(ids, dtype=np.uint16 if version == 1 else np.uint32).tobytes())
    return path


def test_an_llmc_token_file_decodes_by_its_header(tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    tok, ids = _small_ids(tmp_path)
    for version in (1, 2):
        code, out, err = run_main(capsysbinary, tok, _llmc_file(tmp_path / f"v{version}.bin", ids, version))
        assert (code, out, err) == (0, TEXT.encode("utf-8"), "")
    code, _, err = run_main(capsysbinary, tok, _llmc_file(tmp_path / "cut.bin", ids, 1, count=len(ids) + 5))
    assert code == 2 and f"cut.bin is cut short: its header says {len(ids) + 5:,} ids but it holds {len(ids):,}" in err
    code, _, err = run_main(capsysbinary, tok, _llmc_file(tmp_path / "v7.bin", ids, 7))
    assert code == 2 and "llm.c token file version 7 is not known (1: uint16 ids, 2: uint32)" in err
    code, _, err = run_main(capsysbinary, tok, tmp_path / "v1.bin", "--dtype", "uint16")
    assert code == 2 and "v1.bin is an llm.c token file, which says its own id type; leave out --dtype" in err


@pytest.mark.parametrize(("ids", "needles"), [
    ("15496 99999 11", ("id 99,999 at position 1 is not in the vocabulary", "(ids 0..50,256)")),
    ("15496, -3", ("'-3' at position 1 is not a token id",)),
    ("1 2 3.5", ("'3.5' at position 2 is not a token id",)),
])
def test_a_bad_id_is_one_line_naming_it_and_its_position(tmp_path: Path, ids: str, needles: tuple[str, ...]) -> None:
    result = run_cli("decode", GPT2, "-o", tmp_path / "out.txt", cwd=tmp_path, stdin=ids)
    assert_one_line_error(result, "bpe-tui decode: error: stdin", *needles)
    assert not (tmp_path / "out.txt").exists() and [p.name for p in tmp_path.iterdir()] == []


def test_outputs_follow_the_rules(tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    ids = tmp_path / "ids.txt"
    ids.write_text("15496", encoding="utf-8")
    out = tmp_path / "out.txt"
    out.write_text("old", encoding="utf-8")
    code, _, err = run_main(capsysbinary, GPT2, ids, "-o", out)
    assert code == 2 and "already exists; add --force to overwrite it" in err and out.read_text() == "old"
    code, _, err = run_main(capsysbinary, GPT2, ids, "-o", out, "--force")
    assert (code, err, out.read_text()) == (0, "", "Hello")
    code, _, err = run_main(capsysbinary, GPT2, ids, "-o", ids, "--force")
    assert code == 2 and "is the id file" in err and ids.read_text() == "15496"


def test_a_file_of_something_else_is_one_line(tmp_path: Path) -> None:
    binary = tmp_path / "image.png"
    binary.write_bytes(b"\x89PNG\r\n\x1a\n\xff\xfe")
    assert_one_line_error(run_cli("decode", GPT2, binary, cwd=tmp_path), "image.png is not text ids (not UTF-8)")
    matrix = tmp_path / "matrix.npy"
    np.save(matrix, np.zeros((2, 2), dtype=np.uint16))
    assert_one_line_error(run_cli("decode", GPT2, matrix, cwd=tmp_path), "shape (2, 2), not a 1-D list of ids")


def _export(tmp_path: Path) -> Path:
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("The cat sat on the mat.", encoding="utf-8")
    assert run_cli("export", corpus, tokenizer_file(tmp_path), "-o", tmp_path / "ids.npy", cwd=tmp_path).returncode == 0
    return tmp_path / "ids.npy"


def test_a_sidecar_naming_another_tokenizer_gets_one_warning(tmp_path: Path) -> None:
    ids = _export(tmp_path)
    result = run_cli("decode", tokenizer_file(tmp_path), ids, cwd=tmp_path)  # the tokenizer that made them
    assert (result.returncode, result.stderr, result.stdout) == (0, "", "The cat sat on the mat.")
    result = run_cli("decode", GPT2, ids, cwd=tmp_path)
    assert result.returncode == 0
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("bpe-tui decode: warning: ")
    assert "ids.npy.json says these ids were made by 'text-330'" in lines[0]
    assert lines[0].endswith("the text will be wrong")


def test_an_edited_or_garbage_sidecar_is_a_warning_not_a_traceback(tmp_path: Path) -> None:
    ids = _export(tmp_path)
    sidecar = tmp_path / "ids.npy.json"
    raw = json.loads(sidecar.read_text(encoding="utf-8"))
    sidecar.write_text(json.dumps(raw | {"tokens": "x"}), encoding="utf-8")
    result = run_cli("decode", tokenizer_file(tmp_path), ids, cwd=tmp_path)
    assert result.returncode == 0 and result.stdout == "The cat sat on the mat."
    assert result.stderr.count("\n") == 1 and "was edited: its tokens ('x') is not a whole number" in result.stderr
    sidecar.write_bytes(b"\x00garbage")
    result = run_cli("decode", tokenizer_file(tmp_path), ids, cwd=tmp_path)
    assert result.returncode == 0 and result.stderr.count("\n") == 1 and "is not JSON" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_character_split_between_two_blocks_decodes_whole(
    tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes],
) -> None:
    # Ids 0-255 are the bytes themselves in a trained tokenizer; blocks are written 65,536 tokens at a time,
    # so "あ" (e3 81 82) starts in the first block and ends in the second.
    ids = [ord("a")] * 65_535 + list("あ".encode("utf-8"))
    source = tmp_path / "ids.txt"
    source.write_text(" ".join(map(str, ids)), encoding="utf-8")
    code, out, _ = run_main(capsysbinary, tokenizer_file(tmp_path), source)
    assert code == 0 and out.decode("utf-8") == "a" * 65_535 + "あ"


def test_on_a_terminal_control_characters_are_escaped_and_raw_bytes_refused(
    tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes], monkeypatch: pytest.MonkeyPatch,
) -> None:
    import sys

    source = tmp_path / "ids.txt"
    source.write_text(" ".join(str(b) for b in b"\x1b[2Jok\n\tnext"), encoding="utf-8")
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    code, out, _ = run_main(capsysbinary, tokenizer_file(tmp_path), source)
    assert code == 0 and b"\x1b" not in out and out.endswith(b"ok\n\tnext") and out.startswith(b"\\x1b")
    code, out, err = run_main(capsysbinary, tokenizer_file(tmp_path), source, "--bytes")
    assert code == 2 and out == b"" and "--bytes writes raw bytes, which a terminal cannot show" in err


class _Terminal(io.RawIOBase):
    """Stands for stdin at a terminal: what was typed, then the end of input that one Ctrl-D gives; a read
    after that would wait for more typing."""

    def __init__(self, typed: bytes) -> None:
        self.reads = [typed, b""]

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:  # type: ignore[no-untyped-def]
        assert self.reads, "read again after Ctrl-D: it would wait for a second one"
        data = self.reads.pop(0)
        buffer[: len(data)] = data
        return len(data)


def test_ids_typed_at_a_terminal_end_at_one_ctrl_d() -> None:
    assert list(text_ids(io.BufferedReader(_Terminal(b"258 287\n")), "stdin")) == [258, 287]


@pytest.mark.parametrize("dtype", [[], ["--dtype", "uint16"]], ids=["told by content", "--dtype"])
def test_an_npz_archive_is_named_as_one(tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes],
                                        dtype: list[str]) -> None:
    """It was 'not text ids' with a hint to give --dtype uint16, which decoded the archive's bytes as ids."""
    archive = tmp_path / "ids.npz"
    np.savez(archive, ids=np.array([104, 105], dtype=np.uint16))
    code, out, err = run_main(capsysbinary, tokenizer_file(tmp_path), archive, *dtype)
    assert_one_line_error((code, out.decode(), err), "ids.npz is a zip archive", "numpy.save (.npy)")


class _Producer(io.RawIOBase):
    """Stands for a pipe from a program still writing ids (a model sampling them): the first ids, then, at
    the next read, a look at what decode has written so far, then the end."""

    def __init__(self, out: io.BytesIO) -> None:
        self.out, self.reads, self.seen = out, [b"104 105 ", None, b""], []

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:  # type: ignore[no-untyped-def]
        data = self.reads.pop(0)
        if data is None:
            self.seen.append(self.out.getvalue())
            data = b"33"
        buffer[: len(data)] = data
        return len(data)


def test_ids_piped_in_are_decoded_as_they_arrive(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Nothing was written before 65,536 ids or the end of the input had come: `sampler | bpe-tui decode`
    showed the text only once the sampler had finished."""
    out = io.BytesIO()
    producer = _Producer(out)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BufferedReader(producer)))
    monkeypatch.setattr(sys, "stdout", io.TextIOWrapper(out, write_through=True))
    assert main(["decode", str(tokenizer_file(tmp_path)), "-"]) == 0
    assert producer.seen == [b"hi"] and out.getvalue() == b"hi!"


def test_ids_given_for_file_and_a_terminal_for_stdin_say_what_to_do(
    capsysbinary: pytest.CaptureFixture[bytes], monkeypatch: pytest.MonkeyPatch
) -> None:
    # 'bpe-tui decode tok.json 15496' said only '15496: no such file; check the path'; with no FILE at a terminal,
    # decode waited for ids without a word.
    code, out, err = run_main(capsysbinary, GPT2, "15496")
    assert code == 2 and out == b"" and "15496: no such file" in err and "| bpe-tui decode TOKENIZER" in err

    class Terminal:
        buffer = io.BytesIO(b"15496 995")

        def isatty(self) -> bool:
            return True

    monkeypatch.setattr("sys.stdin", Terminal())
    code, out, err = run_main(capsysbinary, GPT2)
    assert (code, out) == (0, b"Hello world")
    assert err == "bpe-tui decode: reading ids from the terminal; end them with Ctrl-D, or give a FILE\n"
