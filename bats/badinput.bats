#!/usr/bin/env bats
# Bad input: one line naming the offset, exit 1, never a crash, and never
# an output that looks complete.

load common

# expect_rejected TOOL IN REGEX: TOOL -o OUT IN exits 1 with one line that
# matches REGEX, leaving neither OUT nor a temporary file; with stdout
# redirected to a file that file is left empty; into a pipe (streamed, so
# what went out stays out) nothing goes that reads as a whole dump.
expect_rejected() {
	local tool=$1 in=$2 msg=$3 dir=$BATS_TEST_TMPDIR/out.$RANDOM$RANDOM
	mkdir "$dir"
	run "$tool" -o "$dir/out.hprof" "$in"
	[ "$status" -eq 1 ] || fail "status $status for $in: $output"
	[ "${#lines[@]}" -eq 1 ] || fail "not one line: $output"
	assert_output --regexp "$msg"
	[ -z "$(ls -A "$dir")" ] || fail "left behind: $(ls -A "$dir")"
	run sh -c '"$1" "$2" >"$3"' _ "$tool" "$in" "$dir/stdout.hprof"
	[ "$status" -eq 1 ]
	[ ! -s "$dir/stdout.hprof" ] || fail "stdout file not emptied"
	sh -c '"$1" "$2" 2>/dev/null | cat >"$3"' _ "$tool" "$in" "$dir/pipe.hprof"
	if [ -s "$dir/pipe.hprof" ]; then
		run "$STRIP" --info -q "$dir/pipe.hprof"
		[ "$status" -eq 1 ] || fail "a pipe got a whole dump from $in"
	fi
}

setup_file() {
	# test drivers, not among make all's: built here (a suite run alone has them)
	build_tests oracle
}

@test "truncated at every structural boundary class: header, record header, sub-record header, elements, class fields" {
	for f in $(corpus_files); do
		while read -r what off; do
			[ "$off" -gt 0 ] || fail "$f has no $what"
			head -c "$off" "$f" >"$BATS_TEST_TMPDIR/t"
			case $what in
			header) msg="stream ended inside the file header" ;;
			*) msg="stream ended inside a record \\(--salvage keeps what came before it\\)" ;;
			esac
			expect_rejected "$STRIP" "$BATS_TEST_TMPDIR/t" \
				"^hprofstrip: $BATS_TEST_TMPDIR/t: offset $off: $msg\$"
			expect_rejected "$RESTORE" "$BATS_TEST_TMPDIR/t" \
				"^hprofrestore: $BATS_TEST_TMPDIR/t: offset $off: $msg\$"
		done < <("$ORACLE" offsets "$f")
	done
}

@test "a stripped dump truncated anywhere is rejected by hprofrestore" {
	f=$CORPUS/hotspot/jdk6-client-id4-small.hprof
	"$STRIP" -o "$BATS_TEST_TMPDIR/s" "$f"
	size=$(size_of "$BATS_TEST_TMPDIR/s")
	for off in 1 18 35 40 1000 100000 $((size - 1)); do
		head -c "$off" "$BATS_TEST_TMPDIR/s" >"$BATS_TEST_TMPDIR/t"
		expect_rejected "$RESTORE" "$BATS_TEST_TMPDIR/t" \
			"^hprofrestore: .*: offset $off: stream ended inside"
	done
}

@test "random garbage: not an HPROF file" {
	head -c 65536 /dev/urandom | tr '\037' 'x' >"$BATS_TEST_TMPDIR/g"
	expect_rejected "$STRIP" "$BATS_TEST_TMPDIR/g" \
		'offset [0-9]+: not an HPROF file'
	expect_rejected "$RESTORE" "$BATS_TEST_TMPDIR/g" \
		'offset [0-9]+: not an HPROF file'
}

@test "random garbage after a valid header: an error, never a crash" {
	f=$CORPUS/hotspot/jdk11-string.hprof
	for i in 1 2 3 4 5 6 7 8; do
		{ head -c 31 "$f"; head -c 20000 /dev/urandom; } >"$BATS_TEST_TMPDIR/g"
		run "$STRIP" -o "$BATS_TEST_TMPDIR/o" "$BATS_TEST_TMPDIR/g"
		[ "$status" -eq 1 ] || fail "status $status: $output"
		assert_output --regexp '^hprofstrip: .*: offset [0-9]+: '
		[ ! -e "$BATS_TEST_TMPDIR/o" ]
	done
}

@test "identifier size 3 or 16" {
	f=$CORPUS/hotspot/jdk11-string.hprof
	for n in 03 10; do
		{ head -c 19 "$f"; printf "\\000\\000\\000\\x$n"; tail -c +24 "$f"; } >"$BATS_TEST_TMPDIR/i"
		expect_rejected "$STRIP" "$BATS_TEST_TMPDIR/i" \
			'offset 19: unsupported identifier size \(HPROF uses 4 or 8\)$'
		expect_rejected "$RESTORE" "$BATS_TEST_TMPDIR/i" 'offset 19: unsupported identifier size'
	done
}

@test "a record length that overruns the file" {
	for f in $CORPUS/hotspot/jdk6-client-id4-small.hprof $CORPUS/art/art-host-2025.hprof; do
		# the last record: its length becomes 0x7fffffff
		last=$(od -An -tu1 -v -w1 "$f" | awk '
			{ b[NR - 1] = $1 }
			END {
				p = 0; while (b[p] != 0) p++; p += 13
				while (p < NR) {
					last = p
					p += 9 + b[p+5]*16777216 + b[p+6]*65536 + b[p+7]*256 + b[p+8]
				}
				print last
			}')
		[ "$last" -gt 31 ]
		cp "$f" "$BATS_TEST_TMPDIR/l"
		chmod u+w "$BATS_TEST_TMPDIR/l"
		printf '\177\377\377\377' | dd of="$BATS_TEST_TMPDIR/l" bs=1 seek=$((last + 5)) conv=notrunc status=none
		expect_rejected "$STRIP" "$BATS_TEST_TMPDIR/l" \
			"offset $(size_of "$f"): stream ended inside a record \\(--salvage keeps what came before it\\)\$"
	done
}

@test "a gzip-compressed dump is read through gzip; a cut one gets gzip's failure" {
	f=$CORPUS/hotspot/jdk11-string.hprof
	gzip -c "$f" >"$BATS_TEST_TMPDIR/z.hprof.gz"
	"$STRIP" -o "$BATS_TEST_TMPDIR/plain" "$f"
	"$STRIP" -o "$BATS_TEST_TMPDIR/gz" "$BATS_TEST_TMPDIR/z.hprof.gz"
	cmp "$BATS_TEST_TMPDIR/plain" "$BATS_TEST_TMPDIR/gz"
	# cut short (bats/compressed-input.bats has the rest, for zstd and xz too)
	head -c 100000 "$BATS_TEST_TMPDIR/z.hprof.gz" >"$BATS_TEST_TMPDIR/cut.gz"
	expect_rejected "$STRIP" "$BATS_TEST_TMPDIR/cut.gz" \
		'^hprofstrip: .*/cut.gz: gzip -dc failed \(exit status 1\): gzip: stdin: unexpected end of file$'
	expect_rejected "$RESTORE" "$BATS_TEST_TMPDIR/cut.gz" \
		'^hprofrestore: .*/cut.gz: gzip -dc failed \(exit status 1\)'
	# the two magic bytes alone
	printf '\037\213' >"$BATS_TEST_TMPDIR/magic"
	expect_rejected "$STRIP" "$BATS_TEST_TMPDIR/magic" 'gzip -dc failed \(exit status 1\)'
}

@test "empty input and a header alone" {
	: >"$BATS_TEST_TMPDIR/e"
	expect_rejected "$STRIP" "$BATS_TEST_TMPDIR/e" 'offset 0: empty input: not an HPROF file$'
	head -c 31 "$CORPUS/hotspot/jdk11-string.hprof" >"$BATS_TEST_TMPDIR/h"
	expect_rejected "$STRIP" "$BATS_TEST_TMPDIR/h" 'offset 31: no records after the file header$'
}

@test "an invalid sub-record tag is named at its offset" {
	f=$CORPUS/art/dalvik-api19-leak-service-binder.hprof
	off=$(bad_tag "$f" "$BATS_TEST_TMPDIR/c")
	expect_rejected "$STRIP" "$BATS_TEST_TMPDIR/c" "offset $off: unknown heap sub-record tag\$"
}

@test "an unreadable or missing input" {
	run "$STRIP" -o "$BATS_TEST_TMPDIR/o" "$BATS_TEST_TMPDIR/missing"
	[ "$status" -eq 1 ]
	assert_output "hprofstrip: $BATS_TEST_TMPDIR/missing: No such file or directory"
	run "$STRIP" -o "$BATS_TEST_TMPDIR/o" "$BATS_TEST_TMPDIR"
	[ "$status" -eq 1 ]
	assert_output --regexp 'read: Is a directory$'
	[ ! -e "$BATS_TEST_TMPDIR/o" ]
}

@test "an output directory that does not exist" {
	run "$STRIP" -o "$BATS_TEST_TMPDIR/no/such/dir/o" "$CORPUS/hotspot/jdk11-string.hprof"
	[ "$status" -eq 1 ]
	assert_output "hprofstrip: $BATS_TEST_TMPDIR/no/such/dir/o: cannot create a temporary file in $BATS_TEST_TMPDIR/no/such/dir: No such file or directory"
}
