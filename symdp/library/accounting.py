r"""Formulas the DP-SGD accountants run (ids ``accounting.*``).

These are standard results quoted by the sources (He et al. compare against the
moments accountant; Bu et al. 2020 compare GDP with it), recorded with the
original references.  The accountants in :mod:`symdp.accountants` evaluate the
generated kernels of these entries; nothing there re-types a formula.

Symbols: ``alpha`` Renyi order, ``j`` summation index of a binomial expansion,
``q`` Poisson sampling rate, ``gamma`` sampling fraction without replacement,
``sigma`` noise multiplier, ``epsilon_alpha`` an RDP value, ``ell`` a privacy
loss value, ``x`` the released (scalar, projected) output.
"""

from __future__ import annotations

import sympy as sp

from ..symbols import alpha, delta, delta_p, eps, eps_p, q, sigma, x
from ..theorem import Kind, Property, theorem
from ._sources import CLASSICAL, src

j = sp.Symbol("j", real=True, nonnegative=True)  # summation index (not declared integer: SymPy would turn loggamma(j + 1) into log(gamma(j + 1)), which overflows past 171)
eps_alpha = sp.Symbol("epsilon_alpha", nonnegative=True)  # RDP of order alpha
ell = sp.Symbol("ell", real=True)  # a privacy-loss value
gamma = sp.Symbol("gamma", positive=True)  # sampling fraction m/n (without replacement)
term = sp.Symbol("a_j", real=True)  # log of one summand
xstar = sp.Symbol("x_star", real=True)  # inverse privacy loss
D_add = sp.Symbol("H_add", nonnegative=True)
D_rem = sp.Symbol("H_remove", nonnegative=True)
L_sym = sp.Symbol("L", real=True)

MTZ = "Mironov, Talwar, Zhang 2019, 'Renyi differential privacy of the sampled Gaussian mechanism', Sec. 3.3"
CKS = "Canonne, Kamath, Steinke 2020, 'The discrete Gaussian for differential privacy', Prop. 12"
MIR = "Mironov 2017, 'Renyi differential privacy', Prop. 7 and Prop. 1"
WBK = "Wang, Balle, Kasiviswanathan 2019, 'Subsampled Renyi differential privacy and analytical moments accountant', Thm. 9"
BW = "Balle and Wang 2018 (Thm 8); Koskela, Jalko, Honkela 2020 (PLD of the subsampled Gaussian)"

_logbinom = sp.loggamma(alpha + 1) - sp.loggamma(j + 1) - sp.loggamma(alpha - j + 1)
_half_erfc = lambda z: sp.erfc(-z / sp.sqrt(2)) / 2  # noqa: E731  Phi(z)

#: inverse of the remove-direction loss: L(x) > ell  <=>  x > x_star(ell)  (needs exp(ell) > 1 - q);
#: sigma^2 log((e^ell - (1 - q))/q) + 1/2 written without e^ell (no overflow for losses beyond 709)
XSTAR = sigma**2 * (ell - sp.log(q) + sp.log(1 - (1 - q) * sp.exp(-ell))) + sp.Rational(1, 2)

THEOREMS = [
    theorem(
        "accounting.sgm_rdp_log_term",
        "Sampled Gaussian mechanism RDP: log of the k-th binomial term (integer order)",
        Kind.DEFINITION,
        src(CLASSICAL, "Sec. 3.3, integer alpha", cites=MTZ),
        lhs=term,
        rhs=_logbinom + (alpha - j) * sp.log(1 - q) + j * sp.log(q) + (j**2 - j) / (2 * sigma**2),
        hypotheses=[alpha >= 2, j >= 0, j <= alpha, q > 0, q < 1, sigma > 0],
        domain={alpha: (2, 64), j: (0, 2), q: (sp.Rational(1, 10**4), sp.Rational(99, 100)), sigma: (sp.Rational(3, 10), 20)},
        quantity="eps_alpha = logsumexp_j a_j / (alpha - 1) for the Poisson-subsampled Gaussian, integer alpha",
        notes="The accountant takes logsumexp over j = 0..alpha and divides by alpha - 1; composition adds RDP.",
        oracle="sgm_rdp_term",
        tags=("accounting", "rdp"),
    ),
    theorem(
        "accounting.sgm_rdp_log_excess_term",
        "Sampled Gaussian mechanism RDP, integer order: log of the j-th term of A_alpha - 1 (j >= 2)",
        Kind.DEFINITION,
        src(CLASSICAL, "Sec. 3.3, integer alpha; A_alpha - 1 = sum_{j>=2} binom(alpha, j) (1-q)^(alpha-j) q^j (e^((j^2-j)/(2 sigma^2)) - 1)", cites=MTZ),
        lhs=term,
        rhs=_logbinom + (alpha - j) * sp.log(1 - q) + j * sp.log(q) + (j**2 - j) / (2 * sigma**2)
        + sp.log(1 - sp.exp(-(j**2 - j) / (2 * sigma**2))),
        hypotheses=[alpha >= 2, j >= 2, j <= alpha, q > 0, q < 1, sigma > 0],
        domain={alpha: (2, 64), j: (2, 2), q: (sp.Rational(1, 10**4), sp.Rational(99, 100)), sigma: (sp.Rational(3, 10), 20)},
        quantity="log(A_alpha - 1) = logsumexp_{j=2..alpha} a_j; eps_alpha = log1p(exp(.)) / (alpha - 1)",
        notes=("The binomial theorem gives sum_j binom(alpha, j) (1-q)^(alpha-j) q^j = 1 for integer alpha, and the "
               "j = 0, 1 terms of A_alpha have exponent 0, so A_alpha - 1 is a sum of non-negative terms: no "
               "cancellation, and eps_alpha keeps its relative precision when it is tiny (large sigma, small q)."),
        oracle="sgm_rdp_excess_term",
        tags=("accounting", "rdp"),
    ),
    theorem(
        "accounting.sgm_rdp_frac_term1",
        "Sampled Gaussian mechanism RDP, fractional order: log of the i-th term of A_1",
        Kind.DEFINITION,
        src(CLASSICAL, "Sec. 3.3, fractional alpha, A_alpha = A_1 + A_2", cites=MTZ),
        lhs=term,
        rhs=(alpha - j) * sp.log(1 - q) + j * sp.log(q) + (j**2 - j) / (2 * sigma**2)
        + sp.log(_half_erfc((sp.Rational(1, 2) + sigma**2 * sp.log(1 / q - 1) - j) / sigma)),
        hypotheses=[alpha > 1, j >= 0, q > 0, q < 1, sigma > 0],
        domain={alpha: (sp.Rational(11, 10), sp.Rational(19, 10)), j: (0, 1), q: (sp.Rational(1, 10**4), sp.Rational(1, 2)), sigma: (sp.Rational(3, 10), 20)},
        quantity="A_1 = sum_i binomial(alpha, i) exp(a_i) (the real binomial may be negative for i > alpha + 1, so it stays outside the log)",
        notes="z_1 = 1/2 + sigma^2 log(1/q - 1); erfc(( i - z_1)/(sqrt2 sigma))/2 = Phi((z_1 - i)/sigma).",
        oracle="sgm_rdp_frac_term1",
        tags=("accounting", "rdp"),
    ),
    theorem(
        "accounting.sgm_rdp_frac_term2",
        "Sampled Gaussian mechanism RDP, fractional order: log of the i-th term of A_2",
        Kind.DEFINITION,
        src(CLASSICAL, "Sec. 3.3, fractional alpha, A_alpha = A_1 + A_2", cites=MTZ),
        lhs=term,
        rhs=j * sp.log(1 - q) + (alpha - j) * sp.log(q)
        + ((alpha - j) ** 2 - (alpha - j)) / (2 * sigma**2)
        + sp.log(_half_erfc((alpha - j - sp.Rational(1, 2) - sigma**2 * sp.log(1 / q - 1)) / sigma)),
        hypotheses=[alpha > 1, j >= 0, q > 0, q < 1, sigma > 0],
        domain={alpha: (sp.Rational(11, 10), sp.Rational(19, 10)), j: (0, 1), q: (sp.Rational(1, 10**4), sp.Rational(1, 2)), sigma: (sp.Rational(3, 10), 20)},
        quantity="A_2 = sum_i binomial(alpha, i) exp(a_i); eps_alpha = log(A_1 + A_2)/(alpha - 1)",
        oracle="sgm_rdp_frac_term2",
        tags=("accounting", "rdp"),
    ),
    theorem(
        "accounting.gaussian_rdp",
        "RDP of the Gaussian mechanism (sensitivity 1, noise multiplier sigma)",
        Kind.BOUND,
        src(CLASSICAL, "Prop. 7", cites=MIR),
        lhs=eps_alpha,
        relation="<=",
        rhs=alpha / (2 * sigma**2),
        hypotheses=[alpha > 1, sigma > 0],
        domain={alpha: (sp.Rational(11, 10), 256), sigma: (sp.Rational(3, 10), 20)},
        conclusion=Property("RDP", (alpha, eps_alpha), "M"),
        oracle="gaussian_rdp",
        quantity="D_alpha(N(1, sigma^2) || N(0, sigma^2)); equality holds",
        tags=("accounting", "rdp"),
    ),
    theorem(
        "accounting.rdp_to_dp_cks",
        "RDP to (eps, delta)-DP conversion",
        Kind.BOUND,
        src(CLASSICAL, "Prop. 12", cites=CKS),
        lhs=eps_p,
        relation="<=",
        rhs=eps_alpha + sp.log(1 - 1 / alpha) - sp.log(delta * alpha) / (alpha - 1),
        hypotheses=[alpha > 1, delta > 0, delta < 1, eps_alpha >= 0],
        domain={alpha: (sp.Rational(11, 10), 256), delta: (sp.Rational(1, 10**12), sp.Rational(1, 10)), eps_alpha: (0, 10)},
        premises=(Property("RDP", (alpha, eps_alpha), "M"),),
        conclusion=Property("DP", (eps_p, delta), "M"),
        quantity="smallest eps' with M (eps', delta)-DP, given (alpha, eps_alpha)-RDP; minimise over alpha",
        tags=("accounting", "rdp", "conversion"),
    ),
    theorem(
        "accounting.rdp_to_delta_cks",
        "RDP to delta(eps) conversion (the same inequality solved for delta)",
        Kind.BOUND,
        src(CLASSICAL, "Prop. 12 (solved for delta)", cites=CKS),
        lhs=delta_p,
        relation="<=",
        rhs=sp.exp((alpha - 1) * (eps_alpha - eps + sp.log(1 - 1 / alpha))) / alpha,
        hypotheses=[alpha > 1, eps > 0, eps_alpha >= 0],
        domain={alpha: (sp.Rational(11, 10), 256), eps: (sp.Rational(1, 10), 10), eps_alpha: (0, 10)},
        premises=(Property("RDP", (alpha, eps_alpha), "M"),),
        conclusion=Property("DP", (eps, delta_p), "M"),
        quantity="smallest delta' with M (eps, delta')-DP, given (alpha, eps_alpha)-RDP; minimise over alpha (and cap at 1)",
        tags=("accounting", "rdp", "conversion"),
    ),
    theorem(
        "accounting.wor_rdp_term2",
        "Subsampled RDP without replacement (replace-one), Gaussian base: log of the j = 2 term",
        Kind.DEFINITION,
        src(CLASSICAL, "Thm. 9 with eps(2) = 1/sigma^2, eps(inf) = inf", cites=WBK),
        lhs=term,
        rhs=2 * sp.log(gamma) + sp.log(alpha * (alpha - 1) / 2)
        + sp.log(sp.Min(4 * (sp.exp(1 / sigma**2) - 1), 2 * sp.exp(1 / sigma**2))),
        hypotheses=[alpha >= 2, gamma > 0, gamma <= 1, sigma > 0],
        domain={alpha: (2, 64), gamma: (sp.Rational(1, 10**4), 1), sigma: (sp.Rational(3, 10), 20)},
        quantity="eps_alpha <= log(1 + exp(term2) + sum_{j>=3} exp(term_j)) / (alpha - 1); sigma relative to the replace-one sensitivity",
        tags=("accounting", "rdp", "without-replacement"),
    ),
    theorem(
        "accounting.wor_rdp_termj",
        "Subsampled RDP without replacement (replace-one), Gaussian base: log of the j-th term, j >= 3",
        Kind.DEFINITION,
        src(CLASSICAL, "Thm. 9 with eps(j) = j/(2 sigma^2), eps(inf) = inf", cites=WBK),
        lhs=term,
        rhs=j * sp.log(gamma) + _logbinom + (j - 1) * j / (2 * sigma**2) + sp.log(2),
        hypotheses=[alpha >= 3, j >= 3, j <= alpha, gamma > 0, gamma <= 1, sigma > 0],
        domain={alpha: (3, 64), j: (3, 3), gamma: (sp.Rational(1, 10**4), 1), sigma: (sp.Rational(3, 10), 20)},
        quantity="see accounting.wor_rdp_term2",
        tags=("accounting", "rdp", "without-replacement"),
    ),
    theorem(
        "accounting.sgm_loss_remove",
        "Privacy loss of one DP-SGD step, remove direction: P = (1-q)N(0,s^2) + qN(1,s^2) vs Q = N(0,s^2)",
        Kind.DEFINITION,
        src(CLASSICAL, "log dP/dQ of the subsampled Gaussian pair", cites=BW),
        lhs=L_sym,
        rhs=sp.log(1 - q + q * sp.exp((2 * x - 1) / (2 * sigma**2))),
        hypotheses=[q > 0, q <= 1, sigma > 0],
        domain={x: (-3, 3), q: (sp.Rational(1, 10**4), 1), sigma: (sp.Rational(3, 10), 20)},
        quantity="L(x), x ~ P; the add direction has loss -L(x) with x ~ N(0, sigma^2)",
        oracle="sgm_privacy_loss",
        tags=("accounting", "pld"),
    ),
    theorem(
        "accounting.sgm_loss_remove_inverse",
        "Inverse privacy loss of one DP-SGD step: L(x) > ell iff x > x_star(ell)",
        Kind.DEFINITION,
        src(CLASSICAL, "inverse of log dP/dQ (monotone in x)", cites=BW),
        lhs=xstar,
        rhs=XSTAR,
        hypotheses=[sp.exp(ell) > 1 - q, q > 0, q <= 1, sigma > 0],
        domain={ell: (sp.Rational(1, 100), 5), q: (sp.Rational(1, 10**4), 1), sigma: (sp.Rational(3, 10), 20)},
        quantity="x_star(ell) = sigma^2 log((e^ell - (1 - q))/q) + 1/2, written as sigma^2 (ell - log q + log(1 - (1-q) e^-ell)) + 1/2; the add direction uses x_star(-ell)",
        oracle="sgm_privacy_loss_inverse",
        tags=("accounting", "pld"),
    ),
    theorem(
        "accounting.sgm_hockey_remove",
        "Exact privacy profile of one DP-SGD step, remove direction",
        Kind.IDENTITY,
        src(CLASSICAL, "H_{e^eps}(P || Q) = P(L > eps) - e^eps Q(L > eps)", cites=BW),
        lhs=D_rem,
        rhs=(1 - q) * _half_erfc(-XSTAR.subs(ell, eps) / sigma) + q * _half_erfc((1 - XSTAR.subs(ell, eps)) / sigma)
        - sp.exp(eps) * _half_erfc(-XSTAR.subs(ell, eps) / sigma),
        hypotheses=[eps > 0, q > 0, q <= 1, sigma > 0],
        domain={eps: (sp.Rational(1, 100), 5), q: (sp.Rational(1, 10**4), 1), sigma: (sp.Rational(3, 10), 20)},
        quantity="delta(eps) of P = (1-q)N(0,s^2)+qN(1,s^2) vs Q = N(0,s^2)",
        oracle="sgm_pld",
        tags=("accounting", "pld"),
    ),
    theorem(
        "accounting.sgm_hockey_add",
        "Exact privacy profile of one DP-SGD step, add direction",
        Kind.IDENTITY,
        src(CLASSICAL, "H_{e^eps}(Q || P) = Q(L < -eps) - e^eps P(L < -eps)", cites=BW),
        lhs=D_add,
        rhs=_half_erfc(XSTAR.subs(ell, -eps) / sigma)
        - sp.exp(eps) * ((1 - q) * _half_erfc(XSTAR.subs(ell, -eps) / sigma) + q * _half_erfc((XSTAR.subs(ell, -eps) - 1) / sigma)),
        hypotheses=[eps > 0, eps < -sp.log(1 - q), q > 0, q < 1, sigma > 0],
        domain={eps: (sp.Rational(1, 1000), sp.Rational(1, 100)), q: (sp.Rational(1, 10), sp.Rational(9, 10)), sigma: (sp.Rational(3, 10), 20)},
        quantity="delta(eps) of Q = N(0,s^2) vs P = (1-q)N(0,s^2)+qN(1,s^2); 0 for eps >= -log(1-q)",
        oracle="sgm_pld",
        tags=("accounting", "pld"),
    ),
]

__all__ = ["THEOREMS", "XSTAR", "eps_alpha", "ell", "gamma", "j"]
