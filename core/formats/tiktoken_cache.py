"""OpenAI's reference encodings (``cl100k_base``, ``o200k_base``) read from tiktoken's download cache.

bpe-tui never downloads them: a name is offered only when tiktoken is installed and its cache already
holds the encoding's rank file (tiktoken fetches it the first time ``tiktoken.get_encoding(name)`` runs).
The cache is found as tiktoken finds it: ``$TIKTOKEN_CACHE_DIR``, else ``$DATA_GYM_CACHE_DIR``, else
``data-gym-cache`` in the system's temporary folder; an empty variable turns caching off. A cached file
is named by the SHA-1 of its URL and must have the SHA-256 OpenAI publishes (tiktoken checks it too).
The rank files hold no split pattern and no special tokens; tiktoken declares them in code, and so does
the table below (facts about the encodings, not code of tiktoken's).
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from core.errors import TokenizerFileError
from core.formats.common import checked_model
from core.formats.tiktoken_ranks import from_text
from core.model import BPEModel
from core.pretokenize.patterns import CL100K_PATTERN, O200K_PATTERN

_BLOB = "https://openaipublic.blob.core.windows.net/encodings/"


@dataclass(frozen=True)
class ReferenceEncoding:
    """Where tiktoken fetches an encoding's rank file from, its published SHA-256, its pattern and specials."""

    name: str
    url: str
    sha256: str
    pattern: str
    special_tokens: dict[str, int]


REFERENCE_ENCODINGS: dict[str, ReferenceEncoding] = {
    "cl100k_base": ReferenceEncoding(
        name="cl100k_base",
        url=_BLOB + "cl100k_base.tiktoken",
        sha256="223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
        pattern=CL100K_PATTERN,
        special_tokens={
            "<|endoftext|>": 100257,
            "<|fim_prefix|>": 100258,
            "<|fim_middle|>": 100259,
            "<|fim_suffix|>": 100260,
            "<|endofprompt|>": 100276,
        },
    ),
    "o200k_base": ReferenceEncoding(
        name="o200k_base",
        url=_BLOB + "o200k_base.tiktoken",
        sha256="446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
        pattern=O200K_PATTERN,
        special_tokens={"<|endoftext|>": 199999, "<|endofprompt|>": 200018},
    ),
}
"""The encodings offered by name, in the order they are listed."""


def tiktoken_cache_dir(environ: Mapping[str, str] | None = None) -> Path | None:
    """The folder tiktoken caches downloads in, or ``None`` when caching is turned off (an empty variable).

    >>> str(tiktoken_cache_dir({"TIKTOKEN_CACHE_DIR": "/data/tik", "DATA_GYM_CACHE_DIR": "/other"}))
    '/data/tik'
    >>> tiktoken_cache_dir({"TIKTOKEN_CACHE_DIR": ""}) is None
    True
    """
    env = os.environ if environ is None else environ
    if "TIKTOKEN_CACHE_DIR" in env:
        folder = env["TIKTOKEN_CACHE_DIR"]
    elif "DATA_GYM_CACHE_DIR" in env:
        folder = env["DATA_GYM_CACHE_DIR"]
    else:
        folder = os.path.join(tempfile.gettempdir(), "data-gym-cache")
    return Path(folder) if folder else None


def cached_path(name: str, environ: Mapping[str, str] | None = None) -> Path | None:
    """Where tiktoken keeps ``name``'s rank file, if it is there (not checked against its hash here)."""
    folder = tiktoken_cache_dir(environ)
    if folder is None or name not in REFERENCE_ENCODINGS:
        return None
    path = folder / hashlib.sha1(REFERENCE_ENCODINGS[name].url.encode()).hexdigest()
    return path if path.is_file() else None


def cached_reference_names(environ: Mapping[str, str] | None = None) -> list[str]:
    """The reference encodings that can be loaded now: tiktoken is installed and has their file cached."""
    if importlib.util.find_spec("tiktoken") is None:
        return []
    return [name for name in REFERENCE_ENCODINGS if cached_path(name, environ) is not None]


def load_reference(name: str, environ: Mapping[str, str] | None = None) -> BPEModel:
    """Build ``name`` (``"cl100k_base"``, ``"o200k_base"``) from tiktoken's cache, with its pattern and specials.

    Raises:
        TokenizerFileError: an unknown name, a file not in the cache (bpe-tui never downloads it), or a
            cached file whose SHA-256 is not the published one.
    """
    reference = REFERENCE_ENCODINGS.get(name)
    if reference is None:
        names = ", ".join(REFERENCE_ENCODINGS)
        raise TokenizerFileError(f"no reference tokenizer named {name!r}: choose one of {names}")
    path = cached_path(name, environ)
    if path is None:
        folder = tiktoken_cache_dir(environ)
        raise TokenizerFileError(
            f"{name} is not in tiktoken's cache ({folder or 'caching is off'}); bpe-tui never downloads it: "
            f"run python -c \"import tiktoken; tiktoken.get_encoding('{name}')\" once, then try again"
        )
    data = path.read_bytes()
    if hashlib.sha256(data).hexdigest() != reference.sha256:
        raise TokenizerFileError(
            f"{path}: tiktoken's cached {name} does not have the published SHA-256; delete it and let tiktoken "
            "fetch it again"
        )
    return reference_model(reference, data.decode("ascii"), path)


def reference_of(data: bytes) -> ReferenceEncoding | None:
    """The reference encoding whose published rank file ``data`` is (told by its SHA-256), if any.

    >>> reference_of(b"IQ== 0\\n") is None
    True
    """
    digest = hashlib.sha256(data).hexdigest()
    return next((reference for reference in REFERENCE_ENCODINGS.values() if reference.sha256 == digest), None)


def reference_model(reference: ReferenceEncoding, text: str, path: Path) -> BPEModel:
    """``reference`` built from the text of its rank file (read from ``path``), with its pattern and specials."""
    ranks = from_text(text, path)
    vocab = dict(ranks.vocab)
    for special, token_id in reference.special_tokens.items():
        vocab[token_id] = special.encode("utf-8")
    model = checked_model(
        path,
        vocab,
        ranks.merges,
        where=lambda rank: f"rank {rank + 256}",
        special_tokens=list(reference.special_tokens),
        pattern=reference.pattern,
    )
    return replace(model, name=reference.name)
