#!/usr/bin/env bats
# Command-line conventions of hprofstrip and hprofrestore.

load common

bats_require_minimum_version 1.5.0

@test "--help goes to stdout and exits 0; --version" {
	for t in "$STRIP" "$RESTORE"; do
		run "$t" --help
		assert_success
		assert_line --regexp '^Usage: hprof(strip|restore) \[OPTIONS\] \[IN\]$'
		assert_output --partial "-o FILE"
		run "$t" --version
		assert_success
		assert_output --regexp '^hprof(strip|restore) [0-9]+\.[0-9]+\.[0-9]+$'
	done
	run "$RESTORE" --help
	assert_output --partial "--jvm"
	assert_output --partial "--app-only"
}

@test "usage errors exit 2 with a hint on stderr" {
	run "$STRIP" --bogus
	[ "$status" -eq 2 ]
	assert_line "hprofstrip: unknown option '--bogus'"
	run "$STRIP" a b
	[ "$status" -eq 2 ]
	assert_line "hprofstrip: unexpected argument 'b'"
	run "$RESTORE" -o
	[ "$status" -eq 2 ]
	run "$STRIP" --jvm x
	[ "$status" -eq 2 ]
}

@test "file names with control characters stay on their message's line, escaped as ls -b does" {
	local d=$BATS_TEST_TMPDIR f=$CORPUS/hotspot/jdk11-string.hprof
	local in=$d/$'in\nx\ty\\z\033.hprof' esc="$d/in\\nx\\ty\\\\z\\033.hprof"
	cp "$f" "$in"
	# the summary
	run --separate-stderr "$STRIP" -v -o "$d/out.hprof" "$in"
	assert_success
	assert_equal "$(printf '%s\n' "$stderr" | wc -l)" 1
	assert_equal "${stderr%%: [0-9]* -> *}" "hprofstrip: $esc"
	# an input that cannot be opened
	run --separate-stderr "$STRIP" -o "$d/out.hprof" "$in.none"
	assert_failure
	assert_equal "$stderr" "hprofstrip: $esc.none: No such file or directory"
	# an output that cannot be written
	run --separate-stderr "$RESTORE" -o "$d/"$'no\ndir'"/x.hprof" "$d/out.hprof"
	assert_failure
	assert_equal "$stderr" "hprofrestore: $d/no\\ndir/x.hprof: cannot create a temporary file in $d/no\\ndir: No such file or directory"
	# a usage error
	run --separate-stderr "$STRIP" $'--bo\ngus'
	assert_failure 2
	assert_equal "$stderr" "hprofstrip: unknown option '--bo\\ngus'
Try 'hprofstrip --help'."
}

@test "refuses to write a dump to a terminal" {
	run script -qec "$STRIP $CORPUS/hotspot/jdk11-string.hprof" /dev/null
	assert_output --partial "refusing to write a heap dump to a terminal"
}

@test "-o writes through a temporary file, then renames; mode: the input's, less the umask" {
	# the output takes the input's permission bits less the umask
	mkdir "$BATS_TEST_TMPDIR/in"
	f=$BATS_TEST_TMPDIR/in/jdk11-string.hprof
	cp "$CORPUS/hotspot/jdk11-string.hprof" "$f"
	chmod 666 "$f"
	(umask 022 && "$STRIP" -o "$BATS_TEST_TMPDIR/o.hprof" "$f")
	[ "$(stat -c %a "$BATS_TEST_TMPDIR/o.hprof")" = 644 ]
	[ "$(ls -A "$BATS_TEST_TMPDIR" | wc -l)" -eq 2 ]
	# overwriting an existing file replaces it whole
	echo old >"$BATS_TEST_TMPDIR/o2.hprof"
	"$STRIP" -o "$BATS_TEST_TMPDIR/o2.hprof" "$f"
	cmp "$BATS_TEST_TMPDIR/o.hprof" "$BATS_TEST_TMPDIR/o2.hprof"
}

@test "-q silences errors, the exit status stays" {
	run "$STRIP" -q -o "$BATS_TEST_TMPDIR/o" /dev/null
	[ "$status" -eq 1 ]
	assert_output ""
}

@test "- means stdin and stdout" {
	f=$CORPUS/hotspot/jdk11-string.hprof
	"$STRIP" -o "$BATS_TEST_TMPDIR/a" "$f"
	"$STRIP" -o - - <"$f" >"$BATS_TEST_TMPDIR/b"
	cmp "$BATS_TEST_TMPDIR/a" "$BATS_TEST_TMPDIR/b"
}
