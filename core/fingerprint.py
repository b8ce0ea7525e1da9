"""A tokenizer's identity: SHA-256 over what decides how it encodes, so two files can be compared at a glance.

Only the vocabulary, the merges, the special tokens, the split pattern, the base (hashed only when it is
not the byte base, so older fingerprints still hold) and the normalizer (only when there is one) change the ids a tokenizer
produces, so only they go into the hash. Merge counts, training parameters, the display name and the file
format do not: the same tokenizer saved as our JSON, as GPT-2 files or as ``tokenizer.json`` keeps its
fingerprint. The serialisation is canonical (vocab sorted by id, special tokens sorted, bytes as hex,
compact ASCII JSON) so that dict order or JSON whitespace never matter.
"""

from __future__ import annotations

import hashlib
import json

from core.model import BPEModel

FINGERPRINT_SCHEME = "bpe-tui-fingerprint-v1"
"""Hashed along with the data, so a future change of the canonical form can never collide with this one."""


def canonical_bytes(model: BPEModel) -> bytes:
    """The exact bytes :func:`fingerprint` hashes.

    Special tokens are sorted because encoding treats them as a set (longest match first), and their ids
    are already part of the vocab.

    >>> from core.model import BPEModel
    >>> canonical_bytes(BPEModel({0: b"a"}, [], pattern="x"))[:40]
    b'["bpe-tui-fingerprint-v1",[[0,"61"]],[],'
    """
    data = [
        FINGERPRINT_SCHEME,
        [[token_id, token.hex()] for token_id, token in sorted(model.vocab.items())],
        [[left.hex(), right.hex()] for left, right in model.merges],
        sorted(model.special_tokens),
        model.pattern,
    ]
    if model.base != "bytes":  # a byte-base model hashes as it always did
        data.append(model.base)
    if model.normalizer is not None:  # so does one without a normalizer
        data.append(["normalizer", model.normalizer])
    return json.dumps(data, ensure_ascii=True, separators=(",", ":")).encode("ascii")


def fingerprint(model: BPEModel) -> str:
    """Hex SHA-256 of the model's vocab, merges, special tokens and pattern.

    >>> from core.model import BPEModel
    >>> vocab = {i: bytes([i]) for i in range(256)} | {256: b"ab"}
    >>> a = BPEModel(vocab, [(b"a", b"b")], merge_counts=[7])
    >>> b = BPEModel(dict(reversed(vocab.items())), [(b"a", b"b")], merge_counts=None, name="other")
    >>> fingerprint(a) == fingerprint(b), len(fingerprint(a))
    (True, 64)
    >>> fingerprint(a) == fingerprint(BPEModel(vocab, [(b"a", b"b")], special_tokens=["<s>"]))
    False
    """
    return hashlib.sha256(canonical_bytes(model)).hexdigest()


def short_fingerprint(model: BPEModel) -> str:
    """The first 12 hex digits, for titles and lists where the full hash would not fit.

    >>> from core.model import BPEModel
    >>> len(short_fingerprint(BPEModel({0: b"a"}, [])))
    12
    """
    return fingerprint(model)[:12]
