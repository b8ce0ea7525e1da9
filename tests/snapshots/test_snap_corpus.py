"""Pictures of the corpus pane: the chosen file's preview, stats and script mix, and the training form."""

from __future__ import annotations

from textual.pilot import Pilot

from tests.ui.app_harness import CORPUS_ROOT, SIZE, make_app, make_services, make_session, ready


def test_corpus_pane(snap_compare) -> None:
    assert snap_compare(make_app(), terminal_size=SIZE, run_before=ready)


def test_corpus_pane_80x24(snap_compare) -> None:
    assert snap_compare(make_app(), terminal_size=(80, 24), run_before=ready)


def test_corpus_pane_japanese_file_and_bad_settings(snap_compare) -> None:
    async def run_before(pilot: Pilot) -> None:
        await ready(pilot)
        await pilot.press("tab")  # into the vocab size field (the preview takes no focus)
        await pilot.press("backspace", "backspace", "backspace", "backspace", "1", "2")
        await ready(pilot)

    app = make_app(session=make_session(CORPUS_ROOT / "japanese.txt"))
    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


SHARDS_ROOT = CORPUS_ROOT.parent / "shards_root"
"""A folder of its own for the shard picture, so the other pictures' trees stay as they are."""


def test_corpus_pane_shard_options_80x24(snap_compare) -> None:
    """A JSON-lines corpus whose text is in ``content``: the form's shard row, the field typed and the skip
    toggle turned on by keys, and the shards counted again by the new field (4 records, no problem)."""

    async def run_before(pilot: Pilot) -> None:
        await ready(pilot)
        await pilot.press(*["tab"] * 8)  # from the tree past the base choice and the Dask field to the text field
        await pilot.press("backspace", "backspace", "backspace", "backspace", *"content", "tab", "space")
        await ready(pilot)

    app = make_app(session=make_session(SHARDS_ROOT / "ledger.jsonl"), services=make_services(corpus_root=SHARDS_ROOT))
    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)


def test_corpus_pane_character_base_80x24(snap_compare) -> None:
    """The base switched to chars by keys: the min char count row appears under it (hidden for bytes)."""

    async def run_before(pilot: Pilot) -> None:
        await ready(pilot)
        await pilot.press(*["tab"] * 6)  # from the tree to the base choice
        await pilot.press("enter", "down", "enter")
        await ready(pilot)

    app = make_app(session=make_session(CORPUS_ROOT / "japanese.txt"))
    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)
