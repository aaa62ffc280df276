#!/bin/sh
# run.sh TARGET SECONDS: replay TARGET's regression inputs, then, if
# SECONDS > 0, fuzz it for SECONDS with its corpus (FUZZ_BUILD/corpus/
# TARGET, kept between runs) and seeds. A crash, timeout or out-of-memory
# input is copied into tests/fuzz/regressions/TARGET/, and the run fails.
# Prints one summary line; the libFuzzer log is FUZZ_BUILD/logs/TARGET.log.
set -u
t=$1
secs=$2
root=$(cd "$(dirname "$0")/../.." && pwd)
fb=${FUZZ_BUILD:-build/fuzz}
case $fb in /*) ;; *) fb=$root/$fb ;; esac
bin=$fb/fuzz_$t
reg=$root/tests/fuzz/regressions/$t
corpus=$fb/corpus/$t
art=$fb/artifacts/$t
log=$fb/logs/$t.log
mkdir -p "$corpus" "$art" "$fb/logs"
# sanitizer reports are fatal and loud
export ASAN_OPTIONS=${ASAN_OPTIONS:-halt_on_error=1:detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}

n=0
for f in "$reg"/*; do
	[ -f "$f" ] && n=$((n + 1))
done
if [ "$n" -gt 0 ]; then
	if ! "$bin" -rss_limit_mb=2048 -timeout=30 "$reg"/* >"$log" 2>&1; then
		tail -n 30 "$log" >&2
		echo "fuzz $t: a regression input fails (log: $log)" >&2
		exit 1
	fi
	echo "fuzz $t: $n regression inputs pass"
fi
[ "$secs" -gt 0 ] || exit 0

before=$(ls "$art" 2>/dev/null)
"$bin" -max_total_time="$secs" -max_len="${FUZZ_MAX_LEN:-131072}" \
	-timeout=30 -rss_limit_mb=2048 -dict="$root/tests/fuzz/hprof.dict" \
	-artifact_prefix="$art/" -print_final_stats=1 \
	"$corpus" "$fb/seeds/$t" >"$log" 2>&1
rc=$?
stats=$(grep -E '^#[0-9]+.*(DONE|pulse|NEW|REDUCE|INITED)' "$log" | tail -n 1)
execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
if [ "$rc" -ne 0 ]; then
	mkdir -p "$reg"
	for f in "$art"/*; do
		[ -f "$f" ] || continue
		case " $(echo $before) " in *" $(basename "$f") "*) continue ;; esac
		cp "$f" "$reg/"
		echo "fuzz $t: new regression input tests/fuzz/regressions/$t/$(basename "$f")" >&2
	done
	grep -A 40 -E 'ERROR|fuzz check failed|deadly signal|runtime error' "$log" | head -n 60 >&2
	echo "fuzz $t: FAILED after ${secs}s budget (log: $log)" >&2
	exit 1
fi
echo "fuzz $t: ${secs}s, ${execs:-?} execs; last: $stats"
