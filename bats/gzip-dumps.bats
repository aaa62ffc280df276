#!/usr/bin/env bats
# A runtime's own gzip dump (issue 39, point 4: -XX:HeapDumpGzipLevel,
# jcmd GC.heap_dump -gz): the shim writes the runtime's stream to the file
# as it comes, inflates it with igzip -dc (else gzip -dc) as it comes,
# strips it, and compresses the result with gzip at the stream's level
# (zlib's XFL byte: 1, 9, else 6) into a file that takes the dump's place once both are
# whole; with HPROFSTRIP_COMPRESS through that compressor instead. It
# gets its .histo like any dump. A gzip stream of a copy of an older dump,
# or of no HPROF dump at all, is written as it came; one the shim cannot
# inflate (no gzip on PATH) is written unchanged, said. A write the
# inflated stream cannot follow keeps the runtime's stream. The replays
# are JDK 11.0.14-21's gzip members (REPLAY_GZIP with the byte modes) and
# JDK 25's (jdk25: segment files, the merge); the real JDK 17 dumps with
# jcmd -gz=1, an OOM with HeapDumpGzipLevel=1 (java_pid<pid>.hprof.gz)
# and the MXBean. Redaction of gzip dumps is in redact.bats.

load common

bats_require_minimum_version 1.5.0

TMO=${GZIP_TIMEOUT:-120}

setup_file() {
	# test drivers, not among make all's: built here (a suite run alone has them)
	build_tests replay oracle
	"$JUDGE" build >&2
}

setup() {
	clear_env
	# the inflater the shim prefers when it is there (make deps installs
	# it): igzip; else gzip
	INF=gzip GZ=gzip
	command -v igzip >/dev/null && INF=igzip
	T=$BATS_TEST_TMPDIR
	F=$CORPUS/hotspot/jdk11-string.hprof
	mkdir -p "$T/d"
}

# xfl FILE: the XFL byte of FILE's gzip header, in decimal
xfl() {
	od -An -tu1 -j8 -N1 "$1" | tr -d ' '
}

# level_of FILE: the level zlib's XFL byte stands for (4: 1, 2: 9, else 6)
level_of() {
	case $(xfl "$1") in 4) echo 1 ;; 2) echo 9 ;; *) echo 6 ;; esac
}

@test "a gzip dump in JDK 11.0.14-21's members, replayed in every byte pattern at levels 1, 6 and 9, is stripped as written: gzip at its level, the streamed strip inside, its .histo, no larger than gzip of the offline strip, no fd or child left" {
	local f mode lvl out
	for f in $(corpus_files); do
		"$STRIP" --stream -o "$T/want" "$f"
		"$STRIP" --histo -o "$T/want.histo" "$f"
		for lvl in 1 6 9; do
			gzip -"$lvl" -c "$T/want" >"$T/want.gz"
			for mode in random threads pwrite writev; do
				out=$T/d/$mode.hprof
				rm -f "$T"/d/*
				run --separate-stderr env REPLAY_GZIP=$lvl REPLAY_LEFTOVERS=1 \
					LD_PRELOAD="$SHIM" timeout 60 "$REPLAY" "$mode" "$f" "$out" 3
				assert_success
				cmp_dump <(gzip -dc "$out") "$T/want" || fail "$mode, -$lvl: $f"
				assert_equal "$(level_of "$out")" "$lvl"
				cmp_histo "$T/want.histo" "$out.histo" "$mode.hprof" "$out" ||
					fail "$mode, -$lvl: $f: .histo"
				# (the streamed strip's framing is not the file's: its
				# gzip may differ by a few bytes either way)
				w=$(size_of "$T/want.gz")
				[ "$(size_of "$out")" -le $((w + w / 1000 + 16)) ] ||
					fail "$mode, -$lvl: $(size_of "$out") bytes, gzip -$lvl of the strip $(size_of "$T/want.gz")"
				assert_equal "$(ls "$T/d" | wc -l)" 2
				grep -qx "hprofstrip: $out: $GZ -$lvl wrote the stripped dump in its place" <<<"$stderr" ||
					fail "$mode, -$lvl: $stderr"
				# permissions: never wider than the runtime's file
				assert_equal "$(stat -c %a "$out")" 600
			done
		done
	done
}

@test "with gzip alone on PATH (no igzip), gzip inflates: the same stripped dump" {
	local t
	mkdir -p "$T/gz"
	for t in gzip sh cat; do
		ln -s "$(command -v $t)" "$T/gz/$t"
	done
	"$STRIP" --stream -o "$T/want" "$F"
	run --separate-stderr env PATH="$T/gz" REPLAY_GZIP=1 REPLAY_LEFTOVERS=1 \
		LD_PRELOAD="$SHIM" "$REPLAY" threads "$F" "$T/d/x.hprof" 3
	assert_success
	grep -qx "hprofstrip: $T/d/x.hprof: gzip -1 wrote the stripped dump in its place" <<<"$stderr" ||
		fail "$stderr"
	cmp_dump <(gzip -dc "$T/d/x.hprof") "$T/want"
}

@test "JDK 25's gzip dump (1 to 8 dumpers, segment files of gzip members, the merge): plain and HPROFSTRIP_KEEP=strings give the shim's own streamed strip of the plain dump; no segment file left" {
	local f n e
	for f in $(corpus_files); do
		for e in "" HPROFSTRIP_KEEP=strings; do
			rm -f "$T"/r.hprof*
			env $e HPROFSTRIP_QUIET=1 HPROFSTRIP_COMPRESS=gzip LD_PRELOAD="$SHIM" \
				"$REPLAY" threads "$f" "$T/r.hprof" 3
			gzip -dc "$T/r.hprof.gz" >"$T/want"
			for n in 1 4 8; do
				rm -f "$T"/d/*
				env $e HPROFSTRIP_QUIET=1 REPLAY_GZIP=1 REPLAY_DUMPERS=$n \
					REPLAY_LEFTOVERS=1 LD_PRELOAD="$SHIM" timeout 60 \
					"$REPLAY" jdk25 "$f" "$T/d/x.hprof.gz" 3 ||
					fail "$e, $n dumpers: replay failed on $f"
				cmp_dump <(gzip -dc "$T/d/x.hprof.gz") "$T/want" || fail "$e, $n dumpers: $f"
				cmp <(sed '$d' "$T/d/x.hprof.gz.histo") <(sed '$d' "$T/r.hprof.histo") ||
					fail "$e, $n: .histo"
				assert_equal "$(ls "$T/d")" "x.hprof.gz
x.hprof.gz.histo"
			done
		done
	done
	# the plain strip is hprofstrip's, streamed
	"$STRIP" --stream -o "$T/want.plain" "$F"
	REPLAY_GZIP=9 REPLAY_DUMPERS=4 HPROFSTRIP_QUIET=1 LD_PRELOAD="$SHIM" \
		"$REPLAY" jdk25 "$F" "$T/j.hprof" 5
	cmp_dump <(gzip -dc "$T/j.hprof") "$T/want.plain"
	assert_equal "$(level_of "$T/j.hprof")" 9
}

@test "HPROFSTRIP_COMPRESS takes a gzip dump: x.hprof.gz becomes x.hprof.zst, the runtime's file goes" {
	"$STRIP" --stream -o "$T/want" "$F"
	run --separate-stderr env HPROFSTRIP_COMPRESS=zstd REPLAY_GZIP=1 REPLAY_LEFTOVERS=1 \
		LD_PRELOAD="$SHIM" "$REPLAY" threads "$F" "$T/d/x.hprof.gz" 3
	assert_success
	grep -qx "hprofstrip: $T/d/x.hprof.gz: zstd -1 wrote $T/d/x.hprof.zst" <<<"$stderr"
	assert_equal "$(ls "$T/d")" "x.hprof.gz.histo
x.hprof.zst"
	cmp_dump <(zstd -dc "$T/d/x.hprof.zst") "$T/want"
	# HPROFSTRIP_FILTER takes the stripped stream, as from a plain dump
	rm -f "$T"/d/*
	run --separate-stderr env HPROFSTRIP_FILTER='cat >"$HPROFSTRIP_PATH.f"' REPLAY_GZIP=1 \
		REPLAY_LEFTOVERS=1 LD_PRELOAD="$SHIM" "$REPLAY" threads "$F" "$T/d/f.hprof.gz" 3
	assert_success
	grep -qx "hprofstrip: $T/d/f.hprof.gz: HPROFSTRIP_FILTER took it ([0-9]* bytes); $T/d/f.hprof.gz removed" <<<"$stderr" ||
		fail "$stderr"
	cmp_dump "$T/d/f.hprof.gz.f" "$T/want"
	[ ! -e "$T/d/f.hprof.gz" ]
	# named without .gz: the compressor's suffix after the whole name
	run --separate-stderr env HPROFSTRIP_COMPRESS=zstd REPLAY_GZIP=1 \
		LD_PRELOAD="$SHIM" "$REPLAY" threads "$F" "$T/d/y.hprof" 3
	assert_success
	[ -e "$T/d/y.hprof.zst" ] && [ ! -e "$T/d/y.hprof" ]
}

@test "a gzip stream of a copy of an older dump, or of no dump, is written as it came, said once; so with HPROFSTRIP_REDACT (the sealed bytes given back)" {
	local e mode
	REPLAY_STAMP=keep REPLAY_GZIP=1 "$REPLAY" random "$F" "$T/copy.gz" 3
	gzip -c /etc/services >"$T/text.gz"
	for e in HPROFSTRIP_QUIET=0 HPROFSTRIP_REDACT=values; do
		for mode in random threads pwrite; do
			rm -f "$T"/d/*
			run --separate-stderr env $e REPLAY_STAMP=keep REPLAY_GZIP=1 \
				REPLAY_LEFTOVERS=1 LD_PRELOAD="$SHIM" "$REPLAY" "$mode" "$F" "$T/d/c.hprof" 3
			assert_success
			cmp "$T/d/c.hprof" "$T/copy.gz"
			assert_equal "$stderr" "hprofstrip: $T/d/c.hprof: a gzip stream of a copy of a dump made 2020-01-28 13:05:25 UTC, before this process began: written unchanged"
			assert_equal "$(ls "$T/d")" c.hprof
			run --separate-stderr env $e REPLAY_LEFTOVERS=1 LD_PRELOAD="$SHIM" \
				"$REPLAY" "$mode" "$T/text.gz" "$T/d/t.hprof" 3
			assert_success
			cmp "$T/d/t.hprof" "$T/text.gz"
			assert_equal "$stderr" "hprofstrip: $T/d/t.hprof: a gzip stream of no HPROF dump: written unchanged"
		done
	done
}

@test "a damaged gzip dump, or no gzip to inflate with: the runtime's stream is kept as written, said; under HPROFSTRIP_REDACT none of it is kept" {
	local out=$T/d/x.hprof
	REPLAY_GZIP=1 "$REPLAY" threads "$F" "$T/in.gz" 3
	# cut inside a member: gzip -dc fails at the end
	head -c 300000 "$T/in.gz" >"$T/cut.gz"
	run --separate-stderr env REPLAY_LEFTOVERS=1 LD_PRELOAD="$SHIM" "$REPLAY" random "$T/cut.gz" "$out" 3
	assert_success
	cmp "$out" "$T/cut.gz"
	assert_equal "$stderr" "hprofstrip: $out: $INF -dc exited with status 1 (the gzip stream is damaged); the dump is kept as the runtime wrote it"
	assert_equal "$(ls "$T/d")" x.hprof
	rm -f "$T"/d/*
	run --separate-stderr env HPROFSTRIP_REDACT=values REPLAY_LEFTOVERS=1 LD_PRELOAD="$SHIM" \
		"$REPLAY" random "$T/cut.gz" "$out" 3
	assert_success
	assert_equal "$stderr" "hprofstrip: $out: $INF -dc exited with status 1 (the gzip stream is damaged); HPROFSTRIP_REDACT cannot redact it, so none of it is kept: the file is removed"
	assert_equal "$(ls "$T/d")" ""
	# a gzip (and igzip) that dies at once
	mkdir -p "$T/bin" "$T/none"
	printf '#!/bin/sh\nexit 3\n' >"$T/bin/gzip"
	cp "$T/bin/gzip" "$T/bin/igzip"
	chmod +x "$T/bin/gzip" "$T/bin/igzip"
	run --separate-stderr env PATH="$T/bin:$PATH" REPLAY_LEFTOVERS=1 LD_PRELOAD="$SHIM" \
		"$REPLAY" random "$T/in.gz" "$out" 3
	assert_success
	cmp "$out" "$T/in.gz"
	[[ $stderr =~ ^"hprofstrip: $out: $INF -dc "(failed \(Broken pipe\)|"exited with status 3 (the gzip stream is damaged)")"; the dump is kept as the runtime wrote it"$ ]] ||
		fail "$stderr"
	# no gzip at all: as ever, written unchanged; under redaction refused
	rm -f "$T"/d/*
	run --separate-stderr env PATH="$T/none" REPLAY_LEFTOVERS=1 LD_PRELOAD="$SHIM" \
		"$REPLAY" random "$T/in.gz" "$out" 3
	assert_success
	cmp "$out" "$T/in.gz"
	assert_equal "$stderr" "hprofstrip: $out: gzip-compressed dump that cannot be inflated here, written unchanged"
	rm -f "$T"/d/*
	run --separate-stderr env PATH="$T/none" HPROFSTRIP_REDACT=values LD_PRELOAD="$SHIM" \
		"$REPLAY" random "$T/in.gz" "$out" 3
	assert_failure 1
	[[ ${stderr_lines[0]} == "hprofstrip: $out: a gzip-compressed dump (the runtime's -gz) that cannot be inflated here; "*"; put gzip on PATH, or drop -gz (HPROFSTRIP_COMPRESS compresses the redacted dump)" ]] ||
		fail "$stderr"
	assert_equal "$(ls "$T/d")" ""
}

@test "an inflater killed by a signal once it has read every byte, or one that exits 0 having read only part: the runtime's stream is kept as written, said" {
	local out=$T/d/x.hprof script why
	REPLAY_GZIP=1 "$REPLAY" threads "$F" "$T/in.gz" 3
	mkdir -p "$T/bin"
	# SCRIPT|WHY: killed by a signal once it has read every byte; exits 0
	# without reading the rest (its socket refuses the next bytes)
	while IFS='|' read -r script why; do
		# (igzip and gzip both: the shim takes the first it finds)
		printf '#!/bin/sh\n%s\n' "$script" >"$T/bin/igzip"
		cp "$T/bin/igzip" "$T/bin/gzip"
		chmod +x "$T/bin/igzip" "$T/bin/gzip"
		rm -f "$T"/d/*
		run --separate-stderr env PATH="$T/bin:$PATH" REPLAY_LEFTOVERS=1 LD_PRELOAD="$SHIM" \
			"$REPLAY" random "$T/in.gz" "$out" 3
		assert_success
		cmp "$out" "$T/in.gz"
		assert_equal "$stderr" "hprofstrip: $out: igzip -dc $why; the dump is kept as the runtime wrote it"
		assert_equal "$(ls "$T/d")" x.hprof
		# under redaction nothing is left
		rm -f "$T"/d/*
		run --separate-stderr env PATH="$T/bin:$PATH" HPROFSTRIP_REDACT=values REPLAY_LEFTOVERS=1 \
			LD_PRELOAD="$SHIM" "$REPLAY" random "$T/in.gz" "$out" 3
		assert_equal "$stderr" "hprofstrip: $out: igzip -dc $why; HPROFSTRIP_REDACT cannot redact it, so none of it is kept: the file is removed"
		assert_equal "$(ls "$T/d")" ""
	done <<-'EOF'
	cat >/dev/null; kill -9 $$|was killed by signal 9
	head -c 200000 >/dev/null; exit 0|failed (Broken pipe)
	EOF
}

@test "a write a gzip dump's inflated stream cannot follow (a pwrite back into it): the runtime's stream is kept as written, said" {
	command -v python3 >/dev/null || fail "python3 not installed"
	py=$(readlink -f "$(command -v python3)")
	REPLAY_GZIP=1 "$REPLAY" threads "$F" "$T/in.gz" 3
	cat >"$T/back.py" <<'PY'
import os, sys
d = open(sys.argv[1], "rb").read()
fd = os.open(sys.argv[2], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
os.write(fd, d[:len(d) // 2])
os.pwrite(fd, d[100:110], 100)   # over bytes already written
os.write(fd, d[len(d) // 2:])
os.close(fd)
PY
	run --separate-stderr env HPROFSTRIP_PROGRAMS="$(basename "$py")" LD_PRELOAD="$SHIM" \
		"$py" "$T/back.py" "$T/in.gz" "$T/d/x.hprof"
	assert_success
	cmp "$T/d/x.hprof" "$T/in.gz"
	assert_equal "$stderr" "hprofstrip: $T/d/x.hprof: a write at offset 100 of a gzip dump whose end is at $(( $(size_of "$T/in.gz") / 2 )) cannot be inflated; the dump is kept as the runtime wrote it"
}

@test "a gzip dump whose fd is closed behind the shim's back (close_range, then the number reused): one line; the runtime's stream is kept as written, or under HPROFSTRIP_REDACT the sealed file is removed" {
	command -v python3 >/dev/null || fail "python3 not installed"
	# the interpreter itself (PATH is cut short below)
	py=$(python3 -c 'import os, sys; print(os.path.realpath(sys.executable))')
	mkdir -p "$T/gz"
	for t in gzip sh cat; do
		ln -s "$(command -v $t)" "$T/gz/$t"
	done
	cat >"$T/lost.py" <<'PY'
import ctypes, gzip, os, struct, sys, time
libc = ctypes.CDLL(None, use_errno=True)
# the plain dump, stamped now (this process's own dump), gzip -1
d = bytearray(open(sys.argv[1], "rb").read())
h = d.index(0) + 5
d[h:h + 8] = struct.pack(">Q", int(time.time() * 1000))
d = gzip.compress(bytes(d), 1, mtime=0)
open(sys.argv[4], "wb").write(d)
d = d[:int(sys.argv[3])]
fd = os.open(sys.argv[2], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
# in 64 KiB writes, each given time to be inflated: the inflater has
# given back the dump's header (the compressor runs) before the close
for i in range(0, len(d), 65536):
    os.write(fd, d[i:i + 65536])
    time.sleep(0.1)
# close_range(fd, fd, 0) (436 on every Linux): a close the shim never sees
if libc.syscall(436, fd, fd, 0) != 0:
    sys.exit("close_range: errno %d" % ctypes.get_errno())
# the number again, for another file: the shim learns the dump's fd went
fd2 = os.open(sys.argv[2] + ".other", os.O_WRONLY | os.O_CREAT, 0o600)
if fd2 != fd:
    sys.exit("fd %d not reused (%d)" % (fd, fd2))
os.close(fd2)
PY
	local n redact path histo out=$T/d/x.hprof
	# the whole stream or its first 100 bytes (no inflated header yet);
	# with igzip, which gives back nothing of so short a stream before
	# its end, or gzip alone, which gives back the dump's header, so
	# that the compressor has started by the close (its .histo is of
	# the bytes that came)
	for path in "$PATH" "$T/gz"; do
	for n in 100000000 100; do
		histo=
		[ "$path" != "$T/gz" ] || [ "$n" = 100 ] || histo=x.hprof.histo
		for redact in "" values; do
			rm -f "$T"/d/*
			run --separate-stderr env PATH="$path" HPROFSTRIP_PROGRAMS="$(basename "$py")" \
				${redact:+HPROFSTRIP_REDACT=$redact} LD_PRELOAD="$SHIM" \
				"$py" "$T/lost.py" "$F" "$out" "$n" "$T/copy.gz"
			assert_success
			# (whether igzip gave back the header by then is its own
			# business: a .histo or not)
			[ "$path" = "$T/gz" ] || rm -f "$T/d/x.hprof.histo"
			[ "$n" -lt "$(size_of "$T/copy.gz")" ] || n=$(size_of "$T/copy.gz")
			if [ -z "$redact" ]; then
				assert_equal "$stderr" "hprofstrip: $out: closed behind the shim's back after $n bytes of its gzip stream; the dump is kept as the runtime wrote it"
				cmp "$out" <(head -c "$n" "$T/copy.gz")
				assert_equal "$(ls "$T/d" | tr '\n' ' ')" "x.hprof ${histo:+$histo }x.hprof.other "
			else
				assert_equal "$stderr" "hprofstrip: $out: closed behind the shim's back after $n bytes of its gzip stream; HPROFSTRIP_REDACT cannot keep the runtime's stream: the file is removed"
				assert_equal "$(ls "$T/d" | tr '\n' ' ')" "${histo:+$histo }x.hprof.other "
			fi
		done
	done
	done
}

# ---- a real JVM ---------------------------------------------------------

# judged_gz DUMP: DUMP is a gzip dump the shim stripped: gzip at level 1,
# a stripped dump inside, its .histo with HeapBuilder's 12345 markers,
# and restored, VisualVM's library gives the histogram of FULL (an
# unstripped dump of the same heap), if given
judged_gz() {
	[ "$(od -An -tx1 -N2 "$1" | tr -d ' ')" = 1f8b ] || fail "$1: not gzip"
	assert_equal "$(level_of "$1")" 1
	gzip -dc "$1" >"$T/in.s"
	assert_stripped_dump "$T/in.s"
	grep -Eq '^ +[0-9]+: +12345 +[0-9]+  HeapBuilder\$Marker$' "$1.histo" ||
		fail "no row of 12345 HeapBuilder\$Marker in $1.histo"
	"$RESTORE" -o "$T/in.r" "$T/in.s"
	"$JUDGE" histo "$T/in.r" >"$T/in.r.histo"
	grep -q 'HeapBuilder\$Marker' "$T/in.r.histo" || fail "VisualVM: no HeapBuilder\$Marker"
	if [ -n "${2:-}" ]; then
		"$JUDGE" histo "$2" >"$T/full.histo"
		diff "$T/full.histo" "$T/in.r.histo"
	fi
}

@test "JDK 17: jcmd GC.heap_dump -gz=1 under the shim is stripped as it is written (gzip -1, its .histo); restored, VisualVM gives the unstripped dump's histogram" {
	start_jvm HPROFSTRIP_SNIFF=no LD_PRELOAD="$SHIM" HeapBuilder
	# the same heap unstripped first, under a name the shim leaves
	# alone, after a dump that makes what dumping makes (its cleaners)
	run env -u LD_PRELOAD timeout "$TMO" jcmd "$JVM" GC.heap_dump -gz=1 "$T/warm.bin"
	run env -u LD_PRELOAD timeout "$TMO" jcmd "$JVM" GC.heap_dump -gz=1 "$T/full.bin"
	assert_output --partial "Heap dump file created"
	run env -u LD_PRELOAD timeout "$TMO" jcmd "$JVM" GC.heap_dump -gz=1 "$T/d/jcmd.hprof"
	stop_jvm
	assert_output --partial "Heap dump file created"
	grep -qx "hprofstrip: $T/d/jcmd.hprof: $GZ -1 wrote the stripped dump in its place" "$JVM_ERR" ||
		fail "$(cat "$JVM_ERR")"
	gzip -dc "$T/full.bin" >"$T/full.hprof"
	judged_gz "$T/d/jcmd.hprof" "$T/full.hprof"
	[ "$(size_of "$T/d/jcmd.hprof")" -lt "$(size_of "$T/full.bin")" ]
}

@test "JDK 17: an OOM dump with -XX:HeapDumpGzipLevel=1 (java_pid<pid>.hprof.gz, the default pattern) is stripped as written; the MXBean's dump in such a JVM (plain) is stripped too" {
	run --separate-stderr env LD_PRELOAD="$SHIM" timeout "$TMO" java -Xmx64m \
		-XX:+HeapDumpOnOutOfMemoryError -XX:HeapDumpGzipLevel=1 \
		-XX:HeapDumpPath="$T/d" -cp "$B/java" HeapBuilder oom
	local dump
	dump=$(ls "$T"/d/java_pid*.hprof.gz)
	[ -f "$dump" ] || fail "no OOM dump: $(ls "$T/d")"
	[[ $stderr == *"hprofstrip: $dump: $GZ -1 wrote the stripped dump in its place"* ]] ||
		fail "$stderr"
	judged_gz "$dump"
	# the MXBean writes no gzip, HeapDumpGzipLevel or not: a plain strip
	run --separate-stderr env LD_PRELOAD="$SHIM" timeout "$TMO" java \
		-XX:HeapDumpGzipLevel=1 -cp "$B/java" HeapBuilder mxbean "$T/d/mx.hprof"
	assert_success
	assert_stripped_dump "$T/d/mx.hprof"
	[ -s "$T/d/mx.hprof.histo" ]
}
