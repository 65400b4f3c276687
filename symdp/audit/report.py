r"""Audit reports: terminal table (rich), JSON (schema ``report_schema.json``), Markdown and a
self-contained HTML page with rendered mathematics (MathML, made offline by ``latex2mathml``),
full citations, named compared quantities and labelled plots.

Every writer takes the list of :class:`AuditResult`; :func:`enrich` fills in what a reader needs
from the theorems behind them (the statement's LaTeX, the compared quantity in words, the command
that reproduces the finding).  Fields that the audit engine may add (``severity``, ``root_cause``,
``origin``, ``quote``) are rendered when present, as attributes or in ``extra``, and left out when
absent.

The findings and their assembly live in :mod:`.result`, the writers in :mod:`.render`; this module
re-exports both (the names other code and the docs use).
"""

from __future__ import annotations

from .render import make_console as make_console
from .render import math_html as math_html
from .render import print_table as print_table
from .render import terminal_width as terminal_width
from .render import write_html as write_html
from .render import write_markdown as write_markdown
from .result import OPTIONAL_FIELDS as OPTIONAL_FIELDS
from .result import SCHEMA_FILE as SCHEMA_FILE
from .result import SCHEMA_ID as SCHEMA_ID
from .result import VERDICT_LEGEND as VERDICT_LEGEND
from .result import VERDICTS as VERDICTS
from .result import AuditResult as AuditResult
from .result import clean_text as clean_text
from .result import counts as counts
from .result import counts_by_source as counts_by_source
from .result import describe as describe
from .result import enrich as enrich
from .result import findings as findings
from .result import optional as optional
from .result import plot_labels as plot_labels
from .result import report_payload as report_payload
from .result import reproduce_command as reproduce_command
from .result import source_line as source_line
from .result import summary as summary
from .result import truth_label as truth_label
from .result import validate_report as validate_report
from .result import value_labels as value_labels
from .result import write_json as write_json

__all__ = ["AuditResult", "OPTIONAL_FIELDS", "SCHEMA_ID", "VERDICTS", "VERDICT_LEGEND", "clean_text", "counts",
           "counts_by_source", "describe", "enrich", "findings", "make_console", "math_html", "optional",
           "plot_labels", "print_table", "report_payload", "reproduce_command", "source_line", "summary", "terminal_width", "truth_label",
           "validate_report", "value_labels", "write_html", "write_json", "write_markdown"]
