"""The ``>>>`` examples in the format, fingerprint, export and samples modules run, so they stay true."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "core.formats",
    "core.formats.atomic",
    "core.formats.gpt2",
    "core.formats.huggingface",
    "core.formats.native",
    "core.formats.tiktoken_ranks",
    "core.fingerprint",
    "core.export",
    "core.corpus_samples",
    "bpe_tui.cli.encode",
]


@pytest.mark.parametrize("name", MODULES)
def test_examples(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
    assert result.attempted > 0
