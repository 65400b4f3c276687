r"""``symdp sweep``: an accountant grid in chunks, on every core or a Dask cluster, resumable (issue 15).

The grid is the product of noise multipliers, sample rates, step counts, deltas (or epsilons) and
accountants, enumerated in a fixed order (accountant slowest, then sigma, q, steps, delta/epsilon).  It
is cut into chunks of ``chunk_size`` consecutive configurations; each chunk is one task, computed with
the accountants' vectorised public API (:func:`symdp.accountants.epsilon` / :func:`symdp.accountants.delta`
on whole arrays; ``tight-batched``: :func:`symdp.accountants.batched.epsilon_batch`, the batched PLD on
a torch device).  Every value is what the accountant returns for that configuration: certified upper
bounds (``upper_bound`` true) except the CLT accountant, an approximation (``upper_bound`` false), as
the accountants label it.  The rows do not depend on the chunking or the number of workers.

Resuming: the chunks are written to ``OUT.parts/`` (one file per chunk, atomic writes) with a
``manifest.json`` naming the grid and the SHA-256 of every finished chunk; a rerun with the same grid
skips every chunk whose file still has its recorded checksum and parses with the sweep's typed schema
(a missing, empty, edited or renamed chunk is recomputed), and only then assembles ``OUT`` (Parquet
when OUT ends in ``.parquet``, else CSV; every column typed, so CSV values read back as written),
atomically.  A ``OUT.parts/`` of a different grid is refused (one line, exit 2) rather than mixed;
``OUT.parts/.lock`` (``flock``) refuses a second sweep into the same directory while one runs; a run
that fails before any chunk is finished removes the ``OUT.parts/`` it created.

Grid values (one option each): ``0.8,1.0,1.2`` (a list), ``lin:0.5:2:16`` (16 evenly spaced values,
ends included) or ``log:1e-4:1e-1:10`` (log-spaced); steps must be integers.

>>> g = parse_values("sigma", "lin:1:2:3"); g.tolist()
[1.0, 1.5, 2.0]
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import warnings
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ._io import atomic_write_bytes, atomic_write_text
from .errors import InvalidParameterError

#: accountants a sweep can use (``tight-batched``: the torch-batched PLD, epsilon only)
SWEEP_ACCOUNTANTS = ("tight", "rdp", "clt", "advanced", "he2021", "tight-batched")
#: most configurations in one grid
MAX_CONFIGS = 10**9
#: most values one grid option may expand to
MAX_VALUES = 10**6
MANIFEST_VERSION = 2  # 2: done is {chunk: SHA-256 of its file}
_NUM = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
_RANGE = re.compile(rf"^(lin|log):({_NUM}):({_NUM}):(\d+)$")
_LIST = re.compile(rf"^{_NUM}(?:,{_NUM})*$")

#: parameter -> (low, high, low open, high open, integer)
_RANGES: dict[str, tuple[float, float, bool, bool, bool]] = {
    "noise_multiplier": (0.0, math.inf, True, True, False),
    "sample_rate": (0.0, 1.0, True, False, False),
    "steps": (0.0, 1e12, False, False, True),
    "delta": (0.0, 1.0, True, True, False),
    "epsilon": (0.0, math.inf, False, True, False),
}


def _range_text(name: str) -> str:
    lo, hi, lo_open, hi_open, integer = _RANGES[name]
    s = f"{'(' if lo_open else '['}{lo:g}, {hi:g}{')' if hi_open else ']'}"
    return s + (" (integers)" if integer else "")


def parse_values(name: str, text: str) -> np.ndarray:
    """A grid option's values (see the module docstring); :class:`InvalidParameterError` naming the option,
    the value and the allowed form and range."""
    key = {"sigma": "noise_multiplier", "q": "sample_rate"}.get(name, name)
    allowed = f"a list '0.8,1.0', 'lin:LO:HI:N' or 'log:LO:HI:N' with values in {_range_text(key)}"
    s = str(text).strip().replace(" ", "")
    shown = repr(text) if len(repr(text)) <= 40 else repr(text)[:37] + "..."
    m = _RANGE.match(s)
    if m:
        kind, a, b, n = m.group(1), float(m.group(2)), float(m.group(3)), int(m.group(4))
        if not 1 <= n <= MAX_VALUES:
            raise InvalidParameterError(f"--{name}={shown}: N={n} is outside [1, {MAX_VALUES}]; allowed: {allowed}")
        if kind == "log":
            if not (a > 0 and b > 0):
                raise InvalidParameterError(f"--{name}={shown}: a log range needs LO > 0 and HI > 0; allowed: {allowed}")
            vals = np.geomspace(a, b, n)
        else:
            vals = np.linspace(a, b, n)
    elif _LIST.match(s):
        vals = np.array([float(x) for x in s.split(",")])
        if len(vals) > MAX_VALUES:
            raise InvalidParameterError(f"--{name}: {len(vals)} values, more than {MAX_VALUES}; allowed: {allowed}")
    else:
        raise InvalidParameterError(f"--{name}={shown} is not a grid; allowed: {allowed}")
    lo, hi, lo_open, hi_open, integer = _RANGES[key]
    for v in vals:
        bad = not math.isfinite(v) or (v <= lo if lo_open else v < lo) or (v >= hi if hi_open else v > hi)
        if bad or (integer and v != math.floor(v)):
            raise InvalidParameterError(f"--{name}={shown}: value {v:g} is outside the allowed range {_range_text(key)}")
    return vals.astype(np.int64) if integer else vals.astype(float)


def parse_accountants(text: str) -> tuple[str, ...]:
    names = tuple(x.strip() for x in str(text).split(",") if x.strip())
    bad = [n for n in names if n not in SWEEP_ACCOUNTANTS]
    if not names or bad:
        raise InvalidParameterError(f"--accountant={text!r}: {bad[0] if bad else 'empty'!r} is not one of {', '.join(SWEEP_ACCOUNTANTS)} "
                                    "(comma-separated)")
    return names


@dataclass(frozen=True)
class Grid:
    """The sweep grid (values as plain lists, so a Grid is JSON and travels to any worker)."""

    noise_multiplier: tuple[float, ...]
    sample_rate: tuple[float, ...]
    steps: tuple[int, ...]
    target: tuple[float, ...]  # deltas (mode "epsilon") or epsilons (mode "delta")
    accountants: tuple[str, ...]
    mode: str = "epsilon"  # compute epsilon at each delta, or delta at each epsilon
    device: str = "cpu"  # torch device of tight-batched

    def __post_init__(self) -> None:
        if self.mode not in ("epsilon", "delta"):
            raise InvalidParameterError(f"mode={self.mode!r} is not one of ('epsilon', 'delta')")
        if self.mode == "delta" and set(self.accountants) & {"advanced", "he2021", "tight-batched"}:
            bad = sorted(set(self.accountants) & {"advanced", "he2021", "tight-batched"})
            raise InvalidParameterError(f"--accountant={','.join(self.accountants)}: {bad[0]!r} computes epsilon for a delta, "
                                        "not delta for an --epsilon; allowed with --epsilon: tight, rdp, clt")
        if self.size > MAX_CONFIGS:
            raise InvalidParameterError(f"the grid has {self.size} configurations, more than {MAX_CONFIGS}")

    @property
    def shape(self) -> tuple[int, ...]:
        return (len(self.accountants), len(self.noise_multiplier), len(self.sample_rate), len(self.steps), len(self.target))

    @property
    def size(self) -> int:
        return int(np.prod(self.shape, dtype=object))

    def digest(self) -> str:
        return hashlib.sha256(json.dumps(asdict(self), sort_keys=True).encode()).hexdigest()[:16]

    def rows(self, start: int, stop: int) -> dict[str, np.ndarray]:
        """The configurations with flat index in [start, stop), as columns."""
        idx = np.unravel_index(np.arange(start, stop, dtype=np.int64), self.shape)
        return {
            "accountant": np.array(self.accountants, dtype=object)[idx[0]],
            "noise_multiplier": np.asarray(self.noise_multiplier, dtype=float)[idx[1]],
            "sample_rate": np.asarray(self.sample_rate, dtype=float)[idx[2]],
            "steps": np.asarray(self.steps, dtype=np.int64)[idx[3]],
            "target": np.asarray(self.target, dtype=float)[idx[4]],
        }


def make_grid(*, sigma: str, q: str, steps: str, delta: str | None, epsilon: str | None, accountant: str,
              device: str = "cpu") -> Grid:
    """A :class:`Grid` from the CLI's text options (exactly one of ``delta`` / ``epsilon``)."""
    if (delta is None) == (epsilon is None):
        raise InvalidParameterError("give exactly one of --delta (compute epsilon) or --epsilon (compute delta)")
    mode = "epsilon" if delta is not None else "delta"
    target = parse_values("delta", delta) if delta is not None else parse_values("epsilon", epsilon or "")
    return Grid(tuple(parse_values("sigma", sigma).tolist()), tuple(parse_values("q", q).tolist()),
                tuple(int(x) for x in parse_values("steps", steps)), tuple(target.tolist()),
                parse_accountants(accountant), mode, device)


def compute_chunk(task: tuple[dict[str, Any], int, int]) -> dict[str, list[Any]]:
    """Columns of the configurations [start, stop) of a grid (module-level: a process pool or Dask calls it)."""
    from .accountants import delta as acc_delta
    from .accountants import epsilon as acc_epsilon

    gd, start, stop = task
    kw: dict[str, Any] = {k: tuple(v) if isinstance(v, list) else v for k, v in gd.items()}
    g = Grid(**kw)
    cols = g.rows(start, stop)
    n = stop - start
    value = np.full(n, np.nan)
    upper = np.zeros(n, dtype=bool)
    for acc in g.accountants:
        m = cols["accountant"] == acc
        if not m.any():
            continue
        s, qq, T, x = cols["noise_multiplier"][m], cols["sample_rate"][m], cols["steps"][m], cols["target"][m]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the CLT warning: recorded per row as upper_bound = False
            if acc == "tight-batched":
                from .accountants.batched import epsilon_batch

                rb = epsilon_batch(noise_multiplier=s, sample_rate=qq, steps=T, delta=x, device=g.device)
                v, ub = np.asarray(rb.epsilon, dtype=float), bool(rb.is_upper_bound)
            elif g.mode == "epsilon":
                r = acc_epsilon(noise_multiplier=s, sample_rate=qq, steps=T, delta=x, accountant=acc)
                v, ub = np.asarray(r.epsilon, dtype=float), bool(r.is_upper_bound)
            else:
                r = acc_delta(noise_multiplier=s, sample_rate=qq, steps=T, epsilon=x, accountant=acc)
                v, ub = np.asarray(r.delta, dtype=float), bool(r.is_upper_bound)
        value[m] = v.reshape(-1)
        upper[m] = ub
    tgt, out = ("delta", "epsilon") if g.mode == "epsilon" else ("epsilon", "delta")
    return {
        "accountant": [str(a) for a in cols["accountant"]],
        "noise_multiplier": cols["noise_multiplier"].tolist(),
        "sample_rate": cols["sample_rate"].tolist(),
        "steps": [int(t) for t in cols["steps"]],
        tgt: cols["target"].tolist(),
        out: value.tolist(),
        "upper_bound": upper.tolist(),
    }


def _schema(mode: str) -> Any:
    """The typed schema of a sweep's rows (``mode`` names the computed column): written and read back with it,
    so a CSV chunk whose values happen to be integers is still float64 (no int64/double mismatch on assembly)."""
    import pyarrow as pa

    tgt, out = ("delta", "epsilon") if mode == "epsilon" else ("epsilon", "delta")
    return pa.schema([("accountant", pa.string()), ("noise_multiplier", pa.float64()), ("sample_rate", pa.float64()),
                      ("steps", pa.int64()), (tgt, pa.float64()), (out, pa.float64()), ("upper_bound", pa.bool_())])


def _table(cols: dict[str, list[Any]], mode: str) -> Any:
    import pyarrow as pa

    return pa.table(cols, schema=_schema(mode))


def _encode(path: Path, table: Any) -> bytes:
    import io

    import pyarrow.csv as pacsv
    import pyarrow.parquet as pq

    buf = io.BytesIO()
    if path.suffix == ".parquet":
        pq.write_table(table, buf)
    else:
        pacsv.write_csv(table, buf)
    return buf.getvalue()


def _write_table(path: Path, table: Any) -> str:
    """Write ``table`` atomically; return the SHA-256 of the bytes written."""
    data = _encode(path, table)
    atomic_write_bytes(path, data)
    return hashlib.sha256(data).hexdigest()


def _decode(data: bytes, suffix: str, mode: str) -> Any:
    import io

    import pyarrow.csv as pacsv
    import pyarrow.parquet as pq

    schema = _schema(mode)
    if suffix == ".parquet":
        t = pq.read_table(io.BytesIO(data))
        if not t.schema.equals(schema):
            raise ValueError("schema differs")
        return t
    opts = pacsv.ConvertOptions(column_types=schema, include_columns=schema.names)
    t = pacsv.read_csv(io.BytesIO(data), convert_options=opts)
    if t.column_names != schema.names:
        raise ValueError("columns differ")
    return t


#: largest chunk file read back (a chunk of 10^7 rows is ~1 GB of CSV)
MAX_CHUNK_BYTES = 4 << 30


def _read_chunk(path: Path, digest: str | None, mode: str) -> Any:
    """The chunk's table when the file exists, is a regular file, has the SHA-256 ``digest`` recorded in the
    manifest and parses with the schema; else ``None`` (the chunk is recomputed)."""
    from ._io import read_bytes_limited

    if not digest:
        return None
    try:
        data = read_bytes_limited(path, limit=MAX_CHUNK_BYTES, what="sweep chunk", error=ValueError)
    except ValueError:
        return None
    if hashlib.sha256(data).hexdigest() != digest:
        return None
    try:
        return _decode(data, path.suffix, mode)
    except (ValueError, OSError, TypeError, KeyError):
        return None


class _DirLock:
    """An exclusive, non-blocking ``flock`` on ``DIR/.lock`` for the life of a sweep: a second sweep into the
    same ``OUT.parts/`` is refused with one line instead of racing (results of one grid lost or mixed)."""

    def __init__(self, d: Path) -> None:
        self.path = d / ".lock"
        self.fd: int | None = None

    def __enter__(self) -> _DirLock:
        import os

        flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
        try:
            self.fd = os.open(self.path, flags, 0o644)
        except OSError as exc:
            raise InvalidParameterError(f"--out: cannot create the lock {str(self.path)!r} ({exc.strerror})") from None
        try:
            import fcntl
        except ImportError:  # pragma: no cover - not POSIX: no advisory locks
            return self
        try:
            fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(self.fd)
            self.fd = None
            raise InvalidParameterError(f"--out: another sweep is writing {str(self.path.parent)!r} (locked); wait for "
                                        "it to finish or use another --out") from None
        return self

    def __exit__(self, *exc: Any) -> None:
        import os

        if self.fd is not None:
            os.close(self.fd)  # releases the lock
            self.fd = None


@dataclass
class SweepReport:
    out: Path
    configurations: int
    chunks: int
    computed: int  # chunks computed in this run
    skipped: int  # chunks found done (resume)
    seconds: float
    computed_configurations: int = 0

    @property
    def rate(self) -> float:
        """Configurations per second computed in this run (wall clock, including start-up and writing)."""
        return self.computed_configurations / self.seconds if self.seconds > 0 else math.inf


def run_sweep(grid: Grid, out: str | Path, *, chunk_size: int = 1024, workers: int | None = None, scheduler: str | None = None,
              progress: Callable[[int, int], None] | None = None, max_chunks: int | None = None) -> SweepReport:
    """Compute ``grid`` into ``out`` (``.parquet`` or ``.csv``), chunk by chunk, skipping finished chunks.

    ``progress(done, total)`` after each chunk; ``max_chunks``: stop after computing that many new chunks
    (``OUT`` is then not assembled; a rerun goes on), used to test resuming.
    """
    import time

    from .parallel import executor

    t0 = time.monotonic()
    out = Path(out)
    if out.suffix not in (".parquet", ".csv"):
        raise InvalidParameterError(f"--out={str(out)!r} must end in .parquet or .csv")
    if not isinstance(chunk_size, int) or isinstance(chunk_size, bool) or not 1 <= chunk_size <= 10**7:
        raise InvalidParameterError(f"chunk_size={chunk_size!r} is outside the allowed range [1, 10000000] (integers)")
    with executor(workers, scheduler, preload=("symdp.accountants",)) as ex:  # an unreachable scheduler: refused first
        return _run(grid, out, chunk_size, ex, progress, max_chunks, t0)


def _run(grid: Grid, out: Path, chunk_size: int, ex: Any, progress: Callable[[int, int], None] | None,
         max_chunks: int | None, t0: float) -> SweepReport:
    import shutil

    parts = out.with_name(out.name + ".parts")
    created = not parts.exists()
    try:
        parts.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InvalidParameterError(f"--out={str(out)!r}: cannot create {str(parts)!r} ({exc.strerror})") from None
    if parts.is_symlink() or not parts.is_dir():
        raise InvalidParameterError(f"--out={str(out)!r}: {str(parts)!r} is not a directory")
    done: dict[int, str] = {}
    try:
        with _DirLock(parts):
            return _run_locked(grid, out, parts, chunk_size, ex, progress, max_chunks, t0, done)
    finally:
        if created and not done and parts.is_dir():  # nothing finished: leave no .parts/ behind
            shutil.rmtree(parts, ignore_errors=True)


def _run_locked(grid: Grid, out: Path, parts: Path, chunk_size: int, ex: Any,
                progress: Callable[[int, int], None] | None, max_chunks: int | None, t0: float,
                done: dict[int, str]) -> SweepReport:
    """The sweep with ``parts`` locked; ``done`` (chunk -> SHA-256 of its file) is filled as chunks finish."""
    import time

    n = grid.size
    nchunks = max(1, -(-n // chunk_size))
    spec = json.loads(json.dumps({"version": MANIFEST_VERSION, "grid": asdict(grid), "digest": grid.digest(),
                                  "chunk_size": chunk_size, "chunks": nchunks, "format": out.suffix[1:]}))
    man_path = parts / "manifest.json"
    recorded: dict[int, str] = {}
    if man_path.exists() or man_path.is_symlink():
        from ._io import read_text_limited

        try:
            man = json.loads(read_text_limited(man_path, limit=64 << 20, what="sweep manifest", error=ValueError))
        except (ValueError, RecursionError):
            man = {}
        if not isinstance(man, dict) or {k: man.get(k) for k in spec} != spec:
            raise InvalidParameterError(f"--out={str(out)!r}: {parts} holds chunks of a different grid, chunk size or "
                                        "manifest version; use another --out or delete that directory")
        raw = man.get("done", {})
        if isinstance(raw, dict):
            for c, h in raw.items():
                if isinstance(h, str) and str(c).isdigit() and 0 <= int(c) < nchunks:
                    recorded[int(c)] = h
    # a recorded chunk counts only when its file still has the recorded checksum and parses with the schema
    # (a 0-byte, edited or renamed chunk is recomputed, never trusted)
    for c, h in sorted(recorded.items()):
        if _read_chunk(parts / _chunk_name(c, out.suffix), h, grid.mode) is not None:
            done[c] = h

    def save_manifest() -> None:
        atomic_write_text(man_path, json.dumps({**spec, "done": {str(c): done[c] for c in sorted(done)}}, indent=1))

    save_manifest()
    todo = [c for c in range(nchunks) if c not in done]
    skipped = nchunks - len(todo)
    if max_chunks is not None:
        todo = todo[:max_chunks]
    gd = asdict(grid)
    tasks = [(gd, c * chunk_size, min(n, (c + 1) * chunk_size)) for c in todo]
    if progress:
        progress(len(done), nchunks)

    def finished(j: int, cols: dict[str, list[Any]]) -> None:
        c = todo[j]
        done[c] = _write_table(parts / _chunk_name(c, out.suffix), _table(cols, grid.mode))
        save_manifest()
        if progress:
            progress(len(done), nchunks)

    ex.map(compute_chunk, tasks, progress=finished)
    if len(done) == nchunks:
        import pyarrow as pa

        tables = []
        for c in range(nchunks):
            t = _read_chunk(parts / _chunk_name(c, out.suffix), done[c], grid.mode)
            if t is None:  # changed under us after it was written: recompute it here
                cols = compute_chunk((gd, c * chunk_size, min(n, (c + 1) * chunk_size)))
                t = _table(cols, grid.mode)
                done[c] = _write_table(parts / _chunk_name(c, out.suffix), t)
                save_manifest()
            tables.append(t)
        _write_table(out, pa.concat_tables(tables))
    return SweepReport(out, n, nchunks, len(todo), skipped, time.monotonic() - t0, sum(b - a for _, a, b in tasks))


def _chunk_name(c: int, suffix: str) -> str:
    return f"chunk-{c:06d}{suffix}"


def sweep_rows(grid: Grid, chunk_size: int = 1024) -> dict[str, list[Any]]:
    """The whole grid computed in this process (no files): the reference a parallel sweep must equal."""
    n = grid.size
    out: dict[str, list[Any]] = {}
    for start in range(0, n, chunk_size):
        cols = compute_chunk((asdict(grid), start, min(n, start + chunk_size)))
        for k, v in cols.items():
            out.setdefault(k, []).extend(v)
    return out


def _check_cuda(device: str) -> None:
    """One line (exit 2) instead of torch's assertion when ``--device cuda[:N]`` has no such CUDA device."""
    import torch

    n = torch.cuda.device_count() if torch.cuda.is_available() else 0
    idx = int(device.split(":", 1)[1]) if ":" in device else 0
    if idx >= n:
        raise InvalidParameterError(f"--device={device!r}: this machine has {n} CUDA device(s) visible to torch; "
                                    "allowed: cpu" + (f", cuda, cuda:0..cuda:{n - 1}" if n else ""))


def _cli() -> Any:
    import click

    from .cli_types import IntParam

    @click.command("sweep")
    @click.option("--sigma", "sigma", required=True, help="noise multipliers: '0.8,1.0', 'lin:0.5:2:16' or 'log:0.5:8:10'")
    @click.option("--q", "q", required=True, help="sample rates in (0, 1] (same forms)")
    @click.option("--steps", "steps", required=True, help="step counts, integers in [0, 1e12] (same forms)")
    @click.option("--delta", "delta", default=None, help="deltas in (0, 1): compute epsilon at each (same forms)")
    @click.option("--epsilon", "epsilon", default=None, help="epsilons >= 0: compute delta at each (same forms)")
    @click.option("--accountant", default="rdp", show_default=True, help=f"comma-separated, of: {', '.join(SWEEP_ACCOUNTANTS)}")
    @click.option("--out", "out", required=True, type=click.Path(dir_okay=False), help="result file, .parquet or .csv")
    @click.option("--chunk-size", type=IntParam(1, 10**7), default=1024, show_default=True, help="configurations per chunk (task)")
    @click.option("--workers", type=IntParam(1, 1024), default=None, help="local worker processes (default: all cores)")
    @click.option("--scheduler", default=None, metavar="ADDRESS", help="run on this Dask scheduler (e.g. tcp://HOST:8786)")
    @click.option("--device", default="cpu", show_default=True, help="torch device of the tight-batched accountant (cpu, cuda)")
    @click.option("--quiet", is_flag=True, help="no progress bar")
    def sweep(sigma: str, q: str, steps: str, delta: str | None, epsilon: str | None, accountant: str, out: str,
              chunk_size: int, workers: int | None, scheduler: str | None, device: str, quiet: bool) -> None:
        """Epsilon (or delta) of DP-SGD over a grid of noise multipliers, sample rates, steps, deltas (or
        epsilons) and accountants; chunked, parallel, resumable (finished chunks are skipped on a rerun)."""
        import sys

        if device not in ("cpu", "cuda") and not re.match(r"^cuda:\d{1,3}$", device):
            raise InvalidParameterError(f"--device={device!r} is not one of cpu, cuda, cuda:N")
        grid = make_grid(sigma=sigma, q=q, steps=steps, delta=delta, epsilon=epsilon, accountant=accountant, device=device)
        if device != "cpu" and "tight-batched" in grid.accountants:
            _check_cuda(device)
        if Path(out).suffix not in (".parquet", ".csv"):
            raise InvalidParameterError(f"--out={out!r} must end in .parquet or .csv")
        show = not quiet and sys.stderr.isatty()
        if show:
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

            with Progress(TextColumn("sweep chunks"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn()) as bar:
                task = bar.add_task("", total=None)

                def tick(d: int, total: int) -> None:
                    bar.update(task, completed=d, total=total)

                rep = run_sweep(grid, out, chunk_size=chunk_size, workers=workers, scheduler=scheduler, progress=tick)
        else:
            rep = run_sweep(grid, out, chunk_size=chunk_size, workers=workers, scheduler=scheduler)
        click.echo(f"{rep.configurations} configurations in {rep.chunks} chunks ({rep.skipped} already done, "
                   f"{rep.computed} computed in {rep.seconds:.1f} s, {rep.rate:.0f} configurations/s) -> {rep.out}")

    return sweep


sweep = _cli()

__all__ = ["Grid", "SWEEP_ACCOUNTANTS", "SweepReport", "compute_chunk", "make_grid", "parse_values", "parse_accountants",
           "run_sweep", "sweep", "sweep_rows"]
