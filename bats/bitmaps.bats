#!/usr/bin/env bats
# Keeping bitmaps (issue 30): hprofstrip --keep-bitmaps and, under the
# shim, HPROFSTRIP_KEEP=bitmaps keep the elements of the byte[] that
# android.graphics.Bitmap.dumpData's buffers hold (API 35's am dumpheap -b
# pictures) and of each Bitmap's mBuffer (API 25 and earlier), and strip
# every other array. The heap is BitmapHeap's (tests/java/BitmapHeap.java):
# 200 bitmaps, i % 4 a PNG, a JPEG, a WEBP in DumpData (150) or raw ARGB
# pixels in mBuffer (50), and decoys, nonzero byte[] and a PNG that no
# bitmap points at. HeapJudge bitmaps (tests/java/HeapJudge.java) reads a
# restored dump with VisualVM's heap library and judges it against the
# unstripped dump: every bitmap array has the original's bytes, the
# pictures decode to the original's pixels, every other primitive array is
# zeros. From a file that is exact. Streamed (a pipe, the shim) one pass
# keeps an array whose bitmap came first or, once Bitmap$DumpData is
# loaded, a byte[] with a PNG, JPEG or WEBP signature: the judge's --stream
# counts a bitmap array left zero as lost and a kept image no bitmap
# points at as a decoy, and the tests assert every DumpData picture kept.
# The ART form is tests/androidize's 1.0.3 twin of the dump (the same ids),
# read by VisualVM after hprofrestore --jvm.

load common

bats_require_minimum_version 1.5.0

TMO=${BITMAPS_TIMEOUT:-120}

# BitmapHeap's mix of 200 (see its top comment)
DUMPDATA=150
MBUFFER=50

# The unstripped JDK 17 dump of BitmapHeap's heap (ORIG), its ART twin
# (ART), the androidize helper, and the heap whose DumpData comes after
# its pictures and arrays (late=1: LATE), and an API 25 heap of 60 raw
# bitmaps without Bitmap$DumpData (old=1: OLD).
setup_file() {
	clear_env
	# test drivers, not among make all's: built here (a suite run alone has them)
	build_tests oracle replay
	"$JUDGE" build >&2
	local d=$BATS_FILE_TMPDIR
	${CC:-cc} -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O2 \
		-o "$d/androidize" "$ROOT/tests/androidize.c" "$ROOT/tests/walk.c"
	timeout "$TMO" java -cp "$B/java" BitmapHeap mxbean "$d/orig.hprof" >&2
	timeout "$TMO" java -cp "$B/java" BitmapHeap mxbean "$d/late.hprof" late=1 >&2
	timeout "$TMO" java -cp "$B/java" BitmapHeap mxbean "$d/old.hprof" old=1 bitmaps=60 >&2
	"$d/androidize" "$d/orig.hprof" "$d/art.hprof"
}

setup() {
	clear_env
	T=$BATS_TEST_TMPDIR
	ORIG=$BATS_FILE_TMPDIR/orig.hprof
	ART=$BATS_FILE_TMPDIR/art.hprof
	LATE=$BATS_FILE_TMPDIR/late.hprof
	OLD=$BATS_FILE_TMPDIR/old.hprof
}

# judge [--stream] RESTORED...: HeapJudge bitmaps against ORIG (or
# $AGAINST); run's status and output (one summary line a file; errors in
# $stderr)
judge() {
	run --separate-stderr "$JUDGE" bitmaps "${AGAINST:-$ORIG}" "$@"
}

# assert_judged [--stream] RESTORED...: the judge passes every RESTORED
assert_judged() {
	judge "$@"
	[ "$status" -eq 0 ] || fail "HeapJudge bitmaps $*: $output
$stderr"
}

# field NAME LINE: the number after NAME in a summary line (kept: K of
# "kept K of M")
field() {
	sed -n "s/.* $1 \([0-9]*\) .*/\1/p" <<<"$2"
}

# assert_dumpdata_kept LINE: every DumpData picture kept, no decoy but
# BitmapHeap's one PNG; the figures go to the test's output (fd 3)
assert_dumpdata_kept() {
	[ "$(field dumpdata "$1")" = "$DUMPDATA" ] || fail "DumpData pictures lost: $1"
	[ "$(field decoys "$1")" -le 1 ] || fail "decoys kept: $1"
	echo "# ${1#bitmaps }" >&3
}

# assert_some_kept STRIPPED: arrays kept whole (0x23) and stripped (0xC3),
# as the independent oracle counts them
assert_some_kept() {
	run "$ORACLE" count "$1"
	assert_success
	assert_output --regexp '^p23 [1-9][0-9]* c3 [1-9][0-9]*$'
}

@test "the judge: an unstripped dump fails (its other arrays are not zero), a plain strip fails (its bitmaps are zero)" {
	judge "$ORIG"
	assert_failure 1
	assert_output --regexp "^bitmaps .* kept 200 of 200 dumpdata $DUMPDATA of $DUMPDATA mbuffer $MBUFFER of $MBUFFER lost 0 decoys 0 zeroed [0-9]+ ids same\$"
	[[ $stderr == *") is not zero"* ]] || fail "$stderr"
	# streamed too: only an image of the original may be kept as a decoy
	judge --stream "$ORIG"
	assert_failure 1
	[[ $stderr == *"(byte["*"], no bitmap's) is not zero"* ]] || fail "$stderr"
	"$STRIP" -o "$T/p.hprof" "$ORIG"
	"$RESTORE" -o "$T/r.hprof" "$T/p.hprof"
	judge "$T/r.hprof"
	assert_failure 1
	[[ $stderr == *" (dumpdata[000]): "*", differing first at byte 0"* ]] || fail "$stderr"
	# streamed, a plain strip loses all 200 and fails nothing
	judge --stream "$T/r.hprof"
	assert_success
	[ "$(field kept "$output")" = 0 ] && [ "$(field lost "$output")" = 200 ] || fail "$output"
}

@test "offline: hprofstrip --keep-bitmaps + hprofrestore keeps every bitmap's bytes and pictures, zeroes the rest" {
	run --separate-stderr "$STRIP" --keep-bitmaps "$ORIG" -o "$T/k.hprof"
	assert_success
	assert_some_kept "$T/k.hprof"
	"$RESTORE" -o "$T/r.hprof" "$T/k.hprof"
	assert_judged "$T/r.hprof"
	assert_output --regexp "^bitmaps .* kept 200 of 200 .* lost 0 decoys 0 zeroed [0-9]+ ids same$"
	# a byte changed in a kept picture: the judge names its array
	local off
	off=$(LC_ALL=C grep -obUaP '\x89PNG\r' "$T/r.hprof" | head -1 | cut -d: -f1)
	[ -n "$off" ] || fail "no PNG in the restored dump"
	printf '\001' | dd of="$T/r.hprof" bs=1 seek=$((off + 20)) conv=notrunc status=none
	judge "$T/r.hprof"
	assert_failure 1
	[[ $stderr == *"(dumpdata["*"]): "*", differing first at byte 20"* ]] || fail "$stderr"
}

@test "ART form (androidize): --keep-bitmaps, then hprofrestore --jvm, keeps every bitmap" {
	"$STRIP" --keep-bitmaps "$ART" -o "$T/k.hprof"
	assert_some_kept "$T/k.hprof"
	"$RESTORE" --jvm -o "$T/r.hprof" "$T/k.hprof"
	assert_judged "$T/r.hprof"
	assert_output --regexp "^bitmaps .* kept 200 of 200 .* lost 0 decoys 0 zeroed [0-9]+ ids same$"
}

@test "streamed from a pipe, HotSpot order and ART form: every DumpData picture kept; --stream from a file: exact" {
	cat "$ORIG" | "$STRIP" --keep-bitmaps >"$T/hs.hprof"
	cat "$ART" | "$STRIP" --keep-bitmaps >"$T/art.hprof"
	"$RESTORE" -o "$T/hs.r.hprof" "$T/hs.hprof"
	"$RESTORE" --jvm -o "$T/art.r.hprof" "$T/art.hprof"
	assert_judged --stream "$T/hs.r.hprof" "$T/art.r.hprof"
	assert_dumpdata_kept "${lines[0]}"
	assert_dumpdata_kept "${lines[1]}"
	# --stream writes the streamed form; read from a file, it is exact
	"$STRIP" --keep-bitmaps --stream -o "$T/s.hprof" "$ORIG"
	"$RESTORE" -o "$T/s.r.hprof" "$T/s.hprof"
	assert_judged "$T/s.r.hprof"
	assert_output --regexp "^bitmaps .* kept 200 of 200 .* lost 0 decoys 0 zeroed [0-9]+ ids same$"
}

@test "DumpData after its pictures and arrays (late=1): exact from a file, every picture kept streamed by its signature" {
	local AGAINST=$LATE
	"$STRIP" --keep-bitmaps -o "$T/k.hprof" "$LATE"
	"$RESTORE" -o "$T/k.r.hprof" "$T/k.hprof"
	assert_judged "$T/k.r.hprof"
	assert_output --regexp "^bitmaps .* kept 200 of 200 .* lost 0 decoys 0 zeroed [0-9]+ ids same$"
	cat "$LATE" | "$STRIP" --keep-bitmaps >"$T/s.hprof"
	"$BATS_FILE_TMPDIR/androidize" "$LATE" "$T/art.hprof"
	cat "$T/art.hprof" | "$STRIP" --keep-bitmaps >"$T/as.hprof"
	"$RESTORE" -o "$T/s.r.hprof" "$T/s.hprof"
	"$RESTORE" --jvm -o "$T/as.r.hprof" "$T/as.hprof"
	assert_judged --stream "$T/s.r.hprof" "$T/as.r.hprof"
	assert_dumpdata_kept "${lines[0]}"
	assert_dumpdata_kept "${lines[1]}"
}

@test "API 25 (old=1, no Bitmap\$DumpData loaded): exact from a file; streamed, no image kept by its signature alone" {
	local AGAINST=$OLD
	"$STRIP" --keep-bitmaps -o "$T/k.hprof" "$OLD"
	"$RESTORE" -o "$T/k.r.hprof" "$T/k.hprof"
	assert_judged "$T/k.r.hprof"
	assert_output --regexp "^bitmaps .* kept 60 of 60 dumpdata 0 of 0 mbuffer 60 of 60 lost 0 decoys 0 zeroed [0-9]+ ids same$"
	# the PNG no bitmap points at is not kept: the dump loads no DumpData
	cat "$OLD" | "$STRIP" --keep-bitmaps >"$T/s.hprof"
	"$RESTORE" -o "$T/s.r.hprof" "$T/s.hprof"
	assert_judged --stream "$T/s.r.hprof"
	[ "$(field decoys "$output")" = 0 ] || fail "an image kept by its signature: $output"
	echo "# ${output#bitmaps }" >&3
}

@test "sizes: the full dump, a plain strip and --keep-bitmaps for 200 bitmaps" {
	local full plain keep
	"$STRIP" -o "$T/p.hprof" "$ORIG"
	"$STRIP" --keep-bitmaps -o "$T/k.hprof" "$ORIG"
	full=$(size_of "$ORIG")
	plain=$(size_of "$T/p.hprof")
	keep=$(size_of "$T/k.hprof")
	echo "# 200 bitmaps: full $full bytes, plain strip $plain, --keep-bitmaps $keep" \
		"(+$((keep - plain)) over the plain strip, $((100 * keep / full))% of the full dump)" >&3
	[ "$keep" -lt "$full" ] && [ "$keep" -gt "$plain" ] ||
		fail "full $full, plain $plain, keep-bitmaps $keep"
}

@test "shim: HPROFSTRIP_KEEP=bitmaps, the JVM dumping itself (HotSpotDiagnosticMXBean)" {
	HPROFSTRIP_KEEP=bitmaps LD_PRELOAD=$SHIM timeout "$TMO" \
		java -cp "$B/java" BitmapHeap mxbean "$T/mx.hprof" 2>"$T/err"
	grep -q "^hprofstrip: .*mx.hprof: " "$T/err" || fail "no summary line: $(cat "$T/err")"
	assert_some_kept "$T/mx.hprof"
	"$RESTORE" -o "$T/r.hprof" "$T/mx.hprof"
	# another run of the same heap: the arrays pair by name, not by id
	assert_judged --stream "$T/r.hprof"
	assert_dumpdata_kept "$output"
}

@test "shim: HPROFSTRIP_KEEP=bitmaps, jcmd GC.heap_dump" {
	start_jvm HPROFSTRIP_KEEP=bitmaps LD_PRELOAD="$SHIM" BitmapHeap
	run timeout "$TMO" jcmd "$JVM" GC.heap_dump "$T/jcmd.hprof"
	stop_jvm
	assert_output --partial "Heap dump file created"
	grep -q "^hprofstrip: .*jcmd.hprof: " "$JVM_ERR" || fail "no summary line: $(cat "$JVM_ERR")"
	"$RESTORE" -o "$T/r.hprof" "$T/jcmd.hprof"
	assert_judged --stream "$T/r.hprof"
	assert_dumpdata_kept "$output"
}

@test "shim: HPROFSTRIP_KEEP=bitmaps under every replayed runtime pattern, HotSpot order and ART form" {
	local f mode out n=0 restored=()
	for f in "$ORIG" "$ART"; do
		# the shim streams: its result is that of a pipe
		cat "$f" | "$STRIP" --keep-bitmaps >"$T/want"
		for mode in random threads jdk8 jdk22 art artcloexec pwrite writev; do
			out=$T/$mode.$((n++)).hprof
			HPROFSTRIP_KEEP=bitmaps HPROFSTRIP_QUIET=1 LD_PRELOAD=$SHIM \
				timeout 60 "$REPLAY" "$mode" "$f" "$out" 7 ||
				fail "$mode: replay failed on $f"
			# JDK 22 writes its heap records to files of their own
			# (OUT.pN), each stripped in a pass of its own
			[ "$mode" = jdk22 ] || cmp_dump "$out" "$T/want" || fail "$mode: $f"
			if [ "$f" = "$ORIG" ]; then
				"$RESTORE" -o "$out.r" "$out"
			else
				"$RESTORE" --jvm -o "$out.r" "$out"
			fi
			rm -f "$out"
			restored+=("$out.r")
		done
	done
	assert_judged --stream "${restored[@]}"
	[ "${#lines[@]}" -eq 16 ] || fail "$output"
	local l
	# JDK 22's .pN files are stripped without the names and classes of
	# the dump's own file: they keep nothing (strip/limits.md), and the
	# judge passes them for that (no array that is not a bitmap's kept)
	for l in "${lines[@]}"; do
		case $l in
		*/jdk22.*) echo "# JDK 22 (.pN files): ${l##*.hprof.r }" >&3 ;;
		*) assert_dumpdata_kept "$l" ;;
		esac
	done
}

@test "exact from a file: one reading pass when DumpData comes first, two when its buffers array comes before it (-v)" {
	run --separate-stderr "$STRIP" -v --keep-bitmaps -o "$T/k.hprof" "$ORIG"
	assert_success
	[[ $stderr == *"bitmaps: 200 array ids from 201 Bitmap and DumpData instances; 200 arrays kept ("*"); exact: 1 reading pass before"* ]] ||
		fail "$stderr"
	run --separate-stderr "$STRIP" -v --keep-bitmaps -o "$T/l.hprof" "$LATE"
	assert_success
	[[ $stderr == *"200 arrays kept ("*"); exact: 2 reading passes before"* ]] || fail "$stderr"
	# streamed, the late heap's pictures are kept by their signature
	# alone, the one PNG no bitmap points at too
	run --separate-stderr bash -c 'cat "$1" | "$2" -v --keep-bitmaps >/dev/null' _ "$LATE" "$STRIP"
	assert_success
	[[ $stderr == *"; streamed: 151 kept by their image signature alone"* ]] || fail "$stderr"
}

@test "the engine's split invariance keeping bitmaps: every cut gives the same output (HotSpot order, late, ART form)" {
	local f
	build_tests splitcheck
	for f in "$ORIG" "$LATE" "$ART"; do
		run "$B/splitcheck" -b -p 16 -n 2 -s 3 "$f"
		assert_success
		run "$B/splitcheck" -b -k -S -p 16 -n 1 -s 3 "$f"
		assert_success
	done
}

@test "redaction refuses bitmaps: --redact --keep-bitmaps is a usage error; under the shim HPROFSTRIP_REDACT wins, said once" {
	run --separate-stderr "$STRIP" --redact --keep-bitmaps -o "$T/x.hprof" "$ORIG"
	assert_failure 2
	[[ $stderr == "hprofstrip: --redact and --keep-bitmaps cannot be combined: redaction removes what bitmaps hold (pictures are user data)"* ]] ||
		fail "$stderr"
	[ ! -e "$T/x.hprof" ] || fail "an output was written"
	run --separate-stderr "$B/hprofstrip-run" --redact --keep bitmaps true
	assert_failure 2
	# the shim: the dump is redacted, nothing kept, and one line says why
	HPROFSTRIP_KEEP=strings,bitmaps HPROFSTRIP_REDACT=values LD_PRELOAD=$SHIM \
		"$REPLAY" art "$ART" "$T/r.hprof" 7 2>"$T/err"
	[ "$(grep -c "HPROFSTRIP_KEEP=strings,bitmaps is ignored: HPROFSTRIP_REDACT removes what Strings and bitmaps (pictures are user data) hold" "$T/err")" = 1 ] ||
		fail "$(cat "$T/err")"
	run "$ORACLE" count "$T/r.hprof"
	assert_success
	assert_output --regexp '^p23 0 c3 [1-9][0-9]*$'
	grep -q "redacted the fields of" "$T/err" || fail "$(cat "$T/err")"
}

@test "hprofstrip-run --keep bitmaps and --keep strings,bitmaps set HPROFSTRIP_KEEP; another word is a usage error" {
	local w
	for w in bitmaps strings,bitmaps; do
		run --separate-stderr "$B/hprofstrip-run" --keep "$w" env
		assert_success
		assert_line "HPROFSTRIP_KEEP=$w"
	done
	run --separate-stderr "$B/hprofstrip-run" --keep pictures env
	assert_failure 2
	[[ $stderr == *"--keep: 'pictures' is not 'strings', 'bitmaps' or 'strings,bitmaps'"* ]] || fail "$stderr"
}
