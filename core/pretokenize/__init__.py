"""Pre-tokenisation: the split patterns, a fast splitter for GPT-2's, and where a corpus may be cut."""
