"""A ``tokenizer.json`` split regex as Python's ``regex`` module must read it to split text as Hugging Face does,
and the other way round for the files bpe-tui writes (:func:`onig_pattern`).

``tokenizers`` compiles a ``Split`` pattern with Oniguruma in Ruby syntax, where some spellings mean
something else than in ``regex``:

* ``^`` and ``$`` are always line anchors (``regex`` needs ``(?m)`` for that): ``[a-z]+$`` takes ``ab`` in
  ``"ab\\ncd"`` there. They become ``(?<![^\\n])`` and ``(?=\\n|\\z)``, which mean the same in both engines
  (so a file bpe-tui writes back splits alike). ``$`` right after ``\\s++`` or ``\\s*+`` stays as it is:
  nothing but the end of the text can follow all the whitespace there, in either engine (cl100k's ``\\s++$``).
* ``\\Z`` is the end or before a final newline (``regex``: the end only): it becomes ``(?=\\n?\\z)``.
* ``\\h`` is a hexadecimal digit (``regex``: a horizontal space): it becomes ``[0-9a-fA-F]``.
* ``\\x{3042}`` names a code point; ``regex`` spells it ``\\U00003042``.
* A group captures there as here, but a ``Split`` keeps whole matches, so it does not matter there; here
  a capturing group would keep only the group. Groups become ``(?:...)`` (a back-reference is refused).
* A class inside a class (BLOOM's ``[^(\\s|[.,!?…])]``) adds its characters to the outer one there; in
  ``regex`` its ``[`` is a character. Its characters are written into the outer class.
* An interval followed by ``+`` is repeated there (``\\p{N}{1,3}+`` takes any run of digits), possessive
  here (three digits at most); an exact interval followed by ``?`` is optional there (``a{2}?b`` matches
  ``b``), lazy here. They become ``(?:\\p{N}{1,3})+`` and ``(?:a{2})?``; written back, a possessive interval
  becomes the atomic group ``(?>\\p{N}{1,3})``, and a lazy exact one loses its ``?``.

Spellings whose meaning differs and that have no short translation are refused, naming the spelling:
``(?m)``, which makes ``.`` match a newline there; ``\\U0001F600`` and ``\\N{name}``, code points here and
not there; a negated class or ``&&`` inside a class; ``\\H``,
``\\w``, ``\\W``, ``\\b``, ``\\B``, POSIX classes such as ``[[:alnum:]]`` and the properties ``\\p{Word}``,
``\\p{XDigit}`` and ``\\p{Extended_Pictographic}``, which the two engines fill differently (``²``, ``½``,
Arabic-Indic digits, ``★``); ``\\pL`` without braces, the letters ``pL`` there; ``\\K``, whose text before it
Oniguruma's split keeps as a piece and ``regex`` drops; and the ``i`` flag on a pattern holding ``ß``, ``ﬁ`` or
another character that folds to several, or ``ss``, ``fi``, ``st`` or another run that several fold to:
Oniguruma folds case fully (``(?i)ß`` matches ``ss``), ``regex`` one character to one; and the ``i`` flag on
``\\p{Lu}``, ``\\p{Ll}`` and the like, which ``regex`` fills with both cases and Oniguruma does not.
"""

from __future__ import annotations

import functools

import regex

from core.errors import SettingsError, TokenizerFileError
from core.pretokenize.coverage import empty_match

_INTERVAL = regex.compile(r"\{(\d*)(,?)(\d*)\}")
"""A counted repeat, ``{2}``, ``{1,3}``, ``{2,}`` or ``{,3}``, as both engines read one."""

_DIFFERENT_PROPERTIES = {"word", "xdigit", "extendedpictographic", "extpict"}
"""Properties (lower case, without ``_``, ``-`` or spaces) the two engines fill with other characters."""

_BRACED_ESCAPES = "pPxNu"
"""Escapes that may take a braced argument (``\\p{L}``, ``\\x{3042}``), which may hold ``^``."""


def _escape_end(pattern: str, i: int) -> tuple[str, int]:
    """The letter of the escape at ``pattern[i]`` (a backslash) and where the escape ends (``\\x{3042}`` whole)."""
    end = i + 2
    letter = pattern[i + 1 : i + 2]
    if letter and letter in _BRACED_ESCAPES and pattern[end : end + 1] == "{":
        end = pattern.find("}", end) + 1 or len(pattern)
    return letter, end


_DIFFERENT = {
    "H": "\\H",
    "w": "\\w",
    "W": "\\W",
    "b": "\\b",
    "B": "\\B",
}
"""Escapes the two engines define differently, refused."""


def _property_name(escape: str) -> str:
    """The property a braced ``\\p{...}`` or ``\\P{...}`` names, as both engines compare names.

    >>> _property_name("\\\\p{^X_Digit}")
    'xdigit'
    """
    return "".join(c for c in escape[3:-1].lstrip("^").lower() if c not in "_- ")


def _refused_escape(letter: str, escape: str) -> tuple[str, str] | None:
    """The spelling and the reason to refuse ``escape`` (its letter ``letter``) in either direction, where the
    engines read it apart with no short translation; ``None`` for the others."""
    if letter == "K":
        return "\\K", "Hugging Face's split keeps the text before it as a piece, bpe-tui's would drop it"
    if letter in "pP" and escape.endswith("}") and _property_name(escape) in _DIFFERENT_PROPERTIES:
        return escape, "the two regex engines fill it differently"
    return None


def _interval_at(pattern: str, i: int) -> regex.Match[str] | None:
    """The counted repeat starting at ``pattern[i]`` (a ``{``), or ``None`` where ``{`` is a character."""
    match = _INTERVAL.match(pattern, i)
    return match if match is not None and (match[1] or match[3]) else None


def _next_atom(source: str, char: str, out: list[str], groups: list[int], atom_start: int) -> int:
    """Where in ``out`` the last atom starts once ``char`` (written for the pattern's ``source`` character) is
    appended: a group opens a record in ``groups`` and, closed, is the atom; a quantifier keeps the atom."""
    if source == "(":
        groups.append(len(out))
    elif char == ")":
        return groups.pop() if groups else len(out)
    elif char not in "*+?":
        return len(out)
    return atom_start


def _repeated_interval(out: list[str], atom_start: int, interval: str, after: str) -> str:
    """Oniguruma's reading of ``atom{n,m}+`` or ``atom{n}?`` (``after`` is the ``+`` or ``?``), spelled for
    ``regex`` over the atom that ``out[atom_start:]`` holds, which it takes out of ``out``."""
    atom = "".join(out[atom_start:])
    del out[atom_start:]
    return f"(?:{atom}{interval}){after}"


@functools.cache
def _multiple_folds() -> tuple[frozenset[str], frozenset[str]]:
    """The characters whose case folds to several (``ß``, ``ﬁ``, ``İ``; all in the first plane), and what they
    fold to (``ss``, ``fi``, ``i̇``)."""
    folding = [chr(code) for code in range(0x10000) if len(chr(code).casefold()) > 1]
    return frozenset(folding), frozenset(char.casefold() for char in folding)


def full_folding_run(pattern: str) -> str | None:
    """A run of literal text in a pattern with the ``i`` flag that Oniguruma matches otherwise than ``regex``, or
    ``None``: one holding a character that folds to several, or the folding of one (``ss``, ``fi``).

    Only the text an ``i`` flag covers counts (:func:`_case_insensitive_text`).

    >>> full_folding_run(r"(?i:'s|'t|'ll)|\\p{L}+"), full_folding_run(r"(?i)stop|\\S"), full_folding_run(r"(?i:'s)|stop")
    (None, 'stop', None)
    """
    covered = _case_insensitive_text(pattern)
    if not covered:
        return None
    characters, foldings = _multiple_folds()
    text = regex.sub(r"\\(?:[pPxNu]\{[^}]*\}|.)|\?[a-zA-Z-]*[:)]|\?P?<[^>]*>|\{\d*,?\d*\}", "|", covered)
    text = regex.sub(r"\[[^\]]*\]", lambda match: "|".join(match.group()), text)  # a class: characters, no run
    for run in regex.split(r"[|()\[\]{}*+?.^$:]+", text):
        folded = run.casefold()
        if any(char in characters for char in run) or any(folding in folded for folding in foldings):
            return run
    return None


_CASED_PROPERTIES = {
    "lu", "ll", "lt", "upper", "lower", "uppercase", "lowercase", "uppercaseletter", "lowercaseletter",
    "titlecaseletter",
}
"""Properties (named as :func:`_property_name` gives them) that ``regex`` fills with both cases under the ``i`` flag
and Oniguruma does not: ``(?i)\\p{Lu}`` matches ``a`` in one and not the other."""


def _case_insensitive_text(pattern: str) -> str:
    """The parts of ``pattern`` that its ``i`` flags cover (``(?i:...)``, or from ``(?i)`` to the end of its group).

    >>> _case_insensitive_text(r"\\p{Lu}(?i:'s|\\p{Ll})x(?i)y")
    "'s|\\\\p{Ll}y"
    >>> _case_insensitive_text(r"(?i:[)]ß)x")
    '[)]ß'
    """
    covered: list[str] = []
    stack = [False]  # whether each open group is case-insensitive
    i = 0
    while i < len(pattern):
        char = pattern[i]
        if char == "\\":
            end = _escape_end(pattern, i)[1]
            if stack[-1]:
                covered.append(pattern[i:end])
            i = end
            continue
        if char == "[":  # a class, nested ones too: its parentheses are characters
            end, depth = i + 1 + (pattern[i + 1 : i + 2] == "^"), 1
            end += pattern[end : end + 1] == "]"
            while end < len(pattern) and depth:
                if pattern[end] != "\\":
                    depth += {"[": 1, "]": -1}.get(pattern[end], 0)
                end += 2 if pattern[end] == "\\" else 1
            if stack[-1]:
                covered.append(pattern[i:end])
            i = end
            continue
        if char == "(":
            flags = _inline_flags(pattern, i + 2) if pattern.startswith("(?", i) else ""
            on = "i" in flags.split("-")[0] or stack[-1] and "i" not in flags.partition("-")[2]
            end = i + 2 + len(flags)
            if flags and pattern[end : end + 1] == ")":  # (?i) turns the flag on for the rest of the group
                stack[-1] = on
                i = end + 1
                continue
            stack.append(on)
            i = end + (pattern[end : end + 1] == ":") if flags else i + 1
            continue
        if char == ")" and len(stack) > 1:
            stack.pop()
        elif stack[-1]:
            covered.append(char)
        i += 1
    return "".join(covered)


def case_insensitive_property(pattern: str) -> str | None:
    """A ``\\p{Lu}``-like property under the ``i`` flag, which the engines read differently, or ``None``."""
    text = _case_insensitive_text(pattern)
    for match in regex.finditer(r"\\[pP]\{[^}]*\}", text):
        if _property_name(match.group()) in _CASED_PROPERTIES:
            return match.group()
    return None


def python_pattern(pattern: str, where: str) -> str:
    """``pattern`` as Oniguruma reads it, spelled for ``regex``; ``where`` names it in errors.

    >>> python_pattern(r"[a-z]+$|\\s++$|[$^]|\\h+|[^(\\s|[.,])]|( ?\\p{L}+)|\\x{3042}", "p")
    '[a-z]+(?=\\\\n|\\\\z)|\\\\s++$|[$^]|[0-9a-fA-F]+|[^(\\\\s|.,)]|(?: ?\\\\p{L}+)|\\\\U00003042'

    Raises:
        TokenizerFileError: the pattern uses a spelling listed in the module docstring as refused.
    """
    run = full_folding_run(pattern)
    if run is not None:
        _refuse(where, f"(?i) on {run!r}", "it folds case fully there, so ß also matches ss and ﬁ fi, not in regex")
    cased = case_insensitive_property(pattern)
    if cased is not None:
        _refuse(where, f"(?i) on {cased}", "regex matches both cases there, Oniguruma only the property's own")
    out: list[str] = []
    depth = 0  # inside how many character classes
    atom_start = 0  # where in out the last atom (what a quantifier repeats) starts
    groups: list[int] = []  # where in out each open group starts
    i, size = 0, len(pattern)
    while i < size:
        char = pattern[i]
        if char == "\\":
            letter, end = _escape_end(pattern, i)
            escape = pattern[i:end]
            if (letter.isdigit() and letter != "0" or letter == "k") and not depth:
                _refuse(where, escape, "a back-reference, whose group is written here as one that does not capture")
            if letter in "UN":  # a code point (\U0001F600) or a named character in regex, neither in Oniguruma
                _refuse(where, "\\" + letter, "the two regex engines define it differently")
            if letter in _DIFFERENT and escape == "\\" + letter and not (depth and letter in "bB"):
                _refuse(where, _DIFFERENT[letter], "the two regex engines define it differently")
            if letter in "pP" and escape == "\\" + letter:
                _refuse(where, pattern[i : end + 1], f"the letters {pattern[i + 1 : end + 1]} there; write \\{letter}{{...}}")
            refused = _refused_escape(letter, escape)
            if refused is not None:
                _refuse(where, *refused)
            if escape == "\\h":
                escape = "0-9a-fA-F" if depth else "[0-9a-fA-F]"
            elif letter == "x" and escape.startswith("\\x{") and regex.fullmatch(r"[0-9a-fA-F]{1,8}", escape[3:-1]):
                escape = f"\\U{int(escape[3:-1], 16):08X}"  # \x{3042}: regex spells a code point \U00003042
            elif escape == "\\Z" and not depth:
                escape = "(?=\\n?\\z)"
            if not depth:
                atom_start = len(out)
            out.append(escape)
            i = end
            continue
        if depth:
            if pattern.startswith("[:", i):
                _refuse(where, pattern[i : pattern.find(":]", i) + 2 or size], "the two regex engines fill it differently")
            if pattern.startswith("[^", i) or pattern.startswith("&&", i):
                _refuse(where, pattern[i : i + 2], "a set operation inside a class, which regex reads as characters")
            if char == "[":  # a class inside a class adds its characters: written out into the outer one
                depth += 1
            elif char == "]":
                depth -= 1
                if not depth:
                    out.append(char)
            else:
                out.append(char)
            i += 1
            continue
        if char == "[":
            depth = 1
            atom_start = len(out)
            start = i + 1 + (pattern[i + 1 : i + 2] == "^")
            end = start + (pattern[start : start + 1] == "]")  # a ']' first in a class is a literal
            out.append(pattern[i:end])
            i = end
            continue
        interval = _interval_at(pattern, i) if char == "{" else None
        if interval is not None:
            after = pattern[interval.end() : interval.end() + 1]
            if after == "+" or after == "?" and not interval[2]:  # repeated or optional in Oniguruma
                out.append(_repeated_interval(out, atom_start, interval.group(), after))
                i = interval.end() + 1
            else:
                out.append(interval.group())
                i = interval.end()
            continue
        if char == "(" and pattern.startswith("(?", i):
            flags = _inline_flags(pattern, i + 2)
            if "m" in flags:
                _refuse(where, "(?m)", "it makes '.' match a newline in Hugging Face's engine")
            named = regex.match(r"\(\?P?<(?![=!])[^>]*>", pattern[i:])
            if named:  # a named group captures: written as a plain group, like the unnamed ones below
                groups.append(len(out))
                out.append("(?:")
                i += named.end()
                continue
        elif char == "(":
            char = "(?:"  # a Split keeps the whole match whatever the groups, so nothing needs capturing
        if char == "^":
            char = "(?<![^\\n])"
        elif char == "$" and not "".join(out).endswith(("\\s++", "\\s*+")):
            char = "(?=\\n|\\z)"
        atom_start = _next_atom(pattern[i], char, out, groups, atom_start)
        out.append(char)
        i += 1
    return "".join(out)


def _inline_flags(pattern: str, start: int) -> str:
    """The flag letters of ``(?imx-imx)`` or ``(?imx-imx:`` starting at ``start``, or ``""`` for other groups."""
    end = start
    while end < len(pattern) and pattern[end] in "imx-":
        end += 1
    return pattern[start:end] if pattern[end : end + 1] in (")", ":") else ""


def _refuse(where: str, spelling: str, reason: str) -> None:
    raise TokenizerFileError(
        f"{where} uses {spelling}, which Hugging Face's regex engine (Oniguruma) reads otherwise than Python's "
        f"({reason}); bpe-tui cannot split as it does: not supported"
    )


def onig_pattern(pattern: str, label: str) -> str:
    """The other way: a pattern as bpe-tui (``regex``) reads it, spelled so that Oniguruma reads it alike.

    ``^`` becomes ``\\A``, ``$`` ``(?=\\n?\\z)`` (the end, or before a final newline; kept after ``\\s++``
    or ``\\s*+``), ``\\Z`` ``\\z``, ``\\U00003042`` ``\\x{00003042}``, a ``[`` inside a class, a
    character here, ``\\[``, a possessive interval ``x{1,3}+`` the atomic group ``(?>x{1,3})``, and ``x{2}?``
    ``x{2}``. ``label`` names the
    tokenizer in errors.

    >>> onig_pattern(r"^a|b$|\\s++$|[[x]", "t")
    '\\\\Aa|b(?=\\\\n?\\\\z)|\\\\s++$|[\\\\[x]'

    Raises:
        SettingsError: the pattern uses a spelling the engines read differently with no short translation
            (``\\w``, ``\\b``, ``\\h``, ``\\N{name}``, POSIX classes, the ``m`` or ``s`` flag), or matches
            empty text.
    """
    if empty_match(pattern) is not None:
        raise SettingsError(
            f"cannot save {label} as tokenizer.json: its split pattern matches empty text, after which Hugging Face's "
            "split makes the next character a piece of its own; save as bpe-tui instead"
        )
    cased = case_insensitive_property(pattern)
    if cased is not None:
        raise SettingsError(
            f"cannot save {label} as tokenizer.json: its split pattern uses (?i) on {cased}, which Hugging Face's "
            "regex engine (Oniguruma) matches in its own case only; save as bpe-tui instead"
        )
    run = full_folding_run(pattern)
    if run is not None:
        raise SettingsError(
            f"cannot save {label} as tokenizer.json: its split pattern uses (?i) on {run!r}, which Hugging Face's "
            "regex engine (Oniguruma) folds fully (ß also matches ss); save as bpe-tui instead"
        )
    out: list[str] = []
    in_class = False
    atom_start = 0  # where in out the last atom (what a quantifier repeats) starts
    groups: list[int] = []  # where in out each open group starts
    i, size = 0, len(pattern)
    while i < size:
        char = pattern[i]
        refused = ""
        if char == "\\":
            letter, end = _escape_end(pattern, i)
            escape = pattern[i:end]
            if escape in ("\\w", "\\W", "\\h", "\\H") or letter == "N" or escape in ("\\b", "\\B") and not in_class:
                refused = escape
            elif _refused_escape(letter, escape) is not None:
                refused = escape
            elif letter in "pP" and escape == "\\" + letter and pattern[end : end + 1].isalpha():
                escape = f"\\{letter}{{{pattern[end]}}}"  # regex's \pL; Oniguruma needs the braces
                end += 1
            elif letter == "U" and regex.fullmatch(r"[0-9a-fA-F]{8}", pattern[end : end + 8]):
                escape = f"\\x{{{pattern[end : end + 8]}}}"  # a code point, as Oniguruma spells it
                end += 8
            elif escape == "\\Z" and not in_class:
                escape = "\\z"
            if not in_class:
                atom_start = len(out)
            out.append(escape)
            i = end
        elif in_class:
            if pattern.startswith("[:", i):
                refused = pattern[i : pattern.find(":]", i) + 2 or size]
            in_class = char != "]"
            out.append("\\[" if char == "[" else char)
            i += 1
        elif char == "[":
            in_class = True
            atom_start = len(out)
            start = i + 1 + (pattern[i + 1 : i + 2] == "^")
            end = start + (pattern[start : start + 1] == "]")
            out.append(pattern[i:end])
            i = end
        elif char == "{" and (interval := _interval_at(pattern, i)) is not None:
            after = pattern[interval.end() : interval.end() + 1]
            if after == "+":  # possessive here; Oniguruma's atomic group means the same
                atom = "".join(out[atom_start:])
                del out[atom_start:]
                out.append(f"(?>{atom}{interval.group()})")
                i = interval.end() + 1
            else:  # an exact interval's lazy ? changes nothing here, and there would make it optional
                out.append(interval.group())
                i = interval.end() + (after == "?" and not interval[2])
        else:
            if char == "(" and pattern.startswith("(?", i) and set(_inline_flags(pattern, i + 2)) & {"m", "s"}:
                refused = "(?m) or (?s)"
            elif char == "^":
                char = "\\A"
            elif char == "$" and not "".join(out).endswith(("\\s++", "\\s*+")):
                char = "(?=\\n?\\z)"
            atom_start = _next_atom(pattern[i], char, out, groups, atom_start)
            out.append(char)
            i += 1
        if refused:
            raise SettingsError(
                f"cannot save {label} as tokenizer.json: its split pattern uses {refused}, which Hugging Face's regex "
                "engine (Oniguruma) reads otherwise; save as bpe-tui instead"
            )
    return "".join(out)
