"""Errors a user can cause. Each names what is wrong and where, in one line."""

from __future__ import annotations


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
