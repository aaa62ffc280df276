#!/usr/bin/env bats
# Where the offline tools' output goes (strip/cli/out.c): devices, FIFOs and
# sockets are written into, symlinks followed, permissions never widened,
# a reused stdout file cut at the end, a pipe streamed with no room in
# TMPDIR, -q silent everywhere; and write faults (tests/faultinject.c: 1-byte
# writes, EINTR, ENOSPC) give the same bytes or a clean failure.
# Runs as root: makes its own device nodes and small tmpfs mounts, never
# touches /dev.

load common

bats_require_minimum_version 1.5.0

unset LD_PRELOAD ${!HPROFSTRIP_*}

FI=$B/libfaultinject.so

setup_file() {
	# test drivers, not among make all's: built here (a suite run alone has them)
	build_tests oracle libfaultinject.so
}

setup() {
	unset LD_PRELOAD ${!HPROFSTRIP_*}
	T=$BATS_TEST_TMPDIR
	SMALL=$CORPUS/hotspot/jdk6-client-id4-small.hprof
	BIG=$CORPUS/hotspot/jdk8-u05-x64.hprof  # stripped and restored > 1 MiB
	ART=$CORPUS/art/art-host-2025.hprof
	for f in "$SMALL" "$BIG" "$ART"; do
		[ -r "$f" ] ||
			fail "$f is missing: no corpus in $CORPUS (see ../shared/corpus/README.md)"
	done
	[ -x "$STRIP" ] && [ -x "$RESTORE" ] && [ -r "$FI" ] ||
		fail "missing build outputs: make all $BUILD/libfaultinject.so"
	[ "$(id -u)" -eq 0 ] || fail "needs root (mknod, mount)"
}

teardown() {
	local m
	[ ! -f "$T/public" ] || rm -rf "$(cat "$T/public")"
	[ -f "$T/mounts" ] || return 0
	tac "$T/mounts" | while read -r m; do
		umount "$m" || umount -l "$m"
	done
}

# mount_tmpfs DIR SIZE: a small tmpfs at DIR, unmounted in teardown
mount_tmpfs() {
	mkdir -p "$1"
	mount -t tmpfs -o "size=$2" tmpfs "$1"
	echo "$1" >>"$T/mounts"
}

# expected TOOL IN: TOOL's output for IN, made once per test file
expected() {
	local e=$BATS_FILE_TMPDIR/$(basename "$1").$(basename "$2")
	[ -s "$e" ] || "$1" -o "$e" "$2"
	echo "$e"
}

# expected_stream TOOL IN: TOOL's streamed output (--stream), the form a
# pipe, FIFO or socket gets
expected_stream() {
	local e=$BATS_FILE_TMPDIR/$(basename "$1").$(basename "$2").stream
	[ -s "$e" ] || "$1" --stream -o "$e" "$2"
	echo "$e"
}

# is_node PATH TYPE MAJOR:MINOR (type c: character device)
is_node() {
	[ -c "$1" ] && [ ! -L "$1" ] || fail "$1 is no longer a character device"
	[ "$(stat -c '%t:%T' "$1")" = "$2" ] ||
		fail "$1 is now $(stat -c '%t:%T' "$1"), not $2"
}

# one_error REGEX: exit 1, nothing on stdout, one line on stderr matching
one_error() {
	[ "$status" -eq 1 ] || fail "status $status (want 1): $stderr"
	[ "${#stderr_lines[@]}" -eq 1 ] || fail "not one line: $stderr"
	[[ $stderr =~ $1 ]] || fail "message '$stderr' does not match '$1'"
	assert_output ""
}

# ---- 1: devices, FIFOs, sockets, symlinks ------------------------------

@test "-o into a character device (null) writes into it and leaves the node" {
	mkdir "$T/n"
	mknod "$T/n/null" c 1 3
	run --separate-stderr "$STRIP" -o "$T/n/null" "$SMALL"
	assert_success
	assert_equal "$stderr" ""
	is_node "$T/n/null" 1:3
	# through a symlink, and with hprofrestore
	ln -s null "$T/n/link"
	run --separate-stderr "$RESTORE" -o "$T/n/link" "$(expected "$STRIP" "$SMALL")"
	assert_success
	[ -L "$T/n/link" ] || fail "the symlink was replaced"
	is_node "$T/n/null" 1:3
	[ "$(ls -A "$T/n" | tr '\n' ' ')" = "link null " ] ||
		fail "left: $(ls -A "$T/n")"
}

@test "-o into a full device (ENOSPC): exit 1, one message, the node stays" {
	mkdir "$T/n"
	mknod "$T/n/full" c 1 7
	run --separate-stderr "$STRIP" -o "$T/n/full" "$SMALL"
	one_error "^hprofstrip: $T/n/full: write: No space left on device\$"
	is_node "$T/n/full" 1:7
	run --separate-stderr "$RESTORE" -o "$T/n/full" "$BIG"
	one_error "^hprofrestore: $T/n/full: write: No space left on device\$"
	is_node "$T/n/full" 1:7
	[ "$(ls -A "$T/n")" = full ] || fail "left: $(ls -A "$T/n")"
}

@test "-o into a FIFO: the reader gets the whole output, the FIFO stays" {
	mkfifo "$T/fifo"
	for tool in "$STRIP" "$RESTORE"; do
		in=$BIG
		[ "$tool" = "$RESTORE" ] && in=$(expected "$STRIP" "$BIG")
		timeout 60 cat "$T/fifo" >"$T/got" &
		run --separate-stderr timeout 60 "$tool" -o "$T/fifo" "$in"
		assert_success
		wait $!
		[ -p "$T/fifo" ] || fail "$tool replaced the FIFO"
		cmp "$T/got" "$(expected_stream "$tool" "$in")"
	done
	# a failed run gives the reader no whole dump: nothing, or a cut one
	stripped=$(expected "$STRIP" "$BIG")
	for cut in 100000 $(( $(size_of "$stripped") - 100 )); do
		head -c $cut "$stripped" >"$T/cut"
		timeout 60 cat "$T/fifo" >"$T/got" &
		run --separate-stderr timeout 60 "$RESTORE" -o "$T/fifo" "$T/cut"
		one_error "^hprofrestore: $T/cut: offset $cut: "
		wait $!
		if [ -s "$T/got" ]; then
			run "$STRIP" --info -q "$T/got"
			assert_failure 1
		fi
	done
	[ "$(size_of "$T/got")" -gt 1000000 ] || fail "the late cut sent little"
	[ -p "$T/fifo" ]
}

@test "-o into a unix socket: the peer gets the whole output" {
	python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind(sys.argv[1]); s.listen(1); s.settimeout(60)
c, _ = s.accept()
with open(sys.argv[2], "wb") as f:
    for b in iter(lambda: c.recv(65536), b""):
        f.write(b)' "$T/sock" "$T/got" &
	for i in $(seq 100); do [ -S "$T/sock" ] && break; sleep 0.1; done
	[ -S "$T/sock" ] || fail "no listener"
	run --separate-stderr timeout 60 "$STRIP" -o "$T/sock" "$SMALL"
	assert_success
	wait $!
	[ -S "$T/sock" ] || fail "the socket was replaced"
	cmp "$T/got" "$(expected_stream "$STRIP" "$SMALL")"
}

@test "-o through symlinks: the links stay and point at the new content" {
	want=$(expected "$STRIP" "$SMALL")
	mkdir "$T/a" "$T/b"
	echo old >"$T/b/real.hprof"
	# a chain of relative links across directories
	ln -s ../b/real.hprof "$T/a/l2"
	ln -s a/l2 "$T/l1"
	"$STRIP" -o "$T/l1" "$SMALL"
	[ -L "$T/l1" ] && [ -L "$T/a/l2" ] || fail "a symlink was replaced"
	[ "$(readlink "$T/l1")" = a/l2 ]
	cmp "$T/b/real.hprof" "$want"
	# a dangling link: its target is created
	ln -s "$T/b/new.hprof" "$T/dangling"
	"$RESTORE" -o "$T/dangling" "$want"
	[ -L "$T/dangling" ] || fail "the dangling symlink was replaced"
	cmp "$T/b/new.hprof" "$(expected "$RESTORE" "$want")"
	# no temporary file left anywhere
	[ "$(ls -A "$T/a")" = l2 ]
	[ "$(ls -A "$T/b" | tr '\n' ' ')" = "new.hprof real.hprof " ]
	# a loop is an error, not a hang
	ln -s loop2 "$T/loop1"
	ln -s loop1 "$T/loop2"
	run --separate-stderr timeout 60 "$STRIP" -o "$T/loop1" "$SMALL"
	one_error "^hprofstrip: $T/loop1: "
}

@test "-o through a symlink on a read-only file system: the temporary file is made beside the target" {
	want=$(expected "$STRIP" "$SMALL")
	mkdir "$T/out"
	mount_tmpfs "$T/ro" 1m
	ln -s "$T/out/real.hprof" "$T/ro/link"
	mount -o remount,ro "$T/ro"
	run --separate-stderr "$STRIP" -o "$T/ro/link" "$SMALL"
	assert_success
	cmp "$T/out/real.hprof" "$want"
	[ "$(ls -A "$T/out")" = real.hprof ]
}

@test "-o where no temporary file can be made beside the target: the message says so, and where" {
	want=$(expected "$STRIP" "$SMALL")
	# /proc/version is a regular file (so not written into) in a
	# directory where nothing can be created
	run --separate-stderr "$STRIP" -o /proc/version "$SMALL"
	assert_failure 1
	assert_equal "$output" ""
	assert_regex "$stderr" '^hprofstrip: /proc/version: cannot create a temporary file in /proc: [^:]+$'
	# through a symlink: the target's directory
	ln -s /proc/version "$T/pv"
	run --separate-stderr "$STRIP" -o "$T/pv" "$SMALL"
	assert_failure 1
	assert_regex "$stderr" "^hprofstrip: $T/pv: cannot create a temporary file in /proc: [^:]+\$"
	[ "$(readlink "$T/pv")" = /proc/version ]
	# a file on a read-only file system stays as it was
	mount_tmpfs "$T/ro" 1m
	echo old >"$T/ro/out.hprof"
	mount -o remount,ro "$T/ro"
	run --separate-stderr "$RESTORE" -o "$T/ro/out.hprof" "$want"
	assert_failure 1
	assert_equal "$stderr" "hprofrestore: $T/ro/out.hprof: cannot create a temporary file in $T/ro: Read-only file system"
	[ "$(cat "$T/ro/out.hprof")" = old ]
	# a missing directory; in the current directory, "."
	run --separate-stderr "$STRIP" -o "$T/no/such/x.hprof" "$SMALL"
	assert_failure 1
	assert_equal "$stderr" "hprofstrip: $T/no/such/x.hprof: cannot create a temporary file in $T/no/such: No such file or directory"
	run --separate-stderr sh -c 'cd "$1" && "$2" -o x.hprof "$3"' _ "$T/ro" "$STRIP" "$SMALL"
	assert_failure 1
	assert_equal "$stderr" "hprofstrip: x.hprof: cannot create a temporary file in .: Read-only file system"
	[ "$(ls -A "$T/ro")" = out.hprof ]
}

# ---- 2: permissions ----------------------------------------------------

@test "outputs take the input's permission bits less the umask, 0600 from a pipe" {
	want=$(expected "$STRIP" "$SMALL")
	for m in 600 640 644 444; do
		cp "$SMALL" "$T/in$m"
		chmod "$m" "$T/in$m"
	done
	(
		umask 022
		"$STRIP" -o "$T/o600" "$T/in600"
		"$STRIP" -o "$T/o640" "$T/in640"
		"$STRIP" -o "$T/o444" "$T/in444"
		cat "$T/in644" | "$STRIP" -o "$T/opipe"
		"$RESTORE" -o "$T/r600" "$T/in600"
		# stdout to a regular file written in place is narrowed too
		"$STRIP" "$T/in600" >"$T/s600"
		"$STRIP" "$T/in640" >"$T/s640"
		"$STRIP" "$T/in644" >"$T/s644"
		cat "$T/in644" | "$STRIP" >"$T/spipe"
		umask 077
		"$STRIP" -o "$T/u077" "$T/in644"
	)
	for f in o600:600 o640:640 o444:444 opipe:600 r600:600 s600:600 \
		s640:640 s644:644 spipe:600 u077:600; do
		got=$(stat -c %a "$T/${f%:*}")
		[ "$got" = "${f#*:}" ] || fail "${f%:*}: mode $got, want ${f#*:}"
	done
	cmp "$T/o600" "$want"
	cmp "$T/s640" "$want"
	# stdout is only ever narrowed: a narrower file stays as it is
	: >"$T/narrow"
	chmod 600 "$T/narrow"
	"$STRIP" "$T/in644" >"$T/narrow"
	[ "$(stat -c %a "$T/narrow")" = 600 ]
}

@test "stdout that is someone else's file keeps its mode, without an error" {
	# a directory user nobody can reach, removed in teardown
	P=$(mktemp -d /tmp/hprofstrip-output.XXXXXX)
	echo "$P" >"$T/public"
	chmod 755 "$P"
	: >"$P/theirs"
	chmod 666 "$P/theirs"
	cp "$SMALL" "$P/in"
	chmod 644 "$P/in"
	cp "$STRIP" "$P/hprofstrip"
	run --separate-stderr setpriv --reuid=65534 --regid=65534 --clear-groups \
		sh -c 'umask 077; "$1" "$2" >"$3"' _ "$P/hprofstrip" "$P/in" "$P/theirs"
	assert_success
	assert_equal "$stderr" ""
	[ "$(stat -c %a "$P/theirs")" = 666 ]
	cmp "$P/theirs" "$(expected "$STRIP" "$SMALL")"
}

# ---- 3 and the base offset: stdout written in place --------------------

@test "stdout opened 1<> on a longer file is cut at the end of the output" {
	want=$(expected "$STRIP" "$SMALL")
	head -c 3000000 /dev/zero | tr '\0' 'z' >"$T/out"
	"$STRIP" "$SMALL" 1<>"$T/out"
	cmp "$T/out" "$want"
	run "$STRIP" --info "$T/out"
	assert_success
	assert_line well-formed
	# with a prefix, and with hprofrestore
	head -c 5000000 /dev/zero >"$T/out"
	{ printf x; "$RESTORE" "$want"; } 1<>"$T/out"
	[ "$(head -c 1 "$T/out")" = x ]
	tail -c +2 "$T/out" | cmp - "$(expected "$RESTORE" "$want")"
}

@test "stdout after printf x: length patches land at the base offset" {
	for tool in "$STRIP" "$RESTORE"; do
		for in in "$BIG" "$ART"; do
			[ "$tool" = "$RESTORE" ] && in=$(expected "$STRIP" "$in")
			{ printf x; "$tool" "$in"; } >"$T/out"
			[ "$(head -c 1 "$T/out")" = x ] || fail "the x is gone"
			tail -c +2 "$T/out" | cmp - "$(expected "$tool" "$in")" ||
				fail "$tool $in: differs after the x"
			run bash -c 'tail -c +2 "$1" | "$2" --info' _ "$T/out" "$STRIP"
			assert_success
			assert_line well-formed
		done
	done
}

@test "stdout written in place is left at the output's end: what the shell writes next follows it" {
	for tool in "$STRIP" "$RESTORE"; do
		in=$BIG
		[ "$tool" = "$RESTORE" ] && in=$(expected "$STRIP" "$in")
		want=$(expected "$tool" "$in")
		{ "$tool" "$in"; echo T; } >"$T/out"
		[ "$(size_of "$T/out")" = $(( $(size_of "$want") + 2 )) ] ||
			fail "$tool: $(size_of "$T/out") bytes, not the output and 'T\\n'"
		head -c "$(size_of "$want")" "$T/out" | cmp - "$want" || fail "$tool: the output was overwritten"
		[ "$(tail -c 2 "$T/out")" = T ] || fail "$tool: the T is not at the end"
		# after a prefix, and on a longer file opened 1<>
		head -c 5000000 /dev/zero >"$T/out"
		{ printf x; "$tool" "$in"; echo T; } 1<>"$T/out"
		[ "$(size_of "$T/out")" = $(( $(size_of "$want") + 3 )) ] || fail "$tool 1<>: $(size_of "$T/out") bytes"
		[ "$(head -c 1 "$T/out")" = x ] || fail "$tool 1<>: the x is gone"
		tail -c +2 "$T/out" | head -c "$(size_of "$want")" | cmp - "$want" ||
			fail "$tool 1<>: the output was overwritten"
		[ "$(tail -c 2 "$T/out")" = T ] || fail "$tool 1<>: the T is not at the end"
	done
}

# ---- 4: a pipe needs no room in TMPDIR ----------------------------------

@test "a pipe is streamed: no room in TMPDIR, none used, the streamed bytes" {
	mount_tmpfs "$T/small" 1m
	stripped=$(expected "$STRIP" "$BIG")
	[ "$(size_of "$(expected "$RESTORE" "$stripped")")" -gt 1048576 ]
	for dir in "$T/small" "$T/none"; do
		run --separate-stderr bash -c 'set -o pipefail
			TMPDIR=$1 "$2" <"$3" | cat >"$4"' \
			_ "$dir" "$RESTORE" "$stripped" "$T/got"
		assert_success
		[ -z "$stderr" ] || fail "said: $stderr"
		cmp "$T/got" "$(expected_stream "$RESTORE" "$stripped")"
		run --separate-stderr bash -c 'set -o pipefail
			TMPDIR=$1 "$2" "$3" | cat >"$4"' _ "$dir" "$STRIP" "$BIG" "$T/got"
		assert_success
		cmp "$T/got" "$(expected_stream "$STRIP" "$BIG")"
	done
	[ -z "$(ls -A "$T/small")" ]
	# the same dump as the file form, sub-record for sub-record
	"$ORACLE" flat "$T/got" "$T/got.flat"
	"$ORACLE" flat "$(expected "$STRIP" "$BIG")" "$T/want.flat"
	cmp "$T/got.flat" "$T/want.flat"
}

# ---- 5: -q -------------------------------------------------------------

@test "-q silences usage errors, open errors and --info, wherever it stands" {
	for tool in "$STRIP" "$RESTORE"; do
		for args in "-q --bogus" "--bogus -q" "-q a b" "-q -o" "-v -q --bogus"; do
			run --separate-stderr $tool $args
			[ "$status" -eq 2 ] || fail "$tool $args: status $status"
			[ -z "$stderr$output" ] || fail "$tool $args printed: $stderr$output"
		done
		for args in "-q $T/missing.hprof" "$T/missing.hprof -q" \
			"-q -o $T/no/such/dir $SMALL"; do
			run --separate-stderr $tool $args
			[ "$status" -eq 1 ] || fail "$tool $args: status $status"
			[ -z "$stderr$output" ] || fail "$tool $args printed: $stderr$output"
		done
	done
	for args in "--info -q --bogus" "--info --bogus -q" "-q --info a b" \
		"--info --json -q --bogus"; do
		run --separate-stderr "$STRIP" $args
		[ "$status" -eq 2 ] || fail "$args: status $status"
		[ -z "$stderr$output" ] || fail "$args printed: $stderr$output"
	done
	run --separate-stderr "$STRIP" --info "$T/missing.hprof" -q -v
	[ "$status" -eq 1 ]
	[ -z "$stderr$output" ] || fail "printed: $stderr$output"
	# a stream cut by bad input, a terminal: silent too
	head -c 3000000 "$BIG" >"$T/cut"
	run --separate-stderr bash -c '"$1" -q "$2" | cat >/dev/null' _ \
		"$STRIP" "$T/cut"
	[ -z "$stderr$output" ] || fail "printed: $stderr$output"
	run script -qec "$STRIP -q $SMALL" /dev/null
	assert_output ""
	# after --, -q is a file name; as -o's argument, an output name
	run --separate-stderr "$STRIP" -- -q
	assert_equal "$stderr" "hprofstrip: -q: No such file or directory"
	run --separate-stderr "$STRIP" -o -q "$T/missing.hprof"
	assert_equal "$stderr" "hprofstrip: $T/missing.hprof: No such file or directory"
	# without -q, the messages are there
	run --separate-stderr "$STRIP" --bogus
	[ "$status" -eq 2 ]
	assert_equal "${stderr_lines[0]}" "hprofstrip: unknown option '--bogus'"
}

# ---- 6: --help ---------------------------------------------------------

@test "hprofrestore --help says --app-only implies --jvm" {
	run --separate-stderr "$RESTORE" --help
	assert_success
	# the --app-only entry, up to the next option
	entry=$(sed -n '/^  --app-only/,/^  -v/p' <<<"$output" | tr -s ' \n' ' ')
	[[ $entry == *"implies --jvm"* ]] || fail "--app-only entry: $entry"
	[[ $entry != *"with --jvm"* ]] || fail "--app-only entry: $entry"
}

# ---- 7 and faults ------------------------------------------------------

# fault FAULT PATTERN CMD...: run CMD with the fault injector, under
# timeout, stdout into $T/fo, stderr into $T/fe; status in $status
fault() {
	local f=$1 p=$2
	shift 2
	status=0
	FAULT=$f FAULT_PATTERN=$p FAULT_LOG=$T/flog LD_PRELOAD=$FI \
		timeout -k 5 120 "$@" >"$T/fo" 2>"$T/fe" || status=$?
	[ "$status" -lt 124 ] || fail "timed out or killed ($status): FAULT=$f $*"
}

@test "fault short and eintr: -o, stdout in place, a pipe: the same bytes, exit 0" {
	for kind in short eintr; do
		for tool in "$STRIP" "$RESTORE"; do
			for in in "$SMALL" "$(expected "$STRIP" "$SMALL")"; do
				want=$(expected "$tool" "$in")
				rm -f "$T/flog" "$T"/*.hprof
				fault "$kind" '*out.hprof*' "$tool" -o "$T/out.hprof" "$in"
				[ "$status" -eq 0 ] || fail "-o $kind: $(cat "$T/fe")"
				cmp "$T/out.hprof" "$want"
				fault "$kind" '*std.hprof' sh -c '"$1" "$2" >"$3"' _ \
					"$tool" "$in" "$T/std.hprof"
				[ "$status" -eq 0 ] || fail "stdout $kind: $(cat "$T/fe")"
				cmp "$T/std.hprof" "$want"
				fault "$kind" '*' sh -c '{ printf x; "$1" "$2"; } >"$3"' _ \
					"$tool" "$in" "$T/x.hprof"
				[ "$status" -eq 0 ] || fail "base $kind: $(cat "$T/fe")"
				tail -c +2 "$T/x.hprof" | cmp - "$want"
				fault "$kind" '*' sh -c '"$1" "$2" | cat >"$3"' _ \
					"$tool" "$in" "$T/pipe.bin"
				[ "$status" -eq 0 ] || fail "pipe $kind: $(cat "$T/fe")"
				cmp "$T/pipe.bin" "$(expected_stream "$tool" "$in")"
				[ "$(sort -u "$T/flog")" = "$kind" ] ||
					fail "no $kind fault was injected: $(cat "$T/flog")"
			done
		done
	done
}

@test "fault enospc:1000: exit 1, one message, nothing that looks complete" {
	mkdir "$T/d"
	for tool in "$STRIP" "$RESTORE"; do
		name=$(basename "$tool")
		rm -f "$T/flog"
		fault enospc:1000 '*out.hprof*' "$tool" -o "$T/d/out.hprof" "$SMALL"
		[ "$status" -eq 1 ] || fail "-o: status $status"
		[ "$(cat "$T/fe")" = "$name: $T/d/out.hprof: write: No space left on device" ] ||
			fail "-o: $(cat "$T/fe")"
		[ ! -s "$T/fo" ]
		[ -z "$(ls -A "$T/d")" ] || fail "left: $(ls -A "$T/d")"
		# stdout in place: emptied back to where it started
		fault enospc:1000 '*std.hprof' sh -c '{ printf x; "$1" "$2"; } >"$3"' \
			_ "$tool" "$SMALL" "$T/d/std.hprof"
		[ "$status" -eq 1 ] || fail "stdout: status $status"
		[ "$(cat "$T/fe")" = "$name: stdout: write: No space left on device" ] ||
			fail "stdout: $(cat "$T/fe")"
		[ "$(cat "$T/d/std.hprof")" = x ] || fail "stdout: not emptied"
		rm "$T/d/std.hprof"
		grep -qx enospc "$T/flog"
	done
}
