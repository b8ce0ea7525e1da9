"""Analysis: pure functions that explain tokenizers (compare, corpus and vocabulary facts, merge trees)."""
