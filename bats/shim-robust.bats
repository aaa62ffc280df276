#!/usr/bin/env bats
# Shim robustness (issue 3): tests/shimstress.c run in-process under the
# shim, built four ways so that every entry point the shim wraps is called:
# plain (open, lseek, pwrite...), -D_FILE_OFFSET_BITS=64 (open64, lseek64,
# pwrite64, fcntl64...), -D_FORTIFY_SOURCE=2 (__open_2, __openat_2) and
# both (__open64_2, __openat64_2). Each check also runs without the shim,
# where a tracked dump must come out as the input, so the driver checks
# itself. Files that do not match: byte-identical, and the same syscalls
# on them (strace -P) with and without the shim.
#
# shimstress hosts no runtime and writes the corpus's dumps, with their old
# stamps: under the shim it is named in HPROFSTRIP_PROGRAMS, as a program
# that strips every dump it writes (adb pulling one), unless a test is about
# a process that hosts a runtime (a stub preloaded: it strips its own
# dumps, stamped since it began, so it writes fresh_dump's) or about any
# other process (never looked at).

load common

bats_require_minimum_version 1.5.0

BUILDS="shimstress shimstress-lfs shimstress-fortify shimstress-fortify64"

setup_file() {
	# test drivers, not among make all's: built here (a suite run alone has them)
	build_tests $BUILDS replay libfaultinject.so
}

setup() {
	local b
	for b in $BUILDS; do
		[ -x "$B/$b" ] || fail "$B/$b is missing: run make $BUILD/$b"
	done
	[ -x "$STRIP" ] && [ -r "$SHIM" ] || fail "run make"
	IN=$CORPUS/hotspot/jdk8-u05-x64.hprof
	ART=$CORPUS/art/art-host-2025.hprof
	[ -r "$IN" ] && [ -r "$ART" ] || fail "no corpus in $CORPUS"
	T=$BATS_TEST_TMPDIR
	EXP=$BATS_FILE_TMPDIR/exp.hprof
	[ -s "$EXP" ] || "$STRIP" -o "$EXP" "$IN"
}

# stress BUILD TEST [ARG]: shimstress TEST under the shim, named in
# HPROFSTRIP_PROGRAMS (EXP: stripped), and without it (EXP: the input),
# each in a fresh directory
stress() {
	local b=$1 t=$2 in=${IN_OVERRIDE:-$IN} exp=${EXP_OVERRIDE:-$EXP}
	shift 2
	rm -rf "$T/d" && mkdir "$T/d"
	run -0 "$B/$b" "$t" "$in" "$in" "$T/d" "$@"
	rm -rf "$T/d" && mkdir "$T/d"
	run -0 --separate-stderr env HPROFSTRIP_PROGRAMS="$b" LD_PRELOAD="$SHIM" \
		"$B/$b" "$t" "$in" "$exp" "$T/d" "$@"
}

# not_cut BUILD: the last stress's shim cut no dump short (a bare
# "! grep" would not fail the test)
not_cut() {
	if grep 'stream ended\|writing the rest unchanged' <<<"$stderr"; then
		fail "$1: a dump was cut short"
	fi
}

@test "the builds call the names the shim wraps" {
	undef() { nm -D --undefined-only "$B/$1" | awk '{ sub(/@.*/, "", $2); print $2 }'; }
	run undef shimstress
	assert_line open
	assert_line lseek
	assert_line pwrite
	run undef shimstress-lfs
	assert_line open64
	assert_line openat64
	assert_line lseek64
	assert_line pwrite64
	assert_line pwritev64
	assert_line creat64
	assert_line ftruncate64
	assert_line sendfile64
	run undef shimstress-fortify
	assert_line __open_2
	assert_line __openat_2
	run undef shimstress-fortify64
	assert_line __open64_2
	assert_line __openat64_2
	# and the shim exports every one of them
	run nm -D --defined-only "$SHIM"
	local f
	for f in open open64 openat openat64 __open_2 __open64_2 __openat_2 \
		__openat64_2 creat creat64 write writev pwrite pwrite64 pwritev \
		pwritev64 lseek lseek64 ftruncate ftruncate64 sendfile sendfile64 \
		copy_file_range close dup dup2 dup3 fcntl fcntl64; do
		assert_line --regexp " T $f\$"
	done
}

@test "8 threads write one dump, a mutex around each write, in order" {
	local b
	for b in $BUILDS; do
		stress "$b" threads
	done
	IN_OVERRIDE=$ART EXP_OVERRIDE=$BATS_FILE_TMPDIR/art.exp
	"$STRIP" -o "$EXP_OVERRIDE" "$ART"
	stress shimstress threads
}

@test "6 dumps written at once from 6 threads" {
	local b
	for b in $BUILDS; do
		stress "$b" concurrent 6
		assert_output "shimstress: concurrent: exp 6 in 0
shimstress: concurrent: ok"
	done
}

@test "20 dumps at once: 16 stripped, 4 written unchanged, and said so" {
	stress shimstress concurrent 20
	assert_line "shimstress: concurrent: exp 16 in 4"
	[ "$(grep -c 'too many dumps open at once; written unstripped' <<<"$stderr")" = 4 ]
}

@test "two writers of a file judged no dump: the second writes after the first, not over it" {
	# FAULT=slowunlock holds each unlocker 20 ms after it lets a lock go:
	# the writer that waited for the let-go session's lock ran there
	# before its fds were dropped, and wrote at offset 0 (16 bytes left)
	local fi="$B/libfaultinject.so"
	[ -r "$fi" ] || fail "run make $fi"
	rm -rf "$T/d" && mkdir "$T/d"
	run -0 --separate-stderr env HPROFSTRIP_PROGRAMS=shimstress \
		LD_PRELOAD="$SHIM $fi" FAULT=slowunlock \
		"$B/shimstress" letgo "$IN" "$IN" "$T/d" 20
	assert_output "shimstress: letgo: ok"
	[ "$(grep -c 'not an HPROF dump: written unchanged' <<<"$stderr")" = 20 ]
	rm -rf "$T/d" && mkdir "$T/d"
	run -0 --separate-stderr env HPROFSTRIP_PROGRAMS=shimstress \
		LD_PRELOAD="$SHIM" "$B/shimstress" letgo "$IN" "$IN" "$T/d" 300
	assert_output "shimstress: letgo: ok"
}

@test "HPROFSTRIP_REDACT, the 17th dump refused at fds 32-63 mod 64 (and 0-31): its writes fail, a bystander's at fd - 32 never do" {
	local f
	for f in 96 104 127 160 191; do
		rm -rf "$T/d" && mkdir "$T/d"
		run -0 "$B/shimstress" refused "$IN" "$IN" "$T/d" "$f"
		assert_line "shimstress: refused: dump fd $f: written, bystander fd $((f - 32)): written"
		rm -rf "$T/d" && mkdir "$T/d"
		run -0 --separate-stderr env HPROFSTRIP_PROGRAMS=shimstress HPROFSTRIP_REDACT=values \
			LD_PRELOAD="$SHIM" "$B/shimstress" refused "$IN" "$IN" "$T/d" "$f"
		assert_line "shimstress: refused: dump fd $f: EPERM, bystander fd $((f - 32)): written"
		[ ! -e "$T/d/d17.hprof" ] || fail "fd $f: the refused dump's file is left"
		[ "$(cat "$T/d/bystander.log")" = bytes ] || fail "fd $f: the bystander's line is not there"
	done
}

@test "what the shim holds open for a dump (names map, compressor, filter, inflater) is close-on-exec" {
	local e min
	gzip -1c "$IN" >"$T/in.gz"
	for e in "HPROFSTRIP_REDACT=names 1" "HPROFSTRIP_COMPRESS=zstd 2" \
		"HPROFSTRIP_FILTER=cat>/dev/null 2" "HPROFSTRIP_HISTO=1 0"; do
		min=${e##* }
		rm -rf "$T/d" && mkdir "$T/d"
		run -0 --separate-stderr env HPROFSTRIP_PROGRAMS=shimstress "${e% *}" \
			LD_PRELOAD="$SHIM" "$B/shimstress" cloexec "$IN" "$IN" "$T/d"
		assert_line --regexp '^shimstress: cloexec: [0-9]+ other fds, all close-on-exec$'
		[ "$(sed -n 's/^shimstress: cloexec: \([0-9]*\) other.*/\1/p' <<<"$output")" -ge "$min" ] ||
			fail "${e% *}: fewer than $min fds held: nothing was checked"
	done
	# a runtime's gzip dump: the inflater's and the compressor's fds
	rm -rf "$T/d" && mkdir "$T/d"
	run -0 --separate-stderr env HPROFSTRIP_PROGRAMS=shimstress \
		LD_PRELOAD="$SHIM" "$B/shimstress" cloexec "$T/in.gz" "$T/in.gz" "$T/d"
	assert_line --regexp '^shimstress: cloexec: [2-9] other fds, all close-on-exec$'
	assert_regex "$stderr" 'wrote the stripped dump in its place'
}

@test "a close that waits for its filter holds up no other thread's open, write or fork" {
	rm -rf "$T/d" && mkdir "$T/d"
	run -0 --separate-stderr env HPROFSTRIP_PROGRAMS=shimstress \
		LD_PRELOAD="$SHIM" HPROFSTRIP_FILTER='cat >/dev/null; sleep 3' \
		"$B/shimstress" closewait "$IN" "$IN" "$T/d" 1000
	assert_line "shimstress: closewait: ok"
	# the close did wait for its filter (else nothing was measured)
	local ms
	ms=$(sed -n 's/^shimstress: closewait: close \([0-9]*\) ms.*/\1/p' <<<"$output")
	[ "$ms" -ge 2500 ] || fail "the close took $ms ms: its filter was not waited for"
	[ "$(grep -c 'HPROFSTRIP_FILTER took it' <<<"$stderr")" = 2 ]
}

@test "fork mid-dump: the child's close leaves the parent's dump alone, the child's own dump is stripped" {
	local b
	for b in $BUILDS; do
		stress "$b" fork
		# only the parent ends its dumps; the child ends only its own
		# (the shim speaks on stderr; every build is checked)
		[ "$(grep -c 'parent.hprof: .* bytes in' <<<"$stderr")" = 1 ] ||
			fail "$b: parent's summary: $stderr"
		[ "$(grep -c 'child.hprof: .* bytes in' <<<"$stderr")" = 1 ] ||
			fail "$b: child's summary: $stderr"
		not_cut "$b"
	done
}

@test "vfork mid-dump: the child's close (shared memory) leaves the dump alone" {
	local b
	for b in $BUILDS; do
		stress "$b" vfork
		not_cut "$b"
	done
}

@test "a reused fd number is untouched, also after a close the shim never saw" {
	local b
	for b in $BUILDS; do
		stress "$b" reuse
		[ "$(grep -c "closed behind the shim's back" <<<"$stderr")" = 40 ]
	done
}

@test "dup2 and dup3 onto and from a tracked fd" {
	local b
	for b in $BUILDS; do
		stress "$b" dup2
	done
}

@test "errno: failures as without the shim, untouched by successful calls" {
	local b
	for b in $BUILDS; do
		stress "$b" errno
	done
}

@test "errno: a sniffed dump's first write, the process's first decision, keeps it" {
	# a level out of range: the policy, parsed at that first write, sets
	# errno while reading the number (and says the value is not known)
	export HPROFSTRIP_COMPRESS=zstd:99
	local b
	for b in $BUILDS; do
		stress "$b" keeperrno raw
	done
}

@test "lseek answers the offsets of the dump the program writes" {
	local b
	for b in $BUILDS; do
		stress "$b" lseek
	done
}

@test "every open call is intercepted (sniffing off, so only the open can track); the .histo lands beside the dump, also after openat with a dirfd" {
	local b how
	export HPROFSTRIP_SNIFF=0
	# (run from another directory: a name relative to the dirfd once
	# put the .histo in the cwd)
	mkdir "$T/cwd"
	cd "$T/cwd"
	for b in $BUILDS; do
		for how in open open2 openat openat2 creat open+pwrite openat2+writev; do
			stress "$b" write "$how:w.hprof"
			[ -s "$T/d/w.hprof.histo" ] || fail "$b $how: no .histo beside the dump"
			[ -z "$(ls -A "$T/cwd")" ] || fail "$b $how: $(ls -A "$T/cwd") in the cwd"
		done
	done
}

# one BUILD NAME EXPECTED: shimstress write under the shim (environment as
# set), NAME's output must be EXPECTED (exp: stripped, in: unchanged).
# RUNTIME: a runtime stub preloaded too (the process hosts a runtime); it
# writes a dump stamped as its own then (fresh_dump of IN).
one() {
	local b=$1 name=$2 want=$3 in=$IN exp=$EXP
	if [ -n "${RUNTIME:-}" ]; then
		in=$T/fresh.hprof exp=$T/fresh.exp
		if [ ! -s "$exp" ]; then
			fresh_dump "$IN" "$in"
			"$STRIP" -o "$exp" "$in"
		fi
	fi
	mkdir -p "$T/d/$(dirname "$name")"
	case $want in
	exp) want=$exp ;;
	in) want=$in ;;
	esac
	run -0 --separate-stderr env LD_PRELOAD="$SHIM ${RUNTIME:-}" "$B/$b" write "$in" "$want" "$T/d" "$name"
}

@test "HPROFSTRIP_PATTERN: several globs, replacing the default" {
	rm -rf "$T/d"
	export HPROFSTRIP_SNIFF=0 HPROFSTRIP_PATTERN='::*.dump:heap-*.bin::*/sub/*.dat:'
	export HPROFSTRIP_PROGRAMS='shimstress*'
	one shimstress a.dump exp
	one shimstress heap-7.bin exp
	one shimstress sub/x.dat exp
	one shimstress x.dat in
	one shimstress other.bin in
	one shimstress a.hprof in
	one shimstress-lfs openat:b.dump exp
	one shimstress-fortify open2:c.dump exp
}

@test "HPROFSTRIP_PATTERN: a basename glob, a full-path glob, relative paths" {
	rm -rf "$T/d"
	mkdir -p "$T/d/only"
	export HPROFSTRIP_SNIFF=0 HPROFSTRIP_PROGRAMS='shimstress*'
	HPROFSTRIP_PATTERN='heap.dat' one shimstress heap.dat exp
	HPROFSTRIP_PATTERN='heap.dat' one shimstress only/heap.dat exp
	HPROFSTRIP_PATTERN="$T/d/only/*.bin" one shimstress only/x.bin exp
	HPROFSTRIP_PATTERN="$T/d/only/*.bin" one shimstress x.bin in
	HPROFSTRIP_PATTERN="$T/d/only/*.bin" one shimstress-fortify64 openat2:only/y.bin exp
	# the program opens relative paths; the pattern names the directory
	cd "$T/d/only"
	HPROFSTRIP_PATTERN="$T/d/only/*.bin" run -0 env LD_PRELOAD="$SHIM" \
		"$B/shimstress" write "$IN" "$EXP" . rel.bin
	HPROFSTRIP_PATTERN="$T/d/only/*.bin" run -0 env LD_PRELOAD="$SHIM" \
		"$B/shimstress" write "$IN" "$EXP" . openat:rel2.bin
	HPROFSTRIP_PATTERN="$T/other/*.bin" run -0 env LD_PRELOAD="$SHIM" \
		"$B/shimstress" write "$IN" "$IN" . rel3.bin
}

@test "HPROFSTRIP_SNIFF: a dump in a file opened where the shim cannot see" {
	rm -rf "$T/d"
	# in a process that hosts a runtime (the stub stands for libart.so),
	# opened behind the shim (as an fd from am dumpheap): sniffed
	RUNTIME=$B/stub/libart.so one shimstress raw:out.bin exp
	RUNTIME=$B/stub/libart.so one shimstress raw+pwrite:out2.bin exp
	RUNTIME=$B/stub/libart.so one shimstress raw+writev:out3.bin exp
	HPROFSTRIP_SNIFF=0 RUNTIME=$B/stub/libart.so one shimstress raw:out4.bin in
	HPROFSTRIP_SNIFF=0 RUNTIME=$B/stub/libart.so one shimstress raw+pwrite:out5.bin in
	# and created there under a name that does not match (jmap's heap.bin)
	RUNTIME=$B/stub/libjvm.so one shimstress out6.bin exp
	RUNTIME=$B/stub/libjvm.so one shimstress open+pwrite:out7.bin exp
	RUNTIME=$B/stub/libjvm.so one shimstress creat+writev:out8.bin exp
	HPROFSTRIP_SNIFF=0 RUNTIME=$B/stub/libjvm.so one shimstress out9.bin in
	# in any other process (cat, cp of a dump): never
	one shimstress raw:out10.bin in
	one shimstress out11.bin in
	one shimstress open+pwrite:out12.bin in
	# nor, in a runtime's process, a copy of an older dump (the corpus's
	# own stamp), whatever its name: written unchanged, said once
	local made
	made=$(date -u -d @$(( 0x$(od -An -tx1 -j 23 -N 8 "$IN" | tr -d ' \n') / 1000 )) '+%Y-%m-%d %H:%M:%S')
	run -0 --separate-stderr env LD_PRELOAD="$SHIM $B/stub/libart.so" \
		"$B/shimstress" write "$IN" "$IN" "$T/d" raw:out13.bin
	assert_equal "$stderr" "hprofstrip: $T/d/out13.bin: a copy of a dump made $made UTC, before this process began: written unchanged"
	run -0 --separate-stderr env LD_PRELOAD="$SHIM $B/stub/libjvm.so" \
		"$B/shimstress" write "$IN" "$IN" "$T/d" out14.hprof
	assert_equal "$stderr" "hprofstrip: $T/d/out14.hprof: a copy of a dump made $made UTC, before this process began: written unchanged"
	# ... but named in HPROFSTRIP_PROGRAMS, hosting none, stripped
	HPROFSTRIP_PROGRAMS=shimstress one shimstress raw:out15.bin exp
	HPROFSTRIP_PROGRAMS=shimstress one shimstress out16.hprof exp
}

@test "a dump opened and closed without a write is left as it was (touch)" {
	cp "$IN" "$T/old.hprof"
	chmod u+w "$T/old.hprof"
	# touch named a program that strips its dumps: the shim looks at it
	export HPROFSTRIP_PROGRAMS=touch
	run -0 --separate-stderr env LD_PRELOAD="$SHIM_HOST" touch "$T/old.hprof"
	[ -z "$stderr" ]
	cmp "$IN" "$T/old.hprof"
	run -0 --separate-stderr env LD_PRELOAD="$SHIM_HOST" touch "$T/new.hprof"
	[ -z "$stderr" ]
	[ ! -s "$T/new.hprof" ]
}

@test "HPROFSTRIP_QUIET and HPROFSTRIP_LOG" {
	rm -rf "$T/d"
	export HPROFSTRIP_PROGRAMS=shimstress
	local sum='bytes in, 1343235 bytes out (73.9%), 4965 arrays stripped'
	# and the top three classes, the histogram's (HPROFSTRIP_HISTO)
	sum+='; top classes by bytes: [C 39.0%, [Ljava.lang.Object; 12.9%, [I 11.5%; top application class: org.eclipse.mat.tests.CreateCollectionDump$EmptyListCollectionTestData 24 B (0.0%)'
	one shimstress q1.hprof exp
	[ "$stderr" = "hprofstrip: $T/d/q1.hprof: 1816527 $sum (all in q1.hprof.histo)" ]
	HPROFSTRIP_QUIET=1 one shimstress q2.hprof exp
	[ -z "$stderr" ]
	HPROFSTRIP_LOG=$T/log one shimstress q3.hprof exp
	[ -z "$stderr" ]
	[ "$(cat "$T/log")" = "hprofstrip: $T/d/q3.hprof: 1816527 $sum (all in q3.hprof.histo)" ]
	HPROFSTRIP_LOG=$T/log one shimstress q4.hprof exp
	[ "$(wc -l <"$T/log")" = 2 ]
	HPROFSTRIP_QUIET=1 HPROFSTRIP_LOG=$T/log2 one shimstress q5.hprof exp
	[ -z "$stderr" ]
	[ ! -e "$T/log2" ]
	# a log that cannot be opened: said, and stderr after all
	HPROFSTRIP_LOG=$T/no/such/dir/log one shimstress q6.hprof exp
	[ "$stderr" = "hprofstrip: HPROFSTRIP_LOG: $T/no/such/dir/log: No such file or directory; messages go to stderr
hprofstrip: $T/d/q6.hprof: 1816527 $sum (all in q6.hprof.histo)" ]
}

# trace BUILD ARG WHO: strace the plain test, only the calls that touch its
# files (-P), with or without the shim
trace() {
	local b=$1 arg=$2 who=$3 d=$T/p.$who f paths=()
	rm -rf "$d" && mkdir "$d"
	for f in a.txt b.bin c.hprof d.dat; do paths+=(-P "$d/$f"); done
	if [ "$who" = shim ]; then
		strace -qq -o "$T/trace.$who" -e trace=%desc,%file "${paths[@]}" \
			-E LD_PRELOAD="$SHIM" "$B/$b" plain x x "$d" $arg
	else
		strace -qq -o "$T/trace.$who" -e trace=%desc,%file "${paths[@]}" \
			"$B/$b" plain x x "$d" $arg
	fi
	# the directory name differs between the two runs
	sed -i "s|$d/|DIR/|g" "$T/trace.$who"
}

@test "files that do not match: byte-identical, the same syscalls with and without the shim" {
	command -v strace >/dev/null || fail "strace not installed (apt-get install strace, or make deps)"
	strace -qq -o /dev/null true 2>"$T/strace.err" ||
		fail "strace cannot trace here (ptrace not permitted? in a container: --cap-add SYS_PTRACE): $(cat "$T/strace.err")"
	local b
	for b in $BUILDS; do
		trace "$b" "" none
		# named: the shim looks at every file the program writes
		HPROFSTRIP_PROGRAMS=$b trace "$b" "" shim
		diff "$T/trace.none" "$T/trace.shim" || fail "$b: different syscalls"
		# the trace saw the work
		[ "$(grep -c '^write(' "$T/trace.none")" -gt 5 ]
		grep -q '^sendfile' "$T/trace.none"
		grep -q '^pwritev' "$T/trace.none"
		# dump-like data, in a program that hosts no runtime and is not
		# named: never sniffed
		trace "$b" magic none
		trace "$b" magic shim
		diff "$T/trace.none" "$T/trace.shim" || fail "$b magic: different syscalls"
		# named, with sniffing off: the names alone, and these do not match
		HPROFSTRIP_PROGRAMS=$b HPROFSTRIP_SNIFF=0 trace "$b" magic shim
		diff "$T/trace.none" "$T/trace.shim" || fail "$b magic, no sniffing: different syscalls"
	done
}

@test "the caller's HPROFSTRIP_* settings and LD_PRELOAD change no result" {
	# exported by the user's shell: the shim's summary line (which the
	# tests look for) would go, and no dump would match. Every entry point
	# clears them: tests/ports.sh...
	run -0 env HPROFSTRIP_QUIET=1 HPROFSTRIP_PATTERN='*.nothing' \
		HPROFSTRIP_SNIFF=0 HPROFSTRIP_LOG="$T/no/log" LD_PRELOAD="$SHIM" \
		"$ROOT/tests/ports.sh" shim-replay "$B"
	assert_line --regexp '^[1-9][0-9]* passed, 0 failed$'
	# ...and bats/common.bash, for bats run by hand (the test that reads
	# the shim's summary line)
	run -0 env HPROFSTRIP_QUIET=1 HPROFSTRIP_PATTERN='*.nothing' \
		HPROFSTRIP_LOG="$T/no/log" BUILD="$B" \
		bats -f '^HPROFSTRIP_QUIET and HPROFSTRIP_LOG$' "$BATS_TEST_FILENAME"
	assert_line 'ok 1 HPROFSTRIP_QUIET and HPROFSTRIP_LOG'
	# ...and tests/run-bats.sh (the caller's LD_PRELOAD ends there)
	printf '%s\n' '@test "env" { echo "[${LD_PRELOAD:-}] [${HPROFSTRIP_QUIET:-}]"; false; }' \
		>"$T/env.bats"
	run env HPROFSTRIP_QUIET=1 LD_PRELOAD="$SHIM_HOST" "$ROOT/tests/run-bats.sh" "$T/env.bats"
	assert_line '# [] []'
}

@test "a process that loads the shim carries no session until a dump starts: the shim's .bss is under 256 KiB (the fd table; each session, about 150 KiB, is mapped when a dump needs it)" {
	command -v size >/dev/null || fail "size (binutils) not installed"
	run size -A "$SHIM"
	assert_success
	bss=$(awk '$1 == ".bss" { print $2 }' <<<"$output")
	[ -n "$bss" ] || fail "no .bss in: $output"
	[ "$bss" -lt 262144 ] || fail ".bss is $bss bytes"
}

# (issue 31) LD_DEBUG=bindings lists each symbol ld.so binds, dlsym's
# lookups too: the shim's own lookups of libc's functions show as bindings
# from libhprofstrip.so to libc.so.6. Before the lookups were lazy, the
# constructor made all 29 in every process.
@test "free for bystanders: a process that calls no wrapped function asks dlsym for none of libc's; one that writes asks for what it calls, once" {
	wrapped='open|open64|openat|openat64|__open_2|__open64_2|__openat_2|__openat64_2|creat|creat64|write|writev|pwrite|pwrite64|pwritev|pwritev64|lseek|lseek64|close|dup|dup2|dup3|fcntl|fcntl64|ftruncate|ftruncate64|sendfile|sendfile64|copy_file_range'
	lookups() {
		grep -E "binding file [^ ]*libhprofstrip\.so \[0\] to [^ ]*libc\.so\.6 \[0\]: normal symbol \`($wrapped)'" |
			sed "s/.*symbol \`\([^']*\)'.*/\1/" | sort | tr '\n' ' '
	}
	LD_DEBUG=bindings LD_PRELOAD="$SHIM_HOST" /bin/true 2>"$BATS_TEST_TMPDIR/true.log"
	grep -q "libhprofstrip.so" "$BATS_TEST_TMPDIR/true.log" ||
		fail "LD_DEBUG shows no binding of the shim at all (not glibc?)"
	[ -z "$(lookups <"$BATS_TEST_TMPDIR/true.log")" ] ||
		fail "/bin/true looked up: $(lookups <"$BATS_TEST_TMPDIR/true.log")"
	# a writer: its writes and its close, each looked up once, nothing else
	LD_DEBUG=bindings LD_PRELOAD="$SHIM_HOST" sh -c \
		'for i in 1 2 3; do echo $i >"$1"; done' sh "$BATS_TEST_TMPDIR/f" \
		2>"$BATS_TEST_TMPDIR/sh.log"
	got=$(lookups <"$BATS_TEST_TMPDIR/sh.log")
	[[ " $got" == *" write "* ]] || fail "sh's write not looked up: $got"
	[[ "$got" != *sendfile* && "$got" != *copy_file_range* && "$got" != *pwritev* ]] ||
		fail "looked up what sh never calls: $got"
	[ "$(grep -o ' write ' <<<" $got " | wc -l)" = 1 ] ||
		fail "write looked up more than once: $got"
	[ "$(cat "$BATS_TEST_TMPDIR/f")" = 3 ] || fail "sh's file is wrong"
}
