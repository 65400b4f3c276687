"""Statement hashes do not depend on what the process built before (found while splitting modules, issue 21).

SymPy's cache can hand back a subexpression built earlier around an *equal* symbol declared with other
keywords (a claim file's ``Symbol("epsilon", real=True, positive=True)`` equals the library's
``Symbol("epsilon", positive=True)`` but prints differently); the library entry built afterwards then had
another srepr, another ``expr_hash`` and looked stale against generated/ and the ledger.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_library_hashes_do_not_depend_on_claim_files_parsed_first() -> None:
    code = (
        "from symdp.audit.claims import load_claims\n"
        f"load_claims({str(ROOT / 'examples' / 'claims' / 'kl_false.toml')!r})\n"
        "from symdp.accountants.api import IDS\n"
        "from symdp.codegen.kernels import meta\n"
        "from symdp.library import get\n"
        "ids = [t for v in IDS.values() for t in v]\n"
        "bad = [t for t in ids if meta()['entries'][t]['hash'] != get(t, with_evidence=False).expr_hash()]\n"
        "print('BAD', bad)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=True)
    assert "BAD []" in out.stdout, out.stdout + out.stderr[-2000:]


def test_equal_symbols_hash_alike_whatever_their_keywords() -> None:
    import sympy as sp

    from symdp.symbols import eps
    from symdp.theorem import Kind, Source, Theorem

    other = sp.Symbol("epsilon", real=True, positive=True)
    assert other == eps and sp.srepr(other) != sp.srepr(eps)
    src = Source("test", "none", "v", "eq. 1")
    a = Theorem("t.a", "t", Kind.BOUND, src, lhs=sp.Symbol("y"), relation="<=", rhs=sp.exp(eps))
    b = Theorem("t.a", "t", Kind.BOUND, src, lhs=sp.Symbol("y"), relation="<=", rhs=sp.exp(other))
    assert a.expr_hash() == b.expr_hash()
