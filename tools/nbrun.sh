#!/usr/bin/env bash
# nbrun.sh OUTDIR NOTEBOOK... — executes notebooks headless with the GoNB kernel
# (jupyter nbconvert) into OUTDIR and stops at the first failure. The kernel's
# known-harmless log chatter is filtered out of the output: glog info and
# warning lines, its start-up self-test ("Error message") and the notice that
# the optional gopls is not installed. Everything else, errors included, is
# shown.
set -euo pipefail
out=$1
shift
mkdir -p "$out"
quiet() {
  awk '
    /^[IW][0-9][0-9][0-9][0-9] / { next }
    /^E[0-9][0-9][0-9][0-9] .*\] .*Error message *$/ { next }
    /^E[0-9][0-9][0-9][0-9] .*goexec\.go:[0-9]+\] .*\[0m *$/ { gopls = 1; next }
    gopls == 1 && /gopls@latest/ { gopls = 2; next }
    gopls == 2 && /^```$/ { gopls = 0; next }
    gopls >= 1 { next }
    { print; fflush() }
  '
}
for nb in "$@"; do
  [ -f "$nb" ] || { echo "nbrun: no notebook $nb (the notebooks are notebooks/NN-*.ipynb)" >&2; exit 1; }
  echo "== $nb"
  jupyter nbconvert --to notebook --execute --ExecutePreprocessor.timeout=1200 \
    --ExecutePreprocessor.kernel_name=gonb --output-dir "$out" "$nb" 2>&1 | quiet
done
