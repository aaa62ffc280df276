#!/usr/bin/env bats
# Redaction fails closed (issue 27, items 2 and 3). With HPROFSTRIP_REDACT
# (hprofstrip-run --redact), a dump the shim cannot redact gets none of
# its bytes on disk: the runtime's write fails with EPERM, every later
# write to that fd too, the file is removed, and one line says why and
# what to change. Each way a dump used to be written whole is tried: too
# many dumps open at once (a real JVM, and replays of every runtime's
# pattern), an fd past the shim's table (a shim built with a table of 1024
# fds: this machine's fd limit is below 65536), the runtime's own -gz dump
# (jcmd on JDK 17, and replays), a file written as no runtime writes its
# dump. Without redaction each is written whole and said, as ever. The
# engine's fallback and a shim without memory for its tables redact with
# zeros, never verbatim. The names map is never replaced and always
# 0600: the shim writes a new one under a free name, the tools write a
# temporary file and rename it, as -o does.
#
# The heap is Secrets' (tests/java/Secrets.java), as in redact.bats:
# find-bytes looks for its values in every file a test leaves.

load common

bats_require_minimum_version 1.5.0

TMO=${REDACT_TIMEOUT:-120}
FIND=$ROOT/tests/find-bytes
SHIM1K=$B/libhprofstrip-fd1k.so
FAULTINJ=$B/libfaultinject.so
RUN=$B/hprofstrip-run
FIX="dump without the shim and run hprofstrip --redact on the dump"
WHAT="HPROFSTRIP_REDACT cannot redact it, so none of it is written: its writes fail (EPERM) and the file is removed"

setup_file() {
	# test drivers, not among make all's: built here (a suite run alone has them)
	build_tests replay oracle libhprofstrip-fd1k.so libfaultinject.so
	"$JUDGE" build >&2
	local d=$BATS_FILE_TMPDIR
	java -cp "$B/java" Secrets expect >"$d/expect"
	timeout "$TMO" java -cp "$B/java" Secrets dump "$d/orig.hprof" >&2
	"$STRIP" --redact -o "$d/values.hprof" "$d/orig.hprof"
	"$RESTORE" -o "$d/values.r.hprof" "$d/values.hprof"
}

setup() {
	T=$BATS_TEST_TMPDIR
	D=$BATS_FILE_TMPDIR
	IN=$D/orig.hprof
	mapfile -t PATS < <(cut -d' ' -f2 "$D/expect")
	mkdir "$T/d"
}

# no_secret_in DIR: no file in DIR holds a value of Secrets'
no_secret_in() {
	local f
	for f in "$1"/*; do
		[ -e "$f" ] || continue
		run "$FIND" "$f" "${PATS[@]}"
		[ "$status" -eq 0 ] || fail "$f holds secrets: $output"
	done
}

# refused MODE OUT WHY FIX: the last run was a replay in MODE, refused:
# exit 1 at its first write (EPERM), the shim's one line, no OUT, no
# secret left in OUT's directory
refused() {
	local call=write
	case $1 in pwrite) call=pwrite64 ;; writev) call=writev ;; esac
	[ "$status" -eq 1 ] || fail "$1: status $status: $stderr"
	assert_equal "$stderr" "hprofstrip: $2: $3; $WHAT; $4
replay: $1: $call: Operation not permitted"
	[ ! -e "$2" ] || fail "$1: $2 is there"
	no_secret_in "$(dirname "$2")"
}

@test "fail closed, a real JVM: with 16 dump files held open under hprofstrip-run --redact, its MXBean dump fails (EPERM) and leaves no file; without --redact it is written whole, said" {
	local f
	run --separate-stderr timeout "$TMO" "$RUN" --redact \
		java -cp "$B/java" Secrets hold 16 "$T/d" "$T/d/x.hprof"
	assert_success
	assert_output "failed: Operation not permitted"
	assert_equal "$stderr" "hprofstrip: $T/d/x.hprof: too many dumps open at once; $WHAT; open at most 16 dumps at once, or $FIX"
	[ ! -e "$T/d/x.hprof" ]
	# the held files, never written, are left as they were: empty
	[ "$(ls "$T/d" | wc -l)" -eq 16 ]
	for f in "$T"/d/hold*.hprof; do
		[ ! -s "$f" ] || fail "$f was written"
	done
	# without redaction: the dump whole, said once (never lose a write)
	rm -rf "$T/d" && mkdir "$T/d"
	run --separate-stderr timeout "$TMO" "$RUN" \
		java -cp "$B/java" Secrets hold 16 "$T/d" "$T/d/x.hprof"
	assert_success
	assert_output dumped
	assert_equal "$stderr" "hprofstrip: $T/d/x.hprof: too many dumps open at once; written unstripped"
	run "$FIND" "$T/d/x.hprof" "${PATS[@]}"
	assert_equal "$status" 1
}

@test "a real JVM: jcmd GC.heap_dump -gz=1 (JDK 17) under HPROFSTRIP_REDACT is redacted as written, gzip; with no gzip to inflate with, refused: 'Dump file is incomplete', no file" {
	start_jvm HPROFSTRIP_REDACT=values LD_PRELOAD="$SHIM" HeapBuilder
	run env -u LD_PRELOAD timeout "$TMO" jcmd "$JVM" GC.heap_dump -gz=1 "$T/d/jvm.hprof"
	stop_jvm
	assert_line --partial "Heap dump file created"
	grep -qx "hprofstrip: $T/d/jvm.hprof: gzip -1 wrote the stripped dump in its place" "$JVM_ERR" ||
		fail "$(cat "$JVM_ERR")"
	gzip -dc "$T/d/jvm.hprof" >"$T/jvm.red"
	"$RESTORE" -o "$T/jvm.r" "$T/jvm.red"
	# redacted: a second redaction changes nothing
	cmp "$T/jvm.red" <("$STRIP" --stream --redact "$T/jvm.r")
	# no gzip on the JVM's PATH (java alone): refused, nothing on disk
	rm -f "$T"/d/*
	mkdir -p "$T/none"
	ln -s "$(readlink -f "$(command -v java)")" "$T/none/java"
	rm -f "$JVM_STOP"
	start_jvm PATH="$T/none" HPROFSTRIP_REDACT=values LD_PRELOAD="$SHIM" HeapBuilder
	run env -u LD_PRELOAD timeout "$TMO" jcmd "$JVM" GC.heap_dump -gz=1 "$T/d/jvm.hprof"
	stop_jvm
	assert_line "Dump file is incomplete: Operation not permitted"
	refute_line --partial "Heap dump file created"
	[ ! -e "$T/d/jvm.hprof" ]
	assert_equal "$(cat "$JVM_ERR")" "hprofstrip: $T/d/jvm.hprof: a gzip-compressed dump (the runtime's -gz) that cannot be inflated here; $WHAT; put gzip on PATH, or drop -gz (HPROFSTRIP_COMPRESS compresses the redacted dump)"
	no_secret_in "$T/d"
}

@test "fail closed: too many dumps open at once, replayed in every runtime's pattern (JDK 22's segment files too): nothing on disk; without redaction written whole, said" {
	local mode out=$T/d/x.hprof
	for mode in random threads jdk8 art artcloexec pwrite writev jdk22; do
		rm -f "$T"/d/*
		run --separate-stderr env HPROFSTRIP_REDACT=values REPLAY_HOLD=16 \
			LD_PRELOAD="$SHIM" timeout 60 "$REPLAY" "$mode" "$IN" "$out" 7
		refused "$mode" "$out" "too many dumps open at once" \
			"open at most 16 dumps at once, or $FIX"
		[ "$(ls "$T/d" | wc -l)" -eq 16 ] || fail "$mode: $(ls "$T/d")"
	done
	# a dump found by its first bytes (sniffed: jmap's heap.bin) likewise
	rm -f "$T"/d/*
	run --separate-stderr env HPROFSTRIP_REDACT=values REPLAY_HOLD=16 \
		LD_PRELOAD="$SHIM" timeout 60 "$REPLAY" threads "$IN" "$T/d/heap.bin" 7
	refused threads "$T/d/heap.bin" "too many dumps open at once" \
		"open at most 16 dumps at once, or $FIX"
	# JDK 22 with one slot left: the dump is redacted, its segment file
	# (no slot for it) refused and removed; the replay exits on the
	# failed write with the dump open: its histogram of what came
	rm -f "$T"/d/*
	run --separate-stderr env HPROFSTRIP_REDACT=values REPLAY_HOLD=15 \
		LD_PRELOAD="$SHIM" timeout 60 "$REPLAY" jdk22 "$IN" "$out" 7
	assert_equal "$status" 1
	assert_equal "${stderr_lines[0]}" "hprofstrip: $out.p0: too many dumps open at once; $WHAT; open at most 16 dumps at once, or $FIX"
	assert_equal "${stderr_lines[1]}" "replay: jdk22: write: Operation not permitted"
	[[ ${stderr_lines[2]} =~ ^"hprofstrip: $out: the process exits with the dump open, "[0-9]+" bytes in; the histogram of what came is in $out.histo"$ ]] ||
		fail "${stderr_lines[2]}"
	assert_equal "${#stderr_lines[@]}" 3
	[ ! -e "$out.p0" ]
	no_secret_in "$T/d"
	# without redaction: written whole, said
	rm -f "$T"/d/*
	run --separate-stderr env REPLAY_HOLD=16 LD_PRELOAD="$SHIM" \
		timeout 60 "$REPLAY" art "$IN" "$out" 7
	assert_success
	assert_equal "$stderr" "hprofstrip: $out: too many dumps open at once; written unstripped"
	cmp_replayed "$IN" "$out"
}

@test "fail closed: a dump on an fd past the shim's table (a table of 1024 fds), in every runtime's pattern, or a copy of its fd there; without redaction written whole, said" {
	local mode out=$T/d/x.hprof
	for mode in random threads jdk8 art artcloexec pwrite writev; do
		rm -f "$out"
		run --separate-stderr env HPROFSTRIP_REDACT=names REPLAY_FD=1500 \
			LD_PRELOAD="$SHIM1K" timeout 60 "$REPLAY" "$mode" "$IN" "$out" 7
		refused "$mode" "$out" "fd 1500 is past the shim's table" \
			"keep the process's fds below 1024, or $FIX"
		[ -z "$(ls "$T/d")" ] || fail "$mode: left $(ls "$T/d")"
	done
	# a dump found by its first bytes (sniffed: jmap's heap.bin) likewise
	run --separate-stderr env HPROFSTRIP_REDACT=values REPLAY_FD=1500 \
		LD_PRELOAD="$SHIM1K" timeout 60 "$REPLAY" random "$IN" "$T/d/heap.bin" 7
	refused random "$T/d/heap.bin" "fd 1500 is past the shim's table" \
		"keep the process's fds below 1024, or $FIX"
	run --separate-stderr env REPLAY_FD=1500 LD_PRELOAD="$SHIM1K" \
		timeout 60 "$REPLAY" random "$IN" "$out" 7
	assert_success
	assert_equal "$stderr" "hprofstrip: $out: fd 1500 is past the shim's table; written unstripped"
	cmp_replayed "$IN" "$out"
	# ART writes through a copy of its fd: a copy made past the table
	# fails, and the dump, closed unwritten, is left empty
	for mode in art artcloexec; do
		rm -f "$out"
		run --separate-stderr env HPROFSTRIP_REDACT=values REPLAY_DUP_FD=1500 \
			LD_PRELOAD="$SHIM1K" timeout 60 "$REPLAY" "$mode" "$IN" "$out" 7
		assert_equal "$status" 1
		assert_equal "$stderr" "hprofstrip: $out: fd 1500, a copy of its fd, is past the shim's table; HPROFSTRIP_REDACT: its writes fail (EPERM)
replay: $mode: write: Operation not permitted"
		[ -e "$out" ] && [ ! -s "$out" ] || fail "$mode: $(ls -l "$T/d")"
	done
	# below the table, the same build redacts
	rm -f "$out"
	run --separate-stderr env HPROFSTRIP_REDACT=values LD_PRELOAD="$SHIM1K" \
		timeout 60 "$REPLAY" random "$IN" "$out" 7
	assert_success
	cmp_dump "$out" "$D/values.hprof"
}

@test "fail closed: 70 copies of a dump's fd past the table (a table of 1024 fds): the first 64 marked (EPERM), past those a read-only /dev/null (EBADF), close-on-exec flags kept; closed, their marks are forgotten; without redaction every copy writes" {
	build_tests shimstress
	run -0 --separate-stderr env HPROFSTRIP_PROGRAMS=shimstress HPROFSTRIP_REDACT=values \
		LD_PRELOAD="$SHIM1K" "$B/shimstress" copies "$IN" "$IN" "$T/d" 70
	assert_line "shimstress: copies: 64 EPERM, 6 EBADF, 0 written; after their close: 64 EPERM"
	assert_line "shimstress: copies: ok"
	[ "$(grep -c ', a copy of its fd, is past the shim.s table; HPROFSTRIP_REDACT: its writes fail (EPERM)$' <<<"$stderr")" = 134 ] ||
		fail "not one line for each copy: $stderr"
	no_secret_in "$T/d"
	rm -rf "$T/d" && mkdir "$T/d"
	run -0 --separate-stderr env HPROFSTRIP_PROGRAMS=shimstress \
		LD_PRELOAD="$SHIM1K" "$B/shimstress" copies "$IN" "$IN" "$T/d" 70
	assert_line "shimstress: copies: 0 EPERM, 0 EBADF, 70 written; after their close: 0 EPERM"
	# and the driver itself, without the shim
	run -0 "$B/shimstress" copies "$IN" "$IN" "$T/d" 70
	assert_line "shimstress: copies: 0 EPERM, 0 EBADF, 70 written; after their close: 0 EPERM"
}

@test "fail closed: a file written as no runtime writes its dump (sized before its header, or not from its start), a segment file with no dump being stripped, are refused; without redaction written as they come" {
	local out=$T/d/x.hprof
	# dd seek=1 sizes the file first (ftruncate), then writes at 100
	run --separate-stderr env HPROFSTRIP_REDACT=values HPROFSTRIP_PROGRAMS=dd \
		LD_PRELOAD="$SHIM" dd if="$IN" of="$out" bs=100 seek=1 status=none
	assert_failure
	assert_equal "$stderr" "hprofstrip: $out: sized before its header was written; $WHAT; write the header first, or $FIX
dd: error writing '$out': Operation not permitted"
	[ ! -e "$out" ]
	# conv=notrunc: no sizing, the first write at offset 100
	run --separate-stderr env HPROFSTRIP_REDACT=values HPROFSTRIP_PROGRAMS=dd \
		LD_PRELOAD="$SHIM" dd if="$IN" of="$out" bs=100 seek=1 conv=notrunc status=none
	assert_failure
	assert_equal "$stderr" "hprofstrip: $out: not written from its start; $WHAT; $FIX
dd: error writing '$out': Operation not permitted"
	[ ! -e "$out" ]
	# a sendfile whose source holds too little of a header to judge
	head -c 10 "$IN" >"$T/ten"
	# then every later write to that fd fails too, and close closes it
	run --separate-stderr env HPROFSTRIP_REDACT=values HPROFSTRIP_PROGRAMS='python3*' \
		LD_PRELOAD="$SHIM" python3 -c '
import os, sys
out = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
src = os.open(sys.argv[2], os.O_RDONLY)
calls = [lambda: os.sendfile(out, src, None, 10),
         lambda: os.write(out, b"JAVA PROFILE 1.0.2"),
         lambda: os.pwrite(out, b"x", 0),
         lambda: os.writev(out, [b"a", b"b"]),
         lambda: os.sendfile(out, src, 0, 10),
         lambda: os.copy_file_range(src, out, 10, 0)]
for c in calls:
    try:
        print(c())
    except OSError as e:
        print("failed:", e.strerror)
os.close(out)
print("closed")' "$out" "$T/ten"
	assert_output "failed: Operation not permitted
failed: Operation not permitted
failed: Operation not permitted
failed: Operation not permitted
failed: Operation not permitted
failed: Operation not permitted
closed"
	assert_equal "$stderr" "hprofstrip: $out: its first bytes came in a copy too short to judge; $WHAT; $FIX"
	[ ! -e "$out" ]
	# a JDK 22 segment file of a dump that is not being stripped
	run --separate-stderr env HPROFSTRIP_REDACT=values HPROFSTRIP_PROGRAMS=dd \
		LD_PRELOAD="$SHIM" dd if="$IN" of="$out.p0" bs=64k status=none
	assert_failure
	assert_equal "$stderr" "hprofstrip: $out.p0: a segment file of a dump that is not being stripped; $WHAT; dump with jcmd GC.heap_dump -parallel=1, or $FIX
dd: error writing '$out.p0': Operation not permitted"
	[ -z "$(ls "$T/d")" ] || fail "left $(ls "$T/d")"
	# without redaction: as they come, said
	run --separate-stderr env HPROFSTRIP_PROGRAMS=dd LD_PRELOAD="$SHIM" \
		dd if="$IN" of="$out" bs=100 seek=1 conv=notrunc status=none
	assert_success
	assert_equal "$stderr" "hprofstrip: $out: not written from its start: written unchanged"
	cmp <(tail -c +101 "$out") "$IN"
	run --separate-stderr env HPROFSTRIP_PROGRAMS=dd LD_PRELOAD="$SHIM" \
		dd if="$IN" of="$out.p0" bs=64k status=none
	assert_success
	[ -s "$out.p0" ]
}

@test "closed already: the engine's fallback under redaction writes the rest of the record as zeros; without memory for the tables every instance's fields are zeros" {
	local off out=$T/d/x.hprof
	# an array's element type made 3 (no basic type), early in the heap
	off=$("$ROOT/tests/hprof-walk" types "$IN" | sed -n 50p)
	[ -n "$off" ] || fail "no 50th array in $IN"
	cp "$IN" "$T/bad.bin"
	printf '\003' | dd of="$T/bad.bin" bs=1 seek="$off" conv=notrunc status=none
	run "$FIND" "$T/bad.bin" "${PATS[@]}"
	assert_equal "$status" 1
	run --separate-stderr env HPROFSTRIP_REDACT=values LD_PRELOAD="$SHIM" \
		"$REPLAY" threads "$T/bad.bin" "$out"
	assert_success
	assert_equal "${stderr_lines[0]}" "hprofstrip: $out: offset $off: invalid basic type; writing the rest as zeros (HPROFSTRIP_REDACT: nothing goes out unredacted)"
	no_secret_in "$T/d"
	# no anonymous memory: every instance withheld, said
	rm -f "$out"
	run --separate-stderr env HPROFSTRIP_REDACT=names FAULT=nomap FAULT_LOG="$T/faults" \
		LD_PRELOAD="$SHIM $FAULTINJ" "$REPLAY" threads "$IN" "$out"
	assert_success
	assert_equal "$(cat "$T/faults")" nomap
	assert_equal "${stderr_lines[0]}" "hprofstrip: $out: no memory for HPROFSTRIP_REDACT's tables; every instance's fields are zeroed, references too"
	no_secret_in "$T/d"
	assert_stripped_dump "$out"
}

@test "shim: an existing names map (0644) is never replaced: the new one is 0600 under a free name, said; a second dump at the same path keeps the first's map, and each gives its own dump back; an erased dump leaves none" {
	local out=$T/d/x.hprof
	export HPROFSTRIP_REDACT=names
	printf 'old map\n' >"$out.names"
	chmod 644 "$out.names"
	ln "$out.names" "$T/old.link"
	run --separate-stderr env LD_PRELOAD="$SHIM" "$REPLAY" random "$IN" "$out" 3
	assert_success
	assert_equal "$(cat "$out.names")" "old map"
	assert_equal "$(stat -c %a "$out.names")" 644
	assert_equal "$(stat -c %h "$out.names")" 2
	assert_equal "$(stat -c %a "$out.names.1")" 600
	[[ $stderr =~ "hprofstrip: $out: "[1-9][0-9]*" names tokenized; their originals in $out.names.1 (keep it private)" ]] ||
		fail "stderr: $stderr"
	# the first dump goes (uploaded, then removed by a filter); a second
	# dump at the same path gets a map of its own
	mv "$out" "$T/first.hprof"
	run --separate-stderr env LD_PRELOAD="$SHIM" "$REPLAY" random "$IN" "$out" 4
	assert_success
	assert_equal "$(stat -c %a "$out.names.2")" 600
	[[ $stderr =~ "their originals in $out.names.2 (keep it private)" ]] || fail "stderr: $stderr"
	"$RESTORE" --unredact "$out.names.1" -o "$T/first.u.hprof" "$T/first.hprof"
	cmp_dump "$T/first.u.hprof" "$D/values.r.hprof"
	"$RESTORE" --unredact "$out.names.2" -o "$T/second.u.hprof" "$out"
	cmp_dump "$T/second.u.hprof" "$D/values.r.hprof"
	# and neither map is the other dump's
	run "$RESTORE" --unredact "$out.names.1" -o "$T/no.hprof" "$out"
	assert_failure
	assert_output --partial "the names map of another dump"
	# ART's erase of a failed dump (ftruncate to 0) takes its map with it
	run --separate-stderr env LD_PRELOAD="$SHIM" "$REPLAY" artfail \
		"$CORPUS/art/art-host-2025.hprof" "$T/d/art.hprof"
	assert_success
	[ ! -s "$T/d/art.hprof" ]
	run ls "$T/d"
	refute_output --partial art.hprof.names
	# a symlink where the map goes is not followed: the next free name
	: >"$T/target"
	ln -s "$T/target" "$T/d/link.hprof.names"
	run --separate-stderr env LD_PRELOAD="$SHIM" "$REPLAY" random "$IN" "$T/d/link.hprof" 3
	assert_success
	[ ! -s "$T/target" ] || fail "the map went through the symlink"
	assert_equal "$(stat -c %a "$T/d/link.hprof.names.1")" 600
	[[ $stderr =~ "their originals in $T/d/link.hprof.names.1 (keep it private)" ]] || fail "stderr: $stderr"
}

@test "tools: OUT.names and --names-map are written as -o is, a temporary file renamed over the map, 0600; an old map's other links keep it; through a symlink its target is replaced" {
	local out=$T/d/x.hprof
	printf 'old map\n' >"$out.names"
	chmod 644 "$out.names"
	ln "$out.names" "$T/old.link"
	"$STRIP" --redact=names -o "$out" "$IN"
	assert_equal "$(stat -c %a "$out.names")" 600
	assert_equal "$(cat "$T/old.link")" "old map"
	assert_equal "$(stat -c %h "$out.names")" 1
	"$RESTORE" --unredact "$out.names" -o "$T/u.hprof" "$out"
	cmp "$T/u.hprof" "$D/values.r.hprof"
	# --names-map through a symlink: the link stays, its target is the map
	printf 'old\n' >"$T/real.map"
	chmod 644 "$T/real.map"
	ln -s "$T/real.map" "$T/d/link.map"
	"$STRIP" --redact=names --names-map "$T/d/link.map" -o "$T/d/y.hprof" "$IN"
	[ -L "$T/d/link.map" ]
	assert_equal "$(stat -c %a "$T/real.map")" 600
	"$RESTORE" --unredact "$T/d/link.map" -o "$T/u2.hprof" "$T/d/y.hprof"
	cmp "$T/u2.hprof" "$D/values.r.hprof"
	# no temporary file left; a failed run leaves the old map as it was
	run ls -A "$T/d"
	assert_output "link.map
x.hprof
x.hprof.names
y.hprof"
	cp "$T/real.map" "$T/before.map"
	head -c 1000 "$IN" >"$T/cut.hprof"
	run "$STRIP" --redact=names --names-map "$T/d/link.map" -o "$T/d/z.hprof" "$T/cut.hprof"
	assert_failure
	cmp "$T/real.map" "$T/before.map"
	run ls -A "$T/d"
	assert_output "link.map
x.hprof
x.hprof.names
y.hprof"
}
