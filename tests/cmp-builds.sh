#!/bin/bash
# cmp-builds.sh OLD NEW [--tools-only]: the tools and the shim of two builds
# of the project (build directories, e.g. a checkout of the commit before a
# refactor built with `make BUILD=... all build/replay`), byte for byte.
# For a change that must not change an output byte (a refactor, a fast
# path). Every corpus dump, and the dumps in $CMP_EXTRA (e.g. fresh JDK 17
# dumps), in every mode:
#   hprofstrip: file, pipe, --stream, --keep-strings (file, pipe, stream),
#     --redact (file, pipe, stream), --redact=names (file, stream: its
#     names map too), --app-only, --info (--json), -v, a gzip input, and a
#     cut at 6 places with and without --salvage (file, pipe, stream,
#     keep-strings, redact, names);
#   hprofrestore of the stripped dump: file, pipe, --stream, --jvm,
#     --app-only, and --salvage of a cut;
#   the shim under every replay mode of OLD's tests/replay.c (the one driver
#     for both sides), plain, a copy (no runtime), zstd, keep-strings,
#     app-only, redact values and names.
# The runs of each mode come from the table of modes (tests/modes.tsv).
# Each comparison is stdout, stderr (sorted, the build and work paths
# masked), the exit status and every file left. Prints
# "comparisons: N, differing: M" and exits 1 if M > 0; the first lines of
# each difference go to $W/diffs.
. "$(dirname "$0")/lib.sh"
[ $# -ge 2 ] || { echo "usage: $0 OLD_BUILD NEW_BUILD [--tools-only]" >&2; exit 2; }
OLD=$(realpath "$1") NEW=$(realpath "$2") ONLY=$3
for t in hprofstrip hprofrestore libhprofstrip.so replay; do
	[ -e "$OLD/$t" ] && [ -e "$NEW/$t" ] ||
		{ echo "cmp-builds: $t missing in $OLD or $NEW" >&2; exit 2; }
done
W=$(mktemp -d /tmp/cmp-builds.XXXXXX) || exit 2
# the names level's tokens from a fixed key, the same on both sides (a
# random one would differ run to run); no other mode reads it
export HPROFSTRIP_NAMES_KEY=00112233445566778899aabbccddeeff
n=0 bad=0
: >"$W/diffs"

# one TAG CMD: CMD run in an empty directory with $B the build, once per side
one() {
	local tag=$1 side B d
	for side in old new; do
		[ $side = old ] && B=$OLD || B=$NEW
		d=$W/$side
		rm -rf "$d" && mkdir -p "$d"
		(cd "$d" && B=$B eval "$2") >"$d/stdout" 2>"$d/stderr"
		echo "rc=$?" >>"$d/stderr"
		sed -i "s#$B#BUILD#g; s#$d#DIR#g; s#/tmp/hprofstrip[^ :]*#TMP#g" \
			"$d/stderr" "$d/stdout"
		sort -o "$d/stderr" "$d/stderr"
	done
	n=$((n + 1))
	if ! diff -r "$W/old" "$W/new" >/dev/null; then
		bad=$((bad + 1))
		{ echo "DIFF: $tag: $2"; diff -r "$W/old" "$W/new" | head -5; } >>"$W/diffs"
		echo "DIFF: $tag"
	fi
}

# each mode's runs, from the table of modes (tests/modes.tsv)
rows=$("$root/tests/modes.sh" cmp) && [ -n "$rows" ] ||
	{ echo "cmp-builds: tests/modes.sh cmp gave no runs" >&2; exit 2; }
mapfile -t runs <<<"$rows"
# mode KIND: one each run of that kind (@f the dump, @c a cut's length,
# @r the strip's cut length), its tag after F's name and TAIL
mode() {
	local kind=$1 tail=$2 row k tag cmd
	for row in "${runs[@]}"; do
		IFS='|' read -r k tag cmd <<<"$row"
		[ "$k" = "$kind" ] || continue
		cmd=${cmd//@f/$f} cmd=${cmd//@c/$c}
		one "$f $tag$tail" "${cmd//@r/$r}"
	done
}

dumps="$(ls "$corpus"/*/*.hprof) ${CMP_EXTRA:-}"
for f in $dumps; do
	s=$(stat -c %s "$f")
	mode dump ""
	one "$f info" "\$B/hprofstrip --info $f"
	one "$f info json" "\$B/hprofstrip --info --json $f"
	one "$f -v" "\$B/hprofstrip -v -o out $f"
	one "$f gzip" "gzip -1c $f > in.gz && \$B/hprofstrip -o out in.gz"
	one "$f restore unstripped" "\$B/hprofrestore -o out $f"
	for pct in 3 17 41 66 89 99; do
		c=$((s * pct / 100 + pct)) r=$((s * pct / 400 + 40))
		mode cut " $pct"
		one "$f info cut $pct" "head -c $c $f > cut; \$B/hprofstrip --info cut"
	done
done

if [ "$ONLY" != --tools-only ]; then
	mapfile -t envs < <(for row in "${runs[@]}"; do
		[ "${row%%|*}" = shim ] && echo "${row##*|}"; done)
	# and the plain strip in a process that hosts a runtime's stand-in
	# (REPLAY_RUNTIME unset: X=copy only names the run)
	envs+=("X=copy")
	for f in $dumps; do
		for mode in random threads jdk8 jdk22 art artcloexec pwrite writev setlength; do
			for e in "${envs[@]}"; do
				one "$f replay $mode $e" "env $e HPROFSTRIP_PROGRAMS=replay REPLAY_STAMP=keep LD_PRELOAD=\$B/libhprofstrip.so timeout 120 $OLD/replay $mode $f out.hprof 7 >/dev/null; if [ -f out.hprof.zst ]; then zstd -q -d --rm out.hprof.zst; fi"
			done
		done
	done
fi
echo "comparisons: $n, differing: $bad"
[ $bad = 0 ] && rm -rf "$W"
[ $bad = 0 ]
