r"""DP-SGD with Poisson sampling, per-sample gradients from ``torch.func`` and a device-resident odometer.

One step (Abadi et al. 2016, with Poisson sampling as analysed by Mironov, Talwar
and Zhang 2019 and by the accountants of :mod:`symdp.accountants`):

1. draw the batch by including each of the ``n`` examples independently with
   probability ``q`` (the batch size is Binomial(n, q), possibly 0);
2. per-sample gradients ``g_i`` with ``torch.func.vmap(torch.func.grad(...))``
   over ``functional_call`` (no hooks, no module surgery);
3. clip: ``g_i <- g_i * min(1, C / (||g_i|| + 1e-6))`` so ``||g_i|| < C``
   (the norm is over all parameters jointly);
4. sum, add ``N(0, sigma^2 C^2 I)`` and divide by the *expected* batch size
   ``q n`` (dividing by the realised size would leak it);
5. hand the result to any ``torch.optim.Optimizer`` as ``p.grad``.

The odometer (``symdp.accountants.RDPOdometer``) is stepped every iteration
on the training device without reading its value back (its per-step RDP is
computed there too, float64, generated torch kernels; once per (sigma, q)); the host reads epsilon
only every ``log_every`` steps (for the progress bar and the log).  A budget
stop (``target_epsilon``) is planned before training with a CPU instance of the
same odometer class, so the loop itself never waits on the device.

Randomness comes from torch's default PRNG (seeded for reproducibility); it is
not a cryptographically secure generator, as is usual for research DP-SGD.

>>> import torch
>>> from symdp.certify.data import mlp, synthetic_split
>>> d = synthetic_split(n=64, d=4, num_classes=2)
>>> res = train_dpsgd(mlp(4, 2, (8,)), torch.tensor(d.x_train), torch.tensor(d.y_train),
...                   noise_multiplier=1.0, sample_rate=0.25, steps=3, max_grad_norm=1.0,
...                   delta=1e-5, odometer=None, progress=False)
>>> res.steps
3
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import torch
from torch.func import functional_call, grad, vmap

from ..errors import InvalidParameterError, InvalidTypeError, UnsupportedError
from ..validation import check_int, check_probability, check_real

LossFn = Callable[[torch.Tensor, torch.Tensor], torch.Tensor]


def default_device() -> torch.device:
    """CUDA when available, else CPU (the same code path runs on both)."""
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


def _ce(logits: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.cross_entropy(logits, y)


# --------------------------------------------------------------------------- the pure pieces
def per_sample_grads(
    model: torch.nn.Module,
    params: dict[str, torch.Tensor],
    buffers: dict[str, torch.Tensor],
    x: torch.Tensor,
    y: torch.Tensor,
    loss_fn: LossFn = _ce,
) -> dict[str, torch.Tensor]:
    """Per-example gradients ``{name: [B, *param.shape]}`` via ``vmap(grad(loss of one example))``."""

    def one(p: dict[str, torch.Tensor], xi: torch.Tensor, yi: torch.Tensor) -> torch.Tensor:
        out = functional_call(model, (p, buffers), (xi.unsqueeze(0),))
        return loss_fn(out, yi.unsqueeze(0))

    return vmap(grad(one), in_dims=(None, 0, 0), randomness="different")(params, x, y)


def clip_and_sum(grads: dict[str, torch.Tensor], max_grad_norm: float) -> tuple[dict[str, torch.Tensor], torch.Tensor]:
    """Clip each example's joint gradient to L2 norm ``< max_grad_norm`` and sum over the batch.

    Returns the summed gradients and the per-example norms *before* clipping.
    """
    norms = torch.linalg.vector_norm(
        torch.stack([torch.linalg.vector_norm(g.flatten(1), dim=1) for g in grads.values()], dim=1), dim=1
    )
    factor = (max_grad_norm / (norms + 1e-6)).clamp(max=1.0)
    summed = {k: torch.tensordot(factor, g, dims=1) for k, g in grads.items()}
    return summed, norms


def add_noise(
    summed: dict[str, torch.Tensor],
    *,
    noise_multiplier: float,
    max_grad_norm: float,
    expected_batch_size: float,
    generator: torch.Generator | None = None,
) -> dict[str, torch.Tensor]:
    """``(sum + N(0, sigma^2 C^2 I)) / (q n)`` for each parameter tensor."""
    std = noise_multiplier * max_grad_norm
    out = {}
    for k, s in summed.items():
        noise = torch.normal(0.0, std, size=s.shape, device=s.device, dtype=s.dtype, generator=generator)
        out[k] = (s + noise) / expected_batch_size
    return out


def poisson_batch(n: int, q: float, generator: torch.Generator) -> torch.Tensor:
    """Indices of a Poisson sample: each of ``range(n)`` included independently with probability q.

    Drawn on the CPU generator (host-side randomness: no device synchronisation).
    """
    return torch.nonzero(torch.rand(n, generator=generator) < q, as_tuple=False).squeeze(1)


# --------------------------------------------------------------------------- odometer glue
def make_odometer(device: torch.device | str | None = None) -> Any:
    """A fresh ``symdp.accountants.RDPOdometer`` on ``device``.

    Raises :class:`UnsupportedError` when the accountants package does not provide it (it is built
    on the generated kernels; certify never re-types an accountant formula).
    """
    try:
        from ..accountants import RDPOdometer
    except ImportError as exc:
        raise UnsupportedError(f"symdp.accountants.RDPOdometer is not available in this build: {exc}") from exc
    try:
        return RDPOdometer(device=device)
    except TypeError:
        return RDPOdometer()


def odometer_epsilon(odometer: Any, delta: float) -> float:
    """Read the odometer's epsilon at ``delta`` on the host (one synchronisation)."""
    e = odometer.epsilon(delta)
    return float(e.item() if hasattr(e, "item") else e)


def plan_steps_within_budget(
    *, noise_multiplier: float, sample_rate: float, max_steps: int, delta: float, target_epsilon: float,
    start_state: dict | None = None,
) -> int:
    """The largest ``t <= max_steps`` whose odometer epsilon at ``delta`` is ``<= target_epsilon``.

    Binary search with CPU instances of the ``RDPOdometer`` class used by the training loop (epsilon
    is non-decreasing in the number of steps), so the loop itself never reads the device.
    ``start_state`` (an odometer ``state_dict``) continues from steps already spent.
    """

    def eps_after(t: int) -> float:
        odo = make_odometer("cpu")
        if start_state is not None:
            odo.load_state_dict(start_state)
        odo.step(noise_multiplier, sample_rate, steps=t)
        return odometer_epsilon(odo, delta)

    if eps_after(max_steps) <= target_epsilon:
        return max_steps
    lo, hi = 0, max_steps  # eps_after(lo) <= target < eps_after(hi)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if eps_after(mid) <= target_epsilon:
            lo = mid
        else:
            hi = mid
    return lo


# --------------------------------------------------------------------------- the trainer
@dataclass
class TrainResult:
    """What ran.  ``ledger`` lists ``(noise_multiplier, sample_rate, steps)`` segments (the input of
    :func:`symdp.certify.certify_ledger`); ``epsilon_log`` holds ``(step, epsilon)`` read at logging."""

    steps: int
    noise_multiplier: float
    sample_rate: float
    max_grad_norm: float
    delta: float
    n: int
    batch_sizes: list[int]
    epsilon_log: list[tuple[int, float]] = field(default_factory=list)
    final_epsilon: float | None = None  # odometer (RDP) epsilon at delta after the last step
    odometer: str | None = None
    stopped_at_budget: bool = False
    target_epsilon: float | None = None
    seconds: float = 0.0
    device: str = "cpu"
    optimizer: str = ""
    notes: list[str] = field(default_factory=list)

    @property
    def ledger(self) -> list[tuple[float, float, int]]:
        return [(self.noise_multiplier, self.sample_rate, self.steps)] if self.steps else []

    @property
    def examples_per_second(self) -> float:
        return sum(self.batch_sizes) / self.seconds if self.seconds > 0 else float("nan")


def train_dpsgd(
    model: torch.nn.Module,
    x: torch.Tensor,
    y: torch.Tensor,
    *,
    noise_multiplier: float,
    sample_rate: float,
    steps: int,
    max_grad_norm: float,
    delta: float,
    optimizer: torch.optim.Optimizer | Callable[[Any], torch.optim.Optimizer] | None = None,
    loss_fn: LossFn = _ce,
    target_epsilon: float | None = None,
    odometer: Any = "auto",
    device: torch.device | str | None = None,
    seed: int = 0,
    log_every: int = 25,
    progress: bool = True,
    on_log: Callable[[int, float | None], None] | None = None,
) -> TrainResult:
    r"""Train ``model`` in place with DP-SGD; return a :class:`TrainResult`.

    ``optimizer`` is an optimizer over ``model.parameters()``, a factory ``params -> optimizer``,
    or None for SGD(lr=0.5).  ``odometer="auto"`` uses ``symdp.accountants.RDPOdometer`` when
    available (else trains without one and says so in ``notes``); pass None to disable it or any
    object with ``step(sigma, q)`` / ``epsilon(delta)``.  With ``target_epsilon`` the run stops
    before the first step that would take the odometer's epsilon at ``delta`` above it.
    """
    check_real("noise_multiplier", noise_multiplier, 0.0, lo_open=True)
    check_probability("sample_rate", sample_rate, open_low=True, open_high=False)
    check_int("steps", steps, 0)
    check_real("max_grad_norm", max_grad_norm, 0.0, lo_open=True)
    check_probability("delta", delta)
    check_int("log_every", log_every, 1)
    if target_epsilon is not None:
        check_real("target_epsilon", target_epsilon, 0.0, lo_open=True)
    if not isinstance(model, torch.nn.Module):
        raise InvalidTypeError(f"model must be a torch.nn.Module, got {type(model).__name__}")
    if x.shape[0] != y.shape[0] or x.shape[0] == 0:
        raise InvalidParameterError(f"x and y must have the same non-zero length, got {x.shape[0]} and {y.shape[0]}")
    n = int(x.shape[0])
    try:
        dev = torch.device(device) if device is not None else default_device()
    except (RuntimeError, TypeError) as exc:
        raise InvalidParameterError(f"device={device!r} is not a torch device: {exc}") from exc
    if dev.type == "cuda" and not torch.cuda.is_available():
        raise InvalidParameterError(f"device={device!r}: CUDA is not available here (use 'cpu' or leave it unset)")
    notes: list[str] = []

    # ---- dry run: everything that can fail, before any state changes
    if odometer == "auto":
        try:
            odometer = make_odometer(dev)
        except UnsupportedError as exc:
            if target_epsilon is not None:
                raise
            notes.append(f"no privacy odometer during training ({exc}); the certificate's accountants still apply")
            odometer = None
    planned = steps
    if target_epsilon is not None:
        if odometer is None:
            raise UnsupportedError("target_epsilon needs an odometer (odometer=None was given)")
        planned = plan_steps_within_budget(
            noise_multiplier=noise_multiplier, sample_rate=sample_rate, max_steps=steps, delta=delta,
            target_epsilon=target_epsilon,
            start_state=odometer.state_dict() if hasattr(odometer, "state_dict") else None,
        )
    if optimizer is not None and not isinstance(optimizer, torch.optim.Optimizer) and not callable(optimizer):
        raise InvalidTypeError(f"optimizer must be a torch optimizer or a factory, got {type(optimizer).__name__}")
    model.to(dev)
    if optimizer is None:
        opt: torch.optim.Optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
    elif isinstance(optimizer, torch.optim.Optimizer):
        opt = optimizer
    else:
        opt = optimizer(model.parameters())

    x = x.to(dev)
    y = y.to(dev)
    named = {k: p for k, p in model.named_parameters() if p.requires_grad}
    buffers = dict(model.named_buffers())
    sample_gen = torch.Generator(device="cpu").manual_seed(seed)
    noise_gen = torch.Generator(device=dev).manual_seed(seed + 1)
    expected = sample_rate * n
    batch_sizes: list[int] = []
    eps_log: list[tuple[int, float]] = []

    def read_eps() -> float | None:
        return odometer_epsilon(odometer, delta) if odometer is not None else None

    bar = None
    if progress:
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        bar = Progress(TextColumn("DP-SGD"), BarColumn(), MofNCompleteColumn(), TextColumn("{task.fields[eps]}"),
                       TimeElapsedColumn(), transient=False)
        task = bar.add_task("train", total=planned, eps="eps: -")
        bar.start()
    model.train()
    t0 = time.perf_counter()
    try:
        for t in range(planned):
            idx = poisson_batch(n, sample_rate, sample_gen)
            b = int(idx.numel())
            batch_sizes.append(b)
            if b:
                idx = idx.to(dev, non_blocking=True)
                params = {k: p.detach() for k, p in named.items()}
                g = per_sample_grads(model, params, buffers, x[idx], y[idx], loss_fn)
                summed, _ = clip_and_sum(g, max_grad_norm)
            else:  # an empty Poisson batch still releases noise
                summed = {k: torch.zeros_like(p) for k, p in named.items()}
            priv = add_noise(summed, noise_multiplier=noise_multiplier, max_grad_norm=max_grad_norm,
                             expected_batch_size=expected, generator=noise_gen)
            for k, p in named.items():
                p.grad = priv[k]
            opt.step()
            opt.zero_grad(set_to_none=True)
            if odometer is not None:
                odometer.step(noise_multiplier, sample_rate)
            if (t + 1) % log_every == 0 or t + 1 == planned:
                eps = read_eps()
                if eps is not None:
                    eps_log.append((t + 1, eps))
                if on_log is not None:
                    on_log(t + 1, eps)
                if bar is not None:
                    bar.update(task, completed=t + 1, eps=f"eps(RDP odometer) = {eps:.3f}" if eps is not None else "eps: n/a")
        if dev.type == "cuda":
            torch.cuda.synchronize(dev)
    finally:
        if bar is not None:
            bar.stop()
    seconds = time.perf_counter() - t0
    final = read_eps() if planned else (0.0 if odometer is not None else None)
    if target_epsilon is not None and final is not None and final > target_epsilon:
        notes.append(f"odometer epsilon {final!r} exceeds the target {target_epsilon!r} by float rounding of the plan")
    if target_epsilon is not None and planned < steps:
        notes.append(f"stopped after {planned} of {steps} steps: one more step would exceed epsilon {target_epsilon}")
    return TrainResult(
        steps=planned, noise_multiplier=float(noise_multiplier), sample_rate=float(sample_rate),
        max_grad_norm=float(max_grad_norm), delta=float(delta), n=n, batch_sizes=batch_sizes,
        epsilon_log=eps_log, final_epsilon=final,
        odometer=type(odometer).__name__ if odometer is not None else None,
        stopped_at_budget=target_epsilon is not None and planned < steps, target_epsilon=target_epsilon,
        seconds=seconds, device=str(dev), optimizer=type(opt).__name__, notes=notes,
    )


@torch.no_grad()
def per_example_loss(model: torch.nn.Module, x: torch.Tensor, y: torch.Tensor, *,
                     batch: int = 4096) -> tuple[torch.Tensor, torch.Tensor]:
    """Per-example cross-entropy (CPU float64) and correctness (CPU bool), in evaluation mode."""
    model.eval()
    dev = next(model.parameters()).device
    losses, correct = [], []
    for i in range(0, x.shape[0], batch):
        xb, yb = x[i:i + batch].to(dev), y[i:i + batch].to(dev)
        out = model(xb)
        losses.append(torch.nn.functional.cross_entropy(out, yb, reduction="none").double().cpu())
        correct.append((out.argmax(1) == yb).cpu())
    model.train()
    return torch.cat(losses), torch.cat(correct)

