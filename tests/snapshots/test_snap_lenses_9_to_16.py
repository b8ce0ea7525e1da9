"""Pictures of lenses 9-16 in the Lenses pane (7), on a tokenizer trained on the samples: each view as it
opens, and a few after a key."""

from __future__ import annotations

from bpe_tui.lenses.registry import LENSES
from tests.ui.app_harness import SIZE, after_keys, make_app
from tests.ui.views_harness import bilingual_800, session_with


def lenses_app():
    return make_app(session=session_with(bilingual_800()), start_mode="lenses")


def keys_to(name: str, *then: str):
    """Down the list to lens ``name``, then ``then``."""
    index = [lens.name for lens in LENSES].index(name)
    return after_keys(*["down"] * index, *then)


def test_budget(snap_compare) -> None:
    assert snap_compare(lenses_app(), terminal_size=SIZE, run_before=keys_to("budget"))


def test_budget_mix_moved_at_80x24(snap_compare) -> None:
    # "]" picks the second slider (the English share); shift+← takes it from 50% down a twentieth (5).
    assert snap_compare(lenses_app(), terminal_size=(80, 24), run_before=keys_to("budget", "right_square_bracket", "shift+left"))


def test_bytes(snap_compare) -> None:
    assert snap_compare(lenses_app(), terminal_size=SIZE, run_before=keys_to("bytes"))


def test_numbers(snap_compare) -> None:
    assert snap_compare(lenses_app(), terminal_size=SIZE, run_before=keys_to("numbers"))


def test_spelling_with_leading_space(snap_compare) -> None:
    assert snap_compare(lenses_app(), terminal_size=SIZE, run_before=keys_to("spelling", "space"))


def test_whitespace(snap_compare) -> None:
    assert snap_compare(lenses_app(), terminal_size=SIZE, run_before=keys_to("whitespace"))


def test_case(snap_compare) -> None:
    assert snap_compare(lenses_app(), terminal_size=SIZE, run_before=keys_to("case"))


def test_embedding_wider_model(snap_compare) -> None:
    # "]" picks d; → widens it by one step (64).
    assert snap_compare(lenses_app(), terminal_size=SIZE, run_before=keys_to("embedding", "right_square_bracket", "right"))


def test_delete_merge(snap_compare) -> None:
    assert snap_compare(lenses_app(), terminal_size=SIZE, run_before=keys_to("delete-merge"))


def test_delete_merge_next_rank_at_80x24(snap_compare) -> None:
    assert snap_compare(lenses_app(), terminal_size=(80, 24), run_before=keys_to("delete-merge", "right"))
