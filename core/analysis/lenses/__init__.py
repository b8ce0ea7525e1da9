"""Lenses: pure functions that each make one lesson of tokenisation visible on any tokenizer.

One module a lens; each takes a :class:`~core.model.BPEModel` (and text or options), computes everything
from it, and returns a frozen dataclass whose ``to_json()`` gives the fields scripts rely on (those of
``bpe-tui lens NAME --json``). ``tables`` holds what several lenses read from a model. The app's views and
the CLI's text live in ``bpe_tui.lenses``; nothing here imports them.
"""
