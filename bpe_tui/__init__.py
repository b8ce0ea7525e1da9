"""bpe-tui: a Textual app for training, watching and inspecting byte-level BPE tokenizers."""

__version__ = "0.1.0"
"""The version ``bpe-tui --version`` prints; it must equal ``[project] version`` in pyproject.toml."""
