# shellcheck shell=bash
# Sourced by the benchmarks that set two JVMs of one heap against each
# other, round by round (redact.sh, histo.sh): DumpBench's JVMs (PID, by
# name; their files in $W/NAME), timed jcmd dumps and tool runs (T, SZ,
# JB by key) and the round-by-round ratios. Needs lib.sh's jcmd_dump,
# calc, say, die, size_of, and B, W, MB, JOPTS set.

declare -A PID   # JVM name -> pid

# pair_setup: a fresh work dir $W, emptied, removed with the JVMs however
# the script ends (no dump outlives the run: they take gigabytes), and
# DumpBench compiled into $W/classes
pair_setup() {
	mkdir -p "$W"
	rm -rf "${W:?}"/*
	trap pair_cleanup EXIT
	trap 'exit 130' INT TERM
	mkdir -p "$W/classes"
	javac -d "$W/classes" "$(dirname "${BASH_SOURCE[0]}")/DumpBench.java" ||
		die "javac DumpBench failed"
}
pair_cleanup() {
	local j
	for j in "${!PID[@]}"; do
		kill "${PID[$j]}" 2>/dev/null || true
		wait "${PID[$j]}" 2>/dev/null || true
	done
	rm -rf "${W:?}"
}
# the median of numbers (one per argument)
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
maxof() { printf '%s\n' "$@" | sort -g | tail -1; }
minof() { printf '%s\n' "$@" | sort -g | head -1; }
# T[KEY]: the round times, space-separated, in round order
declare -A T SZ JB
med() { local a; read -ra a <<<"${T[$1]}"; median "${a[@]}"; }
best() { local a; read -ra a <<<"${T[$1]}"; minof "${a[@]}"; }
# quot A B: the per-round quotients of T[A] over T[B], space-separated
quot() { quotq "${T[$1]}" "${T[$2]}"; }
# quotq "A..." "B...": the same of two lists of numbers
quotq() {
	local a b i out=''
	read -ra a <<<"$1"
	read -ra b <<<"$2"
	for i in "${!a[@]}"; do out+="$(calc %.4f "${a[$i]} / ${b[$i]}") "; done
	echo "${out% }"
}
# fmt2 "NUMBERS...": each with 2 decimals
fmt2() { local x out=''; for x in $1; do out+="$(calc %.2f "$x") "; done; echo "${out% }"; }

# start_jvm NAME KIND [VAR=VALUE...]: DumpBench KIND MB in a fresh JVM,
# its files in $W/NAME; does not wait for it (ready_jvm does)
start_jvm() {
	local name=$1 kind=$2 d=$W/$1
	shift 2
	rm -rf "$d"
	mkdir -p "$d"
	env "$@" java "${JOPTS[@]}" -cp "$W/classes" DumpBench "$kind" "$MB" "$d/stop" \
		>"$d/out" 2>"$d/err" &
	PID[$name]=$!
}
# ready_jvm NAME: returns once the JVM has built its heap
ready_jvm() {
	local d=$W/$1
	until grep -q '^ready' "$d/out" 2>/dev/null; do
		kill -0 "${PID[$1]}" 2>/dev/null || {
			cat "$d/err" >&2
			unset "PID[$1]"
			die "DumpBench ($1 JVM) exited before it was ready"
		}
		sleep 0.2
	done
}
# stop_jvm NAME: the JVM exits (stop file); its status must be 0
stop_jvm() {
	local rc=0 d=$W/$1
	touch "$d/stop"
	wait "${PID[$1]}" || rc=$?
	unset "PID[$1]"
	[ $rc = 0 ] || { cat "$d/err" >&2; die "DumpBench ($1 JVM) exited with status $rc"; }
}

# dump KEY JVM TARGET: one timed jcmd GC.heap_dump -overwrite TARGET in
# JVM; TARGET removed and sync run first (untimed). Adds the time to
# T[KEY]; JB[KEY]: the bytes the JVM says it wrote (under the shim:
# before stripping); SZ[KEY]: TARGET's size (/dev/null: JB[KEY]).
dump() {
	local key=$1 j=$2 target=$3 d=$W/$2
	[ "$target" = /dev/null ] || rm -f "$target"
	sync
	jcmd_dump "${PID[$j]}" "$d" "$key" -overwrite "$target"
	T[$key]="${T[$key]:+${T[$key]} }$DUMP_S"
	JB[$key]=$DUMP_JB
	if [ "$target" = /dev/null ]; then
		SZ[$key]=${JB[$key]}
	else
		[ -s "$target" ] || { cat "$d/err" >&2; die "$key: no $target (there: $(ls "$d"))"; }
		SZ[$key]=$(size_of "$target")
	fi
	say "  $key: $(calc %.2f "$DUMP_S") s, ${SZ[$key]} bytes"
}

# untimed KIND JVM TARGET: one jcmd GC.heap_dump -overwrite TARGET, not
# timed
untimed() {
	local d=$W/$2
	if ! jcmd "${PID[$2]}" GC.heap_dump -overwrite "$3" >"$d/jcmd" 2>&1 ||
	   ! grep -q 'Heap dump file created' "$d/jcmd"; then
		cat "$d/jcmd" "$d/err" >&2
		die "$1: an untimed dump ($2 JVM, $3) failed"
	fi
}

# well_formed FILE: hprofstrip --info's last line is "well-formed"
well_formed() {
	local last
	last=$("$B/hprofstrip" --info "$1" 2>/dev/null | tail -1) || true
	[ "$last" = well-formed ]
}

# run_tool KEY OUT CMD...: one timed run of CMD; OUT ('-': none) removed
# and sync run first (untimed). Adds the time to T[KEY].
run_tool() {
	local key=$1 out=$2 t0 t1
	shift 2
	[ "$out" = - ] || rm -f "$out"
	sync
	t0=$EPOCHREALTIME
	"$@" >/dev/null 2>"$W/tool.err" || { cat "$W/tool.err" >&2; die "'$*' failed"; }
	t1=$EPOCHREALTIME
	T[$key]="${T[$key]:+${T[$key]} }$(calc %.4f "$t1 - $t0")"
}

# ratios_line LABEL "QUOTIENTS...": the rounds, their median and worst
ratios_line() {
	local a
	read -ra a <<<"$2"
	printf '%-42s %-32s %7.2fx %7.2fx\n' "$1" "$(fmt2 "$2")" "$(median "${a[@]}")" "$(maxof "${a[@]}")"
}
