"""The case lens: one word as `` word``, ``word``, `` Word`` and ``Word``, four unrelated rows of ids.

To a byte-level BPE model a capital letter or a leading space makes a different token, so the four
forms of one word share nothing the model can see unless it learns they mean the same. Common words get
one id per form; rarer ones break into different pieces in each.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from core.analysis.lenses.encoded import EncodedText, encode_text
from core.encode.tokenizer import Tokenizer
from core.errors import SettingsError


def case_forms(word: str) -> tuple[str, str, str, str]:
    """The four forms the lens compares: lower case and capitalised, each with and without a leading space.

    Only the first letter changes case in the capitalised forms (``"iPhone"`` → ``"IPhone"``), and the
    rest is kept as typed but for the first letter, which is lowered in the lower-case forms.

    >>> case_forms("Hello")
    (' hello', 'hello', ' Hello', 'Hello')
    """
    lower = word[:1].lower() + word[1:]
    upper = word[:1].upper() + word[1:]
    return (" " + lower, lower, " " + upper, upper)


@dataclass(frozen=True, slots=True)
class CaseVariants:
    """The word and its four forms, each encoded.

    Attributes:
        word: the word as given.
        variants: `` word``, ``word``, `` Word``, ``Word``, in that order.
    """

    word: str
    variants: tuple[EncodedText, ...]

    @property
    def form_count(self) -> int:
        """How many different forms the four are: 2 when capitalising the word changes nothing (an emoji,
        ``日本``), where `` Word`` is `` word`` and ``Word`` is ``word``.

        >>> CaseVariants("日本", tuple(EncodedText(t, (), ()) for t in case_forms("日本"))).form_count
        2
        """
        return len({variant.text for variant in self.variants})

    @property
    def distinct_ids(self) -> int:
        """How many different ids the four forms use between them."""
        return len({token_id for variant in self.variants for token_id in variant.ids})

    def to_json(self) -> dict[str, Any]:
        return {"word": self.word, "variants": [variant.to_json() for variant in self.variants]}


def case_variants(tokenizer: Tokenizer, word: str) -> CaseVariants:
    """Encode ``word`` in its four case and space forms.

    Raises:
        SettingsError: ``word`` is empty or holds whitespace (the lens adds the one space itself).

    >>> vocab = {i: bytes([i]) for i in range(256)} | {256: b"ow", 257: b" ow", 258: b"Ow"}
    >>> tok = Tokenizer(vocab, [(b"o", b"w"), (b" ", b"ow"), (b"O", b"w")])
    >>> [(v.text, v.ids) for v in case_variants(tok, "ow").variants]
    [(' ow', (257,)), ('ow', (256,)), (' Ow', (32, 258)), ('Ow', (258,))]
    """
    if not word or any(ch.isspace() for ch in word):
        raise SettingsError(f"give one word without spaces for the case lens, not {word!r:.40}")
    return CaseVariants(word=word, variants=tuple(encode_text(tokenizer, form) for form in case_forms(word)))
