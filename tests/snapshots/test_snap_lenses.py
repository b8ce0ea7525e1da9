"""Pictures of the Lenses pane (7): each lens's view on a tokenizer trained on the samples, after a few keys."""

from __future__ import annotations

from tests.ui.app_harness import SIZE, after_keys, make_app
from tests.ui.views_harness import bilingual_800, session_with


def lenses_app():
    return make_app(session=session_with(bilingual_800()), start_mode="lenses")


def test_slider_moved_back(snap_compare) -> None:
    # shift+← twice: 27 merges fewer each (a twentieth of 543), so the sentence breaks into more tokens.
    assert snap_compare(lenses_app(), terminal_size=SIZE, run_before=after_keys("shift+left", "shift+left"))


def test_slider_at_80x24(snap_compare) -> None:
    assert snap_compare(lenses_app(), terminal_size=(80, 24), run_before=after_keys("left"))


def test_fragments(snap_compare) -> None:
    assert snap_compare(lenses_app(), terminal_size=SIZE, run_before=after_keys("down"))


def test_replay(snap_compare) -> None:
    assert snap_compare(lenses_app(), terminal_size=SIZE, run_before=after_keys("down", "down", "down", "down"))


def test_vocab(snap_compare) -> None:
    assert snap_compare(lenses_app(), terminal_size=SIZE, run_before=after_keys("down", "down", "down"))


def test_pairs_after_three_passes(snap_compare) -> None:
    # ← from the default 10 passes down to 3: the third pass (ties and all) shown in full.
    keys = ["down"] * 2 + ["left"] * 7
    assert snap_compare(lenses_app(), terminal_size=SIZE, run_before=after_keys(*keys))


def test_longest_match(snap_compare) -> None:
    # Typed text where the trained tokenizer's greedy match and merge replay part ways.
    keys = ["down"] * 5 + ["slash", "ctrl+u", *"lowest newest widest", "enter"]
    assert snap_compare(lenses_app(), terminal_size=SIZE, run_before=after_keys(*keys))


def test_wordpiece(snap_compare) -> None:
    assert snap_compare(lenses_app(), terminal_size=SIZE, run_before=after_keys(*["down"] * 6))


def test_unigram(snap_compare) -> None:
    assert snap_compare(lenses_app(), terminal_size=SIZE, run_before=after_keys(*["down"] * 7))
