#!/usr/bin/env bash
# nbcompile on another torch: `make compat TORCH=2.9.1` (out of CI; `make test` never calls it).
#
# 1. A venv of its own, .venv-compat-$TORCH (kept between runs: a second run skips the
#    installs it already did).
# 2. torch==$TORCH from PyPI. This machine's pip config may cap torch through a global
#    constraints file; for this venv only that file is replaced by one pinning the wanted
#    torch (PIP_CONSTRAINT in this script's environment; the pip config is not changed).
# 3. nbcompile `-e .[test]` under the same pin, so pip never swaps or rebuilds torch.
# 4. The non-browser suite (pytest --ignore=tests/browser), then tests/compat/scenario.py
#    (a user's session in a real kernel). Exit status: nonzero when either failed.
#
# Environment: TORCH (required), PYTHON (python3), PYTEST_ARGS (extra pytest arguments),
# COMPAT_SKIP_PYTEST=1 / COMPAT_SKIP_SCENARIO=1 to run only one half.
set -uo pipefail

TORCH="${TORCH:-${1:-}}"
if [[ -z "$TORCH" ]]; then
    echo "usage: make compat TORCH=2.x.y   (or TORCH=2.x.y tests/compat/run.sh)" >&2
    exit 2
fi
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT" || exit 2
PYTHON="${PYTHON:-python3}"
VENV="$ROOT/.venv-compat-$TORCH"
PY="$VENV/bin/python"
STAMP="$VENV/.nbcompile-compat-installed"

# Only this script's pip calls see this constraint (the machine's pip config is untouched).
PIN="$VENV/torch-pin.txt"
step() { printf '\n=== compat %s: %s (%s)\n' "$TORCH" "$*" "$(date +%H:%M:%S)"; }

if [[ ! -x "$PY" ]]; then
    step "venv $VENV"
    "$PYTHON" -m venv "$VENV" || exit 2
fi
# Untracked by git without touching the repo's .gitignore (as `python -m venv` does from 3.13).
[[ -f "$VENV/.gitignore" ]] || echo '*' > "$VENV/.gitignore"
echo "torch==$TORCH" > "$PIN"
export PIP_CONSTRAINT="$PIN"
export PIP_DISABLE_PIP_VERSION_CHECK=1

if [[ ! -f "$STAMP" || pyproject.toml -nt "$STAMP" ]]; then
    step "pip install torch==$TORCH"
    "$PY" -m pip install "torch==$TORCH" || { echo "torch $TORCH did not install" >&2; exit 2; }
    step "pip install -e .[test] (torch pinned to $TORCH)"
    # The labextension does not depend on torch: when `make setup` already built it, the
    # install reuses that build (hatch-jupyter-builder's SKIP_JUPYTER_BUILDER) instead of
    # running npm again.
    skip=()
    [[ -f nbcompile/labextension/static/style.js ]] && skip=(env SKIP_JUPYTER_BUILDER=1)
    # A torch outside the declared range (tried to decide the floor or the ceiling): the
    # other requirements from pyproject.toml, then nbcompile itself without its torch pin.
    outside="$("$PY" - "$TORCH" 2> "$VENV/other-requirements.txt" <<'PYEOF'
import sys, tomllib
from pip._vendor.packaging.requirements import Requirement
from importlib.metadata import PackageNotFoundError, version
project = tomllib.load(open("pyproject.toml", "rb"))["project"]
extras = project["optional-dependencies"]
reqs, todo = [], [Requirement(r) for r in project["dependencies"] + extras["test"]]
while todo:  # nbcompile[hf,...] inside [test]: its extras' requirements
    r = todo.pop(0)
    if r.name == "nbcompile":
        todo += [Requirement(x) for e in sorted(r.extras) for x in extras[e]]
    else:
        reqs.append(r)
torch = next(r for r in reqs if r.name == "torch")
if not torch.specifier.contains(sys.argv[1], prereleases=True):
    print(torch.specifier)
    try:  # torch brings its own triton: keep it rather than the extra's range
        version("triton")
        reqs = [r for r in reqs if r.name != "triton"]
    except PackageNotFoundError:
        pass
    print("\n".join(str(r) for r in reqs if r.name != "torch"), file=sys.stderr)
PYEOF
)"
    if [[ -n "$outside" ]]; then
        echo "torch $TORCH is outside nbcompile's declared range ($outside): installing"
        echo "nbcompile without its torch requirement to try it"
        "$PY" -m pip install -r "$VENV/other-requirements.txt" \
            || { echo "nbcompile's other requirements did not install" >&2; exit 2; }
        "${skip[@]}" "$PY" -m pip install --no-deps -e . || { echo "nbcompile did not install" >&2; exit 2; }
    else
        "${skip[@]}" "$PY" -m pip install -e '.[test]' || { echo "nbcompile[test] did not install" >&2; exit 2; }
    fi
    touch "$STAMP"
fi
have="$("$PY" -c 'import torch; print(torch.__version__)')" || exit 2
echo "torch in $VENV: $have"
case "$have" in
    "$TORCH"|"$TORCH"+*) ;;
    *) echo "expected torch $TORCH, found $have" >&2; exit 2 ;;
esac

status=0
# The suite's Inductor cache is per torch (compiled artifacts are not shared across releases).
export TORCHINDUCTOR_CACHE_DIR="$ROOT/.cache/inductor-compat-$TORCH"
if [[ "${COMPAT_SKIP_PYTEST:-0}" != 1 ]]; then
    step "pytest --ignore=tests/browser"
    # shellcheck disable=SC2086
    "$PY" -m pytest --ignore=tests/browser -p no:cacheprovider ${PYTEST_ARGS:-} || status=1
fi
if [[ "${COMPAT_SKIP_SCENARIO:-0}" != 1 ]]; then
    step "tests/compat/scenario.py"
    "$PY" tests/compat/scenario.py || status=1
fi
step "done: $([[ $status == 0 ]] && echo PASS || echo FAIL)"
exit $status
