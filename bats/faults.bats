#!/usr/bin/env bats
# Write faults under the shim (issue 5). tests/faultinject.c builds
# libfaultinject.so, which sits under the shim in LD_PRELOAD and makes the
# real writes to *.hprof files fail: ENOSPC or EIO after N bytes, EINTR on
# every other call, or 1 byte per call. Checked with the replay driver
# (real runtimes' syscall patterns) and with a real JVM:
#   - nothing hangs (every run is under timeout) or crashes;
#   - ENOSPC and EIO reach the runtime as they do without the shim: same
#     messages (less the shim's own "hprofstrip:" lines), same exit status;
#   - EINTR and short writes are retried: the stripped file is still
#     byte-identical to hprofstrip's output, but for the time stamp the
#     replay (a runtime's process) writes in the header (JVM: well-formed,
#     restorable, every marker object and array there).

load common

bats_require_minimum_version 1.5.0

FI=$B/libfaultinject.so
TMO=${FAULTS_TIMEOUT:-120}

setup_file() {
	# test drivers, not among make all's: built here (a suite run alone has them)
	build_tests oracle replay libfaultinject.so
}

setup() {
	[ -x "$STRIP" ] && [ -x "$REPLAY" ] && [ -r "$SHIM" ] && [ -r "$FI" ] ||
		fail "missing build outputs: run make all build/replay build/libfaultinject.so"
	MID=$CORPUS/hotspot/jdk8-u05-x64.hprof
	ART=$CORPUS/art/art-host-2025.hprof
	J21=$CORPUS/hotspot/jdk21-demo.hprof
	SMALL=$CORPUS/hotspot/jdk6-client-id4-small.hprof
	AGENT=$CORPUS/hotspot/jdk6-hprof-agent-id4.hprof
	for f in "$MID" "$ART" "$J21" "$SMALL" "$AGENT"; do
		[ -r "$f" ] ||
			fail "$f is missing: no corpus in $CORPUS (see ../shared/corpus/README.md; or set HPROFSTRIP_CORPUS)"
	done
	T=$BATS_TEST_TMPDIR
}

# expected IN: hprofstrip's output for IN, made once per test file
expected() {
	local e=$BATS_FILE_TMPDIR/$(basename "$1").stripped
	[ -s "$e" ] || "$STRIP" -o "$e" "$1"
	echo "$e"
}

# fi_run WHO FAULT CMD...: run CMD under timeout with the injector alone
# (WHO=none) or under the shim with the injector below it (WHO=shim).
# Sets status/output like run; stderr is in $T/err.WHO, stdout in $T/out.WHO.
fi_run() {
	local who=$1 fault=$2 pre
	shift 2
	case $who in
	shim) pre="$SHIM $FI" ;;
	none) pre="$FI" ;;
	esac
	status=0
	FAULT=$fault FAULT_LOG=$T/faultlog.$who LD_PRELOAD=$pre \
		timeout -k 5 "$TMO" "$@" >"$T/out.$who" 2>"$T/err.$who" || status=$?
	if [ "$status" = 124 ] || [ "$status" = 137 ]; then
		fail "timed out (${TMO}s): FAULT=$fault $who: $*"
	fi
	if [ "$status" -ge 128 ]; then
		fail "killed by signal $((status - 128)): FAULT=$fault $who: $* $(cat "$T/err.$who")"
	fi
}

# the runtime's own messages: stdout and stderr less the shim's lines
runtime_says() {
	cat "$T/out.$1"
	grep -v '^hprofstrip: ' "$T/err.$1" || true
}

# retried IN MODE...: under FAULT=$FAULT every mode's output, with the
# shim, equals hprofstrip IN; with the injector alone it equals IN (but
# for the replay's stamp, both)
retried() {
	local in=$1 m exp
	shift
	exp=$(expected "$in")
	for m in "$@"; do
		rm -f "$T"/o.hprof*
		fi_run shim "$FAULT" "$REPLAY" "$m" "$in" "$T/o.hprof" 7
		[ "$status" = 0 ] || fail "$m $(basename "$in"): shim: status $status: $(cat "$T/err.shim")"
		cmp_dump "$exp" "$T/o.hprof" || fail "$m $(basename "$in"): not hprofstrip's output"
		rm -f "$T"/o.hprof*
		fi_run none "$FAULT" "$REPLAY" "$m" "$in" "$T/o.hprof" 7
		[ "$status" = 0 ] || fail "$m $(basename "$in"): alone: status $status: $(cat "$T/err.none")"
		cmp_replayed "$in" "$T/o.hprof" || fail "$m $(basename "$in"): replay changed the dump"
	done
	# the faults did happen, in both set-ups
	grep -qx "$FAULTKIND" "$T/faultlog.shim"
	grep -qx "$FAULTKIND" "$T/faultlog.none"
}

# same_failure IN MODE...: under FAULT=$FAULT, replay fails the same way
# with and without the shim (status 1, the same message naming the call
# and the errno text $ERRTEXT)
same_failure() {
	local in=$1 m a b
	shift
	for m in "$@"; do
		rm -f "$T"/o.hprof*
		fi_run none "$FAULT" "$REPLAY" "$m" "$in" "$T/o.hprof" 7
		a=$status
		rm -f "$T"/o.hprof*
		fi_run shim "$FAULT" "$REPLAY" "$m" "$in" "$T/o.hprof" 7
		b=$status
		[ "$a" = 1 ] || fail "$m: alone: status $a, expected 1: $(cat "$T/err.none")"
		[ "$b" = "$a" ] || fail "$m: shim: status $b, alone $a: $(cat "$T/err.shim")"
		diff <(runtime_says none) <(runtime_says shim) ||
			fail "$m $(basename "$in"): different messages with the shim"
		grep -q "^replay: $m: .*: $ERRTEXT\$" "$T/err.none" ||
			fail "$m: unexpected message: $(cat "$T/err.none")"
	done
}

@test "injector alone, no fault pattern match: output untouched" {
	FAULT_PATTERN='*.nomatch' fi_run none eio "$REPLAY" random "$MID" "$T/o.hprof"
	[ "$status" = 0 ]
	cmp_replayed "$MID" "$T/o.hprof"
	[ ! -e "$T/faultlog.none" ]
}

@test "injector alone: ENOSPC cuts the file at N bytes, as a full disk does" {
	fi_run none enospc:100000 "$REPLAY" random "$MID" "$T/o.hprof"
	[ "$status" = 1 ]
	[ "$(size_of "$T/o.hprof")" = 100000 ]
	grep -qx 'replay: random: write: No space left on device' "$T/err.none"
	cmp_replayed <(head -c 100000 "$MID") "$T/o.hprof"
}

@test "EINTR on every other write: retried, output still hprofstrip's (every mode)" {
	FAULT=eintr FAULTKIND=eintr
	retried "$MID" random threads jdk8 jdk22 art artcloexec pwrite writev
	retried "$ART" random jdk22 art artcloexec pwrite writev
	retried "$J21" threads jdk8 jdk22
}

@test "EINTR on the JDK 22 segment files and the merge: retried" {
	FAULT=eintr FAULTKIND=eintr FAULT_PATTERN='*.hprof*'
	export FAULT_PATTERN
	retried "$J21" jdk22
	retried "$MID" jdk22
}

@test "short writes (1 byte per call): retried, output still hprofstrip's" {
	FAULT=short FAULTKIND=short
	retried "$SMALL" random threads jdk8 jdk22 art pwrite writev
	retried "$AGENT" random jdk8 artcloexec
}

@test "ENOSPC mid-dump reaches the runtime as without the shim (every mode)" {
	local n
	n=$(( $(size_of "$(expected "$MID")") / 2 ))
	FAULT=enospc:$n ERRTEXT='No space left on device'
	same_failure "$MID" random threads jdk8 jdk22 art artcloexec pwrite writev
	n=$(( $(size_of "$(expected "$ART")") / 3 ))
	FAULT=enospc:$n
	same_failure "$ART" random art artcloexec jdk22
}

@test "ENOSPC right at the end of the stripped dump still fails the runtime" {
	local n
	n=$(( $(size_of "$(expected "$J21")") - 1 ))
	FAULT=enospc:$n ERRTEXT='No space left on device'
	same_failure "$J21" random threads jdk8 art
}

@test "ENOSPC on a JDK 22 segment file (.p0): same failure with the shim" {
	FAULT=enospc:4096 ERRTEXT='No space left on device'
	FAULT_PATTERN='*.p0'
	export FAULT_PATTERN
	same_failure "$MID" jdk22
}

@test "EIO on the first write, and mid-dump: same failure with the shim" {
	FAULT=eio ERRTEXT='Input/output error'
	same_failure "$MID" random jdk8 jdk22 art pwrite writev
	FAULT=eio:200000
	same_failure "$MID" random threads jdk8 jdk22 art pwrite writev
	same_failure "$J21" threads jdk8
}

@test "ENOSPC with exactly the stripped size: no failure with the shim" {
	local exp
	exp=$(expected "$MID")
	rm -f "$T"/o.hprof*
	fi_run shim "enospc:$(size_of "$exp")" "$REPLAY" jdk8 "$MID" "$T/o.hprof"
	[ "$status" = 0 ] || fail "$(cat "$T/err.shim")"
	cmp_dump "$exp" "$T/o.hprof"
}

# ---- a real JVM ---------------------------------------------------------

need_java() {
	command -v java >/dev/null ||
		fail "java not installed: apt-get install openjdk-17-jdk-headless (or make deps)"
	# status 3: java, javac or the VisualVM jar is missing (judge.sh says
	# which and how to install it); a failure either way, never a skip
	"$JUDGE" build >"$T/judge-build.log" 2>&1 ||
		fail "judge.sh build failed (make deps installs the judge): $(cat "$T/judge-build.log")"
}

# jvm_same FAULT ARGS...: run java ARGS under FAULT, with the injector
# alone and with the shim over it; the JVM's messages and exit status must
# be the same
jvm_same() {
	local fault=$1 a
	shift
	rm -f "$T/dump.hprof"
	fi_run none "$fault" java "$@"
	a=$status
	rm -f "$T/dump.hprof"
	fi_run shim "$fault" java "$@"
	[ "$status" = "$a" ] || fail "shim: status $status, alone $a: $(cat "$T/err.shim")"
	diff <(runtime_says none | sed 's/ after [0-9]* MiB chunks//') \
		<(runtime_says shim | sed 's/ after [0-9]* MiB chunks//') ||
		fail "the JVM said something else with the shim"
}

@test "EDQUOT while compressing (HPROFSTRIP_COMPRESS): the compressor is given up as for ENOSPC; the dump goes on whole, or is cut and said" {
	# the compressor is fed the streamed form: the dump goes on in it
	local exp=$T/want
	"$STRIP" --stream -o "$exp" "$MID"
	# a quota the compressor's output filled: giving it up makes room
	fi_run shim edquot-once:100000 env HPROFSTRIP_COMPRESS=zstd "$REPLAY" threads "$MID" "$T/x.hprof"
	[ "$status" -eq 0 ] || fail "the runtime's write failed: $(cat "$T/err.shim")"
	grep -qx edquot "$T/faultlog.shim" || fail "no EDQUOT injected"
	cmp_dump "$T/x.hprof" "$exp"
	[ ! -e "$T/x.hprof.zst" ] || fail "the compressor's output was left"
	grep -qx "hprofstrip: $T/x.hprof: Disk quota exceeded while zstd -1 wrote too: it is given up, and its output removed to make room; the dump goes on, uncompressed, in $T/x.hprof" "$T/err.shim" ||
		fail "not said: $(cat "$T/err.shim")"
	# a quota still exceeded: the runtime's write fails, said, nothing left
	rm -f "$T/x.hprof" "$T/faultlog.shim"
	fi_run shim edquot:100000 env HPROFSTRIP_COMPRESS=zstd "$REPLAY" threads "$MID" "$T/x.hprof"
	[ "$status" -ne 0 ] || fail "a cut dump succeeded"
	grep -qx edquot "$T/faultlog.shim"
	[ ! -e "$T/x.hprof.zst" ] || fail "the compressor's output was left"
	grep -qx "hprofstrip: $T/x.hprof: Disk quota exceeded while zstd -1 wrote too: it is given up and its output removed, but the disk is still full: the dump is cut short" "$T/err.shim" ||
		fail "not said: $(cat "$T/err.shim")"
}

@test "JVM MXBean dump on a full disk: same IOException, same status" {
	need_java
	jvm_same enospc:200000 -cp "$B/java" HeapBuilder mxbean "$T/dump.hprof" markers=1000
	[ "$status" = 1 ]
	grep -qx 'HeapBuilder: java.io.IOException: No space left on device' "$T/err.none"
	grep -q '^hprofstrip: .*dump.hprof: write failed: No space left on device$' "$T/err.shim"
}

@test "JVM MXBean dump with EIO: same IOException, same status" {
	need_java
	jvm_same eio:300000 -cp "$B/java" HeapBuilder mxbean "$T/dump.hprof" markers=1000
	[ "$status" = 1 ]
	grep -qx 'HeapBuilder: java.io.IOException: I/O error' "$T/err.none"
	jvm_same eio -cp "$B/java" HeapBuilder mxbean "$T/dump.hprof" markers=1000
	[ "$status" = 1 ]
}

@test "JVM OutOfMemoryError dump on a full disk: 'Dump file is incomplete', same status" {
	need_java
	jvm_same enospc:500000 -Xmx64m -XX:+HeapDumpOnOutOfMemoryError \
		-XX:HeapDumpPath="$T/dump.hprof" -cp "$B/java" HeapBuilder oom markers=1000
	[ "$status" = 0 ]
	grep -qx 'Dump file is incomplete: No space left on device' "$T/out.none"
}

# jvm_ok FAULT ARGS...: with the shim and FAULT, the JVM dumps; the dump
# is stripped, well-formed, and restores to a heap with every marker
jvm_ok() {
	local fault=$1 kind=$2
	shift 2
	rm -f "$T/dump.hprof"
	fi_run shim "$fault" java "$@"
	[ "$status" = 0 ] || fail "status $status: $(cat "$T/err.shim")"
	grep -qx "$kind" "$T/faultlog.shim"
	assert_stripped_dump "$T/dump.hprof"
	"$RESTORE" -o "$T/restored.hprof" "$T/dump.hprof"
	run "$JUDGE" markers "$T/restored.hprof"
	assert_success
	assert_line 'markers 1000'
	assert_line 'marker-array-length 4096 83'
}

@test "JVM MXBean dump with EINTR and with short writes: stripped, well-formed" {
	need_java
	jvm_ok eintr eintr -cp "$B/java" HeapBuilder mxbean "$T/dump.hprof" markers=1000
	jvm_ok short short -cp "$B/java" HeapBuilder mxbean "$T/dump.hprof" markers=1000
}

@test "JVM OutOfMemoryError dump with EINTR: stripped, well-formed" {
	need_java
	jvm_ok eintr eintr -Xmx64m -XX:+HeapDumpOnOutOfMemoryError \
		-XX:HeapDumpPath="$T/dump.hprof" -cp "$B/java" HeapBuilder oom markers=1000
	grep -q '^Heap dump file created' "$T/out.shim"
}
