"""The JSON schema of a symdp DP-SGD certificate (``symdp.certificate/1``).

A certificate is a JSON object with these top-level keys:

``schema``       the string ``"symdp.certificate/1"``.
``created``      ISO-8601 UTC time stamp.
``mode``         ``"trained"`` (symdp trained the model) or ``"hparams"`` (certified from hyperparameters
                 or a ledger of a model trained elsewhere).
``parameters``   ``n`` (training-set size), ``delta``, ``ledger`` (list of ``[noise_multiplier, sample_rate,
                 steps]``), ``steps``; when trained also ``max_grad_norm``, ``optimizer``, ``device``,
                 ``dataset``, ``model``, ``seed``, ``target_epsilon``.
``privacy``      ``delta``; ``accountants``: ``{"tight"|"rdp"|"clt": {accountant, label, delta, available,
                 epsilon, is_upper_bound, error_bound, reason}}`` (plus ``verdicts``: the verdict of each
                 library entry the accountant rests on, and ``error_bound_kind``, when the accountant says); ``epsilon_upper`` (the smallest available
                 upper bound, never the CLT approximation, or null) and ``epsilon_upper_from``;
                 ``odometer`` (the training odometer's final epsilon and its log, or null).
``tradeoff``     ``epsilon``, ``delta`` used and ``fpr`` / ``tpr_max`` arrays: the largest membership-inference
                 TPR the guarantee allows at each FPR.
``generalization`` list of bound entries: ``name``, ``theorem_ids``, ``status`` (verdicts of the theorems),
                 ``applies`` (bool), ``reason``, ``loss`` (the bounded loss), ``confidence``, ``bound`` (gap or
                 risk bound, or null) and ``bound_kind`` (``"gap"`` or ``"risk"``); route-specific extras
                 such as ``failure_probability``, ``k_bits``, ``beta``.
``empirical``    null in ``hparams`` mode; else ``train_loss``, ``test_loss``, ``train_error``,
                 ``test_error``, ``loss_gap``, ``error_gap``, ``audit`` (the MIA audit, see
                 :mod:`symdp.certify.mia`, or null), ``checks`` (list of ``{name, passed, lhs, rhs, gap,
                 detail}``: "empirical epsilon lower bound <= certified upper bound", and the measured gap
                 against each generalization bound that produced a number), ``canary_losses``
                 (``member`` / ``nonmember`` lists).
``versions``     ``symdp``, ``torch``, ``python``, ``numpy``; ``kernels``: ``{"files": {name: sha256},
                 "combined": sha256}`` of the generated kernel files.
``notes``        list of strings (approximations, missing dependencies, stops at the budget).
"""

from __future__ import annotations

from typing import Any

from ..errors import SymdpError

SCHEMA_ID = "symdp.certificate/1"

_num = {"type": "number"}
_num_or_null = {"type": ["number", "null"]}
_str_or_null = {"type": ["string", "null"]}

_ACCOUNTANT = {
    "type": "object",
    "required": ["accountant", "label", "delta", "available", "epsilon", "is_upper_bound", "error_bound", "reason"],
    "properties": {
        "accountant": {"enum": ["tight", "rdp", "clt"]},
        "label": {"type": "string"},
        "delta": _num,
        "available": {"type": "boolean"},
        "epsilon": _num_or_null,
        "is_upper_bound": {"type": "boolean"},
        "error_bound": _num_or_null,
        "reason": _str_or_null,
    },
}

_CHECK = {
    "type": "object",
    "required": ["name", "passed", "lhs", "rhs", "gap", "detail"],
    "properties": {
        "name": {"type": "string"},
        "passed": {"type": ["boolean", "null"]},
        "lhs": _num_or_null,
        "rhs": _num_or_null,
        "gap": _num_or_null,
        "detail": {"type": "string"},
    },
}

_GEN = {
    "type": "object",
    "required": ["name", "theorem_ids", "status", "applies", "reason", "loss", "confidence", "bound", "bound_kind"],
    "properties": {
        "name": {"type": "string"},
        "theorem_ids": {"type": "array", "items": {"type": "string"}},
        "status": {"type": "object", "additionalProperties": {"type": "string"}},
        "applies": {"type": "boolean"},
        "reason": {"type": "string"},
        "loss": {"type": "string"},
        "confidence": _num_or_null,
        "bound": _num_or_null,
        "bound_kind": {"enum": ["gap", "risk"]},
    },
}

SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "symdp DP-SGD certificate",
    "type": "object",
    "required": ["schema", "created", "mode", "parameters", "privacy", "tradeoff", "generalization", "empirical",
                 "versions", "notes"],
    "properties": {
        "schema": {"const": SCHEMA_ID},
        "created": {"type": "string"},
        "mode": {"enum": ["trained", "hparams"]},
        "parameters": {
            "type": "object",
            "required": ["n", "delta", "ledger", "steps"],
            "properties": {
                "n": {"type": "integer", "minimum": 1},
                "delta": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
                "steps": {"type": "integer", "minimum": 0},
                "ledger": {"type": "array", "items": {
                    "type": "array", "minItems": 3, "maxItems": 3,
                    "prefixItems": [{"type": "number", "exclusiveMinimum": 0},
                                    {"type": "number", "exclusiveMinimum": 0, "maximum": 1},
                                    {"type": "integer", "minimum": 0}]}},
            },
        },
        "privacy": {
            "type": "object",
            "required": ["delta", "accountants", "epsilon_upper", "epsilon_upper_from", "odometer"],
            "properties": {
                "delta": _num,
                "accountants": {"type": "object", "required": ["tight", "rdp", "clt"],
                                "properties": dict.fromkeys(("tight", "rdp", "clt"), _ACCOUNTANT)},
                "epsilon_upper": _num_or_null,
                "epsilon_upper_from": _str_or_null,
                "odometer": {"type": ["object", "null"]},
            },
        },
        "tradeoff": {
            "type": ["object", "null"],
            "required": ["epsilon", "delta", "fpr", "tpr_max"],
            "properties": {
                "epsilon": _num, "delta": _num,
                "fpr": {"type": "array", "items": _num},
                "tpr_max": {"type": "array", "items": {"type": "number", "minimum": 0, "maximum": 1}},
            },
        },
        "generalization": {"type": "array", "items": _GEN},
        "empirical": {
            "type": ["object", "null"],
            "required": ["train_loss", "test_loss", "train_error", "test_error", "loss_gap", "error_gap", "audit",
                         "checks"],
            "properties": {
                "checks": {"type": "array", "items": _CHECK},
                "audit": {"type": ["object", "null"]},
            },
        },
        "versions": {
            "type": "object",
            "required": ["symdp", "torch", "python", "numpy", "kernels"],
            "properties": {
                "kernels": {"type": "object", "required": ["files", "combined"],
                            "properties": {"files": {"type": "object", "additionalProperties": {"type": "string"}},
                                           "combined": _str_or_null}},
            },
        },
        "notes": {"type": "array", "items": {"type": "string"}},
    },
}


def validate(cert: dict) -> None:
    """Raise :class:`~symdp.errors.SymdpError` when ``cert`` does not follow :data:`SCHEMA`.

    Uses ``jsonschema`` (a core dependency): types, required keys and value ranges.
    """
    import jsonschema

    try:
        jsonschema.validate(cert, SCHEMA)
    except jsonschema.ValidationError as exc:
        path = "/".join(str(p) for p in exc.absolute_path)
        raise SymdpError(f"certificate does not follow {SCHEMA_ID} at '{path}': {exc.message}") from exc
