"""The ``schedlab`` command line: one typer app, one module per command group, each loaded when it runs.

:mod:`schedlab.cli.common` holds what every command shares (one-line errors,
option parsing, the ``--out``/``--force`` check, progress, tables); each
other module defines one command or one group and only parses, calls the
library and prints.
"""

from __future__ import annotations

from collections.abc import Iterator, MutableMapping
from typing import Annotated, Any

import typer

from schedlab._lazy import resolve
from schedlab.cli.common import GuardedGroup, set_debug

__all__ = ["app"]

# Every command and group, in the order `schedlab --help` lists them: (name, "module:attribute", hidden).
COMMANDS = (
    ("simulate", "schedlab.cli.simulate:simulate", False),
    ("metrics", "schedlab.cli.metrics:metrics", False),
    ("compare", "schedlab.cli.compare:compare", False),
    ("algorithms", "schedlab.cli.algorithms:algorithms", False),
    ("policies", "schedlab.cli.algorithms:algorithms", True),  # the former name
    ("gantt", "schedlab.cli.gantt:gantt", False),
    ("trace", "schedlab.cli.trace:trace_app", False),
    ("tasks", "schedlab.cli.tasks:tasks_app", False),
    ("moldable", "schedlab.cli.moldable:moldable_app", False),
    ("solve", "schedlab.cli.solve:solve_app", False),
    ("swdual", "schedlab.cli.swdual:swdual_app", False),
    ("campaign", "schedlab.cli.campaign:campaign_app", False),
    ("reproduce", "schedlab.cli.reproduce:reproduce_app", False),
    ("torus", "schedlab.cli.torus:torus_app", False),
)


class _Commands(MutableMapping[str, Any]):
    """The root's sub-commands by name, each built on first use: its module imported and its click command
    made by typer as if registered on the app. typer builds every command it is given each time ``schedlab``
    runs (reading each function's signature), which took most of a small ``simulate``'s time for fifty
    commands; so ``schedlab simulate`` builds ``simulate`` only, and ``schedlab --help`` all of them."""

    def __init__(self) -> None:
        self._specs = {name: (path, hidden) for name, path, hidden in COMMANDS}
        self._built: dict[str, Any] = {}  # click commands, as typer builds them

    def __getitem__(self, name: str) -> Any:
        if name not in self._built:
            path, hidden = self._specs[name]  # KeyError: no such command
            target, holder = resolve(path), typer.Typer()
            if isinstance(target, typer.Typer):
                holder.add_typer(target, name=name)
            else:
                holder.command(name, hidden=hidden)(target)
            self._built[name] = typer.main.get_group(holder).commands[name]
        return self._built[name]

    def __setitem__(self, name: str, command: Any) -> None:
        self._built[name] = command

    def __delitem__(self, name: str) -> None:
        self._specs.pop(name, None)
        self._built.pop(name, None)

    def __iter__(self) -> Iterator[str]:
        return iter({**dict.fromkeys(self._specs), **dict.fromkeys(self._built)})

    def __len__(self) -> int:
        return len(set(self._specs) | set(self._built))


class _Root(GuardedGroup):
    """The ``schedlab`` group, whose sub-commands load when asked for (:class:`_Commands`)."""

    def __init__(self, **attrs: Any) -> None:
        super().__init__(**attrs)  # no commands registered on the app: they are listed in COMMANDS
        self.commands = _Commands()


app = typer.Typer(
    help="Design, simulate, compare and run resource allocation policies for parallel systems.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    cls=_Root,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _version(value: bool) -> None:
    if value:
        from schedlab import __version__

        typer.echo(f"schedlab {__version__}")
        raise typer.Exit()


@app.callback()
def _options(
    debug: Annotated[bool, typer.Option("--debug", help="Show the full traceback of errors.")] = False,
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Print the version and exit.")
    ] = False,
) -> None:
    set_debug(debug)
