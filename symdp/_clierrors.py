r"""Top-level error handling of the ``symdp`` command: every refusal is one line and a known exit code.

=========  ================================================================
exit code  meaning
=========  ================================================================
0          success
1          the command ran and reports a finding (``audit --fail-on``), or
           an internal error (one line; ``SYMDP_DEBUG=1`` shows the traceback)
2          bad input: a usage error, an option out of range, an unreadable or
           malformed file, an output path that cannot be written (one line
           ``error: ...`` naming the parameter, the value and the allowed
           range); nothing is written
3          ``certify``: the empirical lower bound exceeds the certified bound
130        interrupted (Ctrl-C)
=========  ================================================================

Click's own usage errors (several lines: usage, hint, error) are reduced to
one line, and :class:`~symdp.errors.SymdpError` from any command is printed
the same way.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Sequence
from typing import Any

import click

from .errors import SymdpError

#: exit code of every refusal of bad input
EXIT_BAD_INPUT = 2


_LONG_QUOTED = re.compile(r"(['\"])([^'\"]{60,}?)\1")


def one_line(text: str, limit: int = 1000) -> str:
    """Collapse ``text`` onto one line (newlines become '; '); a quoted value longer than 60 characters is cut to
    40 (so the allowed range after it stays visible), and the whole line to ``limit`` characters."""
    s = "; ".join(part.strip() for part in str(text).splitlines() if part.strip())
    s = _LONG_QUOTED.sub(lambda m: f"{m.group(1)}{m.group(2)[:37]}...{m.group(1)}", s)
    return s if len(s) <= limit else s[: limit - 3] + "..."


def _echo_error(message: str) -> None:
    click.echo(f"error: {one_line(message)}", err=True)


#: argument names of the library's checks that are, under the same meaning, options of every command passing them
#: on (``verify``, ``audit``, ``sweep``): a message ``scheduler='x' ...`` is shown as ``--scheduler 'x' ...``
_AS_OPTION = re.compile(r"^(scheduler|workers)=")


def _option_names(message: str) -> str:
    return _AS_OPTION.sub(lambda m: f"--{m.group(1)} ", message, count=1)


class OneLineErrors(click.Group):
    """A click group whose ``main`` turns every error into one line on stderr and an exit code (table above)."""

    def main(
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> Any:
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        try:
            rv = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except click.exceptions.Abort:
            _echo_error("aborted")
            sys.exit(130)
        except KeyboardInterrupt:
            _echo_error("interrupted")
            sys.exit(130)
        except click.ClickException as exc:
            if type(exc).__name__ == "NoArgsIsHelpError":  # `symdp` alone: the help text, as click shows it
                click.echo(exc.format_message(), err=True)
                sys.exit(exc.exit_code)
            _echo_error(exc.format_message())
            sys.exit(exc.exit_code)
        except SymdpError as exc:
            _echo_error(_option_names(str(exc)))
            sys.exit(EXIT_BAD_INPUT)
        except RecursionError:
            _echo_error("input nested too deeply")
            sys.exit(EXIT_BAD_INPUT)
        except BrokenPipeError:
            sys.exit(1)
        except OSError as exc:  # an unreadable input or unwritable output path: the user's to fix
            where = f" {exc.filename!r}" if getattr(exc, "filename", None) else ""
            _echo_error(f"cannot access{where}: {exc.strerror or exc}")
            sys.exit(EXIT_BAD_INPUT)
        except Exception as exc:
            if os.environ.get("SYMDP_DEBUG"):
                raise
            _echo_error(f"internal error ({type(exc).__name__}: {exc}); rerun with SYMDP_DEBUG=1 for the traceback "
                        "and please report it")
            sys.exit(1)
        sys.exit(rv if isinstance(rv, int) else 0)


__all__ = ["EXIT_BAD_INPUT", "OneLineErrors", "one_line"]
