#!/usr/bin/env bash
# What users run, checked on the clean clone (issue 20), called by .ci/run:
#   (a) the README's first command, verbatim, in a bare venv with empty pip and symdp caches;
#   (b) the built wheel in another fresh venv, run from an empty directory: verify --replay, a few audited ids
#       with plots, account, sweep, codegen, a short certify; the installed package's files are hashed before
#       and after and must be byte-identical (nothing writes into site-packages at run time).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_CACHE_DIR="$work/pip-cache"
first=$(grep -m1 -E '^pip install' README.md)  # the README's first command, as printed
echo "-- (a) README first command in a bare venv: $first"
python -m venv "$work/bare"
(
  # shellcheck disable=SC1091
  source "$work/bare/bin/activate"
  export SYMDP_CACHE_DIR="$work/cache-a"
  t0=$SECONDS
  bash -c "$first"
  test -s symdp-report/audit.html && test -s symdp-report/audit.json
  echo "-- (a) ok: symdp-report/audit.html written ($((SECONDS - t0)) s with the install)"
  # the other commands on the core dependencies alone (no torch, no peers) in the same bare venv
  python -c 'import importlib.util as u, sys; bad = [m for m in ("torch", "prv_accountant", "dp_accounting", "opacus") if u.find_spec(m)]; sys.exit(bool(bad) and print("not bare:", bad))'
  symdp account -s 1.1 -q 0.004 -T 2000 -d 1e-5 > /dev/null
  symdp calibrate --target-epsilon 2 --delta 1e-5 --sample-rate 0.01 --steps 1000 > /dev/null
  symdp derive he2021.lemma_kl --series epsilon --at 0 --order 4 > /dev/null
  symdp codegen --check > /dev/null
  symdp sweep --sigma 0.8,1.2 --q 0.01 --steps 100 --delta 1e-5 --out "$work/bare-sweep.csv" --quiet > /dev/null
  echo "-- (a) ok: account, calibrate, derive, codegen --check and sweep run on the core dependencies"
)
echo "-- (b) the wheel in a fresh venv, from an empty directory"
python -m pip wheel -q --no-deps -w "$work/dist" .
python -m venv "$work/wheel"
# shellcheck disable=SC1091
source "$work/wheel/bin/activate"
python -m pip install -q torch==2.13.0  # CPU build from local disk, before the certify extra asks for torch
whl=$(ls "$work"/dist/symdp-*.whl)
python -m pip install -q "${whl}[certify]"
export SYMDP_CACHE_DIR="$work/cache-b"
mkdir "$work/empty" && cd "$work/empty"
pkg=$(python -c 'import pathlib, symdp; print(pathlib.Path(symdp.__file__).parent)')
case "$pkg" in "$work"/wheel/*) ;; *) echo "symdp imported from $pkg, not the wheel"; exit 1 ;; esac
hash_pkg() { (cd "$pkg" && find . -type f -not -path '*/__pycache__/*' -print0 | sort -z | xargs -0 sha256sum | sha256sum); }
before=$(hash_pkg)
for sub in library codegen verify audit accountants certify generated _proofs verify/rungs; do
  test -d "$pkg/$sub" || { echo "wheel lacks symdp/$sub"; exit 1; }
done
test -s "$pkg/_proofs/ledger.json" && test -s "$pkg/generated/MANIFEST.json"
symdp verify --replay > replay.log && tail -n 1 replay.log
symdp codegen --check
symdp audit he2021.lemma_kl he2021.thm4_eps3 --out report --workers 1
test -s report/audit.html && ls report/plots/*.png > /dev/null
symdp account -s 1.1 -q 0.004 -T 2000 -d 1e-5
symdp sweep --sigma 0.8,1.2 --q 0.01 --steps 100,1000 --delta 1e-5 --out sweep.csv --quiet && test -s sweep.csv
symdp codegen --out gen > /dev/null && test -s gen/MANIFEST.json
symdp verify he2021.lemma_kl --quiet > /dev/null && test -s proofs/ledger.json
symdp certify --steps 20 --canaries 20 --no-progress --out cert > /dev/null && test -s cert/certificate.json
after=$(hash_pkg)
if [ "$before" != "$after" ]; then echo "the installed package changed at run time"; exit 1; fi
echo "-- (b) ok: the wheel runs verify, audit, account, sweep, codegen and certify; the installed files are unchanged"
