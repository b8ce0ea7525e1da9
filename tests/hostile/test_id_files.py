"""Hostile ``.npy`` id files and sidecars for ``decode`` and ``verify``: one line naming the file, never a
traceback or a hang.

A structured array (``np.save`` of a record dtype: its header's ``descr`` is a list) and a header whose
dict has an unhashable key (``{[1]: 2, ...}``) both ended in ``TypeError: unhashable type``; a FIFO as
the sidecar hung both commands.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from bpe_tui.cli import run_command
from tests.hostile.hostile_cases import one_error_line, run_here, small_tokenizer


def _npy_with_header(path: Path, header: str, payload: bytes) -> Path:
    """A format 1.0 ``.npy`` file with ``header`` as its dict literal, padded as numpy pads it."""
    text = header.encode("latin-1")
    text += b" " * (63 - (10 + len(text)) % 64) + b"\n"
    path.write_bytes(b"\x93NUMPY\x01\x00" + len(text).to_bytes(2, "little") + text + payload)
    return path


def _structured(folder: Path) -> Path:
    path = folder / "records.npy"
    np.save(path, np.array([(1, 2), (3, 4)], dtype=[("a", "<u2"), ("b", "<u2")]))
    return path


def _unhashable_key(folder: Path) -> Path:
    header = "{[1]: 2, 'descr': '<u2', 'fortran_order': False, 'shape': (2,)}"
    return _npy_with_header(folder / "odd.npy", header, b"\x01\x00\x02\x00")


def _dict_descr(folder: Path) -> Path:
    header = "{'descr': {'a': 1}, 'fortran_order': False, 'shape': (2,)}"
    return _npy_with_header(folder / "dict.npy", header, b"\x01\x00\x02\x00")


FILES = {
    "structured dtype": (_structured, "not little-endian integers"),
    "unhashable header key": (_unhashable_key, "the .npy header is damaged"),
    "dict as descr": (_dict_descr, "not little-endian integers"),
}


@pytest.mark.parametrize("kind", list(FILES))
def test_decode_refuses_odd_npy_headers_in_one_line(
    kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    make, needle = FILES[kind]
    ids = make(tmp_path)
    code, out, err = run_here(capsys, "decode", small_tokenizer(tmp_path), ids)
    one_error_line(code, out, err, "decode", ids.name, needle)


@pytest.mark.parametrize("kind", list(FILES))
def test_verify_refuses_odd_npy_headers_in_one_line(
    kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    make, needle = FILES[kind]
    ids = make(tmp_path)
    code, out, err = run_here(capsys, "verify", ids, small_tokenizer(tmp_path))
    assert code == 1 and out == "" and "Traceback" not in err, (code, out, err)
    assert err.splitlines() == [err.rstrip("\n")] and err.startswith("bpe-tui verify: error: ")
    assert ids.name in err and needle in err


def _exported(folder: Path) -> Path:
    corpus = folder / "corpus.txt"
    corpus.write_text("low lower lowest newer newest\n" * 10)
    ids = folder / "ids.npy"
    assert run_command(["export", str(corpus), str(small_tokenizer(folder)), "-o", str(ids)]) == 0
    return ids


SIDECARS = {
    "a FIFO": (lambda path: os.mkfifo(path), "is a named pipe (FIFO)"),
    "/dev/zero": (lambda path: path.symlink_to("/dev/zero"), "is a character device"),
}


@pytest.mark.parametrize("kind", list(SIDECARS))
def test_a_sidecar_that_is_no_regular_file_is_named_not_waited_on(
    kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], deadline: None
) -> None:
    """A FIFO as ``IDS.npy.json`` blocked decode and verify for ever in the open of the sidecar."""
    ids = _exported(tmp_path)
    sidecar = tmp_path / "ids.npy.json"
    sidecar.unlink()
    make, needle = SIDECARS[kind]
    make(sidecar)
    capsys.readouterr()
    code, out, err = run_here(capsys, "verify", ids, tmp_path / "tok.json")
    assert code == 1 and out == "" and err.count("\n") == 1, (code, out, err)
    assert err.startswith("bpe-tui verify: error: ") and "ids.npy.json" in err and needle in err
    code, out, err = run_here(capsys, "decode", tmp_path / "tok.json", ids)
    assert code == 0 and out == "low lower lowest newer newest\n" * 10, (code, err)
    assert err.startswith("bpe-tui decode: warning: ") and needle in err and err.count("\n") == 1


@pytest.mark.parametrize("digits", [4_301, 3 * (1 << 20)], ids=["beyond int()'s limit", "a run over several blocks"])
def test_a_text_id_of_thousands_of_digits_is_one_line(
    digits: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """4,301 digits ended in ``ValueError: Exceeds the limit (4300 digits) for integer string conversion``;
    millions of digits were gathered block after block (30 s for 50 MB) before failing the same way."""
    ids = tmp_path / "ids.txt"
    ids.write_text("104 " + "1" * digits + " 105\n")
    code, out, err = run_here(capsys, "decode", small_tokenizer(tmp_path), ids)
    one_error_line(code, out, err, "decode", "ids.txt: the word at position 1", "too long for a token id")
