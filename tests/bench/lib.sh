# Sourced by tests/bench/bench.sh and tests/bench/compress.sh: a clean
# environment (the caller's shim settings and preloads must not reach the
# run; HPROFSTRIP_CORPUS and HPROFSTRIP_SANITIZED configure the tests) and
# the small helpers both use.
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
export LC_ALL=C

calc() { awk "BEGIN { printf \"$1\", $2 }"; }   # calc FORMAT EXPR
size_of() { stat -c %s "$1"; }
