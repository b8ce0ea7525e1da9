"""Theme colours for marks drawn as text (ties, special tokens, names) that read on every theme.

Textual's ``$warning``, ``$accent`` and ``$success`` are a theme's signal colours, chosen to fill a
toast or a button; on the light themes they are pale (``$warning`` on textual-light's background is
1.3:1, on atom-one-light's 1.1:1), so a ``tie`` in the merge table, a special token in the inspector or
the active tokenizer's name in a pane header all but vanished. Each theme also has a ``$text-*`` shade
of the same colour, made to be read as text. ``$readable-NAME`` is the theme's own colour wherever it
reads and its ``$text-NAME`` shade where it does not, so textual-dark, where all three read, looks
exactly as before. (``$error`` reads on the light themes; on the dark ones its red is 2-3:1, as dark red
goes, and is left as it is.) An app gets them from :class:`ReadableMarks`; the app's widgets refer to
them, so any app that shows those widgets (a test's too) must be one.
"""

from __future__ import annotations

from textual.app import App
from textual.color import Color, ColorParseError

MARKS: tuple[str, ...] = ("warning", "accent", "success")
"""The signal colours the app draws text in."""

GROUNDS: tuple[str, ...] = ("background", "surface", "panel")
"""The backgrounds text marks are drawn on: the screen, boxes, pane headers."""

MIN_CONTRAST = 3.0
"""WCAG's minimum contrast for large or bold text; below it a theme's colour gives way to its text shade."""


def contrast(first: Color, second: Color) -> float:
    """WCAG 2 contrast ratio of two opaque colours, from 1 (the same) to 21 (black on white).

    >>> round(contrast(Color(0, 0, 0), Color(255, 255, 255)), 1)
    21.0
    >>> contrast(Color(9, 9, 9), Color(9, 9, 9))
    1.0
    """

    def luminance(colour: Color) -> float:
        channels = [value / 255 for value in colour.rgb]
        linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
        return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]

    light, dark = sorted((luminance(first), luminance(second)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def readable_marks(variables: dict[str, str]) -> dict[str, str]:
    """``readable-NAME`` for each of :data:`MARKS`, given a theme's CSS variables (``App.get_css_variables``).

    A theme whose colours cannot be compared (the ``ansi-*`` themes leave them to the terminal, which
    may draw ``ansi_yellow`` in any shade) keeps its own.

    >>> dark = {"background": "#121212", "surface": "#1e1e1e", "panel": "#242f38"}
    >>> light = {"background": "#e0e0e0", "surface": "#d8d8d8", "panel": "#d0d0d0"}
    >>> signals = {f"{prefix}{name}": value for name in MARKS
    ...            for prefix, value in (("", "#fea62b"), ("text-", "#6b4a10"))}
    >>> readable_marks(dark | signals)["readable-warning"], readable_marks(light | signals)["readable-warning"]
    ('#fea62b', '#6b4a10')
    """
    marks: dict[str, str] = {}
    for name in MARKS:
        own, shade = variables[name], variables.get(f"text-{name}", variables[name])
        if any(variables.get(key, "").startswith("ansi") for key in (name, *GROUNDS)):
            marks[f"readable-{name}"] = own
            continue
        try:
            colour = Color.parse(own)
            grounds = [Color.parse(variables[ground]) for ground in GROUNDS if ground in variables]
        except ColorParseError:
            marks[f"readable-{name}"] = own
            continue
        reads = all(contrast(colour.blend(ground, 1 - colour.a), ground) >= MIN_CONTRAST for ground in grounds)
        marks[f"readable-{name}"] = own if reads else shade
    return marks


class ReadableMarks(App[None]):
    """An app base that adds :func:`readable_marks` to its theme's CSS variables, again at each theme change."""

    def get_css_variables(self) -> dict[str, str]:
        variables = super().get_css_variables()
        return variables | readable_marks(variables)
