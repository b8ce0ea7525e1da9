"""The ``>>>`` examples in the boundaries/inspector/compare modules (core and UI) run, so they stay true."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "core.compare",
    "core.merge_tree",
    "core.script_mix",
    "core.vocab_stats",
    "bpe_tui.render",
    "bpe_tui.widgets.compare_view",
    "bpe_tui.widgets.merge_tree",
    "bpe_tui.widgets.script_stats",
    "bpe_tui.widgets.text_stats",
    "bpe_tui.widgets.token_view",
    "bpe_tui.widgets.vocab_table",
]


@pytest.mark.parametrize("name", MODULES)
def test_examples(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name))
    assert result.failed == 0
    assert result.attempted > 0
