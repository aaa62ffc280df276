#!/usr/bin/env bash
# What a process that never dumps pays for libhprofstrip.so in its
# LD_PRELOAD (a container's ENV puts it in every process): make bench's
# section 11, or alone with make bench-bystander.
#
#   BUILD=build tests/bench/bystander.sh
#
# Each row runs one command with the shim preloaded and with an empty
# one-symbol library preloaded, in turn, pair by pair (pairtime.c): the
# median CPU seconds (user + system, children included) of each and the
# median of the pairs' ratios, with the smallest and largest ratio
# (BENCH_BYSTANDER_RUNS pairs, 4 times as many for the short rows):
#   spawn    500 starts of /bin/true (posix_spawn)
#   shell    a shell loop starting /bin/true 300 times (fork, exec)
#   files    20,000 open, write, close of files that are no dump
#   tar x    a tree of 10,000 small files
#   JVM      java to main and out, no dump
# then the resident memory of an idle process (sleep; VmRSS and its
# private dirty part), and, with valgrind (installed when missing, as
# root), the user-space instructions each command runs under each
# library: the same work counted exactly, where CPU time on a shared
# machine wobbles by a few percent from run to run. The issue's goal is
# beside each row. Asserts nothing. BENCH_BYSTANDER_RUNS (default 21)
# pairs per row; files and tar x work in BENCH_BYSTANDER_DIR (default
# /dev/shm, else BENCH_DIR): tmpfs, so the file system's own wobble stays
# out of the figures.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
root=$(cd "$here/../.." && pwd)
cd "$root"
BUILD=${BUILD:-build}
BENCH=bystander T_START=$EPOCHREALTIME
N=${BENCH_BYSTANDER_RUNS:-21}
case $N in '' | 0 | *[!0-9]*) die "BENCH_BYSTANDER_RUNS must be a positive number" ;; esac
[ -e "$BUILD/libhprofstrip.so" ] || die "$BUILD/libhprofstrip.so missing: run make first"
SHIM=$(cd "$BUILD" && pwd)/libhprofstrip.so
base=${BENCH_BYSTANDER_DIR:-}
[ -n "$base" ] || { [ -d /dev/shm ] && [ -w /dev/shm ] && base=/dev/shm; } ||
	base=${BENCH_DIR:-/tmp/hprofstrip-bench}
W=$(mktemp -d "$base/hprofstrip-bystander.XXXXXX")
trap 'rm -rf "$W"' EXIT

# ---- the tools ------------------------------------------------------------
say "building pairtime, bystander and the empty library"
CC=${CC:-cc}
echo 'int hprofstrip_bench_empty;' >"$W/empty.c"
"$CC" -O2 -shared -fPIC -o "$W/libempty.so" "$W/empty.c"
"$CC" -O2 -o "$W/pairtime" "$here/pairtime.c"
"$CC" -O2 -o "$W/bystander" "$here/bystander.c"
EMPTY=$W/libempty.so
cat >"$W/Hello.java" <<'EOF'
public class Hello {
    public static void main(String[] args) {
        System.out.println("hello");
    }
}
EOF
javac -d "$W" "$W/Hello.java"
say "a tree of 10,000 small files"
mkdir -p "$W/src"
for d in $(seq 1 100); do
	mkdir "$W/src/d$d"
	for f in $(seq 1 100); do echo "file $d $f" >"$W/src/d$d/file-$f.txt"; done
done
tar cf "$W/tree.tar" -C "$W/src" .
rm -rf "$W/src"
have_vg=0
if command -v valgrind >/dev/null || { [ "$(id -u)" = 0 ] &&
	DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=120 \
		install -y -q valgrind >/dev/null 2>&1; }; then
	have_vg=1
fi

# ---- the rows ------------------------------------------------------------
declare -A CPU
# pair KEY PAIRS [pairtime options] -- COMMAND...: CPU[KEY] = pairtime's
# line
pair() {
	local key=$1 n=$2
	shift 2
	say "$key: $n pairs"
	CPU[$key]=$("$W/pairtime" -n "$n" "$@")
}
# the rows of a twentieth of a second take 4 times the pairs: each pair
# wobbles more, and the median steadies with more of them
N4=$((N * 4 > 200 ? 200 : N * 4))
D=$W/out
fresh="rm -rf $D && mkdir $D"
pair spawn "$N" "$SHIM" "$EMPTY" -- "$W/bystander" spawn 500
pair shell "$N" "$SHIM" "$EMPTY" -- sh -c \
	'i=0; while [ $i -lt 300 ]; do /bin/true; i=$((i + 1)); done'
pair files "$N4" -s "$fresh" "$SHIM" "$EMPTY" -- "$W/bystander" files "$D" 20000
pair tar "$N4" -s "$fresh" "$SHIM" "$EMPTY" -- tar xf "$W/tree.tar" -C "$D"
pair jvm "$N4" "$SHIM" "$EMPTY" -- java -cp "$W" Hello
say "idle memory: 11 starts of sleep each"
MEM=$("$W/pairtime" -r "$SHIM" "$EMPTY" -- sleep 5)

# instructions KEY SETUP COMMAND...: IR[KEY] = "shim empty" user-space
# instructions (callgrind; children too)
declare -A IR
instructions() {
	local key=$1 setup=$2 lib n=()
	shift 2
	for lib in "$SHIM" "$EMPTY"; do
		sh -c "$setup"
		n+=("$(env LD_PRELOAD="$lib" valgrind --tool=callgrind \
			--trace-children=yes --callgrind-out-file=/dev/null "$@" 2>&1 |
			awk '/Collected :/ { s += $NF } END { print s + 0 }')")
	done
	IR[$key]="${n[0]} ${n[1]}"
}
if [ $have_vg = 1 ]; then
	say "instructions (valgrind)"
	instructions spawn : "$W/bystander" spawn 20
	instructions shell : sh -c 'i=0; while [ $i -lt 20 ]; do /bin/true; i=$((i + 1)); done'
	instructions files "$fresh" "$W/bystander" files "$D" 2000
	instructions tar "$fresh" tar xf "$W/tree.tar" -C "$D"
fi

# ---- the table -------------------------------------------------------------
field() { awk -v k="$2" '{ for (i = 1; i < NF; i++) if ($i == k) { print $(i + 1); exit } }' <<<"$1"; }
ir_ratio() {
	local a b
	[ -n "${IR[$1]:-}" ] || { echo "-"; return; }
	read -r a b <<<"${IR[$1]}"
	[ "$b" -gt 0 ] && calc '%.4fx' "$a / $b" || echo "-"
}
echo
echo "11. What a process that never dumps pays: the shim against an empty"
echo "    preloaded library, median CPU (user + system) of $N pairs (spawn,"
echo "    shell) or $N4 (the others), and the median of the pairs' ratios"
rule
printf '%-28s %10s %10s %9s %19s %13s %7s\n' "command" "shim s" "empty s" \
	"ratio" "ratios (min..max)" "instructions" "goal"
rule
row() {
	local key=$1 what=$2 goal=$3 l=${CPU[$1]}
	printf '%-28s %10s %10s %8sx %19s %13s %7s\n' "$what" "$(field "$l" A)" \
		"$(field "$l" B)" "$(field "$l" ratio)" \
		"$(sed 's/.*(\(.*\)).*/\1/; s/ //g' <<<"$l")" "$(ir_ratio "$key")" "$goal"
}
row spawn "500 x /bin/true (spawn)" "1.02x"
row shell "300 x /bin/true (sh loop)" "-"
row files "20,000 open/write/close" "1.02x"
row tar "tar x, 10,000 files" "1.02x"
row jvm "JVM to main and out" "1.01x"
rule
printf 'idle sleep: VmRSS %s KiB with the shim, %s KiB with the empty library: %s KiB more (goal 64)\n' \
	"$(field "$MEM" A)" "$(field "$MEM" B)" "$(field "$MEM" diff)"
printf '            written (private dirty) %s KiB against %s KiB: %s KiB more\n' \
	"$(awk '{ print $10 }' <<<"$MEM")" "$(awk '{ print $12 }' <<<"$MEM")" \
	"$(awk '{ print $14 }' <<<"$MEM")"
if [ $have_vg = 1 ]; then
	echo "instructions: user space, counted by valgrind (callgrind), shim / empty;"
	echo "    spawn and shell loops of 20 starts, files 2,000 times, tar x whole:"
	for k in spawn shell files tar; do
		printf '    %-6s %s\n' "$k" "${IR[$k]}"
	done
else
	echo "instructions: valgrind not installed, not counted"
fi
