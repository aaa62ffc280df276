#!/bin/bash
# cmp-builds.sh OLD NEW [--tools-only]: the tools and the shim of two builds
# of the project (build directories, e.g. a checkout of the commit before a
# refactor built with `make BUILD=... all build/replay`), byte for byte.
# For a change that must not change an output byte (a refactor, a fast
# path). Every corpus dump, and the dumps in $CMP_EXTRA (e.g. fresh JDK 17
# dumps), in every mode:
#   hprofstrip: file, pipe, --stream, --keep-strings (file, pipe, stream),
#     --app-only, --info (--json), -v, a gzip input, and a cut at 6 places
#     with and without --salvage (file, pipe, stream, keep-strings);
#   hprofrestore of the stripped dump: file, pipe, --stream, --jvm,
#     --app-only, and --salvage of a cut;
#   the shim under every replay mode of OLD's tests/replay.c (the one driver
#     for both sides), plain, a copy (no runtime), zstd, keep-strings and
#     app-only.
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

dumps="$(ls "$corpus"/*/*.hprof) ${CMP_EXTRA:-}"
for f in $dumps; do
	s=$(stat -c %s "$f")
	one "$f strip" "\$B/hprofstrip -o out $f"
	one "$f strip pipe" "cat $f | \$B/hprofstrip > out"
	one "$f stream" "\$B/hprofstrip --stream -o out $f"
	one "$f keep" "\$B/hprofstrip --keep-strings -o out $f"
	one "$f keep pipe" "cat $f | \$B/hprofstrip --keep-strings > out"
	one "$f keep stream" "\$B/hprofstrip --keep-strings --stream -o out $f"
	one "$f app-only" "\$B/hprofstrip --app-only -o out $f"
	one "$f app-only pipe" "cat $f | \$B/hprofstrip --app-only -v > out"
	one "$f info" "\$B/hprofstrip --info $f"
	one "$f info json" "\$B/hprofstrip --info --json $f"
	one "$f -v" "\$B/hprofstrip -v -o out $f"
	one "$f gzip" "gzip -1c $f > in.gz && \$B/hprofstrip -o out in.gz"
	one "$f restore unstripped" "\$B/hprofrestore -o out $f"
	for r in "" "--stream" "--jvm" "--app-only"; do
		one "$f restore $r" "\$B/hprofstrip -o s $f && \$B/hprofrestore $r -o out s"
		one "$f restore pipe $r" "\$B/hprofstrip -o s $f && cat s | \$B/hprofrestore $r > out"
	done
	for pct in 3 17 41 66 89 99; do
		c=$((s * pct / 100 + pct)) r=$((s * pct / 400 + 40))
		cut="head -c $c $f > cut;"
		one "$f cut $pct" "$cut \$B/hprofstrip -o out cut"
		one "$f info cut $pct" "$cut \$B/hprofstrip --info cut"
		one "$f salvage $pct" "$cut \$B/hprofstrip --salvage -o out cut"
		one "$f salvage pipe $pct" "head -c $c $f | \$B/hprofstrip --salvage > out"
		one "$f salvage stream $pct" "$cut \$B/hprofstrip --salvage --stream -o out cut"
		one "$f salvage keep $pct" "$cut \$B/hprofstrip --salvage --keep-strings -o out cut"
		for j in "" "--jvm"; do
			one "$f restore salvage $j $pct" "\$B/hprofstrip -o s $f; head -c $r s > cut; \$B/hprofrestore --salvage $j -o out cut"
		done
	done
done

if [ "$ONLY" != --tools-only ]; then
	for f in $dumps; do
		for mode in random threads jdk8 jdk22 art artcloexec pwrite writev setlength; do
			for envs in "REPLAY_RUNTIME=none" "X=copy" \
				"HPROFSTRIP_COMPRESS=zstd REPLAY_RUNTIME=none" \
				"HPROFSTRIP_KEEP=strings REPLAY_RUNTIME=none" \
				"HPROFSTRIP_APP_ONLY=1 REPLAY_RUNTIME=none"; do
				one "$f replay $mode $envs" "env $envs HPROFSTRIP_PROGRAMS=replay REPLAY_STAMP=keep LD_PRELOAD=\$B/libhprofstrip.so timeout 120 $OLD/replay $mode $f out.hprof 7 >/dev/null; if [ -f out.hprof.zst ]; then zstd -q -d --rm out.hprof.zst; fi"
			done
		done
	done
fi
echo "comparisons: $n, differing: $bad"
[ $bad = 0 ] && rm -rf "$W"
[ $bad = 0 ]
