#!/usr/bin/env bats
# Handing the stripped dump to a child (HPROFSTRIP_FILTER,
# HPROFSTRIP_COMPRESS): the runtime's own file is removed only when the
# child read every byte and exited 0; a dump the runtime compressed itself
# (-gz) is not compressed again; a disk too small for both the dump and
# the compressor's output keeps the dump.

load common
bats_require_minimum_version 1.5.0

setup_file() {
	# test drivers, not among make all's: built here (a suite run alone has them)
	build_tests replay libfaultinject.so
}

setup() {
	T=$BATS_TEST_TMPDIR
	F=$CORPUS/hotspot/jdk11-string.hprof
	"$STRIP" -o "$T/want" "$F"
	mkdir -p "$T/d"
}

# big_dump FILE: 24 MB of instance dumps, nothing to strip: more than any
# socket buffer holds
big_dump() {
	python3 -c '
import struct, sys
sub = b"".join(b"\x21" + struct.pack(">QIQI", 0x1000 + 32 * i, 1, 0x10, 16) + bytes(16)
               for i in range(600000))
sys.stdout.buffer.write(b"JAVA PROFILE 1.0.2\0" + struct.pack(">IQ", 8, 0)
    + b"\x1c" + struct.pack(">II", 0, len(sub)) + sub + b"\x2c" + struct.pack(">II", 0, 0))
' >"$1"
}

# filter_keeps CMD: with HPROFSTRIP_FILTER=CMD, the dump stays in its file,
# complete, and one line says why
filter_keeps() {
	rm -f "$T/d/x.hprof"
	run --separate-stderr env HPROFSTRIP_FILTER="$1" LD_PRELOAD="$SHIM" REPLAY_LEFTOVERS=1 \
		timeout 60 "$REPLAY" threads "$F" "$T/d/x.hprof"
	assert_success
	cmp_dump "$T/d/x.hprof" "$T/want" || fail "$1: the dump was not kept whole"
	grep -q "^hprofstrip: $T/d/x.hprof: HPROFSTRIP_FILTER .*; the stripped dump is in $T/d/x.hprof, uncompressed\$" <<<"$stderr" ||
		fail "$1: $stderr"
	if grep -q 'took it' <<<"$stderr"; then fail "$1: said it took it"; fi
}

@test "a filter that exits 0 without reading every byte does not take the dump" {
	filter_keeps 'sleep 2'
	grep -q "exited without reading 2074927 of the 2074927 bytes sent to it" <<<"$stderr"
	filter_keeps 'head -c 100000 >/dev/null; sleep 2'
	grep -q "exited without reading 1974927 of the 2074927 bytes sent to it" <<<"$stderr"
	filter_keeps 'exit 0'
	# one that reads it all takes it
	rm -f "$T/d/x.hprof"
	run --separate-stderr env HPROFSTRIP_FILTER="cat > $T/up" LD_PRELOAD="$SHIM" \
		REPLAY_LEFTOVERS=1 "$REPLAY" threads "$F" "$T/d/x.hprof"
	assert_success
	[ ! -e "$T/d/x.hprof" ]
	cmp_dump "$T/up" "$T/want"
	grep -q "HPROFSTRIP_FILTER took it (2074927 bytes); $T/d/x.hprof removed" <<<"$stderr"
}

@test "a filter that dies early on a dump larger than the socket holds: no hang, the dump kept" {
	big_dump "$T/big.hprof"
	# (the copy kept is in the streamed form, as a child reads it)
	"$STRIP" --stream -o "$T/want" "$T/big.hprof"
	[ "$(size_of "$T/want")" -gt 20000000 ]
	rm -f "$T/d/x.hprof"
	run --separate-stderr env HPROFSTRIP_FILTER='head -c 100000 >/dev/null' LD_PRELOAD="$SHIM" \
		REPLAY_LEFTOVERS=1 timeout 60 "$REPLAY" threads "$T/big.hprof" "$T/d/x.hprof"
	assert_success
	cmp_dump "$T/d/x.hprof" "$T/want"
	grep -Eq "HPROFSTRIP_FILTER (exited without reading|stopped reading)" <<<"$stderr"
}

@test "curl -T - answered 401 exits 0 without reading the dump: the dump is kept" {
	command -v curl >/dev/null || fail "curl missing (make deps)"
	python3 -c '
import socket, sys
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(1)
print(s.getsockname()[1], flush=True)
s.settimeout(30)
c, _ = s.accept()
c.recv(65536)
c.sendall(b"HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
c.close()
' >"$T/port" &
	server=$!
	for _ in $(seq 50); do [ -s "$T/port" ] && break; sleep 0.1; done
	port=$(cat "$T/port")
	[ -n "$port" ] || fail "the test server did not start"
	filter_keeps "curl -s -T - http://127.0.0.1:$port/upload"
	wait "$server"
}

@test "a compressor that exits 0 without reading does not take the dump; its output goes" {
	mkdir -p "$T/bin"
	printf '#!/bin/sh\nexit 0\n' >"$T/bin/zstd"
	chmod +x "$T/bin/zstd"
	run --separate-stderr env PATH="$T/bin:$PATH" HPROFSTRIP_COMPRESS=zstd LD_PRELOAD="$SHIM" \
		REPLAY_LEFTOVERS=1 "$REPLAY" art "$CORPUS/art/art-host-2025.hprof" "$T/d/x.hprof"
	assert_success
	[ ! -e "$T/d/x.hprof.zst" ]
	# the plain copy of a compressed dump is in the streamed form
	"$STRIP" --stream -o "$T/want.art" "$CORPUS/art/art-host-2025.hprof"
	cmp_dump "$T/d/x.hprof" "$T/want.art"
	grep -q "zstd -1 exited without reading [0-9]* of the [0-9]* bytes sent to it; the stripped dump is in $T/d/x.hprof, uncompressed" <<<"$stderr"
}

@test "a dump the runtime gzips itself (-gz) goes through the compressor once, stripped: one-step restore" {
	REPLAY_GZIP=1 "$REPLAY" random "$F" "$T/in.gz"
	run --separate-stderr env HPROFSTRIP_COMPRESS=zstd LD_PRELOAD="$SHIM" \
		REPLAY_LEFTOVERS=1 REPLAY_GZIP=1 "$REPLAY" random "$F" "$T/d/gz.hprof"
	assert_success
	[ ! -e "$T/d/gz.hprof" ]
	grep -qx "hprofstrip: $T/d/gz.hprof: zstd -1 wrote $T/d/gz.hprof.zst" <<<"$stderr"
	"$STRIP" --stream -o "$T/want" "$F"
	cmp_dump <(zstd -dc "$T/d/gz.hprof.zst") "$T/want"
	# a real JDK 17: jcmd GC.heap_dump -gz=1 under HPROFSTRIP_COMPRESS=zstd
	start_jvm HPROFSTRIP_COMPRESS=zstd LD_PRELOAD="$SHIM" HeapBuilder
	run env -u LD_PRELOAD timeout 120 jcmd "$JVM" GC.heap_dump -gz=1 "$T/d/jvm.hprof"
	stop_jvm
	assert_success
	[ ! -e "$T/d/jvm.hprof" ]
	grep -qx "hprofstrip: $T/d/jvm.hprof: zstd -1 wrote $T/d/jvm.hprof.zst" "$JVM_ERR"
	"$RESTORE" -o "$T/restored.hprof" "$T/d/jvm.hprof.zst"
	run "$STRIP" --info "$T/restored.hprof"
	assert_success
	assert_line 'well-formed'
	run "$JUDGE" histo "$T/restored.hprof"
	assert_success
	assert_output --partial 'HeapBuilder$Marker'
}

@test "a disk with room for the dump but not for the compressor's output too keeps the dump" {
	big_dump "$T/big.hprof"
	"$STRIP" --stream -o "$T/want" "$T/big.hprof"
	mnt=$T/small
	mkdir -p "$mnt"
	mount -t tmpfs -o size=25m hprofstrip-test "$mnt" || fail "cannot mount a tmpfs (run as root)"
	# a compressor whose output takes 2.5 MB before it reads: the dump's
	# writes wait for it (the socket is full), then find the disk full
	mkdir -p "$T/bin"
	printf '#!/bin/sh\nhead -c 2500000 /dev/zero || exit 1\nexec cat >/dev/null\n' >"$T/bin/zstd"
	chmod +x "$T/bin/zstd"
	run --separate-stderr env PATH="$T/bin:$PATH" HPROFSTRIP_COMPRESS=zstd LD_PRELOAD="$SHIM" \
		REPLAY_LEFTOVERS=1 timeout 60 "$REPLAY" threads "$T/big.hprof" "$mnt/x.hprof"
	status_was=$status
	cp "$mnt/x.hprof" "$T/got" 2>/dev/null || :
	ls -la "$mnt" >"$T/ls"
	umount "$mnt"
	[ "$status_was" -eq 0 ] || fail "the runtime's write failed: $stderr"
	cmp_dump "$T/got" "$T/want"
	if grep -q 'x.hprof.zst' "$T/ls"; then fail "the compressor's output was left: $(cat "$T/ls")"; fi
	grep -q "^hprofstrip: $mnt/x.hprof: No space left on device while zstd -1 wrote too: it is given up, and its output removed to make room; the dump goes on, uncompressed, in $mnt/x.hprof\$" <<<"$stderr"
}

@test "a dump cut by a full disk is never called the dump" {
	FI=$B/libfaultinject.so
	run --separate-stderr env HPROFSTRIP_COMPRESS=zstd LD_PRELOAD="$SHIM $FI" FAULT=enospc:500000 \
		"$REPLAY" threads "$F" "$T/d/x.hprof"
	assert_failure
	if grep -q "the stripped dump is in\|took it\|wrote $T\|goes on" <<<"$stderr"; then
		fail "a cut file called a dump: $stderr"
	fi
	grep -q "^hprofstrip: $T/d/x.hprof: No space left on device while zstd -1 wrote too: it is given up and its output removed, but the disk is still full: the dump is cut short\$" <<<"$stderr"
	[ ! -e "$T/d/x.hprof.zst" ]
}
