#!/usr/bin/env bats
# Exactness of hprofstrip and hprofrestore on real dumps, judged by the
# independent oracle (tests/oracle.c), VisualVM's heap library and
# Android's hprof-conv.

load common

setup_file() {
	# test drivers, not among make all's: built here (a suite run alone has them)
	build_tests oracle
	export FRESH
	FRESH=$(jdk17_fixture)
}

all_dumps() {
	corpus_files
	echo "$FRESH"
}

@test "strip: output equals the oracle's strip, byte for byte" {
	for f in $(all_dumps); do
		"$STRIP" -o "$BATS_TEST_TMPDIR/s" "$f"
		"$ORACLE" strip "$f" "$BATS_TEST_TMPDIR/o"
		cmp "$BATS_TEST_TMPDIR/s" "$BATS_TEST_TMPDIR/o" || fail "differs: $f"
	done
}

@test "strip: stripped size is the original size minus all element bytes" {
	for f in $(all_dumps); do
		"$STRIP" -o "$BATS_TEST_TMPDIR/s" "$f"
		read -r _ want _ elems _ arrays < <("$ORACLE" expect "$f")
		[ "$arrays" -gt 0 ] || fail "no arrays in $f"
		[ "$(size_of "$BATS_TEST_TMPDIR/s")" -eq "$want" ] ||
			fail "$f: $(size_of "$BATS_TEST_TMPDIR/s") != $want"
		[ $((want + elems)) -eq "$(size_of "$f")" ]
	done
}

@test "strip: no 0x23 is left; every array became a 0xC3" {
	for f in $(all_dumps); do
		"$STRIP" -o "$BATS_TEST_TMPDIR/s" "$f"
		read -r _ n23 _ nc3 < <("$ORACLE" count "$f")
		run "$ORACLE" count "$BATS_TEST_TMPDIR/s"
		assert_output "p23 0 c3 $((n23 + nc3))"
	done
}

@test "restore(strip(x)) equals x with every array zeroed" {
	for f in $(all_dumps); do
		"$STRIP" -o "$BATS_TEST_TMPDIR/s" "$f"
		"$RESTORE" -o "$BATS_TEST_TMPDIR/r" "$BATS_TEST_TMPDIR/s"
		"$ORACLE" zero "$f" "$BATS_TEST_TMPDIR/z"
		cmp "$BATS_TEST_TMPDIR/r" "$BATS_TEST_TMPDIR/z" || fail "differs: $f"
	done
}

@test "strip is idempotent and restore leaves an unstripped dump unchanged" {
	for f in $(all_dumps); do
		"$STRIP" -o "$BATS_TEST_TMPDIR/s" "$f"
		"$STRIP" -o "$BATS_TEST_TMPDIR/ss" "$BATS_TEST_TMPDIR/s"
		cmp "$BATS_TEST_TMPDIR/s" "$BATS_TEST_TMPDIR/ss" || fail "strip twice: $f"
		"$RESTORE" -o "$BATS_TEST_TMPDIR/u" "$f"
		cmp "$f" "$BATS_TEST_TMPDIR/u" || fail "restore of unstripped: $f"
	done
}

@test "pipes: stdin to stdout through a pipe gives the streamed bytes, the file's sub-records" {
	f=$CORPUS/hotspot/jdk8-u05-x64.hprof
	"$STRIP" --stream -o "$BATS_TEST_TMPDIR/s" "$f"
	cat "$f" | "$STRIP" | cat >"$BATS_TEST_TMPDIR/p"
	cmp "$BATS_TEST_TMPDIR/s" "$BATS_TEST_TMPDIR/p"
	cat "$BATS_TEST_TMPDIR/p" | "$RESTORE" - -o - | cat >"$BATS_TEST_TMPDIR/rp"
	"$RESTORE" --stream -o "$BATS_TEST_TMPDIR/rs" "$BATS_TEST_TMPDIR/s"
	cmp "$BATS_TEST_TMPDIR/rp" "$BATS_TEST_TMPDIR/rs"
	"$ORACLE" zero "$f" "$BATS_TEST_TMPDIR/z"
	"$ORACLE" flat "$BATS_TEST_TMPDIR/z" "$BATS_TEST_TMPDIR/z.flat"
	"$ORACLE" flat "$BATS_TEST_TMPDIR/rp" "$BATS_TEST_TMPDIR/rp.flat"
	cmp "$BATS_TEST_TMPDIR/rp.flat" "$BATS_TEST_TMPDIR/z.flat"
}

@test "stdout redirected to a file is patched in place" {
	f=$CORPUS/art/art-host-2025.hprof
	"$STRIP" "$f" >"$BATS_TEST_TMPDIR/s"
	"$ORACLE" strip "$f" "$BATS_TEST_TMPDIR/o"
	cmp "$BATS_TEST_TMPDIR/s" "$BATS_TEST_TMPDIR/o"
	# appending (O_APPEND) cannot be patched in place: it is streamed
	printf 'x' >"$BATS_TEST_TMPDIR/a"
	"$STRIP" "$f" >>"$BATS_TEST_TMPDIR/a"
	"$STRIP" --stream -o "$BATS_TEST_TMPDIR/st" "$f"
	tail -c +2 "$BATS_TEST_TMPDIR/a" | cmp - "$BATS_TEST_TMPDIR/st"
}

@test "VisualVM: restored dumps have the original class histogram" {
	for f in $(all_dumps); do
		"$STRIP" -o "$BATS_TEST_TMPDIR/s" "$f"
		"$RESTORE" -o "$BATS_TEST_TMPDIR/r.hprof" "$BATS_TEST_TMPDIR/s"
		"$JUDGE" histo "$f" >"$BATS_TEST_TMPDIR/want"
		"$JUDGE" histo "$BATS_TEST_TMPDIR/r.hprof" >"$BATS_TEST_TMPDIR/got"
		[ "$(wc -l <"$BATS_TEST_TMPDIR/want")" -gt 100 ]
		diff "$BATS_TEST_TMPDIR/want" "$BATS_TEST_TMPDIR/got" || fail "histogram: $f"
	done
}

@test "VisualVM: restored arrays keep their lengths" {
	"$STRIP" -o "$BATS_TEST_TMPDIR/s" "$FRESH"
	"$RESTORE" -o "$BATS_TEST_TMPDIR/r.hprof" "$BATS_TEST_TMPDIR/s"
	for c in 'byte[]' 'char[]' 'int[]' 'long[]' 'double[]' 'boolean[]' 'short[]' 'float[]'; do
		"$JUDGE" arrays "$FRESH" "$c" >"$BATS_TEST_TMPDIR/want"
		"$JUDGE" arrays "$BATS_TEST_TMPDIR/r.hprof" "$c" >"$BATS_TEST_TMPDIR/got"
		grep -q '^65537 ' "$BATS_TEST_TMPDIR/want" || fail "no 65537-long $c"
		diff "$BATS_TEST_TMPDIR/want" "$BATS_TEST_TMPDIR/got" || fail "$c"
	done
	run "$JUDGE" markers "$BATS_TEST_TMPDIR/r.hprof"
	assert_line "markers 12345"
	assert_line "marker-array-length 4096 1028"
}

@test "hprof-conv accepts the stripped and the restored ART dumps" {
	for f in $(art_files); do
		"$STRIP" -o "$BATS_TEST_TMPDIR/s" "$f"
		run "$HPROF_CONV" "$BATS_TEST_TMPDIR/s" "$BATS_TEST_TMPDIR/sc"
		assert_success
		"$RESTORE" -o "$BATS_TEST_TMPDIR/r" "$BATS_TEST_TMPDIR/s"
		run "$HPROF_CONV" "$BATS_TEST_TMPDIR/r" "$BATS_TEST_TMPDIR/rc"
		assert_success
		# and it converts the restored dump exactly as the zeroed original
		"$ORACLE" zero "$f" "$BATS_TEST_TMPDIR/z"
		"$HPROF_CONV" "$BATS_TEST_TMPDIR/z" "$BATS_TEST_TMPDIR/zc"
		cmp "$BATS_TEST_TMPDIR/rc" "$BATS_TEST_TMPDIR/zc" || fail "$f"
	done
}

@test "summary with -v names the bytes, the ratio and the arrays" {
	f=$CORPUS/hotspot/jdk11-string.hprof
	run "$STRIP" -v -o "$BATS_TEST_TMPDIR/s" "$f"
	assert_success
	assert_output "hprofstrip: $f: 2223790 -> 2074927 bytes (93.3%), 2848 arrays stripped, 148863 element bytes"
	run "$RESTORE" -v -o "$BATS_TEST_TMPDIR/r" "$BATS_TEST_TMPDIR/s"
	assert_output "hprofrestore: $BATS_TEST_TMPDIR/s: 2074927 -> 2223790 bytes (107.2%), 2848 arrays restored, 148863 element bytes"
}
