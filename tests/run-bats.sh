#!/bin/bash
# Runs bats on the given files or directories, then prints the closing
# line 'bats: N passed, N failed, N skipped'. Exits with bats' status.
set -u
log=$(mktemp)
trap 'rm -f "$log"' EXIT
bats --print-output-on-failure "$@" | tee "$log"
rc=${PIPESTATUS[0]}
skipped=$(grep -c '^ok .* # skip' "$log")
passed=$(( $(grep -c '^ok ' "$log") - skipped ))
failed=$(grep -c '^not ok ' "$log")
echo "bats: $passed passed, $failed failed, $skipped skipped"
[ "$rc" -eq 0 ] && [ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
