#!/usr/bin/env bats
# The shim strips the dumps a runtime writes, and nothing else: with
# LD_PRELOAD exported (a container's ENV), copies of a dump made by other
# programs (gzip -d, cp, tar, python, dd, a downloader) and by the
# runtime's own process (Files.copy) stay byte for byte, while that
# runtime's dump is stripped; a deliberate wrap (hprofstrip-run, or
# HPROFSTRIP_PROGRAMS) strips what the wrapped program writes (adb pull).
# Also: FIFO targets, yes/no words, one line at most for a file that is
# not a dump.

load common
bats_require_minimum_version 1.5.0

setup_file() {
	# test drivers, not among make all's: built here (a suite run alone has them)
	build_tests oracle replay
}

setup() {
	T=$BATS_TEST_TMPDIR
	# a full dump, as a user would copy it
	FULL=$CORPUS/hotspot/jdk11-string.hprof
}

# run_exported CMD...: CMD with the shim exported, as an image's ENV has it
run_exported() {
	run --separate-stderr env LD_PRELOAD="$SHIM" "$@"
}

@test "copies of a full dump under an exported LD_PRELOAD stay byte for byte" {
	mkdir -p "$T/src" "$T/out"
	gzip -c "$FULL" >"$T/src/x.hprof.gz"
	cp "$FULL" "$T/src/x.hprof"
	(cd "$T/src" && tar cf "$T/x.tar" x.hprof)
	export HPROFSTRIP_PATTERN='*.hprof:*.bin'
	# gzip -d removes the .gz: the copy it leaves is the only one
	cp "$T/src/x.hprof.gz" "$T/out/gz.hprof.gz"
	run_exported gzip -d "$T/out/gz.hprof.gz"
	assert_success
	cmp "$T/out/gz.hprof" "$FULL"
	run_exported cp "$FULL" "$T/out/cp.hprof"
	assert_success
	cmp "$T/out/cp.hprof" "$FULL"
	mkdir "$T/out/tar"
	(cd "$T/out/tar" && LD_PRELOAD=$SHIM tar xf "$T/x.tar")
	cmp "$T/out/tar/x.hprof" "$FULL"
	run_exported python3 -c 'import shutil, sys; shutil.copyfile(sys.argv[1], sys.argv[2])' \
		"$FULL" "$T/out/py.hprof"
	assert_success
	cmp "$T/out/py.hprof" "$FULL"
	run_exported dd if="$FULL" of="$T/out/dd.hprof" bs=64k status=none
	assert_success
	cmp "$T/out/dd.hprof" "$FULL"
	LD_PRELOAD=$SHIM cat "$FULL" >"$T/out/cat.bin"
	cmp "$T/out/cat.bin" "$FULL"
	# a multi-part downloader: part 0, then the others last first, each
	# with pwrite at its offset
	run_exported python3 -c '
import os, sys
data = open(sys.argv[1], "rb").read()
fd = os.open(sys.argv[2], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
part = 256 * 1024
offs = list(range(0, len(data), part))
for off in [offs[0]] + offs[:0:-1]:
    os.pwrite(fd, data[off:off + part], off)
os.close(fd)' "$FULL" "$T/out/parts.hprof"
	assert_success
	cmp "$T/out/parts.hprof" "$FULL"
	# and not a word from the shim in any of them
	[ -z "$(ls "$T/out"/*.zst 2>/dev/null)" ]
}

@test "in a runtime's process, a copy of an older dump stays whole in every write pattern; a dump stamped now is stripped" {
	f=$FULL
	"$STRIP" -o "$T/want" "$f"
	for mode in random threads jdk8 art artcloexec pwrite writev setlength; do
		rm -f "$T/o.hprof"
		# REPLAY_STAMP=keep: the header keeps its 2020 stamp
		run --separate-stderr env REPLAY_STAMP=keep LD_PRELOAD="$SHIM" \
			timeout 60 "$REPLAY" "$mode" "$f" "$T/o.hprof" 7
		assert_success
		cmp "$T/o.hprof" "$f" || fail "$mode: a copy was changed"
		[ "$stderr" = "hprofstrip: $T/o.hprof: a copy of a dump made 2020-01-28 13:05:25 UTC, before this process began: written unchanged" ] ||
			fail "$mode: stderr: $stderr"
		rm -f "$T/o.hprof"
		HPROFSTRIP_QUIET=1 LD_PRELOAD=$SHIM timeout 60 "$REPLAY" "$mode" "$f" "$T/o.hprof" 7
		cmp_dump "$T/o.hprof" "$T/want" || fail "$mode: a fresh dump was not stripped"
	done
	# JDK 22 writes its segment files while its header may still be in its
	# buffer; only a runtime writes them, so such a dump is its own, stamp
	# or not: stripped whole. A header that reached the file first decides
	# alone: a copy, segments and all. Never a mix.
	for g in "$CORPUS"/*/*.hprof; do
		"$STRIP" -o "$T/want.g" "$g"
		rm -f "$T/o.hprof"
		REPLAY_STAMP=keep HPROFSTRIP_QUIET=1 LD_PRELOAD=$SHIM "$REPLAY" jdk22 "$g" "$T/o.hprof" 7
		if cmp -s "$T/o.hprof" "$g"; then
			echo "jdk22: $(basename "$g"): a copy"
		else
			cmp "$T/o.hprof" "$T/want.g" || fail "jdk22: $g: neither a copy nor stripped"
			echo "jdk22: $(basename "$g"): stripped"
		fi
	done >"$T/j22"
	grep -qx 'jdk22: jdk11-string.hprof: a copy' "$T/j22"
	grep -qx 'jdk22: jdk6-client-id4-small.hprof: stripped' "$T/j22"
	# a header cut into single bytes is held, then judged
	rm -f "$T/o.hprof"
	REPLAY_STAMP=keep HPROFSTRIP_QUIET=1 LD_PRELOAD=$SHIM "$REPLAY" bytes \
		"$CORPUS/hotspot/jdk6-client-id4-small.hprof" "$T/o.hprof"
	cmp "$T/o.hprof" "$CORPUS/hotspot/jdk6-client-id4-small.hprof"
	# sendfile into a dump name, in a runtime's process (python's
	# shutil.copyfile uses it): the first bytes are looked at, not read
	run --separate-stderr env LD_PRELOAD="$SHIM $B/stub/libjvm.so" python3 -c \
		'import shutil, sys; shutil.copyfile(sys.argv[1], sys.argv[2])' "$f" "$T/sf.hprof"
	assert_success
	cmp "$T/sf.hprof" "$f"
	assert_equal "$stderr" "hprofstrip: $T/sf.hprof: a copy of a dump made 2020-01-28 13:05:25 UTC, before this process began: written unchanged"
}

@test "a program that hosts no runtime is never looked at, whatever it writes" {
	f=$FULL
	for mode in random threads jdk8 art pwrite writev bytes; do
		[ "$mode" = bytes ] && f=$CORPUS/hotspot/jdk6-client-id4-small.hprof
		rm -f "$T/o.hprof"
		run --separate-stderr env REPLAY_RUNTIME=none HPROFSTRIP_PATTERN='*' \
			LD_PRELOAD="$SHIM" timeout 60 "$REPLAY" "$mode" "$f" "$T/o.hprof" 7
		assert_success
		cmp_replayed "$f" "$T/o.hprof" || fail "$mode"
		assert_equal "$stderr" ""
	done
	# the same calls on the copy as without the shim
	command -v strace >/dev/null || fail "strace missing (make deps)"
	for pre in "" "$SHIM"; do
		rm -f "$T/s.hprof"
		env ${pre:+LD_PRELOAD=$pre} strace -qq -o "$T/trace${pre:+.shim}" \
			-e trace=openat,write,pwrite64,writev,pwritev,lseek,ftruncate,copy_file_range,sendfile,fsync \
			cp "$FULL" "$T/s.hprof"
		grep -e 's.hprof' -e '^write' -e '^pwrite' -e '^lseek' -e '^ftruncate' \
			-e '^copy_file_range' -e '^sendfile' "$T/trace${pre:+.shim}" >"$T/calls${pre:+.shim}"
	done
	[ -s "$T/calls" ]
	diff "$T/calls" "$T/calls.shim"
}

@test "a JVM's Files.copy of an older dump stays whole; its own MXBean dump in the same run is stripped" {
	"$JUDGE" build >&2
	run --separate-stderr env LD_PRELOAD="$SHIM" timeout 120 \
		java -cp "$B/java" HeapBuilder copy "$FULL" "$T/copied.hprof" "$T/own.hprof"
	assert_success
	cmp "$T/copied.hprof" "$FULL"
	run "$ORACLE" count "$T/own.hprof"
	assert_output --regexp '^p23 0 c3 [1-9][0-9]*$'
	assert_stripped_dump "$T/own.hprof"
	echo "$stderr" | grep -qx "hprofstrip: $T/copied.hprof: a copy of a dump made 2020-01-28 13:05:25 UTC, before this process began: written unchanged"
	echo "$stderr" | grep -q "^hprofstrip: $T/own.hprof: [0-9]* bytes in, [0-9]* bytes out"
}

@test "a deliberate wrap strips what the wrapped program writes: hprofstrip-run adb pull" {
	# a stand-in for adb pull: a program named adb that writes a copy
	# of the device's dump
	mkdir -p "$T/bin"
	ln -s "$(command -v cp)" "$T/bin/adb"
	"$STRIP" -o "$T/want" "$FULL"
	run --separate-stderr env -u LD_PRELOAD PATH="$T/bin:$PATH" \
		"$B/hprofstrip-run" adb "$FULL" "$T/pulled.hprof"
	assert_success
	cmp "$T/pulled.hprof" "$T/want"
	[[ $stderr =~ ^hprofstrip:\ $T/pulled.hprof:\ 2223790\ bytes\ in,\ 2074927\ bytes\ out ]]
	# the same program under an inherited LD_PRELOAD alone: a copy
	PATH="$T/bin:$PATH" LD_PRELOAD=$SHIM adb "$FULL" "$T/inherited.hprof"
	cmp "$T/inherited.hprof" "$FULL"
	# named by HPROFSTRIP_PROGRAMS, a glob list
	PATH="$T/bin:$PATH" HPROFSTRIP_QUIET=1 HPROFSTRIP_PROGRAMS='x:ad?' LD_PRELOAD=$SHIM \
		adb "$FULL" "$T/named.hprof"
	cmp "$T/named.hprof" "$T/want"
	# what the wrapped program runs is not named: a copy
	env -u LD_PRELOAD "$B/hprofstrip-run" sh -c 'cp "$1" "$2"' sh "$FULL" "$T/child.hprof"
	cmp "$T/child.hprof" "$FULL"
	# --programs names others than the command
	env -u LD_PRELOAD "$B/hprofstrip-run" -q --programs cp sh -c 'cp "$1" "$2"' sh \
		"$FULL" "$T/named-child.hprof"
	cmp "$T/named-child.hprof" "$T/want"
}

@test "a FIFO target is stripped in the streamed form: jcmd GC.heap_dump -overwrite fifo.hprof" {
	mkfifo "$T/fifo.hprof"
	start_jvm LD_PRELOAD="$SHIM" HeapBuilder
	cat "$T/fifo.hprof" >"$T/got" &
	reader=$!
	run env -u LD_PRELOAD timeout 120 jcmd "$JVM" GC.heap_dump -overwrite "$T/fifo.hprof"
	wait "$reader"
	stop_jvm
	assert_success
	run "$STRIP" --info "$T/got"
	assert_success
	assert_line 'well-formed'
	assert_line --regexp '^ +PRIMITIVE_ARRAY_NODATA +0xC3 +[1-9][0-9]* '
	refute_line --partial 'PRIMITIVE_ARRAY_DUMP '
	assert_line --regexp '^ +HEAP_DUMP_SEGMENT +0x1C'
	grep -q "^hprofstrip: $T/fifo.hprof: [0-9]* bytes in, [0-9]* bytes out" "$JVM_ERR"
	"$RESTORE" -o "$T/restored.hprof" "$T/got"
	run "$JUDGE" histo "$T/restored.hprof"
	assert_success
	assert_output --partial 'HeapBuilder$Marker'
	# a replay into a FIFO is hprofstrip --stream's output, byte for byte
	"$STRIP" --stream -o "$T/want" "$FULL"
	rm -f "$T/fifo.hprof"
	mkfifo "$T/fifo.hprof"
	cat "$T/fifo.hprof" >"$T/got2" &
	reader=$!
	HPROFSTRIP_QUIET=1 LD_PRELOAD=$SHIM timeout 60 "$REPLAY" random "$FULL" "$T/fifo.hprof" 3
	wait "$reader"
	cmp_dump "$T/got2" "$T/want"
}

@test "yes/no variables take 1/0, yes/no, true/false, on/off; one line for a value not understood" {
	f=$CORPUS/art/art-host-2025.hprof
	"$STRIP" -o "$T/want" "$f"
	# sniffing off: the dump written to stdout is not stripped
	for no in 0 no false off FALSE Off; do
		HPROFSTRIP_SNIFF=$no LD_PRELOAD=$SHIM "$REPLAY" artpipe "$f" - >"$T/y.bin"
		cmp_replayed "$f" "$T/y.bin" || fail "HPROFSTRIP_SNIFF=$no"
	done
	for yes in 1 yes true on YES; do
		HPROFSTRIP_QUIET=1 HPROFSTRIP_SNIFF=$yes LD_PRELOAD=$SHIM "$REPLAY" artpipe "$f" - >"$T/x.bin"
		cmp_dump "$T/x.bin" "$T/want" || fail "HPROFSTRIP_SNIFF=$yes"
		run --separate-stderr env HPROFSTRIP_QUIET=$yes LD_PRELOAD="$SHIM" "$REPLAY" art "$f" "$T/q.hprof"
		assert_equal "$stderr" ""
	done
	for no in 0 no false off; do
		run --separate-stderr env HPROFSTRIP_QUIET=$no LD_PRELOAD="$SHIM" "$REPLAY" art "$f" "$T/q.hprof"
		grep -q "^hprofstrip: $T/q.hprof: [0-9]* bytes in" <<<"$stderr"
	done
	run --separate-stderr env HPROFSTRIP_SNIFF=maybe HPROFSTRIP_APP_ONLY=sure LD_PRELOAD="$SHIM" \
		"$REPLAY" art "$f" "$T/m.hprof"
	assert_success
	[ "$(grep -c 'not a yes/no value' <<<"$stderr")" -eq 1 ]
	grep -qxF "hprofstrip: HPROFSTRIP_SNIFF=maybe: not a yes/no value (1/0, yes/no, true/false, on/off); its default is used" <<<"$stderr"
}

@test "a file named like a dump that is not one: no word outside a runtime, one line in it" {
	head -c 300000 /dev/urandom >"$T/noise"
	run --separate-stderr env LD_PRELOAD="$SHIM" cp "$T/noise" "$T/a.hprof"
	assert_success
	assert_equal "$stderr" ""
	cmp "$T/noise" "$T/a.hprof"
	run --separate-stderr env LD_PRELOAD="$SHIM" "$REPLAY" random "$T/noise" "$T/b.hprof"
	assert_success
	cmp "$T/noise" "$T/b.hprof"
	assert_equal "$stderr" "hprofstrip: $T/b.hprof: not an HPROF dump: written unchanged"
}
