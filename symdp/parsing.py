r"""A restricted expression parser for untrusted text (claim files, theorem files): parsed, never executed.

Expressions are parsed with :func:`ast.parse` (``mode="eval"``), which builds a
syntax tree and runs nothing.  The tree is then handled in two passes:

1. **Validation** (nothing of SymPy is built yet).  The tree is walked against
   an explicit whitelist: numbers, declared symbol names, the constants ``pi``
   and ``E`` (``oo`` only as a whole expression, e.g. a limit point),
   ``+ - * / **``, unary ``-``/``+``, and calls of whitelisted functions by
   bare name.  Everything else (attribute access, subscripts, lambdas,
   comprehensions, strings, keyword or starred arguments, f-strings,
   comparisons, boolean operators, walrus) is refused with the reason.  Every
   *constant* sub-expression is evaluated in 20-digit mpmath arithmetic, one
   operation at a time, with each intermediate value checked: it must be a
   finite real number of magnitude at most :data:`MAX_CONST_MAGNITUDE`, so
   ``1/0``, ``log(0)``, ``sqrt(-1)``, ``2**sqrt(-1)`` and ``exp(1000)`` are
   refused, and because every operand is bounded no single mpmath operation
   can run long.  Special functions whose exact evaluation grows without
   bound (``gamma``, ``binomial``) refuse numeric arguments above
   :data:`MAX_SPECIAL_ARG` in magnitude, even next to symbolic ones
   (``binomial(x, 10**9)`` would expand into a 10**9-term product).
2. **Construction** of the SymPy expression from the validated tree; the
   result must not contain ``I``, ``zoo`` or ``nan`` (a claim is about real
   numbers).

Limits (each refusal names the limit): :data:`MAX_LENGTH` characters,
:data:`MAX_DEPTH` levels of syntax nesting, :data:`MAX_NODES` syntax nodes,
:data:`MAX_CALL_DEPTH` nested function calls, :data:`MAX_GROWTH_DEPTH` nested
exponential-type operations (``exp``, ``sinh``, ``cosh``, ``gamma``,
``binomial``, a power with a non-constant exponent: ``exp(exp(exp(exp(x))))``
overflows any numeric check of a claim), integer literals of at most
:data:`MAX_INT_DIGITS` digits and integer exponents of at most
:data:`MAX_CONST_EXPONENT`.  No string is ever passed to ``eval``, ``exec``,
``sympy.sympify`` or ``parse_expr``.

Float literals become exact rationals of the decimal text as written
(``1e-300`` is ``1/10**300``, ``1e-400`` is ``1/10**400``, not Python's
underflowed ``0.0``), so an identity that differs by a tiny literal is a
different statement.

This module is the one parser of untrusted formulas in symdp: claim files
(:mod:`symdp.audit.claims`) and user theorem files use :func:`parse_expression`
and :func:`parse_relation`; a caller may narrow the function whitelist with
``functions=``.  :func:`parse_srepr` (certificates: SymPy ``srepr`` text read
without ``eval``) sits beside the whitelist.  It lives low (beside
:mod:`symdp.theorem`, no symdp import but :mod:`symdp.errors`) so the theorem
files, the verifier and the audit all use it; :mod:`symdp.audit.parser`
re-exports it.

>>> import sympy as sp
>>> x = sp.Symbol("x", positive=True)
>>> parse_expression("x*(exp(x) - 1)/(exp(x) + 1)", {"x": x})
x*(exp(x) - 1)/(exp(x) + 1)
>>> parse_relation("x <= 1", {"x": x})
x <= 1
"""

from __future__ import annotations

import ast
import unicodedata
from collections.abc import Callable, Collection, Mapping
from typing import Any

import mpmath
import sympy as sp

from .errors import ClaimFileError

#: characters of one expression
MAX_LENGTH = 2000
#: levels of syntax nesting (brackets and operators)
MAX_DEPTH = 40
#: syntax nodes of one expression
MAX_NODES = 600
#: nested function calls, e.g. exp(log(sqrt(...))) is 3
MAX_CALL_DEPTH = 10
#: nested exponential-type operations (exp, sinh, cosh, gamma, binomial, x**y with y not constant)
MAX_GROWTH_DEPTH = 3
#: digits of an integer literal
MAX_INT_DIGITS = 60
#: |integer exponent| of a power
MAX_CONST_EXPONENT = 1000
#: |numeric argument| of gamma and binomial
MAX_SPECIAL_ARG = 1000
#: |value| of every constant sub-expression
MAX_CONST_MAGNITUDE = mpmath.mpf("1e300")


def _phi(x: sp.Expr) -> sp.Expr:
    return sp.erfc(-x / sp.sqrt(2)) / 2


def _log(a: sp.Expr, b: sp.Expr | None = None) -> sp.Expr:
    return sp.log(a) if b is None else sp.log(a, b)


#: function name -> (arity range, SymPy builder)
FUNCTIONS: dict[str, tuple[tuple[int, int], Callable[..., sp.Expr]]] = {
    "exp": ((1, 1), sp.exp),
    "log": ((1, 2), _log),
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

#: functions whose exact evaluation grows without bound in their numeric arguments
SPECIAL = frozenset({"gamma", "binomial"})
#: functions that count towards MAX_GROWTH_DEPTH
GROWTH = frozenset({"exp", "expm1", "sinh", "cosh", "gamma", "binomial"})

CONSTANTS: dict[str, sp.Expr] = {"pi": sp.pi, "E": sp.E, "e": sp.E, "oo": sp.oo, "inf": sp.oo}
_INFINITE = frozenset({"oo", "inf"})


def _mp_phi(x: mpmath.mpf) -> mpmath.mpf:
    return mpmath.erfc(-x / mpmath.sqrt(2)) / 2


def _mp_log(a: mpmath.mpf, b: mpmath.mpf | None = None) -> mpmath.mpf:
    if b is None:
        return mpmath.log(a)
    return mpmath.log(a) / mpmath.log(b)


#: mpmath twins of FUNCTIONS, used only on validated, bounded constant arguments
_MP: dict[str, Callable[..., mpmath.mpf]] = {
    "exp": mpmath.exp,
    "log": _mp_log,
    "ln": mpmath.log,
    "log2": lambda a: mpmath.log(a, 2),
    "log10": mpmath.log10,
    "log1p": mpmath.log1p,
    "expm1": mpmath.expm1,
    "sqrt": mpmath.sqrt,
    "abs": abs,
    "sin": mpmath.sin,
    "cos": mpmath.cos,
    "tanh": mpmath.tanh,
    "sinh": mpmath.sinh,
    "cosh": mpmath.cosh,
    "atan": mpmath.atan,
    "erf": mpmath.erf,
    "erfc": mpmath.erfc,
    "Phi": _mp_phi,
    "ceil": mpmath.ceil,
    "floor": mpmath.floor,
    "min": lambda *a: min(a),
    "max": lambda *a: max(a),
    "binomial": mpmath.binomial,
    "gamma": mpmath.gamma,
}

_BINOPS: dict[type, Callable[[sp.Expr, sp.Expr], sp.Expr]] = {
    ast.Add: lambda a, b: a + b,
    ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b,
    ast.Div: lambda a, b: a / b,
}
_OPNAME = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.Pow: "**"}

#: a constant's value (mpmath), or None for a sub-expression with symbols
_Value = Any


def _nesting_depth(text: str) -> int:
    depth = best = 0
    for ch in text:
        if ch in "([{":
            depth += 1
            best = max(best, depth)
        elif ch in ")]}":
            depth -= 1
    return best


def _src(node: ast.AST) -> str:
    try:
        s = ast.unparse(node)
    except Exception:  # noqa: BLE001 - only used in messages
        s = type(node).__name__
    return s if len(s) <= 60 else s[:57] + "..."


def _float_literal(node: ast.Constant, text: str | None, fail: Callable[[str], ClaimFileError]) -> str:
    """The decimal text of a float literal as written (``1e-400`` stays 1e-400: Python's float would be 0.0)."""
    seg = ast.get_source_segment(text, node) if text is not None else None
    if seg is not None:
        seg = seg.replace("_", "").strip()
        try:
            sp.Rational(seg)
            return seg
        except (TypeError, ValueError):
            pass
    v = node.value
    assert isinstance(v, float)
    if text is None and abs(v) < 2.3e-308:  # may be an underflowed literal: refuse rather than read it as 0
        raise fail(f"float literal {v!r}: its exact value is unknown here; write it as a fraction")
    return repr(v)


class _Checker:
    """Pass 1: structure, limits and every constant's value, before any SymPy object is built."""

    def __init__(self, symbols: Collection[str], functions: Collection[str], fail: Callable[[str], ClaimFileError],
                 text: str | None = None):
        self.symbols = symbols
        self.functions = functions
        self.fail = fail
        self.text = text
        self.nodes = 0

    def _const(self, node: ast.AST, value: object) -> mpmath.mpf:
        """Check a constant's value: finite, real, |value| <= MAX_CONST_MAGNITUDE."""
        if not isinstance(value, mpmath.mpf):
            raise self.fail(f"constant {_src(node)} is not a real number (complex result); claims are about reals")
        if not mpmath.isfinite(value):
            raise self.fail(f"constant {_src(node)} is not finite (division by zero, log(0) or overflow)")
        if abs(value) > MAX_CONST_MAGNITUDE:
            raise self.fail(
                f"constant {_src(node)} is too large: |value| ~ {mpmath.nstr(abs(value), 3)} exceeds "
                f"{mpmath.nstr(MAX_CONST_MAGNITUDE, 3)}"
            )
        return value

    def _apply(self, node: ast.AST, fn: Callable[..., object], *args: mpmath.mpf) -> mpmath.mpf:
        try:
            with mpmath.workdps(20):
                out = fn(*args)
        except ZeroDivisionError:
            raise self.fail(f"constant {_src(node)} divides by zero") from None
        except (ValueError, OverflowError, TypeError, ArithmeticError) as exc:
            raise self.fail(f"constant {_src(node)} cannot be evaluated as a real number ({exc})") from None
        return self._const(node, out)

    def visit(self, node: ast.AST, depth: int, calls: int, growth: int, top: bool = False) -> _Value:
        """Validate ``node``; return its value if it is constant (``top``: the node is a whole side)."""
        self.nodes += 1
        if self.nodes > MAX_NODES:
            raise self.fail(f"expression has more than {MAX_NODES} syntax nodes")
        if depth > MAX_DEPTH:
            raise self.fail(f"expression nested deeper than {MAX_DEPTH}")
        if isinstance(node, ast.Expression):
            return self.visit(node.body, depth + 1, calls, growth, top=True)
        if isinstance(node, ast.Constant):
            v = node.value
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                raise self.fail(f"only numeric literals are allowed, got {type(v).__name__} literal {v!r:.40}")
            if isinstance(v, int):
                if len(str(abs(v))) > MAX_INT_DIGITS:
                    raise self.fail(f"integer literal longer than {MAX_INT_DIGITS} digits")
                return self._const(node, mpmath.mpf(v))
            return self._const(node, mpmath.mpf(_float_literal(node, self.text, self.fail)))
        if isinstance(node, ast.Name):
            if node.id in self.symbols:
                return None
            if node.id in CONSTANTS:
                if node.id in _INFINITE:
                    if not top:
                        raise self.fail(f"{node.id!r} is allowed only as a whole expression (a limit point such as 'oo')")
                    return None
                with mpmath.workdps(20):
                    return mpmath.mpf(float(CONSTANTS[node.id]))
            if node.id in FUNCTIONS:
                raise self.fail(f"function {node.id!r} used without a call")
            raise self.fail(
                f"unknown name {node.id!r}: declare it under [symbols]; allowed constants: {sorted(CONSTANTS)}"
            )
        if isinstance(node, ast.UnaryOp):
            if not isinstance(node.op, (ast.USub, ast.UAdd)):
                raise self.fail(f"operator {type(node.op).__name__} is not allowed")
            val = self.visit(node.operand, depth + 1, calls, growth, top=top)
            return None if val is None else (-val if isinstance(node.op, ast.USub) else val)
        if isinstance(node, ast.BinOp):
            op = type(node.op)
            if op not in _OPNAME:
                raise self.fail(f"operator {op.__name__} is not allowed (use + - * / **)")
            left = self.visit(node.left, depth + 1, calls, growth)
            if op is ast.Pow:
                right = self.visit(node.right, depth + 1, calls, growth)
                if right is None:  # x**y, 2**x: exponential growth in a non-constant exponent
                    if growth + 1 > MAX_GROWTH_DEPTH:
                        raise self.fail(f"more than {MAX_GROWTH_DEPTH} nested exponential-type operations")
                    # the exponent's own growth counts too: 2**(2**(2**x))
                    self._growth_exponent(node.right, depth + 1, calls, growth + 1)
                    return None
                if right == mpmath.floor(right) and abs(right) > MAX_CONST_EXPONENT:
                    raise self.fail(f"integer exponent {int(right)} exceeds {MAX_CONST_EXPONENT}")
                if left is None:
                    return None
                return self._apply(node, mpmath.power, left, right)
            right = self.visit(node.right, depth + 1, calls, growth)
            if left is None or right is None:
                return None
            fn = {ast.Add: mpmath.fadd, ast.Sub: mpmath.fsub, ast.Mult: mpmath.fmul, ast.Div: mpmath.fdiv}[op]
            return self._apply(node, fn, left, right)
        if isinstance(node, ast.Call):
            if not isinstance(node.func, ast.Name):
                raise self.fail("only calls of whitelisted functions by bare name are allowed (no attribute access)")
            name = node.func.id
            if name not in FUNCTIONS or name not in self.functions:
                raise self.fail(f"function {name!r} is not allowed; allowed: {', '.join(sorted(self.functions))}")
            if node.keywords:
                raise self.fail(f"keyword arguments are not allowed in {name}()")
            if any(isinstance(a, ast.Starred) for a in node.args):
                raise self.fail(f"starred arguments are not allowed in {name}()")
            (lo, hi), _ = FUNCTIONS[name]
            if not lo <= len(node.args) <= hi:
                raise self.fail(f"{name}() takes {lo}..{hi} arguments, got {len(node.args)}")
            if calls + 1 > MAX_CALL_DEPTH:
                raise self.fail(f"more than {MAX_CALL_DEPTH} nested function calls")
            g = growth + (name in GROWTH)
            if g > MAX_GROWTH_DEPTH:
                raise self.fail(f"more than {MAX_GROWTH_DEPTH} nested exponential-type operations")
            vals = [self.visit(a, depth + 1, calls + 1, g) for a in node.args]
            if name in SPECIAL:
                for a, v in zip(node.args, vals):
                    if v is not None and abs(v) > MAX_SPECIAL_ARG:
                        raise self.fail(
                            f"{name}() argument {_src(a)} exceeds {MAX_SPECIAL_ARG} in magnitude "
                            "(exact evaluation would not finish)"
                        )
            if any(v is None for v in vals):
                return None
            return self._apply(node, _MP[name], *vals)
        raise self.fail(f"{type(node).__name__} is not allowed in an expression")

    def _growth_exponent(self, node: ast.AST, depth: int, calls: int, growth: int) -> None:
        """Re-walk a non-constant exponent counting the enclosing power's growth (cheap: bounded by MAX_NODES)."""
        saved = self.nodes
        self.visit(node, depth, calls, growth)
        self.nodes = saved


class _Builder:
    """Pass 2 (after :class:`_Checker`): the SymPy expression of a validated tree.

    ``build`` validates the subtree it is given first, so callers that walk
    trees themselves (``parse_relation``) get the same protection.
    """

    def __init__(self, symbols: Mapping[str, sp.Symbol], where: str, functions: Collection[str] | None = None,
                 text: str | None = None):
        self.symbols = symbols
        self.where = where
        self.functions = FUNCTIONS.keys() if functions is None else functions
        self.text = text  # the parsed source, so float literals keep their exact decimal value

    def fail(self, reason: str) -> ClaimFileError:
        return ClaimFileError(f"{self.where}: {reason}")

    def build(self, node: ast.AST, depth: int = 0) -> sp.Expr:
        _Checker(self.symbols.keys(), self.functions, self.fail, self.text).visit(node, depth, 0, 0, top=True)
        try:
            expr = self._construct(node)
        except RecursionError:
            raise self.fail(f"expression nested deeper than {MAX_DEPTH}") from None
        if isinstance(expr, sp.Basic) and (expr.has(sp.I, sp.zoo, sp.nan) or expr.is_extended_real is False):
            raise self.fail(f"expression {_src(node)} is not real-valued (it simplifies to {sp.sstr(expr)[:80]})")
        return expr

    def _construct(self, node: ast.AST) -> sp.Expr:
        if isinstance(node, ast.Expression):
            return self._construct(node.body)
        if isinstance(node, ast.Constant):
            v = node.value
            return sp.Integer(v) if isinstance(v, int) else sp.Rational(_float_literal(node, self.text, self.fail))
        if isinstance(node, ast.Name):
            if node.id in self.symbols:
                return self.symbols[node.id]
            return CONSTANTS[node.id]
        if isinstance(node, ast.UnaryOp):
            operand = self._construct(node.operand)
            return -operand if isinstance(node.op, ast.USub) else operand
        if isinstance(node, ast.BinOp):
            left, right = self._construct(node.left), self._construct(node.right)
            if isinstance(node.op, ast.Pow):
                return left**right
            return _BINOPS[type(node.op)](left, right)
        if isinstance(node, ast.Call):
            assert isinstance(node.func, ast.Name)
            return FUNCTIONS[node.func.id][1](*(self._construct(a) for a in node.args))
        raise self.fail(f"{type(node).__name__} is not allowed in an expression")  # unreachable after _Checker


def _tree(text: object, where: str, what: str) -> tuple[ast.Expression, str]:
    if not isinstance(text, str):
        raise ClaimFileError(f"{where}: expected a string {what}, got {type(text).__name__}")
    if len(text) > MAX_LENGTH:
        raise ClaimFileError(f"{where}: {what} is {len(text)} characters long; the limit is {MAX_LENGTH}")
    if not text.strip():
        raise ClaimFileError(f"{where}: empty {what}")
    if _nesting_depth(text) > MAX_DEPTH:
        raise ClaimFileError(f"{where}: {what} nested deeper than {MAX_DEPTH}")
    src = text.strip()
    for ch in src:  # Python folds identifiers by NFKC ("ｅｐｓ" would read as "eps"): a look-alike is refused, not folded
        if ord(ch) > 127 and unicodedata.normalize("NFKC", ch) != ch:
            raise ClaimFileError(f"{where}: character {ch!r} (U+{ord(ch):04X}) in the {what} is a compatibility "
                                 f"variant of {unicodedata.normalize('NFKC', ch)!r}; write the plain character")
    try:
        return ast.parse(src, mode="eval"), src
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        raise ClaimFileError(f"{where}: not a valid {what} ({type(exc).__name__}: {exc})") from None


def parse_expression(
    text: str,
    symbols: Mapping[str, sp.Symbol],
    *,
    where: str = "expression",
    functions: Collection[str] | None = None,
) -> sp.Expr:
    """Parse untrusted ``text`` into a validated SymPy expression, or raise :class:`ClaimFileError`.

    ``symbols`` maps each allowed name to its Symbol (with the assumptions the
    caller wants); ``functions`` narrows the whitelist :data:`FUNCTIONS`
    (default: all of it).  ``where`` prefixes every error message (e.g.
    ``"line 12: field 'claimed'"``).  Nothing in ``text`` is evaluated before
    it is validated; see the module docstring for the limits.
    """
    tree, src = _tree(text, where, "expression")
    return _Builder(symbols, where, functions, src).build(tree)


_RELATIONS: dict[type, Callable[[sp.Expr, sp.Expr], sp.Basic]] = {
    ast.Lt: sp.Lt, ast.LtE: sp.Le, ast.Gt: sp.Gt, ast.GtE: sp.Ge, ast.Eq: sp.Eq,
}


def parse_relation(
    text: str,
    symbols: Mapping[str, sp.Symbol],
    *,
    where: str = "relation",
    functions: Collection[str] | None = None,
) -> sp.Basic:
    """One comparison ``lhs OP rhs`` (OP in ``< <= > >= ==``), both sides as in :func:`parse_expression`."""
    tree, src = _tree(text, where, "relation")
    node = tree.body
    if not isinstance(node, ast.Compare) or len(node.ops) != 1:
        raise ClaimFileError(f"{where}: expected one comparison such as 'epsilon <= 1', got {text.strip()[:60]!r}")
    op = _RELATIONS.get(type(node.ops[0]))
    if op is None:
        raise ClaimFileError(f"{where}: comparison operator {type(node.ops[0]).__name__} is not allowed (< <= > >= ==)")
    b = _Builder(symbols, where, functions, src)
    return op(b.build(node.left, 1), b.build(node.comparators[0], 1))


# ---- srepr text (certificates) ------------------------------------------------------------------------------

#: limits of a srepr text read by :func:`parse_srepr`
SREPR_MAX_LENGTH = 2_000_000
SREPR_MAX_NODES = 200_000
#: classes whose first positional argument may be a string (a name or a decimal), never parsed as code
_STR_ARG_CLASSES = frozenset({"Symbol", "Dummy", "Float", "Integer", "Rational"})
#: |integer exponent| of a constant power in srepr text
SREPR_MAX_EXPONENT = 10_000
#: SymPy classes whose automatic evaluation grows without bound in a numeric argument
_GROWING = frozenset({"gamma", "factorial", "factorial2", "subfactorial", "binomial", "RisingFactorial",
                      "FallingFactorial", "fibonacci", "lucas", "bell", "catalan", "harmonic", "bernoulli", "euler"})


def parse_srepr(text: str, *, where: str = "certificate") -> sp.Basic:
    r"""Rebuild a SymPy object from its ``sympy.srepr`` text without ``eval``.

    Only calls of SymPy classes (subclasses of :class:`sympy.Basic`, looked up by bare name in the ``sympy``
    namespace) with numeric, string-name or nested-call arguments and boolean/integer keyword values (symbol
    assumptions, ``precision``) are accepted; bare names must be SymPy singletons (``pi``, ``E``, ``oo``,
    ``true``...).  Strings are accepted only as the first argument of ``Symbol``, ``Dummy``, ``Float``,
    ``Integer`` and ``Rational`` (other classes would hand a string to ``sympify``, which runs code).  Constant
    powers with an integer exponent above :data:`SREPR_MAX_EXPONENT` and factorial-like classes of numeric
    arguments above :data:`MAX_SPECIAL_ARG` are refused before SymPy evaluates them.  Raises :class:`ClaimFileError` naming the offending piece.

    >>> x = sp.Symbol("x", positive=True)
    >>> parse_srepr(sp.srepr(sp.exp(-x) + sp.Rational(1, 3))) == sp.exp(-x) + sp.Rational(1, 3)
    True
    """
    if not isinstance(text, str):
        raise ClaimFileError(f"{where}: expected srepr text, got {type(text).__name__}")
    if len(text) > SREPR_MAX_LENGTH:
        raise ClaimFileError(f"{where}: srepr text is {len(text)} characters; the limit is {SREPR_MAX_LENGTH}")
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        raise ClaimFileError(f"{where}: not srepr text ({type(exc).__name__})") from None
    count = 0

    def fail(why: str) -> ClaimFileError:
        return ClaimFileError(f"{where}: {why}")

    def cls_of(name: str) -> Any:
        obj = getattr(sp, name, None)
        if isinstance(obj, type) and issubclass(obj, sp.Basic):
            return obj
        raise fail(f"{name!r} is not a SymPy class")

    def const(node: ast.AST) -> Any:
        if isinstance(node, ast.Constant) and isinstance(node.value, (bool, int)) and not isinstance(node.value, str):
            if isinstance(node.value, int) and len(str(abs(node.value))) > 5000:
                raise fail("integer literal longer than 5000 digits")
            return node.value
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant) \
                and isinstance(node.operand.value, int) and not isinstance(node.operand.value, bool):
            return -const(node.operand)
        raise fail(f"{_src(node)} is not an allowed constant")

    def build(node: ast.AST) -> Any:
        nonlocal count
        count += 1
        if count > SREPR_MAX_NODES:
            raise fail(f"more than {SREPR_MAX_NODES} syntax nodes")
        if isinstance(node, ast.Call):
            if not isinstance(node.func, ast.Name):
                raise fail("only calls of SymPy classes by bare name are allowed")
            name = node.func.id
            cls = cls_of(name)
            args: list[Any] = []
            for k, a in enumerate(node.args):
                if isinstance(a, ast.Constant) and isinstance(a.value, str):
                    if k != 0 or name not in _STR_ARG_CLASSES:
                        raise fail(f"a string argument is allowed only first in {sorted(_STR_ARG_CLASSES)}")
                    args.append(a.value)
                elif isinstance(a, (ast.Call, ast.Name)):
                    args.append(build(a))
                elif isinstance(a, ast.Tuple):
                    args.append(sp.Tuple(*(build(e) for e in a.elts)))
                else:
                    args.append(const(a))
            kwargs = {}
            for kw in node.keywords:
                if kw.arg is None:
                    raise fail("** arguments are not allowed")
                kwargs[kw.arg] = const(kw.value)
            if name == "Pow" and len(args) == 2 and getattr(args[0], "is_number", False) \
                    and getattr(args[1], "is_Integer", False) and abs(int(args[1])) > SREPR_MAX_EXPONENT:
                raise fail(f"constant power with exponent {args[1]} exceeds {SREPR_MAX_EXPONENT}")
            if name in _GROWING and any(getattr(a, "is_number", False) and abs(a) > MAX_SPECIAL_ARG for a in args):
                raise fail(f"{name}() of a numeric argument above {MAX_SPECIAL_ARG}")
            return cls(*args, **kwargs)
        if isinstance(node, ast.Name):
            obj = getattr(sp, node.id, None)
            if isinstance(obj, sp.Basic):
                return obj
            raise fail(f"{node.id!r} is not a SymPy constant")
        if isinstance(node, ast.Tuple):
            return sp.Tuple(*(build(e) for e in node.elts))
        raise fail(f"{type(node).__name__} is not allowed in srepr text")

    try:
        return build(tree.body)
    except ClaimFileError:
        raise
    except RecursionError:
        raise fail("nested too deeply") from None
    except (TypeError, ValueError, AttributeError, ArithmeticError) as exc:
        raise fail(f"cannot rebuild ({type(exc).__name__}: {str(exc)[:80]})") from None


__all__ = [
    "parse_expression", "parse_relation", "parse_srepr", "FUNCTIONS", "CONSTANTS", "MAX_LENGTH", "MAX_DEPTH", "MAX_NODES",
    "MAX_CALL_DEPTH", "MAX_GROWTH_DEPTH", "MAX_INT_DIGITS", "MAX_CONST_EXPONENT", "MAX_SPECIAL_ARG",
    "MAX_CONST_MAGNITUDE",
]
