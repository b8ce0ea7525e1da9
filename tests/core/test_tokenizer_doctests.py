"""The ``>>>`` examples in the tokenizer modules run, so they stay true."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = ["core.tokenizer", "core.merge_engine", "core.fast_split", "core.gpt2_files", "core.spans", "core.decoder"]


@pytest.mark.parametrize("name", MODULES)
def test_examples(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name))
    assert result.failed == 0
    assert result.attempted > 0
