"""Audit bound claims (the library's and users'): verdicts, counterexamples, reports."""

from .claims import ClaimFile, UserClaim, load_claims, parse_claims
from .engine import audit_claim_file, audit_theorem, audit_theorems, library_claims
from .parser import parse_expression
from .report import AuditResult

__all__ = [
    "AuditResult", "ClaimFile", "UserClaim", "audit_claim_file", "audit_theorem", "audit_theorems",
    "library_claims", "load_claims", "parse_claims", "parse_expression",
]
