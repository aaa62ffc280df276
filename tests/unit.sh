#!/bin/bash
# C unit tests: the engine's split invariance over every corpus dump and a
# fresh JDK 17 dump, in strip and restore mode, the JDK 8 open-length path
# and the fallback path. Prints one line per check and 'N passed, N failed'.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-build}
case $build in /*) b=$build ;; *) b=$root/$build ;; esac
corpus=${HPROFSTRIP_CORPUS:-$root/../shared/corpus}
seed=${SEED:-$(date +%s)}
# splitcheck's 2-way split prefix and random rounds (make check-sanitize
# lowers them: sanitized drivers run 4x slower)
prefix=${UNIT_PREFIX:-256} rounds=${UNIT_ROUNDS:-10}
prefix4=$(( (prefix + 3) / 4 )) rounds2=$(( (rounds + 1) / 2 ))
pass=0 fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

check() {
	local name=$1
	shift
	if out=$("$@" 2>&1); then
		pass=$((pass + 1))
		echo "ok   $name"
	else
		fail=$((fail + 1))
		echo "FAIL $name"
		echo "$out" | sed 's/^/     /'
	fi
}

echo "unit: seed $seed (SEED=$seed reproduces)"
files=$(ls "$corpus"/art/*.hprof "$corpus"/hotspot/*.hprof)
if [ -z "$files" ]; then
	echo "unit: no corpus in $corpus" >&2
	exit 1
fi
"$root/tests/java/judge.sh" build
fresh=$b/fixtures/jdk17-unit.hprof
mkdir -p "$b/fixtures"
if [ ! -s "$fresh" ]; then
	rm -f "$fresh.tmp.hprof"
	java -cp "$b/java" HeapBuilder mxbean "$fresh.tmp.hprof" &&
		mv "$fresh.tmp.hprof" "$fresh"
fi
for f in $files $fresh; do
	n=$(basename "$f")
	check "split invariance, strip: $n" "$b/splitcheck" -p "$prefix" -n "$rounds" -s "$seed" "$f"
	"$b/splitcheck" -w "$f" "$tmp/$n.s"
	check "split invariance, restore: $n" "$b/splitcheck" -r -p "$prefix" -n "$rounds" -s "$seed" "$tmp/$n.s"
	check "JDK 8 placeholder lengths: $n" "$b/splitcheck" -O -p "$prefix4" -n "$rounds2" -s "$seed" "$f"
	case $(head -c 18 "$f") in
	*1.0.3)
		check "split invariance, --jvm: $n" "$b/splitcheck" -j -p "$prefix4" -n "$rounds2" -s "$seed" "$tmp/$n.s"
		check "split invariance, --app-only: $n" "$b/splitcheck" -a -p "$prefix4" -n "$rounds2" -s "$seed" "$tmp/$n.s"
		;;
	esac
	# fallback: an invalid tag at the first instance dump's offset
	off=$(( $("$b/oracle" offsets "$f" | sed -n "s/^sub-header //p") - 4 ))
	check "fallback at offset $off: $n" "$b/splitcheck" -F "$off" -p "$prefix4" -n "$rounds2" -s "$seed" "$f"
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
