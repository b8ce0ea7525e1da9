"""Hugging Face ``tokenizer.json`` for BPE: what ``tokenizers.Tokenizer.from_file`` reads and writes.

Byte-level BPE uses the ``ByteLevel`` pre-tokenizer and decoder, tokens spelled in GPT-2's byte alphabet.
A character-base tokenizer (:mod:`core.char_base`) is character-level BPE: a ``Split`` pre-tokenizer alone,
tokens spelled as their text, the 256 byte tokens as ``<0xXX>`` and ``byte_fallback`` on (so a character
without a token becomes its bytes, as here), and a ``ByteFallback`` + ``Fuse`` decoder. Its merges are
written as ``["left", "right"]`` pairs, since its tokens may hold spaces (``tokenizers`` 0.20 and later).

Only files that encode exactly as our BPE would are accepted; anything that would change the ids
(a prefix space, BPE dropout, subword prefixes, a non-byte-level vocab, an added token with ``lstrip``, ``rstrip``
or ``single_word``) is refused with the option named, rather than loaded and encoding otherwise. A normalizer
is accepted when it is one of Unicode's normal forms alone (Qwen2's ``NFC``; see :mod:`core.encode.normalizer`)
and no added token is ``normalized``; an empty ``Sequence`` of them changes nothing and loads. ``ignore_merges``
(Llama 3 sets it) is accepted when it changes nothing: when merging each token's own bytes gives that token
back. Post-processors (BOS/EOS templates) are ignored: they add ids around the text, not how it is split.

Every entry of ``added_tokens`` becomes a special token: Hugging Face matches added tokens in the text before
pre-tokenisation and never splits them, which is what a special token does here; those not ``special`` there
are kept as :attr:`~core.model.BPEModel.plain_added_tokens`. One with ``lstrip``, ``rstrip`` or ``single_word``
(RoBERTa's ``<mask>``) is refused: Hugging Face gives `` <mask>`` one id, a special token leaves the space to BPE.

We write merges as ``"left right"`` strings, the spelling every ``tokenizers`` version reads, and read
both that and the ``["left", "right"]`` pairs newer versions write.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from core.formats.byte_alphabet import decode_bytes, encode_bytes
from core.errors import SettingsError, TokenizerFileError
from core.formats.common import checked_model, utf8
from core.formats.hf_checks import added_token, check_decoder, check_merges_make_whole_tokens, normal_form
from core.formats.hf_checks import refuse_contested_added_tokens, refuse_empty_matches, refuse_normalized_added_tokens
from core.formats.onig_regex import onig_pattern, python_pattern
from core.pretokenize.coverage import pattern_problem
from core.atomic import atomic_write_text
from core.model import BYTE_BASE, CHAR_BASE, BPEModel
from core.pretokenize.patterns import GPT2_PATTERN

WHOLE_TEXT_PATTERN = r"[\s\S]+"
"""ByteLevel with ``use_regex: false`` and no Split: the whole text between added tokens is one pre-token."""


def from_json(data: dict[str, Any], path: Path) -> BPEModel:
    """Build a model from a parsed tokenizer.json, refusing options that would change the ids.

    >>> from core.model import BYTE_BASE, CHAR_BASE, BPEModel
    >>> model = BPEModel({i: bytes([i]) for i in range(256)} | {256: b"ab"}, [(b"a", b"b")])
    >>> from_json(to_json(model), Path("tokenizer.json")).merges
    [(b'a', b'b')]
    """
    model = data.get("model")
    if not isinstance(model, dict):
        raise TokenizerFileError(f"{path}: 'model' must be an object; not a tokenizer.json")
    kind = _type_of(model) if "type" in model else "BPE"
    if kind != "BPE":
        raise TokenizerFileError(f"{path}: is a {kind} tokenizer; only byte-level BPE is supported")
    char_base = _is_character_level(data.get("pre_tokenizer"), data.get("decoder"))
    if char_base and not model.get("byte_fallback"):
        raise TokenizerFileError(
            f"{path}: character-level BPE without byte_fallback maps unknown characters to <unk>, which bpe-tui "
            "does not reproduce; only character-level BPE with byte_fallback=true is supported"
        )
    _refuse_options(model, path, char_base)
    check_decoder(data.get("decoder"), path, char_base)
    normalizer = normal_form(data.get("normalizer"), path)
    pattern = _split_pattern(data["pre_tokenizer"], path) if char_base else _pattern(data.get("pre_tokenizer"), path)

    vocab, unspelled = _vocab(model.get("vocab"), path, char_base)
    specials: dict[str, bool] = {}  # text -> special, in file order; a dict, as a file may add tens of thousands
    added_tokens = data.get("added_tokens")
    if added_tokens is not None and not isinstance(added_tokens, list):
        raise TokenizerFileError(f"{path}: 'added_tokens' must be an array of {{'id': ..., 'content': ...}} objects")
    # An added token's entry in model.vocab spells its text as is, which may hold characters of the byte
    # alphabet ('<é>' read as b"<\xe9>"): the text is what Hugging Face matches, so it replaces that reading.
    respelled: dict[bytes, str] = {}
    id_of = {token: token_id for token_id, token in vocab.items()}
    for index, added in enumerate(added_tokens or []):
        token_id, content = added_token(added, index, path)
        if char_base and _byte_fallback_byte(content) is not None:
            raise TokenizerFileError(
                f"{path}: added_tokens[{index}] {content!r} is a byte-fallback token and an added token, so Hugging "
                f"Face also matches the text {content!r} as that byte; bpe-tui's character-level BPE keeps byte tokens "
                "out of added_tokens: not supported"
            )
        existing = vocab.get(token_id)
        text = utf8(content, path, f"added_tokens[{index}]")
        if id_of.get(text, token_id) != token_id:
            raise TokenizerFileError(
                f"{path}: added_tokens[{index}] {content!r:.40} (id {token_id}) has the text of model.vocab token "
                f"{encode_bytes(text)!r:.40} (id {id_of[text]}); bpe-tui gives each text one id, so it cannot hold both"
            )
        if existing is not None and existing != text:
            if model["vocab"].get(content) != token_id:
                raise TokenizerFileError(
                    f"{path}: added_tokens[{index}] {content!r} has id {token_id}, which the vocab gives to "
                    f"{encode_bytes(existing)!r}"
                )
            respelled[existing] = content
        vocab[token_id] = text
        specials.setdefault(content, bool(added.get("special")))
    refuse_contested_added_tokens(added_tokens or [], path)
    refuse_normalized_added_tokens(added_tokens or [], normalizer, path)
    stray = [token for token in unspelled if token not in specials]
    if stray:
        raise TokenizerFileError(
            f"{path}: vocab token {stray[0]!r} is not in GPT-2's byte alphabet; only byte-level BPE is supported"
        )
    merges = _merges(model.get("merges"), path, char_base)
    for left, right in merges:
        if left + right in respelled:
            content = respelled[left + right]
            raise TokenizerFileError(
                f"{path}: added token {content!r} is also the vocab token that merge {encode_bytes(left)!r} + "
                f"{encode_bytes(right)!r} makes ({left + right!r:.40}); bpe-tui gives each text one token: rename one"
            )
    loaded = checked_model(
        path,
        vocab,
        merges,
        where=lambda rank: f"model.merges[{rank}]",
        special_tokens=list(specials),
        pattern=pattern,
        vocab_label="model.vocab",
        merges_label="model.merges",
        base=CHAR_BASE if char_base else BYTE_BASE,
        normalizer=normalizer,
        plain_added_tokens=tuple(content for content, special in specials.items() if not special),
    )
    spelled_ids = model["vocab"]  # a dict: _vocab checked it
    for index, added in enumerate(added_tokens or []):
        spelled_id = spelled_ids.get(added["content"])
        if spelled_id is not None and spelled_id != added["id"]:  # tokenizers takes the id model.vocab gives
            raise TokenizerFileError(
                f"{path}: added_tokens[{index}] {added['content']!r} has id {added['id']}, but {added['content']!r} "
                f"is model.vocab's spelling of token {spelled_id}, and tokenizers reads it as that token; give "
                "them one id"
            )
    if model.get("ignore_merges"):
        check_merges_make_whole_tokens(loaded, path)
    return loaded


def _is_character_level(pre_tokenizer: Any, decoder: Any) -> bool:
    """Whether a file is character-level BPE as bpe-tui writes it: a lone ``Split`` pre-tokenizer (no
    ``ByteLevel`` step) and a decoder without ``ByteLevel``."""
    if _type_of(pre_tokenizer) != "Split":
        return False
    steps = decoder.get("decoders") if _type_of(decoder) == "Sequence" else [decoder]
    return isinstance(steps, list) and "ByteLevel" not in [_type_of(step) for step in steps]


def _byte_fallback_byte(spelled: str) -> int | None:
    """The byte a ``<0xXX>`` token stands for, or ``None`` for any other spelling.

    >>> _byte_fallback_byte("<0xE3>"), _byte_fallback_byte("<0xe3>"), _byte_fallback_byte("a")
    (227, None, None)
    """
    if len(spelled) == 6 and spelled.startswith("<0x") and spelled.endswith(">"):
        digits = spelled[3:5]
        if all(c in "0123456789ABCDEF" for c in digits):
            return int(digits, 16)
    return None


def _spell_char_token(token: bytes) -> str:
    """A character-base token as ``tokenizer.json`` spells it: its text, or ``<0xXX>`` for a byte that is
    no character by itself (byte fallback)."""
    if len(token) == 1 and token[0] >= 0x80:
        return f"<0x{token[0]:02X}>"
    return token.decode("utf-8")


def _type_of(component: Any) -> str:
    """A component's ``type`` for messages: a short printable name, else the ``repr`` of what is there."""
    if not isinstance(component, dict):
        return type(component).__name__
    kind = component.get("type", "unknown")
    return kind if isinstance(kind, str) and kind.isprintable() and len(kind) <= 40 else f"{kind!r:.40}"


def _refuse_options(model: dict[str, Any], path: Path, char_base: bool = False) -> None:
    """Refuse the model options that change the ids. ``byte_fallback`` is not one of them: it spells a character
    missing from the vocab as ``<0xXX>`` tokens, and a byte-level vocab holds every character of its alphabet
    (the loader checks), as the character base holds every byte."""
    refused = {
        "dropout": lambda v: v not in (None, 0, 0.0),
        "continuing_subword_prefix": lambda v: bool(v),
        "end_of_word_suffix": lambda v: bool(v),
        "ignore_merges": lambda v: bool(v) and char_base,
    }
    for option, is_set in refused.items():
        if is_set(model.get(option)):
            raise TokenizerFileError(
                f"{path}: model option {option}={model[option]!r:.40} changes encoding in a way bpe-tui does not "
                "reproduce; only plain byte-level BPE is supported"
            )


def _byte_level(step: dict[str, Any], path: Path) -> bool:
    """Check a ByteLevel pre-tokenizer; return whether it splits with GPT-2's regex itself."""
    if step.get("add_prefix_space"):
        raise TokenizerFileError(
            f"{path}: ByteLevel add_prefix_space=true is not supported (it changes the first token); set it to false"
        )
    return bool(step.get("use_regex", True))


def _split_pattern(split: dict[str, Any], path: Path) -> str:
    """The regex of a ``Split`` pre-tokenizer, refusing behaviours other than isolating each match."""
    regex_source = split.get("pattern", {}).get("Regex") if isinstance(split.get("pattern"), dict) else None
    if not isinstance(regex_source, str):
        raise TokenizerFileError(f"{path}: Split pre-tokenizer needs a {{'Regex': ...}} pattern")
    if split.get("behavior", "Isolated") != "Isolated" or split.get("invert"):
        raise TokenizerFileError(
            f"{path}: Split behavior {split.get('behavior')!r:.40} (invert={split.get('invert')!r:.20}) "
            "is not supported; only Isolated without invert"
        )
    where = f"{path}: Split pattern {regex_source!r:.60}"
    pattern = python_pattern(regex_source, where)
    if pattern_problem(pattern) is not None:
        # "Isolated" keeps the text between matches as pieces too (BLOOM's leaves out spaces): a branch takes them.
        between = f"(?:{pattern})|(?:(?!(?:{pattern}))[\\s\\S])+"
        pattern = between if pattern_problem(between) is None else pattern
    return refuse_empty_matches(pattern, where)


def _pattern(pre_tokenizer: Any, path: Path) -> str:
    steps = _type_of(pre_tokenizer) == "Sequence" and pre_tokenizer.get("pretokenizers")
    if not isinstance(steps, list):
        steps = [pre_tokenizer]
    kinds = [_type_of(step) for step in steps]
    if kinds == ["ByteLevel"]:
        return GPT2_PATTERN if _byte_level(steps[0], path) else WHOLE_TEXT_PATTERN
    if kinds == ["Split", "ByteLevel"]:
        split, byte_level = steps
        regex_source = _split_pattern(split, path)
        if _byte_level(byte_level, path):
            raise TokenizerFileError(f"{path}: Split followed by ByteLevel use_regex=true splits twice; not supported")
        return regex_source
    shown = " + ".join(kinds) if pre_tokenizer is not None else "none"
    raise TokenizerFileError(
        f"{path}: pre-tokenizer {shown} is not byte-level BPE; supported: ByteLevel, or Split(Regex) + ByteLevel"
    )


def _vocab(data: Any, path: Path, char_base: bool = False) -> tuple[dict[int, bytes], list[str]]:
    """``model.vocab`` -> (id -> bytes, spellings outside the byte alphabet, taken as UTF-8 text).

    Such a spelling cannot come from byte-level BPE; it is fine only for an added token, which the
    caller checks. For character-level BPE every spelling is text, except ``<0xXX>`` for a byte.
    """
    if not isinstance(data, dict):
        raise TokenizerFileError(f"{path}: 'model.vocab' must be an object of token -> id")
    vocab: dict[int, bytes] = {}
    owner: dict[int, str] = {}
    unspelled: list[str] = []
    for spelled, token_id in data.items():
        if type(token_id) is not int or token_id < 0:
            raise TokenizerFileError(
                f"{path}: model.vocab: id of {spelled[:40]!r} is {token_id!r:.40}; ids are integers >= 0"
            )
        if token_id in owner:
            raise TokenizerFileError(
                f"{path}: model.vocab: id {token_id} is used by both {owner[token_id]!r} and {spelled!r}"
            )
        owner[token_id] = spelled
        if char_base:
            byte = _byte_fallback_byte(spelled)
            vocab[token_id] = bytes([byte]) if byte is not None else utf8(spelled, path, "model.vocab token")
            continue
        try:
            vocab[token_id] = decode_bytes(spelled)
        except KeyError:
            vocab[token_id] = utf8(spelled, path, "model.vocab token")
            unspelled.append(spelled)
    return vocab, unspelled


def _merges(raw: Any, path: Path, char_base: bool = False) -> list[tuple[bytes, bytes]]:
    if not isinstance(raw, list):
        raise TokenizerFileError(f"{path}: 'model.merges' must be an array")
    merges: list[tuple[bytes, bytes]] = []
    for rank, entry in enumerate(raw):
        parts = entry.split(" ") if isinstance(entry, str) else entry
        if not (isinstance(parts, list) and len(parts) == 2 and all(isinstance(p, str) and p for p in parts)):
            raise TokenizerFileError(
                f"{path}: model.merges[{rank}] is {str(entry)[:60]!r}; expected \"left right\" or [\"left\", \"right\"]"
            )
        if char_base:
            merges.append((utf8(parts[0], path, f"model.merges[{rank}]"), utf8(parts[1], path, f"model.merges[{rank}]")))
            continue
        try:
            merges.append((decode_bytes(parts[0]), decode_bytes(parts[1])))
        except KeyError as error:
            raise TokenizerFileError(
                f"{path}: model.merges[{rank}]: character {error.args[0]!r} is not in GPT-2's byte alphabet"
            ) from None
    return merges


def to_json(model: BPEModel) -> dict[str, Any]:
    """A tokenizer.json for ``model`` that Hugging Face ``tokenizers`` loads and encodes identically with.

    >>> from core.model import BYTE_BASE, CHAR_BASE, BPEModel
    >>> data = to_json(BPEModel({i: bytes([i]) for i in range(256)} | {256: b"<s>"}, [], special_tokens=["<s>"]))
    >>> data["added_tokens"][0]["content"], data["pre_tokenizer"]["pretokenizers"][0]["behavior"]
    ('<s>', 'Isolated')

    The split pattern is spelled for Oniguruma (:func:`core.formats.onig_regex.onig_pattern`).

    Raises:
        SettingsError: a pattern Oniguruma would read otherwise, or a character-base vocab it cannot spell.
    """
    ids = {token: token_id for token_id, token in model.vocab.items()}
    added = [
        {
            "id": ids[special.encode("utf-8")],
            "content": special,
            "single_word": False, "lstrip": False, "rstrip": False,  # found where bpe-tui finds a special token
            "normalized": False,
            "special": special not in model.plain_added_tokens,
        }
        for special in sorted(model.special_tokens, key=lambda s: ids[s.encode("utf-8")])
    ]
    onig = onig_pattern(model.pattern, model.name or "this tokenizer")
    split = {"type": "Split", "pattern": {"Regex": onig}, "behavior": "Isolated", "invert": False}
    if model.base == CHAR_BASE:
        vocab = _character_vocab(model)
        return _document(
            added,
            normalizer=model.normalizer,
            pre_tokenizer=split,
            decoder={"type": "Sequence", "decoders": [{"type": "ByteFallback"}, {"type": "Fuse"}]},
            vocab=vocab,
            merges=[[left.decode("utf-8"), right.decode("utf-8")] for left, right in model.merges],
            byte_fallback=True,
        )
    vocab = _byte_level_vocab(model, ids)
    return _document(
        added,
        normalizer=model.normalizer,
        pre_tokenizer={
            "type": "Sequence",
            "pretokenizers": [
                split,
                {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": False},
            ],
        },
        decoder={"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True},
        vocab=vocab,
        merges=[f"{encode_bytes(left)} {encode_bytes(right)}" for left, right in model.merges],
        byte_fallback=False,
    )


def _byte_level_vocab(model: BPEModel, ids: dict[bytes, int]) -> dict[str, int]:
    """``model.vocab`` as tokenizer.json spells it: tokens in GPT-2's byte alphabet, special tokens as their text.

    ``tokenizers`` finds an added token in ``model.vocab`` by its text and gives it the id found there: the
    special token ``<|é|>`` spelled ``<|Ã©|>`` was given a new id, 268 for 257. A special token whose text
    is how another token is spelled (``Ġ``, the space) would be read as that token, and is refused.

    Raises:
        SettingsError: a special token's text is the spelling of another token.
    """
    specials = {ids[special.encode("utf-8")]: special for special in model.special_tokens}
    vocab: dict[str, int] = {}
    for token_id, token in sorted(model.vocab.items()):
        spelled = specials.get(token_id) or encode_bytes(token)
        other = vocab.get(spelled)
        if other is not None:
            special_id, other_id = (token_id, other) if token_id in specials else (other, token_id)
            raise SettingsError(
                f"cannot save {model.name or 'this tokenizer'} as tokenizer.json: special token "
                f"{specials[special_id]!r} is how its vocab spells token {other_id}, and tokenizers would read it "
                "as that token; save as bpe-tui instead"
            )
        vocab[spelled] = token_id
    return vocab


def _document(
    added: list[dict[str, Any]],
    *,
    normalizer: str | None,
    pre_tokenizer: dict[str, Any],
    decoder: dict[str, Any],
    vocab: dict[str, int],
    merges: list[Any],
    byte_fallback: bool,
) -> dict[str, Any]:
    """A whole tokenizer.json around a BPE model: its normalizer if it has one, no post-processor, no dropout."""
    return {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": added,
        "normalizer": {"type": normalizer} if normalizer is not None else None,
        "pre_tokenizer": pre_tokenizer,
        "post_processor": None,
        "decoder": decoder,
        "model": {
            "type": "BPE",
            "dropout": None,
            "unk_token": None,
            "continuing_subword_prefix": None,
            "end_of_word_suffix": None,
            "fuse_unk": False,
            "byte_fallback": byte_fallback,
            "ignore_merges": False,
            "vocab": vocab,
            "merges": merges,
        },
    }


def _character_vocab(model: BPEModel) -> dict[str, int]:
    """A character-base model's vocab as tokenizer.json spells it (see :func:`_spell_char_token`).

    Raises:
        SettingsError: a token is not text, or two tokens would be spelled alike (the text ``<0x80>``, say).
    """
    vocab: dict[str, int] = {}
    for token_id, token in sorted(model.vocab.items()):
        try:
            spelled = _spell_char_token(token)
        except UnicodeDecodeError:
            raise SettingsError(
                f"cannot save {model.name or 'this tokenizer'} as tokenizer.json: token {token_id} ({token!r:.40}) "
                "is not text, which a character-base tokenizer cannot hold"
            ) from None
        if spelled in vocab:
            raise SettingsError(
                f"cannot save {model.name or 'this tokenizer'} as tokenizer.json: tokens {vocab[spelled]} and "
                f"{token_id} would both be spelled {spelled!r}; save as bpe-tui instead"
            )
        vocab[spelled] = token_id
    return vocab


def write(model: BPEModel, path: Path) -> list[Path]:
    """Save ``model`` as ``path`` (or ``path/tokenizer.json`` when ``path`` is a directory), atomically."""
    target = path / "tokenizer.json" if path.is_dir() else path
    return [atomic_write_text(target, json.dumps(to_json(model), ensure_ascii=False, indent=2) + "\n")]
