"""Reading a JSON input file with errors a user can act on (one line naming the file, and the line)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from schedlab.errors import InputError

__all__ = ["load_json"]


def load_json(path: str | Path) -> Any:
    """The parsed contents of ``path``.

    Raises
    ------
    InputError
        The file cannot be read, or is not JSON (naming the line of the first error).
    """
    source = str(path)
    try:
        return json.loads(Path(path).read_text())
    except OSError as error:
        raise InputError(source, message=f"cannot read: {error.strerror or error}") from None
    except json.JSONDecodeError as error:
        raise InputError(source, error.lineno, message=f"invalid JSON: {error.msg}") from None
