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
	# every compressed input it reads, and the tool it reads it with
	for t in "$STRIP" "$RESTORE"; do
		run "$t" --help
		assert_output --partial "zstd, gzip, xz or lz4"
		assert_output --partial "zstd -dc, gzip -dc, xz -dc or lz4 -dc"
	done
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

@test "options: --json alone names what it goes with; -o, --baseline, --names-map, --unredact twice are refused; -vq, -qv and -vv work as -v and -q do" {
	local J=$CORPUS/hotspot/jdk8-u05-x64.hprof T=$BATS_TEST_TMPDIR
	run --separate-stderr "$STRIP" --json "$J"
	assert_failure 2
	assert_equal "${stderr_lines[0]}" "hprofstrip: --json goes with --info, --histo or --suspects"
	for args in "-o $T/a -o $T/b" "-o$T/a -o $T/b" "-o $T/a -o$T/b" \
		"--histo --baseline $J --baseline $J" \
		"--redact=names --names-map $T/m1 --names-map $T/m2 -o $T/a"; do
		run --separate-stderr "$STRIP" $args "$J"
		assert_failure 2
		assert_regex "${stderr_lines[0]}" '^hprofstrip: (-o|--baseline|--names-map) given twice'
		[ ! -e "$T/a" ] && [ ! -e "$T/b" ] || fail "$args wrote an output"
	done
	run --separate-stderr "$RESTORE" --unredact "$T/m1" --unredact "$T/m2" "$J"
	assert_failure 2
	assert_regex "${stderr_lines[0]}" '^hprofrestore: --unredact given twice'
	# -vq: quiet, as -v -q is (-q wins wherever it stands)
	for args in -vq -qv -qq; do
		run --separate-stderr "$STRIP" $args -o "$T/q.hprof" "$J"
		assert_success
		assert_equal "$stderr" ""
		run --separate-stderr "$STRIP" $args --bogus
		assert_failure 2
		assert_equal "$stderr" ""
	done
	# -vv: the summary, as -v -v
	run --separate-stderr "$STRIP" -vv -o "$T/v.hprof" "$J"
	assert_success
	assert_regex "$stderr" 'arrays stripped'
	run --separate-stderr "$STRIP" -vx "$J"
	assert_failure 2
	assert_equal "${stderr_lines[0]}" "hprofstrip: unknown option '-vx'"
}

@test "--info -o FILE: the census there, as every output is written; nothing on bad input" {
	local J=$CORPUS/hotspot/jdk8-u05-x64.hprof T=$BATS_TEST_TMPDIR
	"$STRIP" --info "$J" >"$T/want.txt"
	run -0 "$STRIP" --info -o "$T/got.txt" "$J"
	assert_output ""
	cmp "$T/want.txt" "$T/got.txt"
	"$STRIP" --info --json "$J" >"$T/want.json"
	run -0 "$STRIP" --info --json -o"$T/got.json" "$J"
	cmp "$T/want.json" "$T/got.json"
	# never wider than the input; through a symlink, its target replaced
	chmod 600 "$T/got.txt"
	cp "$J" "$T/in.hprof" && chmod 640 "$T/in.hprof"
	ln -s got.txt "$T/link.txt"
	run -0 "$STRIP" --info -o "$T/link.txt" "$T/in.hprof"
	[ -L "$T/link.txt" ] || fail "the symlink was replaced"
	[ "$(stat -c %a "$T/got.txt")" = 640 ] || [ "$(stat -c %a "$T/got.txt")" = 600 ] ||
		fail "mode $(stat -c %a "$T/got.txt")"
	# bad input: one line naming the offset, exit 1, no file
	head -c 1000 "$J" >"$T/cut.hprof"
	run --separate-stderr "$STRIP" --info -o "$T/cut.txt" "$T/cut.hprof"
	assert_failure 1
	assert_regex "$stderr" 'offset 1000: '
	[ ! -e "$T/cut.txt" ] || fail "a census of a cut dump was written"
	# the input itself is refused
	run "$STRIP" --info -o "$T/in.hprof" "$T/in.hprof"
	assert_failure 2
}

@test "--keep-strings on a dump stripped before: the values are gone, and where they can be kept is said" {
	local J=$CORPUS/hotspot/jdk8-u05-x64.hprof T=$BATS_TEST_TMPDIR
	"$STRIP" -o "$T/s.hprof" "$J"
	run --separate-stderr "$STRIP" --keep-strings -o "$T/k.hprof" "$T/s.hprof"
	assert_success
	assert_equal "$stderr" "hprofstrip: $T/s.hprof: 4965 of its 4965 arrays were stripped before: their values are gone, and no String that points at one keeps its value; keep them where the dump is taken (HPROFSTRIP_KEEP=strings, hprofstrip-run --keep strings), or run --keep-strings on the unstripped dump"
	cmp "$T/s.hprof" "$T/k.hprof"
	# from a pipe too; none said for an unstripped dump, or with -q
	run --separate-stderr bash -c '"$1" --keep-strings <"$2" >/dev/null' _ "$STRIP" "$T/s.hprof"
	assert_regex "$stderr" 'were stripped before'
	run --separate-stderr "$STRIP" --keep-strings -o "$T/k2.hprof" "$J"
	assert_equal "$stderr" ""
	run --separate-stderr "$STRIP" -q --keep-strings -o "$T/k3.hprof" "$T/s.hprof"
	assert_equal "$stderr" ""
}
