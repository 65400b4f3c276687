r"""A restricted expression parser for untrusted claim files: parsed, never executed.

Expressions are parsed with :func:`ast.parse` (``mode="eval"``), which builds a
syntax tree and runs nothing, and the tree is walked against an explicit
whitelist: numbers, declared symbol names, the constants ``pi`` and ``E``,
``+ - * / **``, unary ``-``/``+``, and calls of whitelisted functions by bare
name.  Everything else (attribute access, subscripts, lambdas,
comprehensions, strings, keyword arguments, starred arguments, f-strings,
comparisons, boolean operators, walrus) is rejected with the reason.  Input
length, nesting depth, node count and the size of constant powers are capped
so that hostile input cannot exhaust time or memory.  No string is ever
passed to ``eval``, ``exec`` or ``sympy.sympify``.

>>> import sympy as sp
>>> x = sp.Symbol("x", positive=True)
>>> parse_expression("x*(exp(x) - 1)/(exp(x) + 1)", {"x": x})
x*(exp(x) - 1)/(exp(x) + 1)
"""

from __future__ import annotations

import ast
from typing import Callable, Mapping

import sympy as sp

from ..errors import ClaimFileError

MAX_LENGTH = 2000
MAX_DEPTH = 40
MAX_NODES = 600
MAX_INT_DIGITS = 60
MAX_CONST_EXPONENT = 1000


def _phi(x: sp.Expr) -> sp.Expr:
    return sp.erfc(-x / sp.sqrt(2)) / 2


#: function name -> (arity range, builder)
FUNCTIONS: dict[str, tuple[tuple[int, int], Callable[..., sp.Expr]]] = {
    "exp": ((1, 1), sp.exp),
    "log": ((1, 2), lambda a, b=None: sp.log(a) if b is None else sp.log(a, b)),
    "ln": ((1, 1), sp.log),
    "log2": ((1, 1), lambda a: sp.log(a, 2)),
    "log10": ((1, 1), lambda a: sp.log(a, 10)),
    "log1p": ((1, 1), lambda a: sp.log(1 + a)),
    "expm1": ((1, 1), lambda a: sp.exp(a) - 1),
    "sqrt": ((1, 1), sp.sqrt),
    "abs": ((1, 1), sp.Abs),
    "sin": ((1, 1), sp.sin),
    "cos": ((1, 1), sp.cos),
    "tanh": ((1, 1), sp.tanh),
    "sinh": ((1, 1), sp.sinh),
    "cosh": ((1, 1), sp.cosh),
    "atan": ((1, 1), sp.atan),
    "erf": ((1, 1), sp.erf),
    "erfc": ((1, 1), sp.erfc),
    "Phi": ((1, 1), _phi),
    "ceil": ((1, 1), sp.ceiling),
    "floor": ((1, 1), sp.floor),
    "min": ((2, 8), sp.Min),
    "max": ((2, 8), sp.Max),
    "binomial": ((2, 2), sp.binomial),
    "gamma": ((1, 1), sp.gamma),
}

CONSTANTS: dict[str, sp.Expr] = {"pi": sp.pi, "E": sp.E, "e": sp.E, "oo": sp.oo, "inf": sp.oo}

_BINOPS: dict[type, Callable[[sp.Expr, sp.Expr], sp.Expr]] = {
    ast.Add: lambda a, b: a + b,
    ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b,
    ast.Div: lambda a, b: a / b,
}


def _nesting_depth(text: str) -> int:
    depth = best = 0
    for ch in text:
        if ch in "([{":
            depth += 1
            best = max(best, depth)
        elif ch in ")]}":
            depth -= 1
    return best


class _Builder:
    def __init__(self, symbols: Mapping[str, sp.Symbol], where: str):
        self.symbols = symbols
        self.where = where
        self.nodes = 0

    def fail(self, reason: str) -> ClaimFileError:
        return ClaimFileError(f"{self.where}: {reason}")

    def build(self, node: ast.AST, depth: int = 0) -> sp.Expr:
        self.nodes += 1
        if self.nodes > MAX_NODES:
            raise self.fail(f"expression has more than {MAX_NODES} syntax nodes")
        if depth > MAX_DEPTH:
            raise self.fail(f"expression nested deeper than {MAX_DEPTH}")
        if isinstance(node, ast.Expression):
            return self.build(node.body, depth + 1)
        if isinstance(node, ast.Constant):
            v = node.value
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                raise self.fail(f"only numeric literals are allowed, got {type(v).__name__} literal {v!r:.40}")
            if isinstance(v, int):
                if len(str(abs(v))) > MAX_INT_DIGITS:
                    raise self.fail(f"integer literal longer than {MAX_INT_DIGITS} digits")
                return sp.Integer(v)
            return sp.Rational(repr(v)) if abs(v) < 1e300 else sp.Float(v)
        if isinstance(node, ast.Name):
            if node.id in self.symbols:
                return self.symbols[node.id]
            if node.id in CONSTANTS:
                return CONSTANTS[node.id]
            if node.id in FUNCTIONS:
                raise self.fail(f"function {node.id!r} used without a call")
            raise self.fail(
                f"unknown name {node.id!r}: declare it under [symbols]; allowed constants: {sorted(CONSTANTS)}"
            )
        if isinstance(node, ast.UnaryOp):
            operand = self.build(node.operand, depth + 1)
            if isinstance(node.op, ast.USub):
                return -operand
            if isinstance(node.op, ast.UAdd):
                return operand
            raise self.fail(f"operator {type(node.op).__name__} is not allowed")
        if isinstance(node, ast.BinOp):
            left = self.build(node.left, depth + 1)
            right = self.build(node.right, depth + 1)
            if isinstance(node.op, ast.Pow):
                if right.is_number and left.is_number:
                    if abs(float(right)) > MAX_CONST_EXPONENT:
                        raise self.fail(f"constant power with exponent {right} exceeds {MAX_CONST_EXPONENT}")
                    # cap the size of exact constant powers (((2**999)**999)**999 would need 1e9 bits)
                    mag = abs(sp.N(sp.log(sp.Abs(left) + 2, 2), 15)) if left != 0 else 0
                    if float(mag) * abs(float(right)) > 1e4:
                        raise self.fail(f"constant power with base of ~{float(mag):.0f} bits and exponent {right} is too large to evaluate safely")
                if right.is_number and right.is_Integer and abs(int(right)) > MAX_CONST_EXPONENT:
                    raise self.fail(f"integer exponent {right} exceeds {MAX_CONST_EXPONENT}")
                return left**right
            op = _BINOPS.get(type(node.op))
            if op is None:
                raise self.fail(f"operator {type(node.op).__name__} is not allowed (use + - * / **)")
            return op(left, right)
        if isinstance(node, ast.Call):
            if not isinstance(node.func, ast.Name):
                raise self.fail("only calls of whitelisted functions by bare name are allowed (no attribute access)")
            name = node.func.id
            if name not in FUNCTIONS:
                raise self.fail(f"function {name!r} is not allowed; allowed: {', '.join(sorted(FUNCTIONS))}")
            if node.keywords:
                raise self.fail(f"keyword arguments are not allowed in {name}()")
            if any(isinstance(a, ast.Starred) for a in node.args):
                raise self.fail(f"starred arguments are not allowed in {name}()")
            (lo, hi), fn = FUNCTIONS[name]
            if not lo <= len(node.args) <= hi:
                raise self.fail(f"{name}() takes {lo}..{hi} arguments, got {len(node.args)}")
            return fn(*(self.build(a, depth + 1) for a in node.args))
        raise self.fail(f"{type(node).__name__} is not allowed in an expression")


def parse_expression(text: str, symbols: Mapping[str, sp.Symbol], *, where: str = "expression") -> sp.Expr:
    """Parse ``text`` into a SymPy expression over ``symbols`` (name -> Symbol), or raise ClaimFileError."""
    if not isinstance(text, str):
        raise ClaimFileError(f"{where}: expected a string expression, got {type(text).__name__}")
    if len(text) > MAX_LENGTH:
        raise ClaimFileError(f"{where}: expression is {len(text)} characters long; the limit is {MAX_LENGTH}")
    if not text.strip():
        raise ClaimFileError(f"{where}: empty expression")
    if _nesting_depth(text) > MAX_DEPTH:
        raise ClaimFileError(f"{where}: expression nested deeper than {MAX_DEPTH}")
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        raise ClaimFileError(f"{where}: not a valid expression ({type(exc).__name__}: {exc})") from None
    return _Builder(symbols, where).build(tree)


__all__ = ["parse_expression", "FUNCTIONS", "CONSTANTS", "MAX_LENGTH", "MAX_DEPTH"]
