"""Corpora of many shards in several formats: plain text, JSON lines and Parquet, each maybe compressed.

A corpus is a file, a folder or a glob (:func:`open_corpus`); each file in it is a :class:`Shard`. A
shard yields its documents one by one (:func:`core.corpus.records.shard_documents`), streamed so memory
stays flat in its size. Documents are separated exactly as a special token separates them in a text
file: no pre-token, and so no merge, spans two records or two shards.
"""

from __future__ import annotations

from core.corpus.shards import Corpus, Shard, open_corpus

__all__ = ["Corpus", "Shard", "open_corpus"]
