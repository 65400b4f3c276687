"""One root exception for symdp, with subclasses that also inherit the builtin they mean."""

from __future__ import annotations


class SymdpError(Exception):
    """Root of every error symdp raises on purpose."""


class InvalidParameterError(SymdpError, ValueError):
    """A parameter is outside its allowed range; the message names parameter, value and range."""


class InvalidTypeError(SymdpError, TypeError):
    """A parameter has the wrong type."""


class UnknownTheoremError(SymdpError, KeyError):
    """No library entry has the requested id; the message suggests the nearest ids."""

    def __str__(self) -> str:  # KeyError quotes its message; keep it readable
        return str(self.args[0]) if self.args else ""


class ClaimFileError(SymdpError, ValueError):
    """A user claim file is malformed or unsafe; the message names the line and the reason."""


class UnsupportedError(SymdpError, NotImplementedError):
    """The request is outside what an analysis covers (e.g. shuffling for a Poisson accountant)."""


class ConvergenceError(SymdpError, ArithmeticError):
    """A numerical procedure did not reach its tolerance within its iteration cap."""
