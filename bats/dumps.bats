#!/usr/bin/env bats
# Which files are dumps, and no write lost: the shim under real setups
# (issue "Never lose, corrupt or expose a dump"). Real JDK 17 runs for
# numbered and unusually named dumps; the replay driver for the runtimes
# this machine does not have; cp, cat and python3 for processes that are
# not runtimes; and the project's own tools under an exported LD_PRELOAD.

load common

bats_require_minimum_version 1.5.0

TMO=${DUMPS_TIMEOUT:-120}

setup_file() {
	"$JUDGE" build >&2
	# test drivers, not among make all's: built here (a suite run alone has them)
	build_tests oracle replay libreenter.so shimstress libfaultinject.so
}

setup() {
	unset LD_PRELOAD ${!HPROFSTRIP_*}
	T=$BATS_TEST_TMPDIR
	J8=$CORPUS/hotspot/jdk8-u05-x64.hprof
	ART=$CORPUS/art/art-host-2025.hprof
	[ -r "$J8" ] && [ -r "$ART" ] || fail "no corpus in $CORPUS"
	[ -r "$B/stub/libjvm.so" ] && [ -r "$B/libreenter.so" ] ||
		fail "missing test builds: make build/replay build/libreenter.so"
}

# hprofstrip's output for IN, made once per test file
expected() {
	local e=$BATS_FILE_TMPDIR/$(basename "$1").want
	[ -s "$e" ] || "$STRIP" -o "$e" "$1"
	echo "$e"
}

# VisualVM's view of HeapBuilder's heap: markers, their array lengths
markers() {
	"$JUDGE" markers "$1" | sort
}

# A restored dump of HeapBuilder's heap, taken without the shim, once.
plain_markers() {
	local f=$BATS_FILE_TMPDIR/plain.markers
	[ -s "$f" ] || markers "$(jdk17_fixture)" >"$f"
	echo "$f"
}

# FILE was written stripped by the shim, and restores to the heap that a
# dump without the shim shows (VisualVM reads both).
assert_stripped_heap() {
	local f=$1
	[ -s "$f" ] || fail "no dump at $f"
	run "$ORACLE" count "$f"
	assert_success
	assert_output --regexp '^p23 0 c3 [1-9][0-9]*$'
	"$RESTORE" -o "$T/r.hprof" "$f"
	markers "$T/r.hprof" >"$T/got.markers"
	diff "$(plain_markers)" "$T/got.markers" || fail "$f: another heap"
	rm -f "$T/r.hprof"
}

# ---- which files are dumps: names -------------------------------------

@test "JVM: dumps before and after full GC are all stripped (gc.hprof, gc.hprof.1 ... .5)" {
	cd "$T"
	LD_PRELOAD=$SHIM timeout "$TMO" java -XX:+HeapDumpBeforeFullGC \
		-XX:+HeapDumpAfterFullGC -XX:HeapDumpPath=gc.hprof \
		-cp "$B/java" HeapBuilder gc 3 >out 2>err
	# each dump and its histogram (HPROFSTRIP_HISTO: <dump>.histo)
	[ "$(ls gc.hprof* | wc -l)" = 12 ] || fail "$(ls -l)"
	for f in gc.hprof gc.hprof.1 gc.hprof.2 gc.hprof.3 gc.hprof.4 gc.hprof.5; do
		assert_stripped_heap "$f"
		[ -s "$f.histo" ] || fail "no $f.histo"
		grep -q "^hprofstrip: $f: .* arrays stripped; top classes by bytes: .* (all in $f.histo)$" err ||
			fail "no summary for $f"
	done
}

@test "JVM: the OOM dump numbered after full-GC dumps (java_pid<N>.hprof.<K>) is stripped" {
	cd "$T"
	LD_PRELOAD=$SHIM timeout "$TMO" java -Xmx64m -XX:+HeapDumpOnOutOfMemoryError \
		-XX:+HeapDumpBeforeFullGC -XX:+HeapDumpAfterFullGC \
		-XX:+DisplayVMOutputToStderr -cp "$B/java" HeapBuilder oom >out 2>err
	local n dumps
	# the dumps, each with its histogram (<dump>.histo)
	dumps=$(ls java_pid*.hprof* | grep -v '\.histo$')
	n=$(wc -l <<<"$dumps")
	[ "$n" -ge 3 ] || fail "only $n dumps: $(ls)"
	# the OOM dump is the last one, and numbered
	grep -q 'Dumping heap to java_pid[0-9]*\.hprof\.[0-9]* \.\.\.' err
	for f in $dumps; do
		run "$ORACLE" count "$f"
		assert_success
		assert_output --regexp '^p23 0 c3 [1-9][0-9]*$'
		[ -s "$f.histo" ] || fail "no $f.histo"
	done
	assert_stripped_heap "$(sort -t. -k3n <<<"$dumps" | tail -1)"
}

@test "JVM: jmap -dump:file=heap.bin, jcmd GC.heap_dump x.hprof.tmp and a name without extension are stripped" {
	start_jvm LD_PRELOAD="$SHIM" HeapBuilder
	run timeout "$TMO" jmap -dump:format=b,file="$T/heap.bin" "$JVM"
	assert_success
	run timeout "$TMO" jcmd "$JVM" GC.heap_dump "$T/x.hprof.tmp"
	assert_success
	run timeout "$TMO" jcmd "$JVM" GC.heap_dump "$T/heapdump"
	assert_success
	stop_jvm
	for f in heap.bin x.hprof.tmp heapdump; do
		assert_stripped_heap "$T/$f"
		grep -q "^hprofstrip: $T/$f: .* arrays stripped; top classes by bytes: .* (all in $f.histo)$" "$JVM_ERR" ||
			fail "no summary for $f: $(cat "$JVM_ERR")"
	done
}

@test "JVM: HPROFSTRIP_SNIFF=0 writes a dump under another name whole" {
	start_jvm HPROFSTRIP_SNIFF=0 LD_PRELOAD="$SHIM" HeapBuilder
	run timeout "$TMO" jcmd "$JVM" GC.heap_dump "$T/heapdump"
	stop_jvm
	run "$ORACLE" count "$T/heapdump"
	assert_output --regexp '^p23 [1-9][0-9]* c3 0$'
	[ ! -s "$JVM_ERR" ] || fail "$(cat "$JVM_ERR")"
}

@test "replay: numbered names (<path>.<digits>) are dumps in every runtime's pattern, and their .pN segments" {
	local want sniff
	want=$(expected "$J8")
	# sniffing off too: the name alone makes it a dump
	for sniff in 1 0; do
		for mode in threads jdk8 jdk22 jdk25 art random; do
			rm -f "$T"/o.hprof.*
			HPROFSTRIP_SNIFF=$sniff LD_PRELOAD=$SHIM "$REPLAY" "$mode" "$J8" "$T/o.hprof.12" 3 2>"$T/err"
			cmp_dump "$want" "$T/o.hprof.12" || fail "$mode, sniff $sniff: $(cat "$T/err")"
		done
	done
	# not a number: not a dump by its name (a runtime's process, where
	# only sniffing, off here, would make it one)
	HPROFSTRIP_SNIFF=0 LD_PRELOAD=$SHIM "$REPLAY" random "$J8" "$T/o.hprof.12a" 3
	cmp_replayed "$J8" "$T/o.hprof.12a"
	HPROFSTRIP_SNIFF=0 LD_PRELOAD=$SHIM "$REPLAY" random "$J8" "$T/o.hprof." 3
	cmp_replayed "$J8" "$T/o.hprof."
}

@test "replay: JDK 22's .pN segment files are stripped on disk before the merge" {
	local want n=0 f
	want=$(expected "$J8")
	for out in o.hprof o.hprof.3; do
		rm -rf "$T/keep" "$T/$out"* && mkdir "$T/keep"
		REPLAY_PN_KEEP=$T/keep LD_PRELOAD=$SHIM "$REPLAY" jdk22 "$J8" "$T/$out" 7 2>"$T/err"
		cmp_dump "$want" "$T/$out"
		[ -z "$(ls "$T/$out".p* 2>/dev/null)" ] || fail "segment files left"
		# the file header, then the segment files as they were on disk:
		# a dump of its own, with no array contents left
		head -c 31 "$J8" >"$T/seg.hprof"
		n=$(ls "$T/keep" | wc -l)
		[ "$n" -ge 1 ]
		for f in $(ls "$T/keep" | sort -V); do
			cat "$T/keep/$f" >>"$T/seg.hprof"
		done
		run "$ORACLE" count "$T/seg.hprof"
		assert_success
		assert_output --regexp '^p23 0 c3 [1-9][0-9]*$'
		run "$STRIP" --info "$T/seg.hprof"
		assert_success
	done
}

@test "replay: in a runtime process a new file is a dump whatever its name; elsewhere it is left alone" {
	local want wantart
	want=$(expected "$J8")
	wantart=$(expected "$ART")
	for name in heap.bin x.hprof.tmp heapdump; do
		for mode in threads jdk8 jdk22 jdk25; do
			rm -f "$T/$name"*
			LD_PRELOAD=$SHIM "$REPLAY" "$mode" "$J8" "$T/$name" 5 2>"$T/err"
			cmp_dump "$want" "$T/$name" || fail "$mode $name: $(cat "$T/err")"
		done
		rm -f "$T/$name"
		LD_PRELOAD=$SHIM "$REPLAY" art "$ART" "$T/$name" 2>"$T/err"
		cmp_dump "$wantart" "$T/$name" || fail "art $name"
		# sniffing off: whole
		rm -f "$T/$name"
		HPROFSTRIP_SNIFF=0 LD_PRELOAD=$SHIM "$REPLAY" threads "$J8" "$T/$name" 5
		cmp_replayed "$J8" "$T/$name"
		# not a runtime (REPLAY_RUNTIME=none: the replay loads no stub):
		# whole, and nothing said
		for mode in random pwrite writev threads jdk8; do
			rm -f "$T/$name"
			REPLAY_RUNTIME=none LD_PRELOAD=$SHIM "$REPLAY" "$mode" "$J8" "$T/$name" 5 2>"$T/err"
			cmp_replayed "$J8" "$T/$name" || fail "$mode $name"
			[ ! -s "$T/err" ]
		done
	done
}

@test "cp, cat and python3 writing a dump to a name that does not match: untouched, the same syscalls" {
	command -v strace >/dev/null || fail "strace not installed"
	command -v python3 >/dev/null || fail "python3 not installed"
	local who
	# shim: they host no runtime, so the shim never looks at what they
	# write; named: named in HPROFSTRIP_PROGRAMS, sniffing off, it looks
	# at the names only, and these do not match
	for who in none shim named; do
		rm -rf "$T/$who" && mkdir "$T/$who"
		local pre=()
		[ "$who" = shim ] && pre=(-E "LD_PRELOAD=$SHIM")
		[ "$who" = named ] && pre=(-E "LD_PRELOAD=$SHIM" -E HPROFSTRIP_SNIFF=0
			-E HPROFSTRIP_PROGRAMS=cp:cat:python3)
		strace -qq -f -e signal=none -o "$T/cp.$who" -e trace=%desc,%file -P "$T/$who/cp.bin" \
			"${pre[@]}" cp "$J8" "$T/$who/cp.bin"
		strace -qq -f -e signal=none -o "$T/cat.$who" -e trace=%desc,%file -P "$T/$who/cat.bin" \
			"${pre[@]}" sh -c 'exec cat "$1" > "$2"' sh "$J8" "$T/$who/cat.bin"
		strace -qq -f -e signal=none -o "$T/py.$who" -e trace=%desc,%file -P "$T/$who/py.bin" \
			"${pre[@]}" python3 -c 'import sys
d = open(sys.argv[1], "rb").read()
with open(sys.argv[2], "wb") as f:
    f.write(d)' "$J8" "$T/$who/py.bin"
		for f in cp cat py; do
			cmp "$J8" "$T/$who/$f.bin" || fail "$who: $f.bin changed"
			# pids and stack addresses differ from run to run
			sed -i -e "s|$T/$who/|DIR/|g" -e 's/^[0-9]* *//' \
				-e 's/0x[0-9a-f]\{8,\}/ADDR/g' "$T/$f.$who"
		done
	done
	for f in cp cat py; do
		diff "$T/$f.none" "$T/$f.shim" || fail "$f: different syscalls"
		diff "$T/$f.none" "$T/$f.named" || fail "$f, named: different syscalls"
		grep -q 'write' "$T/$f.none" || grep -q 'copy_file_range\|sendfile' "$T/$f.none"
	done
}

# ---- the project's own tools under an exported LD_PRELOAD ---------------

# every output mode of both tools, into DIR
tool_modes() {
	local d=$1 in=$2 s=$3 art=$4
	mkdir -p "$d"
	"$STRIP" -o "$d/s-o.hprof" "$in"
	"$STRIP" "$in" >"$d/s-redir.hprof"
	"$STRIP" "$in" | cat >"$d/s-pipe.hprof"
	"$STRIP" <"$in" >"$d/s-stdin.hprof"
	"$RESTORE" -o "$d/r-o.hprof" "$s"
	"$RESTORE" "$s" >"$d/r-redir.hprof"
	"$RESTORE" "$s" | cat >"$d/r-pipe.hprof"
	"$RESTORE" --jvm -o "$d/r-jvm.hprof" "$art"
	"$RESTORE" --app-only "$art" >"$d/r-app.hprof"
	"$STRIP" --info "$s" >"$d/info.txt"
	"$STRIP" --info --json <"$d/r-o.hprof" >"$d/info.json"
}

# the tools' outputs that can be dumps, from IN, S and ART, into DIR
tool_dumps() {
	local d=$1 in=$2 s=$3 art=$4
	mkdir -p "$d"
	"$STRIP" -o "$d/s-o.hprof" "$in"
	"$STRIP" "$in" >"$d/s-redir.hprof"
	"$RESTORE" -o "$d/r-o.hprof" "$s"
	"$RESTORE" "$s" >"$d/r-redir.hprof"
	"$RESTORE" --jvm -o "$d/r-jvm.hprof" "$art"
	"$RESTORE" --app-only "$art" >"$d/r-app.hprof"
}

@test "tools: an exported LD_PRELOAD changes none of their outputs" {
	local in s art
	# the inputs stamped after the tools begin, as their own runtime's
	# dumps would be (a stripped dump keeps its stamp): were the shim to
	# take the tools' outputs for dumps, nothing would make it let go
	in=$T/in.hprof s=$T/in.stripped art=$T/art.stripped
	fresh_dump "$J8" "$in"
	fresh_dump "$(expected "$J8")" "$s"
	fresh_dump "$(expected "$ART")" "$art"
	tool_modes "$T/plain" "$in" "$s" "$art"
	# as a Dockerfile ENV or a shell profile would have it: every process
	# of the pipelines, the shell's redirections included, has the shim
	(
		export LD_PRELOAD=$SHIM
		tool_modes "$T/shim" "$in" "$s" "$art"
	)
	# every name is a dump, and the tools look like a runtime: only the
	# tools' standing aside keeps their output whole
	(
		export HPROFSTRIP_PATTERN='*' LD_PRELOAD="$SHIM $B/stub/libjvm.so"
		tool_dumps "$T/worst" "$in" "$s" "$art"
	)
	# ... or are named as programs that strip every dump they write
	(
		export HPROFSTRIP_PATTERN='*' HPROFSTRIP_PROGRAMS='hprofstrip:hprofrestore' \
			LD_PRELOAD=$SHIM
		tool_dumps "$T/named" "$in" "$s" "$art"
	)
	for f in $(ls "$T/plain"); do
		cmp "$T/plain/$f" "$T/shim/$f" || fail "$f differs under LD_PRELOAD"
	done
	for f in $(ls "$T/worst"); do
		cmp "$T/plain/$f" "$T/worst/$f" || fail "$f differs with every name a dump"
	done
	for f in $(ls "$T/named"); do
		cmp "$T/plain/$f" "$T/named/$f" || fail "$f differs with the tools in HPROFSTRIP_PROGRAMS"
	done
	run "$ORACLE" expect "$T/plain/r-o.hprof"
	assert_success
}

# ---- no write lost -----------------------------------------------------

# The python3 programs below write dumps as a runtime would, but host no
# runtime and write the corpus's dumps with their old stamps: they strip
# as a program named in HPROFSTRIP_PROGRAMS (as adb pulling a dump)
# strips every dump it writes. (Unnamed, the shim never looks at them.)

@test "HPROFSTRIP_PROGRAMS: a listed program started under another name (exec -a) is known by its executable's name" {
	"$STRIP" -o "$T/want" "$J8"
	# as_other LIST OUT: the replay, hosting no runtime, run as argv[0]
	# "othername" with HPROFSTRIP_PROGRAMS=LIST, writes J8 to OUT
	as_other() {
		run -0 --separate-stderr env HPROFSTRIP_PROGRAMS="$1" REPLAY_RUNTIME=none \
			LD_PRELOAD="$SHIM" bash -c 'exec -a othername "$1" random "$2" "$3" 3' \
			_ "$REPLAY" "$J8" "$2"
	}
	as_other replay "$T/exe.hprof"
	cmp_dump "$T/exe.hprof" "$T/want" || fail "listed by its executable: not stripped"
	as_other 'x:othername' "$T/argv0.hprof"
	cmp_dump "$T/argv0.hprof" "$T/want" || fail "listed by argv[0]: not stripped"
	as_other bash "$T/none.hprof"
	cmp_replayed "$J8" "$T/none.hprof"
}

@test "a file with content opened without O_TRUNC is left alone: a 4-byte patch at offset 23 lands" {
	cp "$J8" "$T/old.hprof"
	chmod u+w "$T/old.hprof"
	run -0 --separate-stderr env HPROFSTRIP_PROGRAMS=python3 LD_PRELOAD="$SHIM" python3 -c 'import os, sys
fd = os.open(sys.argv[1], os.O_RDWR)
os.lseek(fd, 23, 0)
assert os.write(fd, b"\x01\x02\x03\x04") == 4
os.close(fd)' "$T/old.hprof"
	[ -z "$stderr" ] || fail "$stderr"
	{ head -c 23 "$J8"; printf '\001\002\003\004'; tail -c +28 "$J8"; } >"$T/want"
	cmp "$T/want" "$T/old.hprof"
	# and with O_CREAT, also in a runtime process
	cp "$J8" "$T/old2.hprof"
	run -0 --separate-stderr env LD_PRELOAD="$SHIM $B/stub/libjvm.so" python3 -c 'import os, sys
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o644)
os.lseek(fd, 23, 0)
assert os.write(fd, b"\x01\x02\x03\x04") == 4
os.close(fd)' "$T/old2.hprof"
	cmp "$T/want" "$T/old2.hprof"
}

@test "a copy of an fd opened without O_TRUNC (dup2, dup3, dup, F_DUPFD) is left alone too: a fresh dump written over a longer file through it lands as without the shim" {
	# a runtime's process (the stub) writes a freshly stamped dump over
	# an existing, longer file: opened without O_TRUNC it is being
	# changed, so every copy of its fd must be left alone as the fd is,
	# never sniffed at its first write at offset 0 (which would strip
	# the dump and cut the file at its end: the old tail lost)
	fresh_dump "$J8" "$T/fresh.hprof"
	cat "$ART" "$ART" >"$T/old"
	for how in dup2 dup3 dup fdupfd; do
		for pre in "" "$SHIM $B/stub/libjvm.so"; do
			cp "$T/old" "$T/x.$how${pre:+.shim}.hprof"
			run -0 --separate-stderr env ${pre:+LD_PRELOAD="$pre"} python3 -c 'import fcntl, os, sys
d = open(sys.argv[1], "rb").read()
how = sys.argv[3]
fd = os.open(sys.argv[2], os.O_WRONLY)
if how == "dup2":
    fd2 = os.dup2(fd, 40)
elif how == "dup3":
    fd2 = os.dup2(fd, 40, inheritable=False)
elif how == "dup":
    fd2 = os.dup(fd)
else:
    fd2 = fcntl.fcntl(fd, fcntl.F_DUPFD, 50)
os.close(fd)
for i in range(0, len(d), 65536):
    os.write(fd2, d[i:i + 65536])
os.close(fd2)' "$T/fresh.hprof" "$T/x.$how${pre:+.shim}.hprof" "$how"
		done
		[ "$(size_of "$T/x.$how.shim.hprof")" = "$(size_of "$T/old")" ] ||
			fail "$how: cut to $(size_of "$T/x.$how.shim.hprof") bytes: $stderr"
		cmp "$T/x.$how.hprof" "$T/x.$how.shim.hprof" || fail "$how: the file differs: $stderr"
		assert_equal "$stderr" ""
	done
}

@test "ftruncate(fd, 0) before the first write restarts the dump (RandomAccessFile.setLength(0))" {
	local want
	want=$(expected "$J8")
	LD_PRELOAD=$SHIM "$REPLAY" setlength "$J8" "$T/raf.hprof"
	cmp_dump "$want" "$T/raf.hprof"
	# over an existing, longer file: emptied first, so a new dump
	cat "$J8" "$J8" >"$T/raf2.hprof"
	LD_PRELOAD=$SHIM "$REPLAY" setlength "$J8" "$T/raf2.hprof"
	cmp_dump "$want" "$T/raf2.hprof"
	# under another name too (the runtime's sniffing)
	cat "$J8" "$J8" >"$T/raf.bin"
	LD_PRELOAD=$SHIM "$REPLAY" setlength "$J8" "$T/raf.bin"
	cmp_dump "$want" "$T/raf.bin"
	# half a dump, emptied, then the whole dump from offset 0: a new dump
	run -0 --separate-stderr env HPROFSTRIP_PROGRAMS=python3 LD_PRELOAD="$SHIM" python3 -c 'import os, sys
d = open(sys.argv[1], "rb").read()
fd = os.open(sys.argv[2], os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o600)
os.write(fd, d[:len(d) // 2])
os.ftruncate(fd, 0)
os.lseek(fd, 0, os.SEEK_SET)
os.write(fd, d)
os.close(fd)' "$J8" "$T/again.hprof"
	cmp "$want" "$T/again.hprof" || fail "$stderr"
}

@test "ART's erase of a failed dump (ftruncate(fd, 0), close) leaves an empty file" {
	for f in "$ART" "$J8"; do
		rm -f "$T/fail.hprof"
		LD_PRELOAD=$SHIM "$REPLAY" artfail "$f" "$T/fail.hprof"
		[ "$(stat -c %s "$T/fail.hprof")" = 0 ] || fail "$(stat -c '%s bytes' "$T/fail.hprof")"
		[ "$(stat -c %b "$T/fail.hprof")" = 0 ] || fail "blocks left"
		# without the shim, the same
		rm -f "$T/fail.hprof"
		"$REPLAY" artfail "$f" "$T/fail.hprof"
		[ "$(stat -c %s "$T/fail.hprof")" = 0 ]
	done
}

@test "a library below the shim that calls back into it (pwrite64 -> pwrite, writev -> write) does not hang the process" {
	local want
	want=$(expected "$J8")
	for mode in threads jdk8 jdk22 writev art; do
		rm -f "$T"/o.hprof*
		run timeout 60 env LD_PRELOAD="$SHIM $B/libreenter.so" "$REPLAY" "$mode" "$J8" "$T/o.hprof" 3
		[ "$status" -ne 124 ] || fail "$mode: hung"
		assert_success
		cmp_dump "$want" "$T/o.hprof" || fail "$mode: output"
	done
}

@test "writes past the end feed zeros; rewrites of the header land; a rewrite of stripped data is reported" {
	# the program writes the header, skips 27 bytes (three empty records
	# of tag 0, as zeros read), writes the records, then rewrites the
	# timestamp in the header
	run -0 --separate-stderr env HPROFSTRIP_PROGRAMS=python3 LD_PRELOAD="$SHIM" python3 -c 'import os, sys
d = open(sys.argv[1], "rb").read()
h = d.index(b"\0") + 13
fd = os.open(sys.argv[2], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
os.write(fd, d[:h])
os.lseek(fd, 27, os.SEEK_CUR)
os.write(fd, d[h:])
os.pwrite(fd, b"\x11\x22\x33\x44\x55\x66\x77\x88", h - 8)
os.close(fd)
want = bytearray(d[:h - 8] + b"\x11\x22\x33\x44\x55\x66\x77\x88" + bytes(27) + d[h:])
open(sys.argv[3], "wb").write(want)' "$J8" "$T/g.hprof" "$T/g.want"
	"$STRIP" -o "$T/g.stripped" "$T/g.want"
	cmp "$T/g.stripped" "$T/g.hprof"
	# a rewrite inside the heap, where arrays were stripped, cannot be
	# applied: said once, and the call still succeeds
	run -0 --separate-stderr env HPROFSTRIP_PROGRAMS=python3 LD_PRELOAD="$SHIM" python3 -c 'import os, sys
d = open(sys.argv[1], "rb").read()
fd = os.open(sys.argv[2], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
os.write(fd, d)
assert os.pwrite(fd, b"xy", len(d) - 100) == 2
assert os.pwrite(fd, b"xy", len(d) - 200) == 2
os.close(fd)' "$J8" "$T/h.hprof"
	[ "$(grep -c 'cannot be applied' <<<"$stderr")" = 1 ] || fail "$stderr"
}

@test "errno: the shim's retried EINTR and short writes never reach the program's errno" {
	[ -r "$B/libfaultinject.so" ] || fail "missing $B/libfaultinject.so"
	mkdir -p "$T/d"
	for fault in eintr short; do
		rm -f "$T/flog"
		run -0 env LD_PRELOAD="$SHIM $B/libfaultinject.so" FAULT=$fault \
			HPROFSTRIP_PROGRAMS=shimstress \
			FAULT_LOG="$T/flog" "$B/shimstress" keeperrno "$J8" \
			"$(expected "$J8")" "$T/d"
		grep -q "$fault" "$T/flog"
	done
}

@test "a JDK 8 length patch after a fallback lands in the bytes copied verbatim" {
	local off f
	# a dump of 15 heap segments, an invalid sub-record tag in an early
	# one: the later segments' lengths are patched in the verbatim copy
	f=$(jdk17_fixture)
	off=$(( $("$ORACLE" offsets "$f" | sed -n 's/^sub-header //p') - 4 ))
	cp "$f" "$T/bad.hprof"
	printf '\x77' | dd of="$T/bad.hprof" bs=1 seek="$off" conv=notrunc status=none
	LD_PRELOAD=$SHIM "$REPLAY" threads "$T/bad.hprof" "$T/t.hprof" 3 2>"$T/err1"
	grep -q 'writing the rest unchanged' "$T/err1"
	LD_PRELOAD=$SHIM "$REPLAY" jdk8 "$T/bad.hprof" "$T/j.hprof" 3 2>"$T/err2"
	cmp_dump "$T/t.hprof" "$T/j.hprof"
	REPLAY_JDK8_BUF=4096 LD_PRELOAD=$SHIM "$REPLAY" jdk8 "$T/bad.hprof" "$T/j4.hprof" 3
	cmp_dump "$T/t.hprof" "$T/j4.hprof"
}

@test "sniffed over an old, longer file (an fd opened elsewhere): the dump is cut at its own end" {
	local want
	want=$(expected "$ART")
	cat "$ART" "$ART" >"$T/old.bin"
	# the shell opens it, without truncating, where the shim cannot see
	LD_PRELOAD=$SHIM "$REPLAY" artpipe "$ART" - 1<>"$T/old.bin" 2>"$T/err"
	cmp_dump "$want" "$T/old.bin" || fail "$(cat "$T/err")"
}
