#!/bin/bash
# Runs bats on the given files or directories, then prints the closing
# line 'bats: N passed, N failed, N skipped'. A skipped test fails the run
# (its name is printed): a missing judge, corpus or tool is a failure.
# Exits non-zero unless bats succeeded, nothing failed or was skipped and
# something passed.
set -u
# The caller's shim settings must not reach the tests (HPROFSTRIP_CORPUS
# and HPROFSTRIP_SANITIZED configure the tests themselves).
for v in ${!HPROFSTRIP_*}; do
	case $v in HPROFSTRIP_CORPUS | HPROFSTRIP_SANITIZED) ;; *) unset "$v" ;; esac
done
unset LD_PRELOAD
log=$(mktemp)
trap 'rm -f "$log"' EXIT
bats --print-output-on-failure "$@" | tee "$log"
rc=${PIPESTATUS[0]}
skipped=$(grep -c '^ok .* # skip' "$log")
passed=$(( $(grep -c '^ok ' "$log") - skipped ))
failed=$(grep -c '^not ok ' "$log")
if [ "$skipped" -gt 0 ]; then
	echo "bats: skipped tests fail the run (install what they need: make deps):"
	grep '^ok .* # skip' "$log" | sed 's/^ok [0-9]* /  /'
fi
echo "bats: $passed passed, $failed failed, $skipped skipped"
[ "$rc" -eq 0 ] && [ "$failed" -eq 0 ] && [ "$skipped" -eq 0 ] && [ "$passed" -gt 0 ]
