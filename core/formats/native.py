"""bpe-tui's own JSON format: the only one that keeps everything a model knows, and checks itself on load.

Besides vocab and merges it holds what the other formats drop: each merge's count at training time (for
the merge browser), the split pattern, the tie rule and the training parameters (to reproduce a run),
and a fingerprint (:mod:`core.fingerprint`) that loading recomputes, so a hand-edited or damaged file is
caught instead of silently encoding differently. Deleting the ``fingerprint`` field accepts an edit, and
the loaded model then says it was not verified (:attr:`~core.model.BPEModel.fingerprint_verified` is
``False``); a ``null`` or non-string fingerprint is an error, and so is any key this version does not
know (a renamed ``fingerprint`` would otherwise switch the check off unnoticed).

Token bytes are spelled in GPT-2's byte alphabet, as in ``vocab.json``: lossless for any bytes, readable
for text, and one token per line greps well. Layout::

    {"format": "bpe-tui", "version": 1, "name": ..., "fingerprint": <hex sha256>, "pattern": ...,
     "tie_rule": ..., "special_tokens": [...], "training": {...} | null,
     "vocab": {"0": "Ā", ..., "256": "Ġt"}, "merges": [["Ġ", "t", 1234], ...]}

where each merge is ``[left, right, count]`` and ``count`` is ``null`` when unknown, or
``[left, right, count, runner_up]`` when the run recorded the best count among the other pairs at that
merge (a runner-up equal to the count is a tie). Files written before runner-ups were recorded have three
elements and still load: their ties are then unknown.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

from core.encode.normalizer import FORMS
from core.formats.byte_alphabet import decode_bytes, encode_bytes
from core.errors import TokenizerFileError
from core.fingerprint import fingerprint
from core.formats.common import ID_SLACK, checked_model, utf8
from core.atomic import atomic_write_text
from core.model import BASES, BYTE_BASE, TIE_RULE, BPEModel, TrainingInfo

FORMAT_NAME = "bpe-tui"
VERSION = 1
KEYS = (
    "format", "version", "name", "fingerprint", "base", "normalizer", "pattern", "tie_rule", "special_tokens",
    "plain_added_tokens", "training", "vocab", "merges",
)
"""Every top-level key of a version-1 file, in the order written. ``base`` is written only for a character-base
tokenizer: a file without it is byte-level, so byte-level files are as they always were. ``normalizer`` likewise
is written only for a tokenizer that normalizes its text (one loaded from Qwen2's tokenizer.json), and
``plain_added_tokens`` only when a tokenizer.json marked some added tokens ``"special": false``."""


def to_text(model: BPEModel) -> str:
    """The file content for ``model``: one vocab entry and one merge per line, so files diff well.

    >>> from core.model import BPEModel
    >>> text = to_text(BPEModel({i: bytes([i]) for i in range(256)} | {256: b" t"}, [(b" ", b"t")], merge_counts=[9]))
    >>> '["Ġ", "t", 9]' in text, '"256": "Ġt"' in text
    (True, True)
    """

    def dump(value: Any) -> str:
        return json.dumps(value, ensure_ascii=False)

    counts = model.merge_counts or [None] * len(model.merges)
    runner_ups = model.merge_runner_ups
    header = {
        "format": FORMAT_NAME,
        "version": VERSION,
        "name": model.name,
        "fingerprint": fingerprint(model),
        **({"base": model.base} if model.base != BYTE_BASE else {}),
        **({"normalizer": model.normalizer} if model.normalizer is not None else {}),
        "pattern": model.pattern,
        "tie_rule": TIE_RULE,
        "special_tokens": list(model.special_tokens),
        **({"plain_added_tokens": list(model.plain_added_tokens)} if model.plain_added_tokens else {}),
        "training": model.training.to_json() if model.training is not None else None,
    }
    lines = ["{"]
    lines += [f"  {dump(key)}: {dump(value)}," for key, value in header.items()]
    vocab = [f'    "{token_id}": {dump(encode_bytes(token))}' for token_id, token in sorted(model.vocab.items())]
    lines += ['  "vocab": {', ",\n".join(vocab), "  },"] if vocab else ['  "vocab": {},']
    merges = [
        f"    [{dump(encode_bytes(left))}, {dump(encode_bytes(right))}, {dump(count)}"
        + (f", {dump(runner_ups[rank])}]" if runner_ups is not None else "]")
        for rank, ((left, right), count) in enumerate(zip(model.merges, counts, strict=True))
    ]
    lines += ['  "merges": [', ",\n".join(merges), "  ]"] if merges else ['  "merges": []']
    lines.append("}")
    return "\n".join(lines) + "\n"


def write(model: BPEModel, path: Path) -> list[Path]:
    """Save ``model`` to ``path`` atomically."""
    return [atomic_write_text(path, to_text(model))]


def _expect(condition: bool, path: Path, message: str) -> None:
    if not condition:
        raise TokenizerFileError(f"{path}: {message}")


def _token(text: Any, path: Path, where: str) -> bytes:
    _expect(isinstance(text, str), path, f"{where} must be a string in GPT-2's byte alphabet, got {text!r:.40}")
    try:
        return decode_bytes(text)
    except KeyError as error:
        raise TokenizerFileError(
            f"{path}: {where}: character {error.args[0]!r} is not in GPT-2's byte alphabet"
        ) from None


def from_json(data: dict[str, Any], path: Path) -> BPEModel:
    """Build a model from parsed file content, checking types, consistency and the fingerprint.

    >>> model = BPEModel({i: bytes([i]) for i in range(256)} | {256: b"ab"}, [(b"a", b"b")], merge_counts=[3])
    >>> from_json(json.loads(to_text(model)), Path("t.json")).merge_counts
    [3]
    """
    version = data.get("version")
    _expect(type(version) is int, path, f"'version' must be an integer, got {version!r:.40}")
    _expect(version <= VERSION, path, f"written by a newer bpe-tui (format version {version}); upgrade bpe-tui")
    _expect(version >= 1, path, f"format version {version} does not exist; the first is 1")
    for key in data:
        _expect(key in KEYS, path, f"unknown key {key[:40]!r} (a renamed one?); a bpe-tui file has only "
                f"{', '.join(KEYS)}")
    for key in ("vocab", "merges"):
        _expect(key in data, path, f"no '{key}'; the file is incomplete")
    raw_vocab, raw_merges = data["vocab"], data["merges"]
    _expect(isinstance(raw_vocab, dict), path, "'vocab' must be an object of id -> token")
    _expect(isinstance(raw_merges, list), path, "'merges' must be an array of [left, right, count(, runner-up)]")

    vocab: dict[int, bytes] = {}
    longest = len(str(len(raw_vocab) + ID_SLACK))
    for key, text in raw_vocab.items():
        _expect(key.isascii() and key.isdigit(), path, f"vocab key {key[:40]!r} is not a token id")
        _expect(len(key.lstrip("0")) <= longest, path, f"vocab id {key[:20]}... is far beyond the "
                f"{len(raw_vocab):,} tokens; ids must stay below the number of tokens + {ID_SLACK:,}")
        token_id = int(key)
        _expect(token_id not in vocab, path, f"id {token_id} appears twice in 'vocab'")
        vocab[token_id] = _token(text, path, f"vocab[{key}]")

    merges: list[tuple[bytes, bytes]] = []
    counts: list[int | None] = []
    runner_ups: list[int | None] = []
    for rank, entry in enumerate(raw_merges):
        where = f"merges[{rank}]"
        _expect(isinstance(entry, list) and len(entry) in (2, 3, 4), path,
                f"{where} must be [left, right, count] or [left, right, count, runner-up]")
        merges.append((_token(entry[0], path, where), _token(entry[1], path, where)))
        count = entry[2] if len(entry) >= 3 else None
        runner_up = entry[3] if len(entry) == 4 else None
        for what, value in (("count", count), ("runner-up", runner_up)):
            _expect(value is None or (type(value) is int and 0 <= value < 1 << 63), path,
                    f"{where}: {what} must be a whole number from 0 below 2**63, or null, got {value!r:.40}")
        counts.append(count)
        runner_ups.append(runner_up)

    specials = data.get("special_tokens", [])
    _expect(isinstance(specials, list) and all(isinstance(s, str) for s in specials), path,
            "'special_tokens' must be an array of strings")
    pattern = data.get("pattern")
    _expect(isinstance(pattern, str), path, "'pattern' must be the split regex as a string")
    training = _training(data.get("training"), path)
    base = data.get("base", BYTE_BASE)
    _expect(base in BASES, path, f"'base' must be one of {', '.join(map(repr, BASES))}, got {base!r:.40}")
    plain = data.get("plain_added_tokens", [])
    _expect(isinstance(plain, list) and all(isinstance(t, str) and t in specials for t in plain), path,
            "'plain_added_tokens' must be an array of some of the special tokens")
    normalizer = data.get("normalizer")
    _expect(normalizer is None or normalizer in FORMS, path,
            f"'normalizer' must be one of {', '.join(map(repr, FORMS))}, got {normalizer!r:.40}")

    model = checked_model(
        path,
        vocab,
        merges,
        where=lambda rank: f"merges[{rank}]",
        special_tokens=specials,
        pattern=pattern,
        merge_counts=counts if any(c is not None for c in counts) else None,
        training=training,
        base=base,
    )
    if any(r is not None for r in runner_ups):
        model = dataclasses.replace(model, merge_runner_ups=runner_ups)
    if normalizer is not None or plain:
        model = dataclasses.replace(model, normalizer=normalizer, plain_added_tokens=tuple(dict.fromkeys(plain)))
    name = data.get("name", "")
    _expect(isinstance(name, str), path, f"'name' must be a string, got {name!r:.40}")
    utf8(name, path, "'name'")  # saved again, it must be encodable
    if name:
        model = dataclasses.replace(model, name=name)
    if "fingerprint" not in data:
        return dataclasses.replace(model, fingerprint_verified=False)
    recorded = data["fingerprint"]
    _expect(isinstance(recorded, str), path, f"'fingerprint' must be the hex SHA-256 string, got {recorded!r:.40}; "
            "delete the key to load the file unverified")
    actual = fingerprint(model)
    if recorded != actual:
        raise TokenizerFileError(
            f"{path}: fingerprint mismatch (file says {recorded[:12]!r}, content gives {actual[:12]}): vocab, "
            "merges, special tokens or pattern changed after saving; restore the file, or delete 'fingerprint' "
            "to accept the change"
        )
    return dataclasses.replace(model, fingerprint_verified=True)


def _training(raw: Any, path: Path) -> TrainingInfo | None:
    if raw is None:
        return None
    _expect(isinstance(raw, dict), path, "'training' must be an object or null")
    try:
        return TrainingInfo.from_json(raw)
    except ValueError as error:
        raise TokenizerFileError(f"{path}: 'training' is malformed: {error}") from None

