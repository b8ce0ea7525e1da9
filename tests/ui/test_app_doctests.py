"""The worked examples in the docstrings of the app shell and training modules run as tests."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "core.corpus_stats",
    "bpe_tui.stepper_model",
    "bpe_tui.training_process",
    "bpe_tui.screens.stepper",
    "bpe_tui.widgets.corpus_stats",
    "bpe_tui.widgets.progress_panel",
    "bpe_tui.widgets.training_form",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0, f"{name} has no examples"
    assert result.failed == 0
