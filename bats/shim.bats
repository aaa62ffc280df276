#!/usr/bin/env bats
# libhprofstrip.so under a real JVM, and under the replay driver that
# issues the syscalls of runtimes this machine does not have.

load common

bats_require_minimum_version 1.5.0

setup_file() {
	# test drivers, not among make all's: built here (a suite run alone has them)
	build_tests oracle replay
	"$JUDGE" build >&2
}

# check_jvm_dump FILE STDERR: the shim left a stripped, well-formed dump;
# once restored, VisualVM sees HeapBuilder's 12345 markers with their
# arrays at their original lengths, and the shim's summary line tells the
# original size.
check_jvm_dump() {
	local f=$1 err=$2
	[ -s "$f" ] || fail "no dump at $f"
	assert_stripped_dump "$f"
	"$RESTORE" -o "$BATS_TEST_TMPDIR/restored.hprof" "$f"
	run "$JUDGE" markers "$BATS_TEST_TMPDIR/restored.hprof"
	assert_success
	assert_line "markers 12345"
	for len in 0 1 3 8 17 64 100 255 256; do
		assert_line "marker-array-length $len 1029"
	done
	for len in 1000 1023 4096; do
		assert_line "marker-array-length $len 1028"
	done
	run "$JUDGE" arrays "$BATS_TEST_TMPDIR/restored.hprof" 'long[]'
	assert_line "65537 1"
	# the summary: bytes in is what the JVM wrote, which restore rebuilt
	run grep "^hprofstrip: .*$(basename "$f"): " "$err"
	assert_success
	assert_output --regexp "^hprofstrip: .*: $(size_of "$BATS_TEST_TMPDIR/restored.hprof") bytes in, $(size_of "$f") bytes out \([0-9.]+%\), [1-9][0-9]* arrays stripped; top classes by bytes: [^ ]+ [0-9]+\.[0-9]%, [^ ]+ [0-9]+\.[0-9]%, [^ ]+ [0-9]+\.[0-9]%(; top application class: [^ ]+ [0-9.]+ [KMG]?B \([0-9]+\.[0-9]%\))? \\(all in $(basename "$f").histo\\)$"
}

@test "JVM: -XX:+HeapDumpOnOutOfMemoryError under the shim" {
	LD_PRELOAD=$SHIM timeout 120 java -Xmx64m -XX:+HeapDumpOnOutOfMemoryError \
		-XX:HeapDumpPath="$BATS_TEST_TMPDIR/oom.hprof" -XX:+DisplayVMOutputToStderr \
		-cp "$B/java" HeapBuilder oom 2>"$BATS_TEST_TMPDIR/err"
	check_jvm_dump "$BATS_TEST_TMPDIR/oom.hprof" "$BATS_TEST_TMPDIR/err"
}

@test "JVM: jcmd GC.heap_dump of a process running under the shim" {
	start_jvm LD_PRELOAD="$SHIM" HeapBuilder
	run timeout 120 jcmd "$JVM" GC.heap_dump "$BATS_TEST_TMPDIR/jcmd.hprof"
	stop_jvm
	assert_output --partial "Heap dump file created"
	check_jvm_dump "$BATS_TEST_TMPDIR/jcmd.hprof" "$JVM_ERR"
}

@test "JVM: HotSpotDiagnosticMXBean.dumpHeap under the shim" {
	LD_PRELOAD=$SHIM timeout 120 java -cp "$B/java" HeapBuilder mxbean \
		"$BATS_TEST_TMPDIR/mx.hprof" 2>"$BATS_TEST_TMPDIR/err"
	check_jvm_dump "$BATS_TEST_TMPDIR/mx.hprof" "$BATS_TEST_TMPDIR/err"
}

@test "JVM: a dump the pattern does not match, with sniffing off, is written whole" {
	HPROFSTRIP_PATTERN='*.nothing' HPROFSTRIP_SNIFF=0 LD_PRELOAD=$SHIM \
		java -cp "$B/java" HeapBuilder mxbean "$BATS_TEST_TMPDIR/whole.hprof" \
		2>"$BATS_TEST_TMPDIR/err"
	run "$ORACLE" count "$BATS_TEST_TMPDIR/whole.hprof"
	assert_output --regexp '^p23 [1-9][0-9]* c3 0$'
	run cat "$BATS_TEST_TMPDIR/err"
	assert_output ""
}

@test "replay: every runtime's write pattern gives exactly hprofstrip's output" {
	for f in $(corpus_files); do
		"$STRIP" -o "$BATS_TEST_TMPDIR/want" "$f"
		for mode in random threads jdk8 jdk22 jdk25 art artcloexec pwrite writev; do
			out=$BATS_TEST_TMPDIR/$mode.hprof
			rm -f "$out"
			HPROFSTRIP_QUIET=1 LD_PRELOAD=$SHIM timeout 60 "$REPLAY" "$mode" "$f" "$out" 7 ||
				fail "$mode: replay failed on $f"
			cmp_dump "$out" "$BATS_TEST_TMPDIR/want" || fail "$mode: $f"
			[ -z "$(ls "$out".p* 2>/dev/null)" ] || fail "$mode left $(ls "$out".p*)"
		done
		# JDK 8 with a small buffer: records larger than it go unbuffered
		rm -f "$BATS_TEST_TMPDIR/j8.hprof"
		HPROFSTRIP_QUIET=1 REPLAY_JDK8_BUF=4096 LD_PRELOAD=$SHIM "$REPLAY" jdk8 "$f" "$BATS_TEST_TMPDIR/j8.hprof"
		cmp_dump "$BATS_TEST_TMPDIR/j8.hprof" "$BATS_TEST_TMPDIR/want" || fail "jdk8 4096: $f"
	done
}

@test "a pattern that ends in a bracket (*.hpro[fF]), sniffing off: the dump and JDK 22's segment files are stripped" {
	f=$CORPUS/hotspot/jdk21-demo.hprof
	"$STRIP" -o "$BATS_TEST_TMPDIR/want" "$f"
	for mode in random jdk22 jdk25; do
		out=$BATS_TEST_TMPDIR/$mode.hproF
		HPROFSTRIP_PATTERN='*.hpro[fF]' HPROFSTRIP_SNIFF=0 HPROFSTRIP_QUIET=1 \
			LD_PRELOAD=$SHIM "$REPLAY" "$mode" "$f" "$out" 3 ||
			fail "$mode: replay failed"
		cmp_dump "$out" "$BATS_TEST_TMPDIR/want" || fail "$mode: not stripped"
	done
}

@test "replay: 1-byte writes" {
	f=$CORPUS/hotspot/jdk6-client-id4-small.hprof
	"$STRIP" -o "$BATS_TEST_TMPDIR/want" "$f"
	HPROFSTRIP_QUIET=1 LD_PRELOAD=$SHIM "$REPLAY" bytes "$f" "$BATS_TEST_TMPDIR/b.hprof"
	cmp_dump "$BATS_TEST_TMPDIR/b.hprof" "$BATS_TEST_TMPDIR/want"
}

@test "sniffing: an fd the shim never saw opened, written from offset 0 with a dump" {
	f=$CORPUS/art/art-host-2025.hprof
	"$STRIP" -o "$BATS_TEST_TMPDIR/want" "$f"
	# artpipe - writes to a dup of stdout, which the shell opened
	HPROFSTRIP_QUIET=1 LD_PRELOAD=$SHIM "$REPLAY" artpipe "$f" - >"$BATS_TEST_TMPDIR/x.bin"
	cmp_dump "$BATS_TEST_TMPDIR/x.bin" "$BATS_TEST_TMPDIR/want"
	# with sniffing off it is written whole
	HPROFSTRIP_SNIFF=0 LD_PRELOAD=$SHIM "$REPLAY" artpipe "$f" - >"$BATS_TEST_TMPDIR/y.bin"
	cmp_replayed "$f" "$BATS_TEST_TMPDIR/y.bin"
	# a pipe is never a dump file: written whole
	HPROFSTRIP_QUIET=1 LD_PRELOAD=$SHIM "$REPLAY" artpipe "$f" - | cat >"$BATS_TEST_TMPDIR/z.bin"
	cmp_replayed "$f" "$BATS_TEST_TMPDIR/z.bin"
}

@test "files that do not match are written byte for byte, whatever they hold" {
	f=$CORPUS/hotspot/jdk21-demo.hprof
	# not a runtime (REPLAY_RUNTIME=none; the dump's own stamp, as a copy
	# has it): never sniffed, byte for byte
	for mode in random writev pwrite; do
		rm -f "$BATS_TEST_TMPDIR/o.bin"
		REPLAY_RUNTIME=none REPLAY_STAMP=keep LD_PRELOAD=$SHIM \
			"$REPLAY" "$mode" "$f" "$BATS_TEST_TMPDIR/o.bin" 3
		cmp "$BATS_TEST_TMPDIR/o.bin" "$f" || fail "$mode"
	done
	# a runtime (the replay loads the libjvm.so stub) with sniffing off:
	# its own fresh dump, but for the stamp it wrote, the input
	for mode in jdk8 random writev pwrite; do
		rm -f "$BATS_TEST_TMPDIR/o.bin"
		HPROFSTRIP_SNIFF=0 LD_PRELOAD=$SHIM "$REPLAY" "$mode" "$f" "$BATS_TEST_TMPDIR/o.bin" 3
		cmp_replayed "$f" "$BATS_TEST_TMPDIR/o.bin" || fail "$mode, HPROFSTRIP_SNIFF=0"
	done
	LD_PRELOAD=$SHIM cp "$f" "$BATS_TEST_TMPDIR/copy.bin"
	cmp "$BATS_TEST_TMPDIR/copy.bin" "$f"
	LD_PRELOAD=$SHIM cat "$f" >"$BATS_TEST_TMPDIR/cat.bin"
	cmp "$BATS_TEST_TMPDIR/cat.bin" "$f"
}

@test "HPROFSTRIP_PATTERN: colon-separated globs on the path or its basename" {
	f=$CORPUS/hotspot/jdk11-string.hprof
	"$STRIP" -o "$BATS_TEST_TMPDIR/want" "$f"
	mkdir -p "$BATS_TEST_TMPDIR/dumps"
	HPROFSTRIP_QUIET=1 HPROFSTRIP_SNIFF=0 HPROFSTRIP_PATTERN='*.nothing:heap-*.bin' \
		LD_PRELOAD=$SHIM "$REPLAY" random "$f" "$BATS_TEST_TMPDIR/heap-1.bin"
	cmp_dump "$BATS_TEST_TMPDIR/heap-1.bin" "$BATS_TEST_TMPDIR/want"
	HPROFSTRIP_QUIET=1 HPROFSTRIP_SNIFF=0 HPROFSTRIP_PATTERN="$BATS_TEST_TMPDIR/dumps/*" \
		LD_PRELOAD=$SHIM "$REPLAY" random "$f" "$BATS_TEST_TMPDIR/dumps/any"
	cmp_dump "$BATS_TEST_TMPDIR/dumps/any" "$BATS_TEST_TMPDIR/want"
	HPROFSTRIP_SNIFF=0 HPROFSTRIP_PATTERN='*.nothing' \
		LD_PRELOAD=$SHIM "$REPLAY" random "$f" "$BATS_TEST_TMPDIR/plain.hprof"
	cmp_replayed "$f" "$BATS_TEST_TMPDIR/plain.hprof"
}

@test "summary line: stderr by default, HPROFSTRIP_LOG, HPROFSTRIP_QUIET" {
	f=$CORPUS/hotspot/jdk11-string.hprof
	run env LD_PRELOAD="$SHIM" "$REPLAY" random "$f" "$BATS_TEST_TMPDIR/a.hprof"
	assert_success
	assert_output "hprofstrip: $BATS_TEST_TMPDIR/a.hprof: 2223790 bytes in, 2074927 bytes out (93.3%), 2848 arrays stripped; top classes by bytes: [B 16.5%, [Ljava.lang.Object; 12.7%, java.util.HashMap\$Node 7.8%; top application class: Object1 16 B (0.0%) (all in a.hprof.histo)"
	run env LD_PRELOAD="$SHIM" HPROFSTRIP_LOG="$BATS_TEST_TMPDIR/log" "$REPLAY" random "$f" "$BATS_TEST_TMPDIR/b.hprof"
	assert_output ""
	run cat "$BATS_TEST_TMPDIR/log"
	assert_output "hprofstrip: $BATS_TEST_TMPDIR/b.hprof: 2223790 bytes in, 2074927 bytes out (93.3%), 2848 arrays stripped; top classes by bytes: [B 16.5%, [Ljava.lang.Object; 12.7%, java.util.HashMap\$Node 7.8%; top application class: Object1 16 B (0.0%) (all in b.hprof.histo)"
	run env LD_PRELOAD="$SHIM" HPROFSTRIP_QUIET=1 "$REPLAY" random "$f" "$BATS_TEST_TMPDIR/c.hprof"
	assert_output ""
}

@test "HPROFSTRIP_LOG that cannot be written: said once on stderr, the lines there" {
	local f=$CORPUS/hotspot/jdk11-string.hprof d=$BATS_TEST_TMPDIR
	run --separate-stderr env LD_PRELOAD="$SHIM" HPROFSTRIP_LOG="$d/no/such/log" \
		HPROFSTRIP_REDACT=bogus "$REPLAY" random "$f" "$d/a.hprof"
	assert_success
	assert_equal "$(printf '%s\n' "$stderr" | sed -n 1p)" \
		"hprofstrip: HPROFSTRIP_LOG: $d/no/such/log: No such file or directory; messages go to stderr"
	run grep -c 'HPROFSTRIP_LOG' <<<"$stderr"
	assert_output 1
	# the lines that would have gone to the log, on stderr after it
	run grep -c "^hprofstrip: HPROFSTRIP_REDACT: 'bogus' is not known" <<<"$stderr"
	assert_output 1
	run grep -c "^hprofstrip: $d/a.hprof: [0-9]* bytes in" <<<"$stderr"
	assert_output 1
	[ ! -e "$d/no" ]
}

@test "HPROFSTRIP_PATTERN with a glob fnmatch cannot read ('['): said once, it matches nothing; sniffing still finds the dump" {
	local f=$CORPUS/hotspot/jdk11-string.hprof d=$BATS_TEST_TMPDIR
	"$STRIP" -o "$d/want" "$f"
	run --separate-stderr env LD_PRELOAD="$SHIM" HPROFSTRIP_PATTERN='[' \
		"$REPLAY" random "$f" "$d/a.hprof"
	assert_success
	assert_equal "$(printf '%s\n' "$stderr" | grep -c HPROFSTRIP_PATTERN)" 1
	assert_equal "$(printf '%s\n' "$stderr" | sed -n 1p)" \
		"hprofstrip: HPROFSTRIP_PATTERN: '[' is not a glob fnmatch can read (a '[' without its ']'?); it matches no file: dumps are found by their first bytes alone"
	cmp_dump "$d/a.hprof" "$d/want"
	# sniffing off: nothing finds it; said so, the dump as it was written
	run --separate-stderr env LD_PRELOAD="$SHIM" HPROFSTRIP_PATTERN='*.bin:[' \
		HPROFSTRIP_SNIFF=0 "$REPLAY" random "$f" "$d/[.hprof"
	assert_success
	assert_equal "$stderr" \
		"hprofstrip: HPROFSTRIP_PATTERN: '[' is not a glob fnmatch can read (a '[' without its ']'?); it matches no file, and with HPROFSTRIP_SNIFF off no dump is stripped"
	cmp_replayed "$f" "$d/[.hprof"
	# the globs it can read still match
	run --separate-stderr env LD_PRELOAD="$SHIM" HPROFSTRIP_PATTERN='*.bin:[' \
		HPROFSTRIP_SNIFF=0 "$REPLAY" random "$f" "$d/x.bin"
	assert_success
	cmp_dump "$d/x.bin" "$d/want"
	# a process that strips nothing says nothing
	run --separate-stderr env LD_PRELOAD="$SHIM" HPROFSTRIP_PATTERN='[' \
		cp "$f" "$d/copy.hprof"
	assert_success
	assert_equal "$stderr" ""
}

@test "a dump's name with a newline, a tab, a backslash: the summary stays one line, escaped as ls -b does" {
	local f=$CORPUS/hotspot/jdk11-string.hprof d=$BATS_TEST_TMPDIR
	local name=$d/$'a\nb\tc\\d\001e.hprof'
	run --separate-stderr env LD_PRELOAD="$SHIM" "$REPLAY" random "$f" "$name"
	assert_success
	assert_equal "$stderr" "hprofstrip: $d/a\\nb\\tc\\\\d\\001e.hprof: 2223790 bytes in, 2074927 bytes out (93.3%), 2848 arrays stripped; top classes by bytes: [B 16.5%, [Ljava.lang.Object; 12.7%, java.util.HashMap\$Node 7.8%; top application class: Object1 16 B (0.0%) (all in a\\nb\\tc\\\\d\\001e.hprof.histo)"
	# in HPROFSTRIP_LOG too (the first dump's .histo gone: it is never
	# replaced)
	rm "$name.histo"
	run --separate-stderr env LD_PRELOAD="$SHIM" HPROFSTRIP_LOG="$d/log" \
		"$REPLAY" random "$f" "$name"
	assert_success
	run cat "$d/log"
	assert_output "hprofstrip: $d/a\\nb\\tc\\\\d\\001e.hprof: 2223790 bytes in, 2074927 bytes out (93.3%), 2848 arrays stripped; top classes by bytes: [B 16.5%, [Ljava.lang.Object; 12.7%, java.util.HashMap\$Node 7.8%; top application class: Object1 16 B (0.0%) (all in a\\nb\\tc\\\\d\\001e.hprof.histo)"
}

@test "unparseable bytes: the rest is written verbatim, one warning, lengths exact" {
	f=$CORPUS/art/dalvik-api19-leak-service-binder.hprof
	off=$(bad_tag "$f" "$BATS_TEST_TMPDIR/bad.bin")
	run env LD_PRELOAD="$SHIM" "$REPLAY" art "$BATS_TEST_TMPDIR/bad.bin" "$BATS_TEST_TMPDIR/bad.hprof"
	assert_success
	assert_line --index 0 "hprofstrip: $BATS_TEST_TMPDIR/bad.hprof: offset $off: unknown heap sub-record tag; writing the rest unchanged"
	[ "${#lines[@]}" -eq 2 ]
	# what follows the bad byte is the input's, byte for byte
	n=$(( $(size_of "$f") - off ))
	cmp <(tail -c "$n" "$BATS_TEST_TMPDIR/bad.hprof") <(tail -c "$n" "$BATS_TEST_TMPDIR/bad.bin")
	# the top-level framing is exact: --info reaches the bad tag, not a
	# broken record length
	run "$STRIP" --info "$BATS_TEST_TMPDIR/bad.hprof"
	assert_line --regexp "^malformed at offset [0-9]+: unknown heap sub-record tag$"
}

@test "a bad array type byte in the streamed form (HPROFSTRIP_COMPRESS, a FIFO): the records framed exactly to EOF, the rest as written" {
	local f=$CORPUS/hotspot/jdk8-u05-x64.hprof t=$BATS_TEST_TMPDIR off mode n
	# the element-type byte of a real array in a heap segment's middle
	# (found by a walker of its own), made 3, no basic type: the engine
	# has taken the array's header before it sees the byte, and its
	# fallback's segment must count those bytes
	off=$("$ROOT/tests/hprof-walk" types "$f" | sed -n 2000p)
	[ -n "$off" ] || fail "no 2000th array in $f"
	cp "$f" "$t/bad.bin"
	chmod u+w "$t/bad.bin"
	printf '\003' | dd of="$t/bad.bin" bs=1 seek="$off" conv=notrunc status=none
	run "$STRIP" --info "$t/bad.bin"
	assert_line "malformed at offset $off: invalid basic type"
	n=$(( $(size_of "$f") - off ))
	for mode in random threads art pwrite writev fifo; do
		rm -rf "$t/d"
		mkdir "$t/d"
		if [ "$mode" = fifo ]; then
			mkfifo "$t/d/x.hprof"
			cat "$t/d/x.hprof" >"$t/x.out" &
			LD_PRELOAD=$SHIM "$REPLAY" random "$t/bad.bin" "$t/d/x.hprof" 7 2>"$t/err"
			wait $!
		else
			HPROFSTRIP_COMPRESS=zstd LD_PRELOAD=$SHIM "$REPLAY" "$mode" "$t/bad.bin" \
				"$t/d/x.hprof" 7 2>"$t/err"
			# the compressed dump and its histogram
			[ "$(ls "$t/d" | tr '\n' ' ')" = "x.hprof.histo x.hprof.zst " ] ||
				fail "$mode: $(ls "$t/d"): $(cat "$t/err")"
			zstd -qdc "$t/d/x.hprof.zst" >"$t/x.out"
		fi
		grep -q "^hprofstrip: $t/d/x.hprof: offset $off: invalid basic type; writing the rest unchanged\$" "$t/err" ||
			fail "$mode: $(cat "$t/err")"
		run "$ROOT/tests/hprof-walk" frame "$t/x.out"
		[ "$status" -eq 0 ] || fail "$mode: the streamed form's framing: $output"
		# the bytes from the bad one on are the input's
		cmp <(tail -c "$n" "$t/x.out") <(tail -c "$n" "$t/bad.bin") || fail "$mode: the rest"
		# --info reaches the bad byte, not a broken record length
		run "$STRIP" --info "$t/x.out"
		assert_line --regexp "^malformed at offset [0-9]+: invalid basic type$"
	done
}

@test "a bad tag inside JDK 8's placeholder record, streamed (HPROFSTRIP_COMPRESS): the rest's segment promises 4 GiB, a cut dump, whatever the offset" {
	local f=$CORPUS/hotspot/jdk11-string.hprof t=$BATS_TEST_TMPDIR off
	off=$(bad_tag "$f" "$t/bad.bin") || fail "no instance in $f"
	mkdir "$t/d"
	HPROFSTRIP_QUIET=1 HPROFSTRIP_COMPRESS=zstd LD_PRELOAD=$SHIM \
		"$REPLAY" jdk8 "$t/bad.bin" "$t/d/x.hprof"
	[ "$(ls "$t/d" | tr '\n' ' ')" = "x.hprof.histo x.hprof.zst " ] || fail "$(ls "$t/d")"
	zstd -qdc "$t/d/x.hprof.zst" >"$t/x.out"
	# the placeholder gives no length: the rest cannot be framed, and
	# its segment says so (the most a segment can hold), as hprof.h has it
	run "$ROOT/tests/hprof-walk" frame "$t/x.out"
	assert_failure
	assert_output "hprof-walk: offset $off: a record of 4294967295 bytes runs past EOF ($(size_of "$t/x.out"))"
	# ... after the whole sub-records before it, and its bytes as written
	cmp <(tail -c +$((off + 10)) "$t/x.out") <(tail -c +$((off + 1)) "$t/bad.bin")
}

@test "a gzip of an older dump passes through untouched, with one note; the runtime's own gzip dump is stripped (gzip-dumps.bats)" {
	gzip -c "$CORPUS/hotspot/jdk11-string.hprof" >"$BATS_TEST_TMPDIR/in.gz"
	run env LD_PRELOAD="$SHIM" "$REPLAY" random "$BATS_TEST_TMPDIR/in.gz" "$BATS_TEST_TMPDIR/gz.hprof"
	assert_success
	assert_line --index 0 "hprofstrip: $BATS_TEST_TMPDIR/gz.hprof: a gzip stream of a copy of a dump made 2020-01-28 13:05:25 UTC, before this process began: written unchanged"
	cmp "$BATS_TEST_TMPDIR/gz.hprof" "$BATS_TEST_TMPDIR/in.gz"
}

@test "a writev of 8 vectors is one flush: the dump's output goes out in one pwrite, before the call returns" {
	command -v strace >/dev/null || fail "strace not installed"
	py=$(readlink -f "$(command -v python3)")
	[ -x "$py" ] || fail "python3 not installed"
	# the first 40000 bytes of a dump (its output fits the shim's buffer)
	# in one writev of 8 vectors; getsid marks the call's end
	cat >"$BATS_TEST_TMPDIR/wv.py" <<'PY'
import os, sys
d = open(sys.argv[1], "rb").read()[:40000]
fd = os.open(sys.argv[2], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
n = len(d) // 8
os.writev(fd, [d[i * n:(i + 1) * n] for i in range(7)] + [d[7 * n:]])
os.getsid(0)
os.close(fd)
PY
	HPROFSTRIP_QUIET=1 HPROFSTRIP_PROGRAMS=$(basename "$py") LD_PRELOAD=$SHIM \
		strace -qq -o "$BATS_TEST_TMPDIR/trace" -e signal=none \
		-e trace=pwrite64,getsid "$py" "$BATS_TEST_TMPDIR/wv.py" \
		"$CORPUS/hotspot/jdk6-client-id4-small.hprof" "$BATS_TEST_TMPDIR/wv.hprof"
	run sed -n '/^getsid/q;p' "$BATS_TEST_TMPDIR/trace"
	assert_output --regexp '^pwrite64\([0-9]+, "JAVA PROFILE 1\.0\.1.*, 40000, 0\) = 40000$'
}
