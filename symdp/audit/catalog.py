r"""The verifier's oracles described for users (``symdp oracles``) and for claim files.

Read from the public registry of :mod:`symdp.verify` (``symdp.verify.registry.ORACLES`` once
the package is imported).  For each oracle: its shape, required parameters and their aliases,
what it computes, its closed form when it has one, and how a claim file uses it:

* ``value`` oracles: ``kind = "bound"``, ``quantity = "<name>"``, ``claimed = "<expr>"``; the claim
  is ``oracle(params) <= claimed`` (``direction = "upper"``) or ``>=`` (``"lower"``);
* ``profile`` oracles: the same fields; the claim reads ``delta(eps) <= claimed`` with the profile
  evaluated at the claim's own ``epsilon`` (or ``epsilonprime``), e.g. an (eps, delta) claim about
  the Gaussian mechanism with ``quantity = "gaussian_profile"`` and symbols ``mu`` (or ``sigma``)
  and ``epsilon``;
* oracles with a *mapper* are bound to the structure of library entries (composition theorems,
  GDP trade-offs, the moments accountant, CLT checks, Monte Carlo examples): a claim file may name
  them, and gets UNDECIDED with the mapper's reason when its claim does not have that structure.

>>> cat = oracle_catalog()
>>> cat["gaussian_profile"]["shape"], cat["gaussian_profile"]["claim_files"]
('profile', 'yes')
"""

from __future__ import annotations

from typing import Any


def _registry() -> dict[str, Any]:
    from .. import verify as _v  # noqa: F401 - importing the package registers every oracle

    try:
        from ..verify.registry import ORACLES
    except ImportError:  # before the registry split
        from ..verify.oracles import ORACLES
    return dict(ORACLES)


def _usage(o: Any) -> tuple[str, str]:
    """(claim_files, how) for an oracle."""
    params = ", ".join(o.params)
    if o.mapper is not None:
        return ("library structure only",
                "maps library entries of a fixed structure (see its description); a claim file that names it gets "
                "UNDECIDED with the reason when its claim does not have that structure")
    if o.shape == "profile":
        at = " or ".join(o.aliases.get("at", ("epsilon",)))
        return ("yes", f"kind = \"bound\", quantity = \"{o.name}\": claims delta({at}) <= claimed; declare {params}"
                       f" (at = {at})")
    if o.shape == "mc":
        return ("no", "a Monte Carlo estimate (reference only; cannot refute rigorously)")
    return ("yes", f"kind = \"bound\", quantity = \"{o.name}\": claims {o.name}({params}) <= claimed (direction = upper) "
                   "or >= (lower)")


def oracle_catalog() -> dict[str, dict[str, Any]]:
    """``{name: {name, shape, parameters, aliases, computes, closed_form, claim_files, usage, parameters_text}}``."""
    out: dict[str, dict[str, Any]] = {}
    for name, o in sorted(_registry().items()):
        cf, how = _usage(o)
        aliases = {k: list(v) for k, v in (o.aliases or {}).items()}
        ptext = ", ".join(p + (f" (or {'/'.join(aliases[p])})" if p in aliases else "") for p in o.params) or "set by the mapper"
        out[name] = dict(
            name=name, shape=o.shape, parameters=list(o.params), aliases=aliases, parameters_text=ptext,
            computes=o.description + (f"; closed form {o.closed_form}" if o.closed_form else ""),
            closed_form=o.closed_form, exact_closed_form=o.exact is not None, claim_files=cf, usage=how,
        )
    return out


__all__ = ["oracle_catalog"]
