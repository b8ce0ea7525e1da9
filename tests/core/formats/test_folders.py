"""A folder as a tokenizer: GPT-2 pairs under any ``*vocab*.json`` + ``*merges*.txt`` names, ambiguous folders listed.

Each folder is made from GPT-2's bundled files (renamed) or from a small saved model, and what loads
is checked against the files it came from; the CLI and the app (ctrl+o) go through the same loader.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from textual.widgets import Input

from bpe_tui.screens.path_dialog import PathDialog
from core.errors import TokenizerFileError
from core.formats import load_tokenizer, save_tokenizer
from core.model import BPEModel
from tests.core.encode.tokenizer_cases import tiktoken_gpt2
from tests.data_paths import GPT2_MERGES, GPT2_VOCAB
from tests.hostile.hostile_cases import one_error_line, run_here
from tests.ui.app_harness import make_app, settle


def small_model() -> BPEModel:
    vocab = {i: bytes([i]) for i in range(256)} | {256: b"lo", 257: b"low"}
    return BPEModel(vocab, [(b"l", b"o"), (b"lo", b"w")])


def gpt2_folder(folder: Path, vocab_name: str, merges_name: str) -> Path:
    folder.mkdir(exist_ok=True)
    shutil.copyfile(GPT2_VOCAB, folder / vocab_name)
    shutil.copyfile(GPT2_MERGES, folder / merges_name)
    return folder


def small_pair(folder: Path, stem: str) -> None:
    """The small model as a GPT-2 pair ``<stem>-vocab.json`` + ``<stem>-merges.txt`` in ``folder``."""
    written = save_tokenizer(small_model(), folder / f"{stem}-tmp", format="gpt2")
    for path in written:
        kind = "vocab.json" if path.name.endswith(".json") else "merges.txt"
        path.rename(folder / f"{stem}-{kind}")
    for leftover in folder.glob(f"{stem}-tmp*"):
        leftover.rmdir() if leftover.is_dir() else leftover.unlink()


@pytest.mark.parametrize(
    ("vocab_name", "merges_name"),
    [("gpt2_vocab.json", "gpt2_merges.txt"), ("gpt2-vocab.json", "gpt2-merges.txt"), ("encoder_vocab.json", "bpe-merges.txt")],
)
def test_a_folder_with_a_gpt2_pair_under_other_names_loads(tmp_path: Path, vocab_name: str, merges_name: str) -> None:
    folder = gpt2_folder(tmp_path / "gpt2", vocab_name, merges_name)
    (folder / "README.txt").write_text("downloaded from somewhere\n", encoding="utf-8")
    model = load_tokenizer(folder)
    assert model.vocab_size == 50257
    from core.encode.tokenizer import Tokenizer

    text = "Folders hold tokenizers, 日本語 too."
    assert Tokenizer.from_model(model).encode(text) == tiktoken_gpt2().encode(text)


def test_an_ambiguous_folder_lists_its_candidates(tmp_path: Path) -> None:
    small_pair(tmp_path, "a")
    small_pair(tmp_path, "b")
    (tmp_path / "c.tiktoken").write_text("", encoding="utf-8")
    with pytest.raises(TokenizerFileError) as caught:
        load_tokenizer(tmp_path)
    message = str(caught.value)
    assert message == (
        f"{tmp_path}: holds 3 tokenizers (a-vocab.json + a-merges.txt, b-vocab.json + b-merges.txt, c.tiktoken); "
        "give one of them"
    )


def test_a_folder_with_nothing_to_load_says_what_it_looked_for(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("x", encoding="utf-8")
    with pytest.raises(TokenizerFileError, match="holds no tokenizer.json, no \\*vocab\\*.json with a \\*merges\\*.txt"):
        load_tokenizer(tmp_path)


def test_the_cli_loads_such_a_folder_and_lists_an_ambiguous_one(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = gpt2_folder(tmp_path / "gpt2", "gpt2_vocab.json", "gpt2_merges.txt")
    text = tmp_path / "text.txt"
    text.write_text("The folder is the tokenizer.\n", encoding="utf-8")
    code, out, err = run_here(capsys, "encode", folder, text, "--count")
    assert code == 0, err
    assert out.strip() == str(len(tiktoken_gpt2().encode_ordinary("The folder is the tokenizer.\n")))
    ambiguous = tmp_path / "two"
    ambiguous.mkdir()
    small_pair(ambiguous, "a")
    small_pair(ambiguous, "b")
    code, out, err = run_here(capsys, "inspect", ambiguous)
    one_error_line(code, out, err, "inspect", "holds 2 tokenizers (a-vocab.json + a-merges.txt, b-vocab.json + b-merges.txt)")


async def test_ctrl_o_opens_such_a_folder(tmp_path: Path) -> None:
    folder = gpt2_folder(tmp_path / "gpt2", "gpt2-vocab.json", "gpt2-merges.txt")
    app = make_app(start_mode="inspector")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+o")
        assert isinstance(app.screen, PathDialog)
        app.screen.query_one(Input).value = str(folder)
        await pilot.press("enter")
        await settle(pilot)
        active = app.session.active_tokenizer()
        assert active is not None and active.name == "gpt2" and active.model.vocab_size == 50257


def test_a_text_file_is_told_apart_from_a_tokenizer_from_its_start(tmp_path: Path) -> None:
    import pickle

    from core.errors import TextNotTokenizerError

    corpus = tmp_path / "corpus.txt"
    corpus.write_bytes(b"Once upon a time there was a corpus.\n" * 3000 + b"\xff\xfe not UTF-8 past 64 KB\n")
    with pytest.raises(TextNotTokenizerError, match="it looks like text: a corpus") as caught:
        load_tokenizer(corpus)  # refused from its first lines, before the bad bytes far into it are read
    assert caught.value.path == corpus
    again = pickle.loads(pickle.dumps(caught.value))  # as from a worker process
    assert isinstance(again, TextNotTokenizerError) and again.path == corpus and str(again) == str(caught.value)


def test_a_hugging_face_folder_loads_its_tokenizer_json_before_its_gpt2_pair(tmp_path: Path) -> None:
    # As the README says: a Hugging Face download holds tokenizer.json beside vocab.json + merges.txt.
    folder = gpt2_folder(tmp_path / "hf", "vocab.json", "merges.txt")
    save_tokenizer(small_model(), folder / "tokenizer.json", format="hf")
    assert load_tokenizer(folder).vocab_size == small_model().vocab_size


def test_the_pair_convert_writes_under_any_name_is_found_in_its_folder(tmp_path: Path) -> None:
    """``convert --to gpt2 out.json`` writes ``out.json`` and ``out-merges.txt``; a folder holding them was
    "no tokenizer" (only ``*vocab*.json`` names were looked at), though the README says it loads."""
    written = save_tokenizer(small_model(), tmp_path / "out.json", format="gpt2")
    assert sorted(path.name for path in written) == ["out-merges.txt", "out.json"]
    (tmp_path / "notes.json").write_text("{}", encoding="utf-8")  # no partner: not a vocab
    model = load_tokenizer(tmp_path)
    assert (model.vocab, model.merges) == (small_model().vocab, small_model().merges)
