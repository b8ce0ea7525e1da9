"""The structural diff of two tokenizers as lines of plain text, shared by ``bpe-tui diff`` and the Diff view.

Tokens are escaped (control characters, split UTF-8 bytes as ``\\xNN``), so a token cannot disturb the
terminal, and quoted so a leading space shows.
"""

from __future__ import annotations

from bpe_tui.text import escape_token, share_text
from core.analysis.diff import Pair, StructuralDiff

TIE_WORDING = {
    "corpus": "recounted on the corpus",
    "recorded counts": "from both files' recorded counts",
    "runner-up": "from A's recorded runner-up count",
    "other settings": "one corpus, counted with other {settings}; bpe-tui diff --corpus recounts them as A did",
    "unknown": "no counts recorded; bpe-tui diff --corpus recounts them",
}


SETTING_MEANING = {
    "special tokens": "what is cut out whole",
    "pattern": "how text splits into pre-tokens",
    "base": "bytes or characters to start from",
    "normalizer": "the Unicode form the text is put in first",
}


def _pair(pair: Pair | None) -> str:
    if pair is None:
        return "(no more merges)"
    return f"{escape_token(pair[0], glyphs=False, quote=True)} + {escape_token(pair[1], glyphs=False, quote=True)}"


def _token(token: bytes | None) -> str:
    return "(none)" if token is None else escape_token(token, glyphs=False, quote=True)


def report_lines(diff: StructuralDiff) -> list[str]:
    """The plain-text report, line by line."""
    lines = [
        f"merges:          A {diff.merges_a:,}  B {diff.merges_b:,}",
        f"shared prefix:   {diff.shared_prefix:,} merge{'' if diff.shared_prefix == 1 else 's'}",
    ]
    if diff.other_settings:  # else equal merges that encode otherwise look unexplained
        differing = ", ".join(f"{name} ({SETTING_MEANING[name]})" for name in diff.other_settings)
        lines.append(f"settings:        differ in {differing}: even equal merges encode otherwise")
    divergence = diff.first_divergence
    if divergence is None:
        lines.append("first divergence: none (the merge lists are equal)")
    else:
        counts = []
        if divergence.count_a is not None:
            counts.append(f"A's pair {divergence.count_a:,}")
        if divergence.count_b is not None:
            counts.append(f"B's pair {divergence.count_b:,}")
        lines += [
            f"first divergence: merge {divergence.rank:,}",
            f"  A: {_pair(divergence.a)}",
            f"  B: {_pair(divergence.b)}",
        ]
        if divergence.a is None or divergence.b is None:
            # Not a choice between two pairs, so no tie to tell (and no count would tell one): one list ends.
            ended, going_on = ("A", "B") if divergence.a is None else ("B", "A")
            shared = (f"no more merges; its {divergence.rank:,} are {going_on}'s first {divergence.rank:,}"
                      if divergence.rank else "no merges at all")
            recounted = f" ({', '.join(counts)} on the corpus)" if divergence.source == "corpus" and counts else ""
            lines.append(f"  one list ends: {ended} has {shared}{recounted}")
        else:
            if divergence.tie is None:
                verdict = "tie unknown"
            else:
                verdict = "a tie" if divergence.tie else "not a tie"
            wording = TIE_WORDING[divergence.source].format(settings=" and ".join(divergence.other_settings))
            lines.append(f"  {verdict} ({wording})" + (f": {', '.join(counts)}" if counts else ""))
    overlap = diff.overlap
    lines.append(
        f"vocabulary:      both {overlap.shared:,}  only A {overlap.only_a:,}  only B {overlap.only_b:,}"
        f"  (jaccard {share_text(overlap.jaccard)})"
    )
    moved = diff.moved
    examples = ", ".join(f"{_token(token)} {a}→{b}" for token, a, b in moved.examples[:3])
    lines.append(f"moved ids:       {moved.count:,} shared tokens" + (f" (e.g. {examples})" if examples else ""))
    enc = diff.encoding
    if enc is not None:
        lines.append(f"text:            A {enc.tokens_a:,} tokens  B {enc.tokens_b:,} tokens")
        if enc.same:
            lines.append("  the same tokens")
        else:
            lines.append(
                f"  first difference at token {enc.first_difference}: A {_token(enc.token_a)}, B {_token(enc.token_b)}"
            )
            lines.append(f"  boundaries only in A {enc.cuts_only_a:,}, only in B {enc.cuts_only_b:,}")
    return lines
