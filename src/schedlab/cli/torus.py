"""``schedlab torus``: the largest free partition of an occupancy, and a 3-D picture of a run's torus."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from schedlab.cli.common import check_out_file, make_folder, one_line_errors
from schedlab.cli.common import out as console
from schedlab.errors import InputError

torus_app = typer.Typer(
    help="3-D torus machines (Krevat 2003): largest free partitions and pictures.", no_args_is_help=True
)


@torus_app.command("mfp")
def mfp(
    occupancy: Annotated[Path, typer.Argument(help="Allocated nodes, one 'x y z' per line ('#' starts a comment).")],
    torus: Annotated[str, typer.Option("--torus", help="Torus dimensions DXxDYxDZ.")] = "4x4x8",
    as_json: Annotated[bool, typer.Option("--json", help="Print the result as JSON.")] = False,
) -> None:
    """Print the largest free partition (MFP) of OCCUPANCY by POP (Krevat 2003, chapter 3): size and box."""
    from schedlab.platform.occupancy import read_occupancy
    from schedlab.platform.pop import occupancy_array, pop
    from schedlab.platform.torus import parse_torus

    with one_line_errors():
        geometry = parse_torus(torus, source="--torus")
        occ = read_occupancy(occupancy, geometry)
        size, box = pop(occupancy_array(geometry, occ))
    free = geometry.n_procs - occ.bit_count()
    if as_json:
        result = {"torus": geometry.name, "allocated": geometry.n_procs - free, "free": free, "mfp": size}
        result["box"] = None if box is None else {"base": list(box.base), "shape": list(box.shape)}
        print(json.dumps(result, sort_keys=True))
        return
    where = f": {box}" if box is not None else " (no free node)"
    console.print(
        f"{geometry.name}, {free:,} of {geometry.n_procs:,} nodes free; MFP {size:,}{where}",
        markup=False,
        soft_wrap=True,
    )


@torus_app.command("view")
def view(
    run_dir: Annotated[Path, typer.Argument(help="A run directory written by `schedlab simulate --out` on a torus.")],
    at: Annotated[float, typer.Option("--at", help="Time to draw (s, the run's clock).")],
    html: Annotated[Path | None, typer.Option("--html", help="Self-contained 3-D HTML page to write (plotly).")] = None,
    png: Annotated[Path | None, typer.Option("--png", help="PNG image to write (matplotlib voxels).")] = None,
    force: Annotated[bool, typer.Option(help="Overwrite existing --html and --png files.")] = False,
) -> None:
    """Draw which job holds which node of RUN_DIR's torus at time --at: one colour per job, hover for the job."""
    from schedlab.report.torus_view import run_occupancy, torus_html, torus_png

    with one_line_errors():
        if html is None and png is None:
            raise InputError("schedlab torus view", message="nothing to write: give --html PAGE, --png IMAGE or both")
        check_out_file(html, force, "--html")
        check_out_file(png, force, "--png")
        for target in (html, png):
            if target is not None:
                make_folder(target.parent)
        geometry, owners, boxes = run_occupancy(run_dir, at)
        title = f"{run_dir.name}: {geometry.name} at t = {at:g} s, {len(set(owners.values()))} jobs"
        if html is not None:
            torus_html(geometry, owners, html, title=title, boxes=boxes)
        if png is not None:
            torus_png(geometry, owners, png, title=title)
    for path in (p for p in (html, png) if p is not None):
        console.print(f"wrote {path}: {len(owners):,} of {geometry.n_procs:,} nodes held", markup=False, soft_wrap=True)
