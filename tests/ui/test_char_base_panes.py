"""A character-base tokenizer in the app: every pane opens on it, the inspector counts its alphabet as
characters, and the workbench's tokens are the tokenizer's own (whole characters, bytes only for fallback)."""

from __future__ import annotations

from pathlib import Path

from bpe_tui.screens.inspector import summary_content
from bpe_tui.session import LoadedTokenizer
from core.fingerprint import fingerprint
from core.formats import save_tokenizer
from core.train.events import TrainingFinished
from core.train.run import TrainingRun
from tests.ui.app_harness import SAMPLES, SIZE, make_app, settle


def char_tokenizer(folder: Path) -> Path:
    text = (SAMPLES / "japanese.txt").read_text(encoding="utf-8")[:3000]
    run = TrainingRun.from_text(text, 256 + 600, base="chars", min_char_count=2, workers=1)
    model = [e for e in run.events() if isinstance(e, TrainingFinished)][-1].model
    return save_tokenizer(model, folder / "chars.json", format="bpe-tui")[0]


def test_the_inspector_summary_names_the_alphabet(tmp_path: Path) -> None:
    from core.formats import load_tokenizer

    model = load_tokenizer(char_tokenizer(tmp_path))
    loaded = LoadedTokenizer.from_model(model, name="chars")
    text = summary_content(loaded, fingerprint(model)).plain
    alphabet = len(model.vocab) - 256 - len(model.merges)
    assert f"+ {alphabet:,} characters" in text and alphabet > 0


async def test_every_pane_opens_on_a_character_base_tokenizer(tmp_path: Path) -> None:
    path = char_tokenizer(tmp_path)
    app = make_app(tokenizer_paths=[path], start_mode=None)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert (active := app.session.active_tokenizer()) is not None and active.model.base == "chars"
        for key in "34567812":
            await pilot.press(key)
            await settle(pilot)
        await pilot.press("3")
        await settle(pilot)
        tokenizer = active.tokenizer
        # Encoding through the app's tokenizer starts from characters: 図 is one token, not three bytes.
        ids = tokenizer.encode("図")
        assert len(ids) == 1 and tokenizer.decode(ids) == "図"
