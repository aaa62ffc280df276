#!/usr/bin/env bats
# Compressed input: a zstd, gzip, xz or lz4 dump is known by its magic bytes and
# read through the program of that name on PATH, from a file or a pipe; the
# result is the one the plain dump gives. A decompressor that cannot be run,
# fails or is killed is an error: one line, exit 1, no output that looks
# complete.

load common

bats_require_minimum_version 1.5.0

COMPRESSORS="zstd gzip xz lz4"

setup_file() {
	local c
	# test drivers, not among make all's: built here (a suite run alone has them)
	build_tests oracle
	for c in $COMPRESSORS; do
		command -v "$c" >/dev/null ||
			fail "$c is missing: make deps (apt-get install zstd xz-utils lz4)"
	done
	export T=$BATS_FILE_TMPDIR
	export F=$CORPUS/hotspot/jdk11-string.hprof
	[ -r "$F" ] || fail "no corpus in $CORPUS (set HPROFSTRIP_CORPUS)"
	"$STRIP" -o "$T/s.hprof" "$F"
	"$RESTORE" -o "$T/r.hprof" "$T/s.hprof"
	"$RESTORE" --stream -o "$T/rs.hprof" "$T/s.hprof"
	for c in $COMPRESSORS; do
		"$c" -c "$F" >"$T/o.$c"
		"$c" -c "$T/s.hprof" >"$T/s.$c"
	done
	# a PATH with no decompressor on it (the tools need nothing else)
	mkdir "$T/empty"
}

# each test's own output directory, which failed runs must leave empty
setup() {
	O=$BATS_TEST_TMPDIR/out
	mkdir "$O"
}

# the magic bytes, so that no name is what gives a format away
@test "the fixtures carry their formats' magic bytes, under names that say nothing" {
	run od -An -tx1 -N6 "$T/s.zstd"
	assert_output --regexp '^ 28 b5 2f fd'
	run od -An -tx1 -N6 "$T/s.gzip"
	assert_output --regexp '^ 1f 8b'
	run od -An -tx1 -N6 "$T/s.xz"
	assert_output ' fd 37 7a 58 5a 00'
}

@test "hprofrestore of a compressed stripped dump, from a file, stdin or a pipe, is the plain dump's restore" {
	local c
	for c in $COMPRESSORS; do
		"$RESTORE" -o "$T/x.$c" "$T/s.$c"
		cmp "$T/r.hprof" "$T/x.$c"
		"$RESTORE" -o "$T/x.$c" <"$T/s.$c"
		cmp "$T/r.hprof" "$T/x.$c"
		cat "$T/s.$c" | "$RESTORE" -o "$T/x.$c"
		cmp "$T/r.hprof" "$T/x.$c"
		# the output mode: the file's, or 0600 from a pipe
		[ "$(stat -c %a "$T/x.$c")" = 600 ]
	done
}

@test "into a pipe, a compressed dump restores to the streamed form, from a file or a pipe" {
	local c
	for c in $COMPRESSORS; do
		"$RESTORE" "$T/s.$c" | cat >"$T/p.$c"
		cmp "$T/rs.hprof" "$T/p.$c"
		cat "$T/s.$c" | "$RESTORE" | cat >"$T/p.$c"
		cmp "$T/rs.hprof" "$T/p.$c"
	done
}

@test "hprofstrip of a compressed corpus dump is hprofstrip of the plain one" {
	local f c n=0
	for f in $(corpus_files); do
		"$STRIP" -o "$T/plain" "$f"
		for c in $COMPRESSORS; do
			"$c" -1 -c "$f" >"$T/c"
			"$STRIP" -o "$T/x" "$T/c"
			cmp "$T/plain" "$T/x"
			cat "$T/c" | "$STRIP" -o "$T/x"
			cmp "$T/plain" "$T/x"
			n=$((n + 1))
		done
	done
	[ "$n" -ge 6 ]
}

@test "--info reads a compressed dump: the plain dump's census, text and JSON" {
	local c
	"$STRIP" --info "$F" | tail -n +2 >"$T/census"
	"$STRIP" --info --json "$F" | grep -v '"file":' >"$T/census.json"
	tail -n 1 "$T/census" | grep -qx 'well-formed'
	for c in $COMPRESSORS; do
		run --separate-stderr "$STRIP" --info "$T/o.$c"
		assert_success
		diff "$T/census" <(printf '%s\n' "$output" | tail -n +2)
		run --separate-stderr sh -c 'cat "$1" | "$2" --info --json' _ "$T/o.$c" "$STRIP"
		assert_success
		diff "$T/census.json" <(printf '%s\n' "$output" | grep -v '"file":')
	done
}

@test "--keep-strings on a compressed file is exact (decompressed twice); from a pipe it streams" {
	local c
	"$STRIP" --keep-strings -o "$T/k.hprof" "$F"
	cat "$F" | "$STRIP" --keep-strings -o "$T/kp.hprof"
	for c in $COMPRESSORS; do
		run "$STRIP" -v --keep-strings -o "$T/k.$c" "$T/o.$c"
		assert_success
		assert_line --index 1 --regexp ' strings; exact: pass 1 held [0-9]+ value ids'
		cmp "$T/k.hprof" "$T/k.$c"
		run sh -c 'cat "$1" | "$2" -v --keep-strings -o "$3"' _ "$T/o.$c" "$STRIP" "$T/k.$c"
		assert_success
		assert_line --index 1 --partial ' strings; streamed: '
		cmp "$T/kp.hprof" "$T/k.$c"
	done
}

@test "--keep-strings on a compressed stdin starts from where stdin stands" {
	"$STRIP" --keep-strings -o "$T/k.hprof" "$F"
	{ head -c 100 /dev/urandom; cat "$T/o.zstd"; } >"$T/skip.zstd"
	{
		dd bs=100 count=1 of=/dev/null status=none
		"$STRIP" --keep-strings -o "$T/k.skip"
	} <"$T/skip.zstd"
	cmp "$T/k.hprof" "$T/k.skip"
}

# $O, where failed runs were to write $O/x, is still empty: no output,
# no temporary file
no_output_left() {
	[ -z "$(ls -A "$O")" ] || fail "left behind: $(ls -A "$O")"
}

@test "a missing decompressor: one line, exit 1, no output at all" {
	local c tool name
	for c in $COMPRESSORS; do
		for tool in "$RESTORE" "$STRIP"; do
			name=$(basename "$tool")
			run env PATH="$T/empty" "$tool" -o "$O/x" "$T/s.$c"
			assert_failure 1
			assert_output "$name: $T/s.$c: $c-compressed input, but $c cannot be run: No such file or directory"
			no_output_left
			# from a pipe into a pipe: not one byte
			run sh -c 'cat "$1" | PATH="$2" "$3" | wc -c' _ "$T/s.$c" "$T/empty" "$tool"
			assert_output "$name: stdin: $c-compressed input, but $c cannot be run: No such file or directory
0"
		done
		run env PATH="$T/empty" "$STRIP" --keep-strings -o "$O/x" "$T/o.$c"
		assert_failure 1
		assert_output "hprofstrip: $T/o.$c: $c-compressed input, but $c cannot be run: No such file or directory"
		no_output_left
		run env PATH="$T/empty" "$STRIP" --info "$T/o.$c"
		assert_failure 1
		assert_output "hprofstrip: $T/o.$c: $c-compressed input, but $c cannot be run: No such file or directory"
		run env PATH="$T/empty" "$RESTORE" -q -o "$O/x" "$T/s.$c"
		assert_failure 1
		assert_output ""
	done
}

@test "a truncated compressed dump: the decompressor's failure (its own status: lz4 exits 68), exit 1, no output file" {
	local c
	for c in $COMPRESSORS; do
		head -c $(( $(size_of "$T/s.$c") / 2 )) "$T/s.$c" >"$T/cut.$c"
		run --separate-stderr "$RESTORE" -o "$O/x" "$T/cut.$c"
		assert_failure 1
		[ "${#stderr_lines[@]}" -eq 1 ] || fail "not one line: $stderr"
		[[ $stderr == "hprofrestore: $T/cut.$c: $c -dc failed (exit status "[1-9]*"): "?* ]] ||
			fail "unexpected: $stderr"
		no_output_left
		run --separate-stderr sh -c 'cat "$1" | "$2" -o "$3"' _ "$T/cut.$c" "$RESTORE" "$O/x"
		assert_failure 1
		[[ $stderr == "hprofrestore: stdin: $c -dc failed (exit status "[1-9]*"): "?* ]] ||
			fail "unexpected: $stderr"
		no_output_left
		run --separate-stderr "$STRIP" --info "$T/cut.$c"
		assert_failure 1
		[[ $stderr == "hprofstrip: $T/cut.$c: $c -dc failed (exit status "[1-9]*"): "?* ]] ||
			fail "unexpected: $stderr"
	done
}

# fake_zstd BODY: a zstd on PATH ahead of the real one ($REAL), running BODY
fake_zstd() {
	mkdir -p "$T/fake"
	printf '#!/bin/sh\nREAL=%s\n%s\n' "$(command -v zstd)" "$1" >"$T/fake/zstd"
	chmod +x "$T/fake/zstd"
}

@test "a decompressor killed after all its output is an error, though the dump looked whole" {
	fake_zstd '"$REAL" "$@"; kill -9 $$'
	run env PATH="$T/fake:$PATH" "$RESTORE" -o "$O/x" "$T/s.zstd"
	assert_failure 1
	assert_output "hprofrestore: $T/s.zstd: zstd -dc failed (killed by signal 9)"
	no_output_left
	# a pipe out gets a stream cut short, which no reader takes for a dump
	env PATH="$T/fake:$PATH" "$RESTORE" -q "$T/s.zstd" | cat >"$T/cut.hprof"
	[ "$(size_of "$T/cut.hprof")" -gt 0 ]
	run --separate-stderr "$STRIP" --info "$T/cut.hprof"
	assert_failure 1
	[[ ${lines[-1]} == "malformed at offset "[0-9]*": "* ]] || fail "${lines[-1]}"
	# the fake is what ran: without the kill the same command succeeds
	fake_zstd '"$REAL" "$@"'
	env PATH="$T/fake:$PATH" "$RESTORE" -o "$O/x" "$T/s.zstd"
	cmp "$T/r.hprof" "$O/x"
}

@test "a decompressor killed midway: exit 1, no output file, from a file or a pipe" {
	fake_zstd '"$REAL" "$@" | head -c 300000; kill -9 $$'
	run env PATH="$T/fake:$PATH" "$RESTORE" -o "$O/x" "$T/s.zstd"
	assert_failure 1
	assert_output "hprofrestore: $T/s.zstd: zstd -dc failed (killed by signal 9)"
	no_output_left
	run sh -c 'cat "$1" | PATH="$2" "$3" -o "$4"' _ "$T/s.zstd" "$T/fake:$PATH" \
		"$STRIP" "$O/x"
	assert_failure 1
	assert_output "hprofstrip: stdin: zstd -dc failed (killed by signal 9)"
	no_output_left
}

@test "--salvage: a compressed dump cut at 60% is a dump cut where its decompressor stopped; VisualVM opens what is kept" {
	local c f n=0 cut kept want got jvm
	W=$BATS_TEST_TMPDIR
	"$JUDGE" build >&2
	for f in "$CORPUS/hotspot/jdk6-client-id4-small.hprof" "$CORPUS/art/art-host-2025.hprof"; do
		jvm=()
		case $f in */art/*) jvm=(--jvm) ;; esac
		for c in $COMPRESSORS; do
			n=$((n + 1))
			# lz4 decodes whole blocks only (4 MiB by default, more
			# than these dumps): 64 KiB ones leave something to salvage
			case $c in lz4) set -- -B4 ;; *) set -- ;; esac
			"$c" "$@" -c "$f" >"$W/full.$n"
			head -c $(( $(size_of "$W/full.$n") * 60 / 100 )) "$W/full.$n" >"$W/cut.$n"
			# what the decompressor makes of the cut file (it fails),
			# salvaged
			run sh -c '"$1" -dc <"$2" >"$3"' _ "$c" "$W/cut.$n" "$W/prefix.$n"
			assert_failure  # 1; lz4: 68
			cut=$(size_of "$W/prefix.$n")
			"$STRIP" --salvage -q -o "$W/want.$n" "$W/prefix.$n"
			run --separate-stderr "$STRIP" --salvage -o "$O/x.$n" "$W/cut.$n"
			assert_success
			[ "${#stderr_lines[@]}" -eq 1 ] || fail "not one line: $stderr"
			kept=$(sed -n "s|^hprofstrip: $W/cut.$n: salvaged a dump cut at offset $cut (the $c input was cut short): dropped [0-9]* bytes from offset [0-9]* (.*), kept \([0-9]*\) objects\$|\1|p" <<<"$stderr")
			[ -n "$kept" ] || fail "$c: $stderr"
			cmp "$W/want.$n" "$O/x.$n"
			# from a pipe: the same
			run --separate-stderr sh -c 'cat "$1" | "$2" --salvage -o "$3"' _ "$W/cut.$n" "$STRIP" "$O/p.$n"
			assert_success
			[[ $stderr == "hprofstrip: stdin: salvaged a dump cut at offset $cut (the $c input was cut short): "* ]] ||
				fail "$c, pipe: $stderr"
			cmp "$W/want.$n" "$O/p.$n"
			# restored, VisualVM counts the objects the oracle counts
			"$RESTORE" "${jvm[@]}" -o "$W/r.$n" "$O/x.$n"
			want=$("$ORACLE" objects "$f" "$cut" | sed 's/^objects //')
			[ "$want" -gt 0 ]
			got=$("$JUDGE" histo "$W/r.$n" | sed -n 's/^total-instances \([0-9]*\) .*/\1/p')
			[ "$got" = "$want" ] || fail "$c, $(basename "$f") cut at $cut: VisualVM '$got', oracle $want"
		done
	done
	# hprofrestore and --info too; without --salvage the decompressor's
	# failure stays, and nothing is written
	"$STRIP" -o "$W/s" "$CORPUS/art/art-host-2025.hprof"
	gzip -c "$W/s" >"$W/s.gzip"
	head -c $(( $(size_of "$W/s.gzip") * 60 / 100 )) "$W/s.gzip" >"$W/s.cut"
	run sh -c 'gzip -dc <"$1" >"$2"' _ "$W/s.cut" "$W/s.prefix"
	assert_failure 1
	"$RESTORE" --salvage -q -o "$W/s.want" "$W/s.prefix"
	"$RESTORE" --salvage -q -o "$O/s.r" "$W/s.cut"
	cmp "$W/s.want" "$O/s.r"
	run --separate-stderr "$STRIP" --info --salvage "$W/s.cut"
	assert_success
	assert_line --regexp "^well-formed after --salvage: cut at offset $(size_of "$W/s.prefix"), "
	# the gzip trailer cut off: the dump came whole, and the line says so
	f=$CORPUS/hotspot/jdk8-u05-x64.hprof
	gzip -c "$f" >"$W/w.gzip"
	head -c $(( $(size_of "$W/w.gzip") - 4 )) "$W/w.gzip" >"$W/w.cut"
	"$STRIP" -o "$W/w.want" "$f"
	run --separate-stderr "$STRIP" --salvage -o "$O/w" "$W/w.cut"
	assert_success
	assert_equal "$stderr" "hprofstrip: $W/w.cut: salvaged a dump cut at offset $(size_of "$f") (the gzip input was cut short): dropped 0 bytes from offset $(size_of "$f") (0 sub-records, 0 records), kept $("$ORACLE" objects "$f" "$(size_of "$f")" | sed 's/^objects //') objects"
	cmp "$W/w.want" "$O/w"
	rm "$O"/*
	run --separate-stderr "$STRIP" -o "$O/x" "$W/cut.1"
	assert_failure 1
	# (zstd names its input /*stdin*\, the backslash doubled as ls -b does)
	assert_equal "$stderr" "hprofstrip: $W/cut.1: zstd -dc failed (exit status 1): /*stdin*\\\\ : Read error (39) : premature end"
	no_output_left
}

@test "--salvage: a decompressor killed, failing otherwise, or missing is still an error" {
	fake_zstd '"$REAL" "$@" | head -c 1000000; kill -9 $$'
	run env PATH="$T/fake:$PATH" "$RESTORE" --salvage -o "$O/x" "$T/s.zstd"
	assert_failure 1
	assert_output "hprofrestore: $T/s.zstd: zstd -dc failed (killed by signal 9)"
	no_output_left
	# exit 1 without saying its input was cut short
	fake_zstd '"$REAL" "$@" | head -c 1000000; echo "zstd: out of memory" >&2; exit 1'
	run env PATH="$T/fake:$PATH" "$RESTORE" --salvage -o "$O/x" "$T/s.zstd"
	assert_failure 1
	assert_output "hprofrestore: $T/s.zstd: zstd -dc failed (exit status 1): zstd: out of memory"
	no_output_left
	run env PATH="$T/empty" "$RESTORE" --salvage -o "$O/x" "$T/s.zstd"
	assert_failure 1
	assert_output "hprofrestore: $T/s.zstd: zstd-compressed input, but zstd cannot be run: No such file or directory"
	no_output_left
}

@test "a compressed stream that is not a dump: the engine's offset, the decompressor stopped" {
	gzip -c /etc/passwd >"$T/pw"
	run "$STRIP" -o "$T/pw.out" "$T/pw"
	assert_failure 1
	assert_output --regexp "^hprofstrip: $T/pw: offset 0: not an HPROF file"
	[ ! -e "$T/pw.out" ]
	# an endless compressed pipe: the tool stops, and stops its children
	run timeout 60 sh -c 'yes | gzip -c | "$1" -o "$2"' _ "$STRIP" "$T/yes.out"
	assert_failure 1
	assert_output --regexp '^hprofstrip: stdin: offset 0: not an HPROF file'
	[ ! -e "$T/yes.out" ]
}

@test "JDK 17: a jcmd GC.heap_dump -gz=1 dump is stripped directly and restores to the same histogram" {
	start_jvm HeapBuilder
	run env -u LD_PRELOAD timeout 120 jcmd "$JVM" GC.heap_dump -gz=1 "$T/jcmd.hprof.gz"
	stop_jvm
	assert_output --partial "Heap dump file created"
	run od -An -tx1 -N2 "$T/jcmd.hprof.gz"
	assert_output ' 1f 8b'
	gzip -dc "$T/jcmd.hprof.gz" >"$T/jcmd.hprof"
	"$STRIP" -o "$T/jcmd.s" "$T/jcmd.hprof.gz"
	"$STRIP" -o "$T/jcmd.s2" "$T/jcmd.hprof"
	cmp "$T/jcmd.s" "$T/jcmd.s2"
	assert_stripped_dump "$T/jcmd.s"
	"$RESTORE" -o "$T/jcmd.r" "$T/jcmd.s"
	"$JUDGE" histo "$T/jcmd.hprof" >"$T/h.plain"
	"$JUDGE" histo "$T/jcmd.r" >"$T/h.restored"
	[ -s "$T/h.plain" ]
	diff "$T/h.plain" "$T/h.restored"
}

@test "started with SIGCHLD ignored (as some daemons and container inits start their children): compressed input reads as ever" {
	local c
	# the baseline: perl's IGNORE reaches the tool through exec
	run perl -e '$SIG{CHLD} = "IGNORE"; exec @ARGV' sed -n 's/^SigIgn:[[:space:]]*//p' /proc/self/status
	(( 0x$output & (1 << 16) )) || fail "SIGCHLD (17) not ignored: $output"
	for c in zstd gzip; do
		run perl -e '$SIG{CHLD} = "IGNORE"; exec @ARGV' "$STRIP" -o "$O/s.$c" "$T/o.$c"
		assert_success
		cmp "$T/s.hprof" "$O/s.$c"
		run perl -e '$SIG{CHLD} = "IGNORE"; exec @ARGV' "$RESTORE" -o "$O/r.$c" "$T/s.$c"
		assert_success
		cmp "$T/r.hprof" "$O/r.$c"
		run perl -e '$SIG{CHLD} = "IGNORE"; exec @ARGV' "$STRIP" --info "$T/s.$c"
		assert_success
		assert_line well-formed
	done
}
