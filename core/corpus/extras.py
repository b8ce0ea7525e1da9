"""The optional packages some shard formats need, imported only when a shard needs them.

Parquet needs ``pyarrow``, ``.zst`` needs ``zstandard`` and a corpus URL ``fsspec``; they come with the
``formats`` extra (``pip install 'bpe-tui[formats]'``), so a plain-text user installs none of them. A missing one is a one-line
:class:`~core.errors.CorpusError` that names the shard, the package and the extra.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from core.errors import CorpusError

EXTRA_OF = {"pyarrow": "formats", "pyarrow.parquet": "formats", "zstandard": "formats", "fsspec": "formats"}
"""Which extra of ``bpe-tui`` brings each optional module."""


def require(module: str, needed_for: str) -> ModuleType:
    """Import ``module``, or raise a CorpusError saying which extra installs it.

    >>> require("json", "a test").__name__
    'json'
    """
    try:
        return importlib.import_module(module)
    except ImportError:
        package = module.split(".")[0]
        extra = EXTRA_OF.get(module, "formats")
        raise CorpusError(
            f"{needed_for} needs the {package} package; install it with: pip install 'bpe-tui[{extra}]'"
        ) from None
