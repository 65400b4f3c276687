r"""The rungs of the verification ladder, one module each (strongest first):

- :mod:`.symbolic`: SymPy identities, signs and asymptotic expansions;
- :mod:`.smt`: Z3 on a polynomial over-approximation (certificate: SMT-LIB2 text);
- :mod:`.interval`: arb branch-and-bound over the stated box (certificate: JSON);
- :mod:`.numerical`: counterexample search (refutes; can only support) and exact equality at boundary points;
- :mod:`.oracle`: an entry against its oracle (search first, then a proof against the oracle's closed form);
- :mod:`.direct`: a closed-form claim ``lhs rel rhs`` taken up the ladder.

Each rung writes into a :class:`~symdp.verify.core.VerificationResult`; the dispatcher is
:mod:`symdp.verify.engine`.
"""
