"""What a Hugging Face ``tokenizer.json`` must satisfy, beyond its shape, to encode here as it does there.

:mod:`core.formats.huggingface` reads the file; the checks here refuse, with one line naming the cause,
what would load and then encode otherwise: added tokens that Hugging Face finds in other places than a
special token is found here (``lstrip``, ``rstrip``, ``single_word``, or a ``normalized`` one overlapping
one that is not, or a ``normalized`` one under a normalizer), ``ignore_merges`` where it would change the ids, a ``Split`` pattern that matches empty
text, and a decoder that makes Hugging Face's ``decode`` give other text than the tokens' bytes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import regex

from core.encode.merge_loops import SMALL_LIMIT, merge_heap, merge_small
from core.encode.normalizer import FORMS
from core.errors import TokenizerFileError
from core.formats.common import show_token
from core.pretokenize.coverage import empty_match, pattern_problem
from core.model import BPEModel


_MATCHING_OPTIONS = {
    "lstrip": "it takes in the whitespace before it",
    "rstrip": "it takes in the whitespace after it",
    "single_word": "it matches only outside words",
}
"""Options of an added token that change where Hugging Face finds it in the text, and what each does."""


CONTESTED_LIMIT = 1000
"""The longest added tokens :func:`refuse_contested_added_tokens` compares, in characters."""


def refuse_contested_added_tokens(added_tokens: list[dict[str, Any]], path: Path) -> None:
    """Refuse a ``normalized`` added token that can take the place of a token that is not.

    Hugging Face finds the added tokens with ``normalized: false`` first, then the others in the text left
    between them; bpe-tui finds all at once, leftmost and longest first. The two agree unless a normalized
    token holds a non-normalized one (``a<s>b`` around ``<s>``) or starts one (``a<s`` before ``<s>``):
    in ``a<s>`` Hugging Face finds ``<s>`` and bpe-tui ``a<s``.

    Tokens longer than :data:`CONTESTED_LIMIT` characters are not compared (the search would take time
    quadratic in their length); no real tokenizer has such added tokens.
    """
    short = [added for added in added_tokens if len(added["content"]) <= CONTESTED_LIMIT]
    first = {added["content"] for added in short if not added.get("normalized", not added.get("special"))}
    later = {added["content"] for added in short if added.get("normalized", not added.get("special"))} - first
    if not first or not later:
        return
    # Leftmost-longest, as Hugging Face looks for them; a partial match runs into the end of the text.
    finder = regex.compile("|".join(regex.escape(content) for content in sorted(first, key=len, reverse=True)))
    for normalized in sorted(later):
        inside = finder.search(normalized)
        across = finder.search(normalized, 1, partial=True)
        if inside is None and (across is None or across.start() == across.end()):
            continue
        other = inside.group() if inside else min(c for c in first if c.startswith(across.group()))
        raise TokenizerFileError(
            f"{path}: added token {normalized!r:.40} (normalized) overlaps {other!r:.40} (not normalized), which "
            "Hugging Face looks for first and bpe-tui does not; not supported"
        )


def normal_form(normalizer: Any, path: Path) -> str | None:
    """The normal form a ``normalizer`` puts text in, or ``None`` for no normalizer; any other is refused.

    Accepted: one of :data:`~core.encode.normalizer.FORMS` (Qwen2's ``{"type": "NFC"}``), alone or as the one
    step of a ``Sequence``; an empty ``Sequence`` changes nothing.
    """
    is_sequence = isinstance(normalizer, dict) and normalizer.get("type") == "Sequence"
    steps = normalizer.get("normalizers") if is_sequence else [normalizer]
    if normalizer is None or steps == []:
        return None
    if isinstance(steps, list) and len(steps) == 1 and isinstance(steps[0], dict) and steps[0].get("type") in FORMS:
        return steps[0]["type"]  # other keys beside the type are ignored by tokenizers too
    kinds = [str(step.get("type"))[:40] if isinstance(step, dict) else type(step).__name__ for step in steps or []]
    raise TokenizerFileError(
        f"{path}: has a {' + '.join(kinds) or 'Sequence'} normalizer, which bpe-tui cannot reproduce; only "
        f"{', '.join(FORMS)} or none is supported"
    )


def refuse_normalized_added_tokens(added_tokens: list[dict[str, Any]], form: str | None, path: Path) -> None:
    """Refuse an added token marked ``normalized`` in a file with a normalizer (``form``; ``None``: none).

    Hugging Face looks for such a token in the normalized text, where bpe-tui looks for every added token in
    the text as given, and normalization can make or unmake one: with NFC, ``<a`` is not in ``<a`` + U+0301
    (that is ``<á``), and the token ``OK`` is in ``O`` + U+212A KELVIN SIGN (made ``OK``). Qwen2's added
    tokens are all ``normalized: false``.
    """
    for index, added in enumerate(added_tokens if form is not None else []):
        if added.get("normalized", not added.get("special")):
            raise TokenizerFileError(
                f"{path}: added_tokens[{index}] {added['content'][:40]!r} is normalized: Hugging Face looks for it "
                f"after the {form} normalizer, bpe-tui before; set \"normalized\": false to load it"
            )


def added_token(added: Any, index: int, path: Path) -> tuple[int, str]:
    """The id and text of ``added_tokens[index]``, refused when malformed or when it matches as bpe-tui cannot."""
    if not isinstance(added, dict) or type(added.get("id")) is not int or not isinstance(added.get("content"), str):
        raise TokenizerFileError(f"{path}: added_tokens[{index}] needs an integer 'id' and a string 'content'")
    if added["id"] < 0 or not added["content"]:
        raise TokenizerFileError(f"{path}: added_tokens[{index}] has a negative id or empty content")
    matching = [option for option in _MATCHING_OPTIONS if added.get(option)]
    if matching:
        raise TokenizerFileError(
            f"{path}: added_tokens[{index}] {added['content'][:40]!r} has {matching[0]}=true ({_MATCHING_OPTIONS[matching[0]]}), "
            f"which bpe-tui does not reproduce; set it to false to load the token as a plain special token"
        )
    return added["id"], added["content"]


def check_merges_make_whole_tokens(model: BPEModel, path: Path) -> None:
    """Refuse ``ignore_merges`` unless it changes nothing: merging each token's own bytes must give that token.

    With ``ignore_merges`` Hugging Face emits a pre-token that is in the vocab as that one token, without
    merging. Our BPE merges every pre-token, which gives the same id exactly when the merges rebuild every
    token from its bytes (true of vocabs converted from tiktoken ranks, such as Llama 3's).
    """
    ids = {token: token_id for token_id, token in model.vocab.items()}
    pair_ranks = {(ids[left], ids[right]): rank for rank, (left, right) in enumerate(model.merges)}
    merged_ids = [ids[left + right] for left, right in model.merges]
    specials = {special.encode("utf-8") for special in model.special_tokens}
    for token, token_id in ids.items():
        if len(token) < 2 or token in specials:
            continue
        start = [ids[token[i : i + 1]] for i in range(len(token))]
        merge = merge_small if len(start) <= SMALL_LIMIT else merge_heap
        parts = merge(start, pair_ranks, merged_ids)
        if parts != [token_id]:
            raise TokenizerFileError(
                f"{path}: model option ignore_merges=true emits token {show_token(token)} (id {token_id}) whole, "
                f"where its merges make {len(parts)} tokens; bpe-tui always merges, so it would encode differently: "
                "only tokenizers whose merges rebuild every token are supported"
            )


_DECODERS = {False: (["ByteLevel"],), True: (["ByteFallback"], ["ByteFallback", "Fuse"])}
"""The decoder steps that give back the tokens' bytes as text, for byte-level and for character-level BPE."""


def check_decoder(decoder: Any, path: Path, char_base: bool) -> None:
    """Refuse a decoder whose text is not the tokens' bytes, which is what bpe-tui decodes to.

    ``ByteLevel`` (byte-level BPE) and ``ByteFallback`` + ``Fuse`` (character-level) give the bytes back; a
    ``Strip``, ``Replace`` or ``Metaspace`` step changes the text (``Strip`` takes a leading space off), so
    ``decode`` would differ while the ids agree. No decoder at all is accepted: Hugging Face then joins the
    tokens' spellings with spaces (``ĠHello Ġworld``), which is no decoding to reproduce.
    """
    if decoder is None:
        return
    is_sequence = isinstance(decoder, dict) and decoder.get("type") == "Sequence"
    steps = decoder.get("decoders") if is_sequence else [decoder]
    kinds = [str(step.get("type"))[:40] if isinstance(step, dict) else type(step).__name__ for step in steps or []]
    if kinds in _DECODERS[char_base]:
        return
    expected = " or ".join(" + ".join(steps) for steps in _DECODERS[char_base])
    raise TokenizerFileError(
        f"{path}: decoder {' + '.join(kinds) or 'an empty Sequence'} makes Hugging Face decode to other text than the "
        f"tokens' bytes, which bpe-tui decodes to; only {expected} (or no decoder) is supported"
    )


def refuse_empty_matches(pattern: str, where: str) -> str:
    """``pattern``, a ``Split`` pattern as read here, refused if it matches empty text; ``where`` names it.

    After an empty match Hugging Face's split goes on one character later, so that character becomes a piece
    of its own (``\\p{N}*|\\s+|.`` splits two spaces in two); ``findall`` tries the other alternatives at the
    same place and takes both. Patterns that lose text are left to the loaders' coverage check.
    """
    if pattern_problem(pattern) is None and (text := empty_match(pattern)) is not None:
        raise TokenizerFileError(
            f"{where} matches empty text (in {text[:20]!r}), after which Hugging Face makes the next character a "
            "piece of its own and bpe-tui does not; make each alternative take at least one character"
        )
    return pattern
