"""The restricted parser of untrusted formulas lives in :mod:`symdp.parsing` (below the theorem files and
the verifier, which use it too); re-exported here for the audit's imports."""

from __future__ import annotations

from ..parsing import CONSTANTS as CONSTANTS
from ..parsing import FUNCTIONS as FUNCTIONS
from ..parsing import MAX_CALL_DEPTH as MAX_CALL_DEPTH
from ..parsing import MAX_CONST_EXPONENT as MAX_CONST_EXPONENT
from ..parsing import MAX_CONST_MAGNITUDE as MAX_CONST_MAGNITUDE
from ..parsing import MAX_DEPTH as MAX_DEPTH
from ..parsing import MAX_GROWTH_DEPTH as MAX_GROWTH_DEPTH
from ..parsing import MAX_INT_DIGITS as MAX_INT_DIGITS
from ..parsing import MAX_LENGTH as MAX_LENGTH
from ..parsing import MAX_NODES as MAX_NODES
from ..parsing import MAX_SPECIAL_ARG as MAX_SPECIAL_ARG
from ..parsing import parse_expression as parse_expression
from ..parsing import parse_relation as parse_relation
from ..parsing import parse_srepr as parse_srepr

__all__ = ["parse_expression", "parse_relation", "parse_srepr", "FUNCTIONS", "CONSTANTS", "MAX_LENGTH", "MAX_DEPTH", "MAX_NODES", "MAX_CALL_DEPTH", "MAX_GROWTH_DEPTH", "MAX_INT_DIGITS", "MAX_CONST_EXPONENT", "MAX_SPECIAL_ARG", "MAX_CONST_MAGNITUDE"]
