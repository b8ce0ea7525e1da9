"""The contract every lens meets: ``LensOption`` (a CLI flag and an in-app control), ``LensContext``, ``LensSpec``.

A lens module builds one ``LensSpec`` called ``LENS`` and is listed once in
:data:`bpe_tui.lenses.registry.LENSES`; the CLI (``bpe-tui lens NAME``) and the Lenses pane read
everything else from it:

* each :class:`LensOption` becomes a flag ``--NAME`` (underscores as dashes) and a control in the pane:
  an ``int`` a slider moved with ←/→, a ``bool`` a toggle flipped with space, a ``text`` or ``path`` a
  field. Its default and its upper bound may depend on the tokenizer (a callable taking the context);
* ``compute(context, options)`` gets every option filled in and checked (:meth:`LensSpec.resolve`) and
  returns the lens's result: a frozen dataclass from ``core.analysis.lenses`` with ``to_json()``. It runs
  in a worker thread in the app, so it may take a while, and it raises a ``BPEError`` (one line, naming
  the fix) for input it cannot use;
* ``render_text(result)`` is the CLI's text for people (tokens escaped: see ``bpe_tui.text``);
* ``view()`` returns the view widget class for the pane, a subclass of
  :class:`bpe_tui.lenses.views.base.LensView`. It is a function, imported when called, so that the CLI
  never loads Textual. A view must not import its lens module (that is an import cycle, which
  ``tests/test_import_graph.py`` refuses): text both need lives on the core result or in
  :mod:`bpe_tui.lenses.shown`.

>>> option = LensOption("merges", "merges", "int", default=0, minimum=0, maximum=lambda context: 10)
>>> option.flag, option.checked(3, None), option.bounds(None)
('--merges', 3, (0, 10))
>>> option.checked(11, None)
Traceback (most recent call last):
core.errors.SettingsError: --merges 11 is outside 0..10; give a value in that range
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from bpe_tui.session import LoadedTokenizer
from core.encode.tokenizer import Tokenizer
from core.errors import SettingsError
from core.model import BPEModel

OptionKind = Literal["int", "bool", "text", "path"]


@dataclass(frozen=True)
class LensContext:
    """What a lens works on: the active tokenizer and the bundled sample texts.

    Attributes:
        loaded: the tokenizer (its model, its encoder, its name).
        samples: bundled sample name (``"english"``, ``"japanese"``, ``"mixed"``, ``"toy"``) -> text, for
            those that exist.
        samples_dir: the bundled samples folder (for bundled files a lens reads), ``None`` if absent.
    """

    loaded: LoadedTokenizer
    samples: Mapping[str, str] = field(default_factory=dict)
    samples_dir: Path | None = None

    @property
    def model(self) -> BPEModel:
        return self.loaded.model

    @property
    def tokenizer(self) -> Tokenizer:
        return self.loaded.tokenizer


@dataclass(frozen=True)
class LensOption:
    """One setting of a lens: a CLI flag and a control in the pane.

    Attributes:
        name: a Python name; the flag is ``--name`` with dashes for underscores.
        label: a short name for the control.
        kind: ``"int"`` (a slider), ``"bool"`` (a toggle), ``"text"`` or ``"path"`` (a field; a path's
            empty value means the lens's bundled default).
        default: the value when none is given, or a function of the context giving it (of the context and
            the other options' given values, ``None`` where not given, when ``default_reads`` names them).
        default_reads: the options whose given values a callable ``default`` reads (the delete-merge
            lens's rank defaults to the earliest merge *the given text* uses).
        help: one line for ``--help`` and the pane.
        hint: a shorter line for the pane's field, where ``help`` would be cut at 80 columns (``help`` if empty).
        minimum, maximum: an int's bounds (inclusive); ``maximum`` may be a function of the context, or
            ``None`` for no upper bound.
        step: how far ←/→ moves an int (shift+←/→ moves a twentieth of the range, at least ``step``).
    """

    name: str
    label: str
    kind: OptionKind
    default: Any = None
    help: str = ""
    hint: str = ""
    minimum: int = 0
    maximum: int | Callable[[Any], int] | None = None
    step: int = 1
    default_reads: tuple[str, ...] = ()

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")

    def default_for(self, context: LensContext | None, given: Mapping[str, Any] | None = None) -> Any:
        """The default for ``context``, given the values the user set (``given``) for ``default_reads``."""
        if not callable(self.default):
            return self.default
        if self.default_reads:
            return self.default(context, {name: (given or {}).get(name) for name in self.default_reads})
        return self.default(context)

    def bounds(self, context: LensContext | None) -> tuple[int, int | None]:
        """An int option's ``(minimum, maximum)`` for ``context`` (maximum ``None``: unbounded)."""
        top = self.maximum(context) if callable(self.maximum) else self.maximum
        return self.minimum, top

    def checked(self, value: Any, context: LensContext | None) -> Any:
        """``value`` if this option accepts it; otherwise a ``SettingsError`` naming the flag and its range."""
        if self.kind == "int":
            if type(value) is not int:
                raise SettingsError(f"{self.flag} must be a whole number, got {value!r}")
            low, high = self.bounds(context)
            if value < low or (high is not None and value > high):
                span = f"{low}..{high}" if high is not None else f"at least {low}"
                raise SettingsError(f"{self.flag} {value} is outside {span}; give a value in that range")
        elif self.kind == "bool":
            if type(value) is not bool:
                raise SettingsError(f"{self.flag} is on or off, got {value!r}")
        elif value is not None and not isinstance(value, str):
            raise SettingsError(f"{self.flag} must be text, got {value!r}")
        return value

    def slide(self, value: int, steps: int, context: LensContext | None, *, big: bool = False) -> int:
        """An int ``value`` moved ``steps`` steps (a twentieth of the range each when ``big``), kept in bounds.

        >>> option = LensOption("k", "k", "int", default=0, minimum=0, maximum=100)
        >>> option.slide(0, -1, None), option.slide(0, 1, None), option.slide(0, 1, None, big=True), option.slide(99, 3, None)
        (0, 1, 5, 100)
        """
        low, high = self.bounds(context)
        size = self.step
        if big:
            size = max(self.step, ((high if high is not None else low + 1000) - low) // 20)
        moved = value + steps * size
        moved = max(low, moved)
        return moved if high is None else min(high, moved)


@dataclass(frozen=True)
class LensSpec:
    """A lens as the CLI and the pane see it (see the module docstring for the contract).

    Attributes:
        name: the CLI name (``bpe-tui lens NAME``), lower case with dashes.
        title: what the pane's list calls it.
        description: one line on what it shows.
        options: its settings, in the order the pane shows them.
        compute: ``(context, options) -> result`` (a frozen dataclass with ``to_json()``).
        render_text: ``result -> str`` for the CLI.
        view: ``() -> LensView subclass`` for the pane (imported when called).
    """

    name: str
    title: str
    description: str
    options: tuple[LensOption, ...]
    compute: Callable[[LensContext, Mapping[str, Any]], Any]
    render_text: Callable[[Any], str]
    view: Callable[[], type]

    def option(self, name: str) -> LensOption:
        for option in self.options:
            if option.name == name:
                return option
        raise KeyError(name)

    def resolve(self, context: LensContext, given: Mapping[str, Any]) -> dict[str, Any]:
        """Every option's value: those ``given``, checked, and the defaults for the rest.

        Raises:
            SettingsError: a given value is out of range or of the wrong kind, or names no option.
        """
        known = {option.name for option in self.options}
        unknown = sorted(set(given) - known)
        if unknown:
            raise SettingsError(f"the {self.name} lens has no option {unknown[0]!r}")
        values: dict[str, Any] = {}
        for option in self.options:
            value = given[option.name] if given.get(option.name) is not None else option.default_for(context, given)
            values[option.name] = option.checked(value, context)
        return values

    def run(self, context: LensContext, given: Mapping[str, Any] | None = None) -> Any:
        """The lens's result on ``context`` with ``given`` options (defaults for the rest)."""
        return self.compute(context, self.resolve(context, given or {}))
