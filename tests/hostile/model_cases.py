"""Material for the hostile-input tests: valid seed files of every format, ways to damage them, and the check.

A seed is a small valid tokenizer saved with ``save_tokenizer``: one trained here (bytes at ids 0-255, a
special token, a custom pattern for the formats that keep one) and a cut-down GPT-2 (its first merges,
bytes at GPT-2's own ids, ``<|endoftext|>``). Mutations work on the saved text: bytes, lines, or a JSON
value found by walking the parsed file. :func:`check_outcome` states what every load must end in.
"""

from __future__ import annotations

import copy
import functools
import json
import os
import random
from dataclasses import dataclass
from pathlib import Path

from core.encode.tokenizer import Tokenizer
from core.errors import BPEError
from core.fingerprint import fingerprint
from core.formats import load_tokenizer, save_tokenizer
from core.formats.common import ID_SLACK
from core.model import BPEModel
from tests.core.formats.format_cases import SPECIAL, TEXTS, gpt2_model, train_small

FUZZ_EXAMPLES = int(os.environ.get("BPE_TUI_FUZZ_EXAMPLES", "0")) or None
"""Mutations per seed when set (``BPE_TUI_FUZZ_EXAMPLES=5000``); CI runs each test's own default."""

FILE_NAMES = {"bpe-tui": "tok.json", "gpt2": "gpt2", "hf": "tokenizer.json", "tiktoken": "tok.tiktoken"}
LETTERS_PATTERN = r"\p{L}+|\p{N}+|[^\p{L}\p{N}]+"

ROUND_TRIP_TEXTS = [
    *TEXTS,
    "x" * 300 + " " + "é" * 100,
    "<|endoftext|><|endoftext|> <|endoftext",
    "\t\n \u00a0\u2028 \u3000\n",
]
"""What every model that loads must give back exactly: ``decode(encode(s)) == s``."""


@functools.cache
def small_gpt2() -> BPEModel:
    """GPT-2 cut down to its first 300 merges, ids renumbered densely in GPT-2's order (bytes not at 0-255)."""
    full = gpt2_model()
    merges = full.merges[:300]
    keep = {token for token in full.vocab.values() if len(token) == 1}
    keep |= {left + right for left, right in merges} | {SPECIAL.encode()}
    tokens = [token for _, token in sorted(full.vocab.items()) if token in keep]
    return BPEModel(dict(enumerate(tokens)), merges, [SPECIAL], name="small-gpt2")


def seed_models(fmt: str) -> list[BPEModel]:
    """The valid models a format's fuzzing starts from (custom patterns only where the format keeps one)."""
    models = [train_small(vocab_size=360), small_gpt2()]
    if fmt in ("bpe-tui", "hf"):
        models.append(train_small(pattern=LETTERS_PATTERN, vocab_size=300))
    return models


def seed_count(fmt: str) -> int:
    """How many seeds :func:`seed_files` has for ``fmt``."""
    return len(seed_models(fmt)) + (fmt == "bpe-tui")


@functools.cache
def seed_files(fmt: str, index: int) -> tuple[tuple[str, bytes], ...]:
    """``(file name, content)`` of each file of seed ``index`` saved in ``fmt`` (two files for gpt2).

    bpe-tui has one seed more: the first one without its fingerprint, so that damage to its vocab or
    merges can load (with a fingerprint, nearly every change is a mismatch) and be checked.
    """
    import tempfile

    models = seed_models(fmt)
    model = models[index % len(models)]
    with tempfile.TemporaryDirectory() as folder:
        paths = save_tokenizer(model, Path(folder) / FILE_NAMES[fmt], format=fmt)
        files = tuple((path.name, path.read_bytes()) for path in paths)
    if index >= len(models):
        data = json.loads(files[0][1])
        del data["fingerprint"]
        files = ((files[0][0], json.dumps(data, ensure_ascii=False, indent=1).encode("utf-8")),)
    return files


def write_files(folder: Path, files: tuple[tuple[str, bytes], ...] | list[tuple[str, bytes]]) -> Path:
    """Write the files into ``folder`` and return the one to load."""
    for name, content in files:
        (folder / name).write_bytes(content)
    return folder / files[0][0]


# --------------------------------------------------------------------------------------------- mutations

HOSTILE_VALUES: list[object] = [
    10**30, 2**31, 2**32 + 5, 2**63, 10**18, -1, -(10**30), 0, 1.5, 1e308, 3.0, "", "x", "Ġt", "\ud800", "a\nb",
    None, True, False, [], {}, [[[[[[[[1]]]]]]]], {"Regex": r"\w+"}, {"type": "Whitespace"}, ["a", "b", "c"],
    "HUGE_NUMBER", "NAN", "INFINITY",
]
"""JSON values put in place of a random one: huge, negative, fractional, wrong type, nested, a surrogate.
The three markers become a 5,000-digit number, ``NaN`` and ``Infinity`` in the text (json cannot write them)."""

_MARKERS = {'"HUGE_NUMBER"': "9" * 5000, '"NAN"': "NaN", '"INFINITY"': "-Infinity"}


@dataclass
class Mutation:
    """What was done, for the failure report, and the damaged files."""

    description: str
    files: list[tuple[str, bytes]]


def mutate(rng: random.Random, files: tuple[tuple[str, bytes], ...]) -> Mutation:
    """Damage one of ``files`` in one of many ways, chosen by ``rng``."""
    which = rng.randrange(len(files))
    name, content = files[which]
    kinds = [_byte_mutation, _line_mutation, _truncation]
    if name.endswith(".json"):
        kinds += [_json_mutation] * 3
    kind = rng.choice(kinds)
    description, new = kind(rng, content)
    changed = list(files)
    changed[which] = (name, new)
    return Mutation(f"{name}: {description}", changed)


def _truncation(rng: random.Random, content: bytes) -> tuple[str, bytes]:
    if rng.random() < 0.5:  # at a line boundary, the cut that loads without a JSON error in merges.txt
        ends = [i + 1 for i, byte in enumerate(content) if byte == 10]
        at = rng.choice(ends) if ends else 0
    else:
        at = rng.randrange(len(content) + 1)
    return f"truncated at byte {at}", content[:at]


def _byte_mutation(rng: random.Random, content: bytes) -> tuple[str, bytes]:
    data = bytearray(content)
    steps = []
    for _ in range(rng.randint(1, 4)):
        at = rng.randrange(len(data) + 1)
        action = rng.choice(["flip", "set", "insert", "delete"])
        if action == "flip" and at < len(data):
            data[at] ^= 1 << rng.randrange(8)
        elif action == "set" and at < len(data):
            data[at] = rng.choice([0, 10, 34, 44, 48, 57, 92, 123, 125, 0xC3, 0xFF, rng.randrange(256)])
        elif action == "insert":
            data[at:at] = rng.choice([b"9" * rng.randint(1, 40), b'"', b"\\u", b"\n", b"[", b"}", b"\xe3\x81"])
        else:
            del data[at : at + rng.randint(1, 8)]
        steps.append(f"{action}@{at}")
    return "bytes " + ",".join(steps), bytes(data)


def _line_mutation(rng: random.Random, content: bytes) -> tuple[str, bytes]:
    lines = content.split(b"\n")
    i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
    action = rng.choice(["delete", "duplicate", "swap", "move"])
    if action == "delete":
        del lines[i]
    elif action == "duplicate":
        lines.insert(j, lines[i])
    elif action == "swap":
        lines[i], lines[j] = lines[j], lines[i]
    else:
        lines.insert(j, lines.pop(i))
    return f"line {action} {i} {j}", b"\n".join(lines)


def _json_mutation(rng: random.Random, content: bytes) -> tuple[str, bytes]:
    try:
        data = json.loads(content)
    except ValueError:
        return _byte_mutation(rng, content)
    path, container, key, _ = _random_place(rng, data)
    action = rng.choice(["replace", "replace", "rename", "delete", "swap ids", "duplicate", "insert key"])
    if action == "replace" or container is None:
        # Half the time a value from elsewhere in the file: a token spelled as another, an id reused...
        value = copy.deepcopy(_random_place(rng, data)[3]) if rng.random() < 0.5 else rng.choice(HOSTILE_VALUES)
        if container is None:
            data = value
        else:
            container[key] = value
        description = f"{path} = {value!r:.30}"
    elif action == "rename" and isinstance(container, dict):
        new_key = rng.choice([key + "_", key.upper(), key[:-1], "", "fingerprint", "vocab", "9" * 30, str(2**31)])
        container[new_key] = container.pop(key)
        description = f"rename {path} -> {new_key!r:.30}"
    elif action == "delete":
        del container[key]
        description = f"delete {path}"
    elif action == "swap ids" and isinstance(container, dict) and len(container) > 1:
        other = rng.choice(list(container))
        container[key], container[other] = container[other], container[key]
        description = f"swap {path} with [{other!r:.20}]"
    elif action == "duplicate" and isinstance(container, list):
        container.insert(rng.randrange(len(container) + 1), container[key])
        description = f"duplicate {path}"
    else:
        target = container if isinstance(container, dict) else data if isinstance(data, dict) else {}
        target[rng.choice(["extra", "fingerprint_", "added_tokens", "normalizer", "0", "99999"])] = rng.choice(
            HOSTILE_VALUES
        )
        description = f"insert key near {path}"
    text = json.dumps(data, ensure_ascii=rng.random() < 0.5)
    for marker, literal in _MARKERS.items():
        text = text.replace(marker, literal)
    return description, text.encode("utf-8", errors="surrogatepass")


def _random_place(rng: random.Random, data: object) -> tuple[str, object, object, object]:
    """A random place in parsed JSON: (path for messages, the container holding it, its key or index, its value)."""
    path, container, key = "$", None, None
    node = data
    while isinstance(node, (dict, list)) and node and (container is None or rng.random() < 0.7):
        keys = list(node) if isinstance(node, dict) else list(range(len(node)))
        container, key = node, rng.choice(keys)
        path += f"[{key!r:.20}]"
        node = node[key]  # type: ignore[index]
    return path, container, key, node


# ----------------------------------------------------------------------------------------------- the check


def check_outcome(load, description: str) -> str:
    """Run ``load()`` and check it ends as a loader must: a sound model, or a one-line ``BPEError``.

    A model that loads must give back every text of :data:`ROUND_TRIP_TEXTS`, keep its ids near its size
    (so nothing indexed by id can grow past the file) and keep its fingerprint when saved and loaded
    again. Any other exception propagates, failing the test with ``description``. Returns ``"error"`` or
    ``"loaded"`` for the tally.
    """
    try:
        model = load()
    except BPEError as error:
        message = str(error)
        assert message and "\n" not in message and "\r" not in message, f"{description}: {message!r}"
        return "error"
    assert max(model.vocab) < len(model.vocab) + ID_SLACK, description
    tokenizer = model if isinstance(model, Tokenizer) else Tokenizer.from_model(model)
    for text in ROUND_TRIP_TEXTS:
        assert tokenizer.decode(tokenizer.encode(text)) == text, f"{description}: {text!r}"
    if not isinstance(model, Tokenizer):
        import tempfile

        with tempfile.TemporaryDirectory() as folder:
            for fmt in ("bpe-tui", "hf"):
                saved = save_tokenizer(model, Path(folder) / FILE_NAMES[fmt], format=fmt)[0]
                again = load_tokenizer(saved)
                assert fingerprint(again) == fingerprint(model), f"{description}: {fmt} save changed the model"
    return "loaded"
