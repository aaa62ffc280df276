#!/usr/bin/env bats
# HPROFSTRIP_COMPRESS and HPROFSTRIP_FILTER: the shim streams the stripped
# dump into a compressor (or any command) while the runtime writes it, and
# waits for it at close. Success leaves only <path>.zst (.gz, .xz);
# failure of any kind leaves the plain stripped dump at <path>.

load common

bats_require_minimum_version 1.5.0

setup_file() {
	# test drivers, not among make all's: built here (a suite run alone has them)
	build_tests replay
	"$JUDGE" build >&2
}

setup() {
	T=$BATS_TEST_TMPDIR
	JAVA=$(command -v java)
	for p in zstd gzip xz; do
		command -v $p >/dev/null || fail "$p is missing (make deps)"
	done
}

# VisualVM's view of HeapBuilder's heap: its markers and their arrays, and
# the histogram of HeapBuilder's own classes
view() {
	{
		"$JUDGE" markers "$1"
		"$JUDGE" histo "$1" | grep 'HeapBuilder'
	} | sort
}

# the same view of HeapBuilder's heap dumped without the shim, once
plain_view() {
	local f=$BATS_FILE_TMPDIR/plain.view
	[ -s "$f" ] || view "$(jdk17_fixture)" >"$f"
	echo "$f"
}

# only_file DIR NAME...: DIR holds the NAMEs and nothing else (a dump
# that was written has its class histogram, <dump>.histo, beside it)
only_file() {
	local d=$1
	shift
	[ "$(ls -A "$d" | sort)" = "$(printf '%s\n' "$@" | sed '/^$/d' | sort)" ] ||
		fail "$d holds: $(ls -A "$d" | tr '\n' ' ')"
}

# fake_compressor DIR SCRIPT: DIR/zstd runs SCRIPT with sh
fake_compressor() {
	mkdir -p "$1"
	printf '#!/bin/sh\n%s\n' "$2" >"$1/zstd"
	chmod +x "$1/zstd"
}

@test "JVM: an OOM dump with HPROFSTRIP_COMPRESS=zstd leaves only <path>.zst; hprofrestore opens it; VisualVM sees the plain dump's heap" {
	mkdir "$T/d"
	run env HPROFSTRIP_COMPRESS=zstd LD_PRELOAD="$SHIM" timeout 120 java -Xmx64m \
		-XX:+HeapDumpOnOutOfMemoryError -XX:HeapDumpPath="$T/d/oom.hprof" \
		-cp "$B/java" HeapBuilder oom
	[ "$status" -ne 124 ] || fail "the JVM hung"
	only_file "$T/d" oom.hprof.zst "oom.hprof.histo"
	grep -q "^hprofstrip: .*oom.hprof: zstd -1 wrote $T/d/oom.hprof.zst\$" <<<"$output" ||
		fail "no success line: $output"
	"$RESTORE" -o "$T/r.hprof" "$T/d/oom.hprof.zst"
	run "$STRIP" --info "$T/r.hprof"
	assert_success
	assert_line well-formed
	view "$T/r.hprof" >"$T/got"
	# the OOM heap is HeapBuilder's heap plus what filled it: the markers
	# and their arrays are the plain dump's
	grep '^marker' "$(plain_view)" >"$T/want.m"
	grep '^marker' "$T/got" >"$T/got.m"
	diff "$T/want.m" "$T/got.m"
}

@test "JVM: jcmd GC.heap_dump with HPROFSTRIP_COMPRESS=zstd: the .zst is complete when jcmd returns, and equals the plain heap" {
	start_jvm HPROFSTRIP_COMPRESS=zstd LD_PRELOAD="$SHIM" HeapBuilder
	jvm=$JVM
	mkdir "$T/d"
	run timeout 120 jcmd "$jvm" GC.heap_dump "$T/d/j.hprof"
	assert_output --partial "Heap dump file created"
	# before the JVM goes on: complete, and the compressor reaped
	only_file "$T/d" j.hprof.zst "j.hprof.histo"
	zstd -t -q "$T/d/j.hprof.zst"
	[ -z "$(ps -o pid= --ppid "$jvm")" ] || fail "children left: $(ps -o pid,stat,cmd --ppid "$jvm")"
	stop_jvm
	"$RESTORE" -o "$T/r.hprof" "$T/d/j.hprof.zst"
	view "$T/r.hprof" >"$T/got"
	diff "$(plain_view)" "$T/got"
}

@test "HPROFSTRIP_COMPRESS: gzip, xz, lz4 and a level give <path>.gz, .xz, .lz4, .zst with the streamed stripped dump" {
	f=$(jdk17_fixture)
	"$STRIP" --stream -o "$T/want" "$f"
	for c in zstd:19 gzip gzip:9 xz xz:0 lz4 lz4:12; do
		rm -rf "$T/d"
		mkdir "$T/d"
		HPROFSTRIP_COMPRESS=$c LD_PRELOAD=$SHIM "$REPLAY" threads "$f" "$T/d/x.hprof" 2>"$T/err"
		case $c in zstd*) ext=zst p=zstd ;; gzip*) ext=gz p=gzip ;; xz*) ext=xz p=xz ;; lz4*) ext=lz4 p=lz4 ;; esac
		only_file "$T/d" "x.hprof.$ext" "x.hprof.histo"
		cmp_dump <($p -dc "$T/d/x.hprof.$ext") "$T/want" || fail "$c"
		lvl=${c#*:}
		[ "$lvl" != "$c" ] || lvl=1
		grep -q "^hprofstrip: .*x.hprof: $p -$lvl wrote $T/d/x.hprof.$ext\$" "$T/err" ||
			fail "$c: $(cat "$T/err")"
	done
}

@test "replays with compression: JDK 8's seek-back patch, JDK 22's .pN files, ART; no fd and no child left" {
	for f in $(corpus_files) "$(jdk17_fixture)"; do
		"$STRIP" --stream -o "$T/want" "$f"
		for mode in random threads jdk8 jdk22 art artcloexec pwrite writev; do
			rm -rf "$T/d"
			mkdir "$T/d"
			REPLAY_LEFTOVERS=1 HPROFSTRIP_QUIET=1 HPROFSTRIP_COMPRESS=zstd \
				LD_PRELOAD=$SHIM timeout 60 "$REPLAY" "$mode" "$f" "$T/d/o.hprof" 7 ||
				fail "$mode: replay failed on $f"
			only_file "$T/d" o.hprof.zst "o.hprof.histo"
			cmp_dump <(zstd -qdc "$T/d/o.hprof.zst") "$T/want" || fail "$mode: $f"
		done
		rm -rf "$T/d"
		mkdir "$T/d"
		REPLAY_JDK8_BUF=4096 HPROFSTRIP_QUIET=1 HPROFSTRIP_COMPRESS=zstd \
			LD_PRELOAD=$SHIM "$REPLAY" jdk8 "$f" "$T/d/o.hprof"
		cmp_dump <(zstd -qdc "$T/d/o.hprof.zst") "$T/want" || fail "jdk8 4096: $f"
	done
}

@test "a compressor that is missing, exits 1, stops reading or is killed midway: the complete stripped dump at <path>, one line" {
	f=$(jdk17_fixture)
	"$STRIP" --stream -o "$T/want" "$f"
	mkdir "$T/empty"
	cat=$(command -v cat) head=$(command -v head)
	fake_compressor "$T/exit1" "$cat >/dev/null; exit 1"
	fake_compressor "$T/early" "$head -c 1000 >/dev/null; exit 0"
	fake_compressor "$T/kill" "$head -c 300000 >/dev/null; kill -9 \$\$"
	for case in empty exit1 early kill; do
		rm -rf "$T/d"
		mkdir "$T/d"
		run --separate-stderr env PATH="$T/$case" HPROFSTRIP_COMPRESS=zstd \
			LD_PRELOAD="$SHIM" REPLAY_LEFTOVERS=1 "$REPLAY" threads "$f" "$T/d/x.hprof"
		assert_success
		only_file "$T/d" x.hprof "x.hprof.histo"
		cmp_dump "$T/d/x.hprof" "$T/want" || fail "$case: not the stripped dump"
		case $case in
		empty) msg="zstd -1 cannot start: No such file or directory; the stripped dump is written there" ;;
		exit1) msg="zstd -1 exited with status 1; the stripped dump is in $T/d/x.hprof, uncompressed" ;;
		# it read 1000 bytes: seen when a write fails (EPIPE) or at its
		# exit, as bytes sent that it left (debfb63), whichever is first
		early) msg="zstd -1 (stopped reading after [0-9]+ bytes \(Broken pipe\)|exited without reading [0-9]+ of the [0-9]+ bytes sent to it); the stripped dump is in $T/d/x.hprof, uncompressed" ;;
		kill) msg="zstd -1 was killed by signal 9; the stripped dump is in $T/d/x.hprof, uncompressed" ;;
		esac
		[ "$(grep -c . <<<"$stderr")" = 2 ] || fail "$case: $stderr"
		grep -Eq "^hprofstrip: ($T/d/)?x.hprof: $msg\$" <<<"$stderr" || fail "$case: $stderr"
	done
}

@test "an existing <path>.zst is never overwritten: the dump goes to <path>" {
	f=$(jdk17_fixture)
	mkdir "$T/d"
	echo earlier >"$T/d/x.hprof.zst"
	run --separate-stderr env HPROFSTRIP_COMPRESS=zstd LD_PRELOAD="$SHIM" "$REPLAY" threads "$f" "$T/d/x.hprof"
	assert_success
	[ "$(cat "$T/d/x.hprof.zst")" = earlier ]
	"$STRIP" --stream -o "$T/want" "$f"
	cmp_dump "$T/d/x.hprof" "$T/want"
	grep -q "^hprofstrip: $T/d/x.hprof: cannot create $T/d/x.hprof.zst: File exists; the stripped dump is written there\$" <<<"$stderr" ||
		fail "$stderr"
}

@test "HPROFSTRIP_FILTER: any command reads the stripped dump, with its path in HPROFSTRIP_PATH; failure keeps <path>" {
	f=$(jdk17_fixture)
	"$STRIP" --stream -o "$T/want" "$f"
	mkdir "$T/d" "$T/up"
	run --separate-stderr env HPROFSTRIP_FILTER='cat >"$UPLOAD/$(basename "$HPROFSTRIP_PATH")"' \
		UPLOAD="$T/up" LD_PRELOAD="$SHIM" REPLAY_LEFTOVERS=1 "$REPLAY" art "$f" "$T/d/x.hprof"
	assert_success
	only_file "$T/d" x.hprof.histo
	cmp_dump "$T/up/x.hprof" "$T/want"
	grep -Eq "^hprofstrip: .*x.hprof: HPROFSTRIP_FILTER took it \([0-9]+ bytes\); $T/d/x.hprof removed\$" <<<"$stderr" ||
		fail "$stderr"
	# a filter that fails
	rm -rf "$T/d"
	mkdir "$T/d"
	run --separate-stderr env HPROFSTRIP_FILTER='cat >/dev/null; exit 3' \
		LD_PRELOAD="$SHIM" "$REPLAY" art "$f" "$T/d/x.hprof"
	assert_success
	only_file "$T/d" x.hprof "x.hprof.histo"
	cmp_dump "$T/d/x.hprof" "$T/want"
	grep -q "HPROFSTRIP_FILTER exited with status 3; the stripped dump is in $T/d/x.hprof, uncompressed" <<<"$stderr"
}

@test "HPROFSTRIP_COMPRESS not understood: said once, dumps stripped as without it" {
	f=$CORPUS/hotspot/jdk8-u05-x64.hprof
	"$STRIP" -o "$T/want" "$f"
	run --separate-stderr env HPROFSTRIP_COMPRESS=bzip2 LD_PRELOAD="$SHIM" "$REPLAY" jdk8 "$f" "$T/x.hprof"
	assert_success
	cmp_dump "$T/x.hprof" "$T/want"
	[ "$(grep -c 'HPROFSTRIP_COMPRESS' <<<"$stderr")" = 1 ] || fail "$stderr"
	grep -q "^hprofstrip: HPROFSTRIP_COMPRESS: 'bzip2' is not known" <<<"$stderr"
}

@test "the compressor gets default signals and none of the runtime's fds" {
	f=$(jdk17_fixture)
	mkdir "$T/d"
	# the fake compressor records its signal dispositions and fds
	fake_compressor "$T/bin" "grep -E '^Sig(Blk|Ign)' /proc/self/status >'$T/sig'; ls -l /proc/self/fd | sed 's/.* \\([0-9]*\\) -> /\\1 /' >'$T/fds'; exec $(command -v zstd) \"\$@\""
	# the runtime ignores SIGPIPE and SIGINT and blocks SIGTERM
	run --separate-stderr env PATH="$T/bin:$PATH" HPROFSTRIP_COMPRESS=zstd \
		LD_PRELOAD="$SHIM" REPLAY_LEFTOVERS=1 \
		bash -c 'trap "" PIPE INT; exec "$@"' _ "$REPLAY" threads "$f" "$T/d/x.hprof"
	assert_success
	only_file "$T/d" x.hprof.zst "x.hprof.histo"
	# SIGINT (2) and SIGPIPE (13) not ignored, nothing blocked; without
	# the shim's care a child would inherit the ignoring (checked first)
	ign=$(bash -c 'trap "" PIPE INT; exec sed -n "s/^SigIgn:[[:space:]]*//p" /proc/self/status')
	(( 0x$ign & 0x1002 )) || fail "baseline: SIGPIPE and SIGINT not ignored: $ign"
	ign=$(sed -n 's/^SigIgn:[[:space:]]*//p' "$T/sig")
	(( (0x$ign & 0x1002) == 0 )) || fail "$(cat "$T/sig")"
	grep -q '^SigBlk:[[:space:]]*0*$' "$T/sig" || fail "$(cat "$T/sig")"
	# stdin a socket; nothing of the runtime's beyond 0-2 (3 is ls's own
	# /proc/self/fd), though the replay opens the dump without O_CLOEXEC
	grep -q '^0 socket:' "$T/fds" || fail "fds: $(cat "$T/fds")"
	[ "$(sed 1d "$T/fds" | cut -d' ' -f1 | sort -n | tr '\n' ' ')" = "0 1 2 3 " ] ||
		fail "fds: $(cat "$T/fds")"
}

@test "the .zst gets the dump's permission bits: 0600 for a dump created 0600, 0644 for one created 0644" {
	f=$CORPUS/hotspot/jdk6-client-id4-small.hprof
	mkdir "$T/d"
	# random creates the dump 0600 (HotSpot's mode), art 0644 (ART's)
	for mode in random art; do
		(umask 022 && HPROFSTRIP_QUIET=1 HPROFSTRIP_COMPRESS=zstd LD_PRELOAD=$SHIM \
			"$REPLAY" "$mode" "$f" "$T/d/$mode.hprof")
		(umask 022 && "$REPLAY" "$mode" "$f" "$T/d/$mode.plain")
	done
	[ "$(stat -c %a "$T/d/random.plain")" = 600 ] || fail "the replay's mode: $(stat -c %a "$T/d/random.plain")"
	[ "$(stat -c %a "$T/d/art.plain")" = 644 ] || fail "the replay's mode: $(stat -c %a "$T/d/art.plain")"
	for mode in random art; do
		[ -e "$T/d/$mode.hprof.zst" ] && [ ! -e "$T/d/$mode.hprof" ] || fail "$mode: $(ls "$T/d")"
		assert_equal "$(stat -c %a "$T/d/$mode.hprof.zst")" "$(stat -c %a "$T/d/$mode.plain")"
	done
}

@test "ART's erase (ftruncate(fd, 0)) removes the compressor's output; the next dump to the path is compressed" {
	f=$CORPUS/art/art-host-2025.hprof
	"$STRIP" --stream -o "$T/want" "$f"
	mkdir "$T/d"
	run --separate-stderr env HPROFSTRIP_COMPRESS=zstd LD_PRELOAD="$SHIM" REPLAY_LEFTOVERS=1 \
		"$REPLAY" artfail "$f" "$T/d/x.hprof"
	assert_success
	# what ART leaves: an empty file, and no .zst of half a dump
	only_file "$T/d" x.hprof
	[ "$(size_of "$T/d/x.hprof")" = 0 ]
	assert_equal "$stderr" ""
	# the runtime's next dump to the same path meets nothing of it
	run --separate-stderr env HPROFSTRIP_COMPRESS=zstd LD_PRELOAD="$SHIM" REPLAY_LEFTOVERS=1 \
		"$REPLAY" art "$f" "$T/d/x.hprof"
	assert_success
	only_file "$T/d" x.hprof.zst "x.hprof.histo"
	cmp_dump <(zstd -qdc "$T/d/x.hprof.zst") "$T/want"
	grep -q "^hprofstrip: $T/d/x.hprof: zstd -1 wrote $T/d/x.hprof.zst\$" <<<"$stderr" || fail "$stderr"
}

@test "a child the runtime forks mid-dump holds nothing of the compressor: the dump's close returns at once, the .zst complete" {
	fresh_dump "$CORPUS/hotspot/jdk8-u05-x64.hprof" "$T/fresh.hprof"
	"$STRIP" --stream -o "$T/want" "$T/fresh.hprof"
	mkdir "$T/d"
	# a runtime's process (the stub) writes half its dump, forks a child
	# that sleeps without exec (KOOM's dumper, a process builder before
	# its exec), writes the rest and closes: the close waits for the
	# compressor, which must see its input end then, not when the child
	# exits
	run --separate-stderr env HPROFSTRIP_COMPRESS=zstd LD_PRELOAD="$SHIM $B/stub/libjvm.so" \
		timeout 60 python3 -c 'import os, signal, sys, time
d = open(sys.argv[1], "rb").read()
fd = os.open(sys.argv[2], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
half = len(d) // 2
os.write(fd, d[:half])
pid = os.fork()
if pid == 0:
    time.sleep(10)
    os._exit(0)
os.write(fd, d[half:])
t0 = time.monotonic()
os.close(fd)
took = time.monotonic() - t0
os.kill(pid, signal.SIGKILL)
os.waitpid(pid, 0)
print("close took %.1f s" % took)' "$T/fresh.hprof" "$T/d/x.hprof"
	assert_success
	took=$(sed -n 's/^close took \([0-9.]*\) s$/\1/p' <<<"$output")
	[ -n "$took" ] || fail "$output"
	perl -e 'exit !($ARGV[0] < 3)' "$took" || fail "the close took $took s: it waited for the forked child"
	only_file "$T/d" x.hprof.zst "x.hprof.histo"
	cmp <(zstd -qdc "$T/d/x.hprof.zst") "$T/want"
	grep -q "^hprofstrip: $T/d/x.hprof: zstd -1 wrote $T/d/x.hprof.zst\$" <<<"$stderr" || fail "$stderr"
}
