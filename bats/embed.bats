#!/usr/bin/env bats
# libhprofstrip.a, the dump tracking an app's own PLT hook calls
# (preload/hprofstrip.h): tests/embedtest runs examples/android/hook-example.c
# over a stand-in for bytehook, with no LD_PRELOAD, in ART's and JDK 17's
# write patterns, and its output must equal hprofstrip's.
#
# The tracking strips a runtime's own dumps: embedtest, which plays
# libart.so, hosts ART then (the stub preloaded) and writes a dump stamped
# as its own (fresh_dump); or it is named in HPROFSTRIP_PROGRAMS and writes
# the corpus's dump as it is.

load common

EMBED=$B/embedtest
ARCHIVE=$B/libhprofstrip.a

setup_file() {
	# test drivers, not among make all's: built here (a suite run alone has them)
	build_tests embedtest stub/libart.so
	export FRESH
	FRESH=$(jdk17_fixture)
}

all_dumps() {
	corpus_files
	echo "$FRESH"
}

# embed MODE IN OUT: embedtest with no preload whatever the suite's
embed() {
	env -u LD_PRELOAD "$EMBED" "$@"
}

# in_art MODE IN OUT: embedtest in a process that hosts ART (the stub, not
# the shim, preloaded)
in_art() {
	env LD_PRELOAD="$B/stub/libart.so" "$EMBED" "$@"
}

@test "embed: ART's pattern through the hooks (hst_begin, dup) equals hprofstrip" {
	local t=$BATS_TEST_TMPDIR
	for f in $(all_dumps); do
		"$STRIP" -o "$t/want" "$f"
		# not *.hprof: only hst_begin makes it a dump
		embed art "$f" "$t/art.bin" 2>"$t/err" || fail "embedtest art $f: $(cat "$t/err")"
		cmp "$t/want" "$t/art.bin" || fail "differs: $f"
		grep -q "arrays stripped" "$t/err" || fail "no summary line for $f"
	done
}

@test "embed: JDK 17's pattern through the hooks (hst_opened, *.hprof) equals hprofstrip" {
	local t=$BATS_TEST_TMPDIR
	for f in $(all_dumps); do
		# hosting ART, its own dump
		fresh_dump "$f" "$t/fresh"
		"$STRIP" -o "$t/want" "$t/fresh"
		rm -f "$t/jdk17.hprof"
		in_art jdk17 "$t/fresh" "$t/jdk17.hprof" 2>"$t/err" ||
			fail "embedtest jdk17 $f: $(cat "$t/err")"
		cmp "$t/want" "$t/jdk17.hprof" || fail "differs: $f"
		# named, the dump as it is
		"$STRIP" -o "$t/want" "$f"
		rm -f "$t/jdk17.hprof"
		HPROFSTRIP_PROGRAMS=embedtest embed jdk17 "$f" "$t/jdk17.hprof" 2>"$t/err" ||
			fail "embedtest jdk17 $f, named: $(cat "$t/err")"
		cmp "$t/want" "$t/jdk17.hprof" || fail "differs, named: $f"
	done
}

@test "embed: a file the hooks do not take for a dump is written as it comes" {
	local t=$BATS_TEST_TMPDIR f
	f=$(corpus_files | head -n 1)
	# hosting no runtime, not named: nothing is looked at
	run embed jdk17 "$f" "$t/plain.bin"
	assert_success
	assert_output ""
	cmp "$f" "$t/plain.bin"
	# named, or hosting ART writing its own dump, sniffing off: the name
	# alone decides
	rm -f "$t/plain.bin"
	HPROFSTRIP_PROGRAMS=embedtest HPROFSTRIP_SNIFF=0 run embed jdk17 "$f" "$t/plain.bin"
	assert_success
	assert_output ""
	cmp "$f" "$t/plain.bin"
	fresh_dump "$f" "$t/fresh"
	rm -f "$t/plain.bin"
	HPROFSTRIP_SNIFF=0 run in_art jdk17 "$t/fresh" "$t/plain.bin"
	assert_success
	assert_output ""
	cmp "$t/fresh" "$t/plain.bin"
	# hosting ART, a copy of an older dump (the corpus's stamp) under a
	# dump's name: written as it comes, said once
	rm -f "$t/copy.hprof"
	run in_art jdk17 "$f" "$t/copy.hprof"
	assert_success
	assert_output --regexp "^hprofstrip: $t/copy.hprof: a copy of a dump made [-0-9]+ [:0-9]+ UTC, before this process began: written unchanged\$"
	cmp "$f" "$t/copy.hprof"
}

@test "embed: hst_api_version() is HPROFSTRIP_API_VERSION" {
	run embed version
	assert_success
	want=$(sed -n 's/^#define HPROFSTRIP_API_VERSION \([0-9][0-9]*\)$/\1/p' "$ROOT/preload/hprofstrip.h")
	[ -n "$want" ]
	assert_output "$want"
}

@test "embed: libhprofstrip.a defines only the hst_* API globally" {
	run nm -g --defined-only "$ARCHIVE"
	assert_success
	syms=$(printf '%s\n' "$output" | awk 'NF == 3 { print $3 }' | LC_ALL=C sort)
	[ -n "$syms" ]
	run grep -v '^hst_' <<<"$syms"
	assert_failure  # nothing else, no hs_* engine name in particular
	for f in hst_api_version hst_setup hst_opened hst_begin hst_write \
		hst_writev hst_lseek hst_ftruncate hst_copy hst_close hst_dup \
		hst_replace hst_fork_prepare hst_fork_parent hst_fork_child \
		hst_idle hst_idle_close; do
		grep -qx "$f" <<<"$syms" || fail "$f is not exported"
	done
}

@test "embed: the shim does not export the hst_* API" {
	run nm -D --defined-only "$SHIM"
	assert_success
	refute_output --partial " hst_"
}

@test "embed: the README's hook code is the example's, which embedtest runs" {
	local readme=$ROOT/examples/android/README.md ex=$ROOT/examples/android/hook-example.c
	# each indented C line of the README's section 3 is a line of the example
	sed -n '/^## 3\. /,/^## [^3]/p' "$readme" | sed -n 's/^    //p' |
		grep -E '^(static|	|\{|\}|#)' >"$BATS_TEST_TMPDIR/readme.c"
	[ "$(wc -l <"$BATS_TEST_TMPDIR/readme.c")" -gt 20 ]
	while IFS= read -r line; do
		grep -qxF -- "$line" "$ex" || fail "not in hook-example.c: $line"
	done <"$BATS_TEST_TMPDIR/readme.c"
}
