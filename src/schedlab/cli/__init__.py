"""The ``schedlab`` command line: one typer app, one module per command group.

:mod:`schedlab.cli.common` holds what every command shares (one-line errors,
option parsing, the ``--out``/``--force`` check, progress, tables); each
other module defines one command or one group and only parses, calls the
library and prints.
"""

from __future__ import annotations

from typing import Annotated

import typer

from schedlab.cli.algorithms import algorithms
from schedlab.cli.campaign import campaign_app
from schedlab.cli.common import GuardedGroup, set_debug
from schedlab.cli.compare import compare
from schedlab.cli.gantt import gantt
from schedlab.cli.metrics import metrics
from schedlab.cli.moldable import moldable_app
from schedlab.cli.reproduce import reproduce_app
from schedlab.cli.simulate import simulate
from schedlab.cli.solve import solve_app
from schedlab.cli.swdual import swdual_app
from schedlab.cli.tasks import tasks_app
from schedlab.cli.torus import torus_app
from schedlab.cli.trace import trace_app

__all__ = ["app"]

app = typer.Typer(
    help="Design, simulate, compare and run resource allocation policies for parallel systems.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    cls=GuardedGroup,
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


app.command()(simulate)
app.command()(metrics)
app.command()(compare)
app.add_typer(trace_app, name="trace")
app.command()(algorithms)
app.command("policies", hidden=True)(algorithms)  # the former name
app.command()(gantt)
app.add_typer(tasks_app, name="tasks")
app.add_typer(moldable_app, name="moldable")
app.add_typer(solve_app, name="solve")
app.add_typer(swdual_app, name="swdual")
app.add_typer(campaign_app, name="campaign")
app.add_typer(reproduce_app, name="reproduce")
app.add_typer(torus_app, name="torus")
