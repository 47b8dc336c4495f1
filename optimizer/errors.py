"""Errors a user can cause. Each names what is wrong and where, in one line."""

from __future__ import annotations

import json


class OptimizerError(ValueError):
    """Base of every user-caused error: bad input, never a bug of ours."""

    def __init__(self, message: str, *, field: str | None = None, hex: str | None = None, part: str | None = None):
        self.field = field  # dotted path into the input, e.g. "hexes[12].rotation"
        self.hex = hex  # the hex id involved, if any
        self.part = part  # the tile code part involved, if any
        super().__init__(message)

    def located(self, *, field: str | None = None, hex: str | None = None) -> OptimizerError:
        """Return the same error with its place filled in (where it was not known yet)."""
        self.field = self.field or field
        self.hex = self.hex or hex
        if hex and hex not in str(self.args[0]):
            self.args = (f"hex {hex}: {self.args[0]}",)
        return self


class BoardError(OptimizerError):
    """The board state is malformed or inconsistent."""


class RoutesError(OptimizerError):
    """A routes document given to the checker is malformed."""


def decoded_json(text, *, field: str, what: str = "", error: type[OptimizerError] = OptimizerError, cut: int = 200):
    """JSON text decoded, or ``error`` naming ``field`` in one line: ``{what}not valid JSON: why``.

    The one place input text is decoded: the API, the reader, the routes, the server and the
    benchmark suites all say the same about text that is not JSON (too deep a nesting included),
    the reason cut to ``cut`` characters so that an error never repeats a long input.
    """
    try:
        return json.loads(text)
    except (ValueError, RecursionError) as err:
        reason = str(err)
        if len(reason) > cut:
            reason = f"{reason[:cut]}... ({len(reason)} characters)"
        raise error(f"{what}not valid JSON: {reason}", field=field) from None
