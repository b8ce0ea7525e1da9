"""ctrl+o on an id file (``.npy``): its ids decoded with the active tokenizer into the workbench, and its
sidecar checked against that tokenizer (issue 18: the app warns when the ids were made by another).

The id files are made by ``export`` from a small text, so "decoded right" means "gives that text back";
the tokenizers are GPT-2 (bundled in samples/gpt2) and the recorded 400-token run.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest
from textual.message import Message
from textual.notifications import Notify
from textual.widgets import Input, Static, TextArea

from bpe_tui import opened_ids
from bpe_tui.screens.boundaries import BoundariesScreen
from bpe_tui.screens.corpus_offer import CorpusOfferDialog
from bpe_tui.screens.path_dialog import PathDialog
from bpe_tui.session import LoadedTokenizer
from bpe_tui.widgets.text_stats import TextStatsTable
from core.export.run import export_corpus, npy_header
from core.export.sidecar import sidecar_path
from core.formats import load_tokenizer, save_tokenizer
from tests.ui.app_harness import SAMPLES, SIZE, make_app, recorded_run, settle
from tests.ui.views_harness import session_with

TEXT = (SAMPLES / "english.txt").read_text(encoding="utf-8")[:1500] + "\n" + (
    SAMPLES / "japanese.txt"
).read_text(encoding="utf-8")[:400] + " 🗼\n"


@cache
def gpt2() -> LoadedTokenizer:
    return LoadedTokenizer.from_model(load_tokenizer(SAMPLES / "gpt2"), name="gpt2")


@cache
def small() -> LoadedTokenizer:
    return LoadedTokenizer.from_model(recorded_run()[-1].model, name="english-400")  # type: ignore[attr-defined]


def exported(tmp_path: Path, loaded: LoadedTokenizer, name: str = "ids.npy") -> Path:
    corpus = tmp_path / "corpus.txt"
    corpus.write_text(TEXT, encoding="utf-8")
    out = tmp_path / name
    export_corpus(corpus, loaded.model, out)
    return out


def notices(seen: list[Message], severity: str) -> list[str]:
    return [m.notification.message for m in seen if isinstance(m, Notify) and m.notification.severity == severity]


async def open_with_ctrl_o(pilot, path: Path) -> None:
    """Type ``path`` into the ctrl+o dialog, as a user would, and wait for what it starts."""
    await settle(pilot)
    await pilot.press("ctrl+o")
    await pilot.pause()
    dialog = pilot.app.screen
    assert isinstance(dialog, PathDialog)
    dialog.query_one(Input).value = str(path)
    await pilot.press("enter")
    await settle(pilot)


def workbench_text(app) -> str:
    screen = app.screen
    assert isinstance(screen, BoundariesScreen)
    return screen.query_one("#boundaries-input", TextArea).text


async def test_ids_of_the_active_tokenizer_decode_into_the_workbench_without_a_warning(tmp_path: Path) -> None:
    ids = exported(tmp_path, gpt2())
    seen: list[Message] = []
    app = make_app(session=session_with(small(), gpt2()), start_mode="stepper")
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        await open_with_ctrl_o(pilot, ids)
        assert app.current_mode == "boundaries"
        assert workbench_text(app) == TEXT
        header = str(app.screen.query_one("#boundaries-header", Static).render())
        assert "ids.npy decoded" in header
        assert not notices(seen, "warning") and not notices(seen, "error")
        assert any("gpt2" in line and "ids.npy" in line for line in notices(seen, "information"))
        assert app.session.workbench_text == TEXT  # Compare runs on it too
        assert app.session.active_tokenizer() is gpt2()  # opening ids loads no tokenizer
        table = app.screen.query_one(TextStatsTable)
        assert str(table.get_cell("ids.npy decoded", "tokens")) == f"{len(gpt2().tokenizer.encode(TEXT)):,}"
        # The same ids under another name: the same text, so nothing is encoded again, but it is renamed.
        copy = tmp_path / "copy.npy"
        copy.write_bytes(ids.read_bytes())
        sidecar_path(copy).write_bytes(sidecar_path(ids).read_bytes())
        await open_with_ctrl_o(pilot, copy)
        assert "copy.npy decoded" in str(app.screen.query_one("#boundaries-header", Static).render())
        assert [str(row.value) for row in table.rows][0] == "copy.npy decoded"
        assert not notices(seen, "warning")


async def test_ids_of_another_tokenizer_warn_naming_both_and_the_loaded_maker(tmp_path: Path) -> None:
    ids = exported(tmp_path, small())  # every id is below 400, so GPT-2 decodes them (into nonsense)
    seen: list[Message] = []
    app = make_app(session=session_with(small(), gpt2()), start_mode="stepper")
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        await open_with_ctrl_o(pilot, ids)
        assert app.current_mode == "boundaries"
        assert workbench_text(app) != TEXT
        [warning] = notices(seen, "warning")
        assert "gpt2" in warning and small().model.name in warning
        assert "is loaded" in warning and "Use tokenizer: english-400" in warning
        assert not notices(seen, "error")


async def test_a_maker_not_in_the_session_is_named_and_no_loaded_one_offered(tmp_path: Path) -> None:
    ids = exported(tmp_path, small())
    seen: list[Message] = []
    app = make_app(session=session_with(gpt2()), start_mode="stepper")
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        await open_with_ctrl_o(pilot, ids)
        [warning] = notices(seen, "warning")
        # The sidecar's name for it (the model's own name) and the one in use.
        assert small().model.name in warning and "gpt2" in warning and "is loaded" not in warning


@pytest.mark.parametrize("sidecar", [None, b"{ not json", b'{"format": "bpe-tui ids sidecar 1"}'],
                         ids=["missing", "garbage", "edited"])
async def test_a_missing_or_unreadable_sidecar_warns_that_the_ids_cannot_be_checked(
    tmp_path: Path, sidecar: bytes | None
) -> None:
    ids = exported(tmp_path, gpt2())
    if sidecar is None:
        sidecar_path(ids).unlink()
    else:
        sidecar_path(ids).write_bytes(sidecar)
    seen: list[Message] = []
    app = make_app(session=session_with(gpt2()), start_mode="stepper")
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        await open_with_ctrl_o(pilot, ids)
        [warning] = notices(seen, "warning")
        assert "cannot be checked" in warning and "gpt2" in warning
        assert workbench_text(app) == TEXT  # decoded all the same


async def test_an_id_outside_the_vocabulary_is_an_error_naming_it_and_nothing_is_decoded(tmp_path: Path) -> None:
    ids = tmp_path / "ids.npy"
    # "Hi" in byte-level ids, then 60,000 (beyond GPT-2's 50,257 tokens) at position 2, by hand.
    ids.write_bytes(npy_header("uint16", 4) + b"".join(i.to_bytes(2, "little") for i in (39, 72, 60_000, 33)))
    seen: list[Message] = []
    app = make_app(session=session_with(gpt2()), start_mode="stepper")
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        await open_with_ctrl_o(pilot, ids)
        [error] = notices(seen, "error")
        assert "60,000" in error and "position 2" in error and "gpt2" in error
        assert app.current_mode == "stepper"  # nothing shown
        assert app.session.workbench_text == ""


async def test_ids_with_no_active_tokenizer_are_an_error(tmp_path: Path) -> None:
    ids = exported(tmp_path, gpt2())
    seen: list[Message] = []
    app = make_app(session=session_with(), start_mode="stepper")
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        await open_with_ctrl_o(pilot, ids)
        [error] = notices(seen, "error")
        assert "no tokenizer is active" in error
        assert app.session.tokenizers == []


async def test_a_big_id_file_decodes_a_bounded_prefix_and_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ids = exported(tmp_path, gpt2())
    limit = 1600  # cuts inside the Japanese text: the prefix must still be whole characters
    monkeypatch.setattr(opened_ids, "DECODED_BYTES", limit)
    seen: list[Message] = []
    app = make_app(session=session_with(gpt2()), start_mode="stepper")
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        await open_with_ctrl_o(pilot, ids)
        text = workbench_text(app)
        assert TEXT.startswith(text) and "\ufffd" not in text
        longest = max(len(token) for token in gpt2().model.vocab.values())
        assert limit - longest - 3 <= len(text.encode("utf-8")) <= limit
        assert any("Only the first" in line for line in notices(seen, "information"))
        assert not notices(seen, "warning")


async def test_files_that_are_not_ids_open_as_before_whatever_their_name(tmp_path: Path) -> None:
    tokenizer = tmp_path / "looks-like.npy"  # a tokenizer named like ids: told by content, so loaded
    save_tokenizer(small().model, tmp_path / "t.json", format="bpe-tui")
    tokenizer.write_bytes((tmp_path / "t.json").read_bytes())
    ids = exported(tmp_path, small(), name="ids.json")  # and ids named like a tokenizer: decoded
    app = make_app(session=session_with(gpt2()), start_mode="stepper")
    async with app.run_test(size=SIZE) as pilot:
        await open_with_ctrl_o(pilot, tokenizer)
        assert [t.source for t in app.session.tokenizers] == [None, tokenizer]
        await open_with_ctrl_o(pilot, ids)
        assert app.current_mode == "boundaries"  # decoded with the tokenizer just loaded, now active
        assert workbench_text(app) == TEXT
        await open_with_ctrl_o(pilot, tmp_path / "corpus.txt")
        assert isinstance(app.screen, CorpusOfferDialog)  # text is still offered as a corpus


async def test_decoded_text_with_mixed_line_breaks_is_measured_as_decoded(tmp_path: Path) -> None:
    # A text field keeps one kind of line break: "\r\n" beside "\n", U+2028, form feed and NEL came out of it
    # as the file's first kind, so the workbench counted (and Compare ran on) another text than the ids'.
    text = "one\r\ntwo\nthree\u2028four\x0cfive\x85six\r\n"
    corpus = tmp_path / "corpus.txt"
    corpus.write_bytes(text.encode("utf-8"))
    ids = tmp_path / "ids.npy"
    export_corpus(corpus, gpt2().model, ids)
    app = make_app(session=session_with(gpt2()), start_mode="stepper")
    async with app.run_test(size=SIZE) as pilot:
        await open_with_ctrl_o(pilot, ids)
        assert app.session.workbench_text == text
        table = app.screen.query_one(TextStatsTable)
        assert str(table.get_cell("ids.npy decoded", "tokens")) == f"{len(gpt2().tokenizer.encode(text)):,}"
        assert str(table.get_cell("ids.npy decoded", "bytes")) == f"{len(text.encode('utf-8')):,}"
        tokens = app.screen.query_one("#boundaries-tokens").tokens
        assert b"".join(span.token for span in tokens) == text.encode("utf-8")


def test_an_llmc_token_file_is_an_id_file_and_decodes(tmp_path: Path) -> None:
    """llm.c's data scripts write GPT-2 ids after a 1 KiB header (magic 20240520, version 1, count); ctrl+o
    offered such a ``val.bin`` as a corpus. It decodes like a ``.npy``, with no sidecar to check."""
    import numpy as np

    ids = np.load(exported(tmp_path, gpt2()))
    header = np.zeros(256, dtype=np.int32)
    header[:3] = (20240520, 1, len(ids))
    llmc = tmp_path / "val.bin"
    llmc.write_bytes(header.tobytes() + ids.astype(np.uint16).tobytes())
    assert opened_ids.is_id_file(llmc)
    decoded = opened_ids.decode_id_file(llmc, gpt2(), (gpt2(),))
    assert (decoded.text, decoded.total_ids, decoded.sidecar) == (TEXT, len(ids), None)
    assert decoded.sidecar_problem is not None and "missing" in decoded.sidecar_problem
