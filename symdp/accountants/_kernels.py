"""The accountants' kernel lookup lives in :mod:`symdp.codegen.kernels` (codegen writes what it reads);
re-exported here for the accountants' imports."""

from __future__ import annotations

from ..codegen.kernels import KERNEL_SOURCE as KERNEL_SOURCE
from ..codegen.kernels import META_FILE as META_FILE
from ..codegen.kernels import _entry as _entry
from ..codegen.kernels import _kernel as _kernel
from ..codegen.kernels import meta as meta
from ..codegen.kernels import verdict as verdict

__all__ = ["KERNEL_SOURCE", "META_FILE", "_kernel", "meta", "verdict"]
