#!/usr/bin/env bats
# The shim's class histogram (issue 29): when a dump closes, <dump>.histo
# beside it, in jmap -histo's layout, counted in the pass that strips;
# 0600, never replacing a file; written when a compressor or filter takes
# the dump; tokens for names under HPROFSTRIP_REDACT=names; marked cut
# for a dump that ends cut (closed mid-record, or open when the process
# exits); HPROFSTRIP_HISTO=no (hprofstrip-run --no-histo) turns it off.
# The close line names the top three classes by bytes. Under every
# runtime's write pattern (the replay driver) the .histo is hprofstrip
# --histo's of the dump the runtime wrote, byte for byte. No memory for
# the tables, or a .histo that cannot be written, changes nothing else.

load common

bats_require_minimum_version 1.5.0

TMO=${HISTO_TIMEOUT:-120}
FI=$B/libfaultinject.so
RUN=$B/hprofstrip-run
HEADER=' num     #instances         #bytes  class name'

setup_file() {
	# test drivers, not among make all's: built here (a suite run alone has them)
	build_tests replay oracle libfaultinject.so
	"$JUDGE" build >&2
}

setup() {
	T=$BATS_TEST_TMPDIR
	F=$CORPUS/hotspot/jdk11-string.hprof
}

# want IN: hprofstrip --histo of IN (the unstripped dump), made once per
# test file
want() {
	local w
	w=$BATS_FILE_TMPDIR/$(basename "$1").histo
	[ -s "$w" ] || "$STRIP" --histo -o "$w" "$1"
	echo "$w"
}

# the close line of dump $1 in file $2
close_line() {
	grep "^hprofstrip: $1: [0-9]* bytes in, " "$2"
}

# check_top LINE HISTO: LINE ends with the top three classes by bytes, the
# first three rows of HISTO, each with one decimal; then, when none of
# them is an application's class, the first row of HISTO that is (not an
# array, nor of the runtime's packages); and names HISTO's file
check_top() {
	local line=$1 h=$2 names app re
	names=$(grep -v '^#' "$h" | sed -n '3,5p' | awk '{ print $4 }' | paste -sd '|')
	app=$(grep -v '^#' "$h" | awk 'NR > 2 && $1 ~ /:$/ { print $4 }' |
		grep -Ev '^(\[|<)|^(java|javax|jdk|sun|com\.sun|android|com\.android|dalvik|libcore|org\.apache\.harmony|org\.w3c|org\.xml)\.' |
		head -n 1)
	re='; top classes by bytes: ([^ ]+) [0-9]+\.[0-9]%, ([^ ]+) [0-9]+\.[0-9]%, ([^ ]+) [0-9]+\.[0-9]%(; top application class: ([^ ]+) [0-9.]+ [KMG]?B \([0-9]+\.[0-9]%\))? \(all in ([^ ]+)\)$'
	[[ $line =~ $re ]] || fail "no top three on: $line"
	assert_equal "${BASH_REMATCH[1]}|${BASH_REMATCH[2]}|${BASH_REMATCH[3]}" "$names"
	if [[ "|$names|" == *"|$app|"* ]]; then
		assert_equal "${BASH_REMATCH[5]}" ""
	else
		assert_equal "${BASH_REMATCH[5]}" "$app"
	fi
	assert_equal "${BASH_REMATCH[6]}" "$(basename "$h")"
}

# a well-formed .histo: 0600, jmap's header, rows, a Total
check_histo() {
	[ -f "$1" ] || fail "no $1"
	assert_equal "$(stat -c %a "$1")" 600
	assert_equal "$(sed -n 1p "$1")" "$HEADER"
	grep -Eq '^ +1: +[0-9]+ +[0-9]+  [^ ]+$' "$1" || fail "no rows in $1"
	grep -Eq '^Total +[1-9][0-9]* +[1-9][0-9]*$' "$1" || fail "no Total in $1"
}

# ---- a real JVM ---------------------------------------------------------

@test "JVM: an OOM dump gets DUMP.histo (0600, HeapBuilder's 12345 markers in it), the close line its top three" {
	LD_PRELOAD=$SHIM timeout "$TMO" java -Xmx64m -XX:+HeapDumpOnOutOfMemoryError \
		-XX:HeapDumpPath="$T/oom.hprof" -cp "$B/java" HeapBuilder oom 2>"$T/err"
	check_histo "$T/oom.hprof.histo"
	grep -Eq '^ +[0-9]+: +12345 +[0-9]+  HeapBuilder\$Marker$' "$T/oom.hprof.histo" ||
		fail "no row of 12345 HeapBuilder\$Marker: $(grep Marker "$T/oom.hprof.histo")"
	check_top "$(close_line "$T/oom.hprof" "$T/err")" "$T/oom.hprof.histo"
	# the offline histogram of the restored dump is the same
	"$RESTORE" -o "$T/r.hprof" "$T/oom.hprof"
	"$STRIP" --histo -o "$T/r.histo" "$T/r.hprof"
	cmp_histo "$T/r.histo" "$T/oom.hprof.histo" oom.hprof "$T/oom.hprof"
}

@test "JVM: an existing DUMP.histo that is no dump's (or a symlink) is never replaced nor followed: the histogram goes to DUMP.histo.1, said once; the dump is stripped all the same" {
	printf 'old\n' >"$T/mx.hprof.histo"
	chmod 644 "$T/mx.hprof.histo"
	ln -s "$T/target" "$T/sl.hprof.histo"
	LD_PRELOAD=$SHIM timeout "$TMO" java -cp "$B/java" HeapBuilder mxbean \
		"$T/mx.hprof" 2>"$T/err"
	LD_PRELOAD=$SHIM timeout "$TMO" java -cp "$B/java" HeapBuilder mxbean \
		"$T/sl.hprof" 2>>"$T/err"
	assert_equal "$(cat "$T/mx.hprof.histo")" old
	assert_equal "$(stat -c %a "$T/mx.hprof.histo")" 644
	[ ! -e "$T/target" ] || fail "the symlink was followed"
	assert_equal "$(grep -c "mx.hprof.histo holds" "$T/err")" 1
	grep -q "^hprofstrip: $T/mx.hprof: $T/mx.hprof.histo holds a file of no dump the shim can tell: this dump's histogram is $T/mx.hprof.histo.1$" "$T/err"
	grep -q "^hprofstrip: $T/sl.hprof: $T/sl.hprof.histo holds a file of no dump the shim can tell: this dump's histogram is $T/sl.hprof.histo.1$" "$T/err"
	check_histo "$T/mx.hprof.histo.1"
	check_histo "$T/sl.hprof.histo.1"
	grep -q "^hprofstrip: $T/mx.hprof: .* arrays stripped; top classes by bytes: .* (all in mx.hprof.histo.1)$" "$T/err"
	"$STRIP" --info "$T/mx.hprof" | grep -q PRIMITIVE_ARRAY_NODATA
}

@test "a stale .histo: replaced when its dump is gone or is this one written again; numbered when its dump is still there; each said" {
	local e
	# the dump of an earlier run is gone: its .histo is replaced
	HPROFSTRIP_QUIET=1 LD_PRELOAD=$SHIM "$REPLAY" threads "$F" "$T/a.hprof"
	cp "$T/a.hprof.histo" "$T/first.histo"
	rm "$T/a.hprof"
	LD_PRELOAD=$SHIM "$REPLAY" threads "$F" "$T/a.hprof" 2>"$T/err"
	e=$(sed -n 's/^# dump: a.hprof, stamped \([0-9]*\) .*/\1/p' "$T/first.histo")
	grep -q "^hprofstrip: $T/a.hprof: $T/a.hprof.histo held the histogram of an earlier dump that is gone, a.hprof stamped $e: it is replaced$" "$T/err" ||
		fail "not said: $(cat "$T/err")"
	cmp_histo "$(want "$F")" "$T/a.hprof.histo" a.hprof "$T/a.hprof"
	[ ! -e "$T/a.hprof.histo.1" ] && [ -z "$(ls "$T" | grep hprofstrip~)" ] ||
		fail "left: $(ls "$T")"
	# another dump in its place (the runtime wrote over it): replaced too
	cp "$T/a.hprof.histo" "$T/second.histo"
	LD_PRELOAD=$SHIM "$REPLAY" random "$F" "$T/b.hprof" 2>/dev/null
	cp "$T/second.histo" "$T/b.hprof.histo"
	sed -i 's/^# dump: a.hprof, /# dump: b.hprof, /' "$T/b.hprof.histo"
	rm -f "$T/b.hprof"
	LD_PRELOAD=$SHIM "$REPLAY" threads "$F" "$T/b.hprof" 2>"$T/err"
	grep -q "$T/b.hprof.histo held the histogram of an earlier dump that is gone" "$T/err" ||
		fail "not said: $(cat "$T/err")"
	# the histogram of a dump that is still there: kept, this one numbered
	cp "$T/a.hprof.histo" "$T/keep.histo"
	cp "$T/a.hprof.histo" "$T/c.hprof.histo"
	LD_PRELOAD=$SHIM "$REPLAY" threads "$F" "$T/c.hprof" 2>"$T/err"
	cmp "$T/keep.histo" "$T/c.hprof.histo"
	grep -q "^hprofstrip: $T/c.hprof: $T/c.hprof.histo holds the histogram of a.hprof, another dump that is still there: this dump's histogram is $T/c.hprof.histo.1$" "$T/err" ||
		fail "not said: $(cat "$T/err")"
	cmp_histo "$(want "$F")" "$T/c.hprof.histo.1" c.hprof "$T/c.hprof"
	# a second one: .2
	rm "$T/c.hprof"
	cp "$T/a.hprof.histo" "$T/c.hprof.histo"
	HPROFSTRIP_QUIET=1 LD_PRELOAD=$SHIM "$REPLAY" threads "$F" "$T/c.hprof"
	[ -s "$T/c.hprof.histo.2" ] || fail "no .histo.2: $(ls "$T")"
}

@test "JVM: HPROFSTRIP_HISTO=no (hprofstrip-run --no-histo) gives no .histo and the close line as before" {
	HPROFSTRIP_HISTO=no LD_PRELOAD=$SHIM timeout "$TMO" java -cp "$B/java" \
		HeapBuilder mxbean "$T/no.hprof" 2>"$T/err"
	[ ! -e "$T/no.hprof.histo" ] || fail "a .histo with HPROFSTRIP_HISTO=no"
	close_line "$T/no.hprof" "$T/err" | grep -Eq ' arrays stripped$' ||
		fail "close line: $(cat "$T/err")"
	assert_stripped_dump "$T/no.hprof"
	# the launcher: --no-histo wins over the variable, --histo over it too
	HPROFSTRIP_LIB=$SHIM timeout "$TMO" "$RUN" --no-histo java -cp "$B/java" \
		HeapBuilder mxbean "$T/run.hprof" 2>"$T/err"
	[ ! -e "$T/run.hprof.histo" ] || fail "a .histo with --no-histo"
	HPROFSTRIP_HISTO=0 HPROFSTRIP_LIB=$SHIM timeout "$TMO" "$RUN" --histo \
		java -cp "$B/java" HeapBuilder mxbean "$T/on.hprof" 2>"$T/err"
	check_histo "$T/on.hprof.histo"
}

@test "JVM: with a compressor the .histo is DUMP.histo, beside DUMP.zst; with a filter too" {
	HPROFSTRIP_COMPRESS=zstd LD_PRELOAD=$SHIM timeout "$TMO" java -cp "$B/java" \
		HeapBuilder mxbean "$T/z.hprof" 2>"$T/err"
	[ -s "$T/z.hprof.zst" ] && [ ! -e "$T/z.hprof" ] || fail "no z.hprof.zst: $(cat "$T/err")"
	check_histo "$T/z.hprof.histo"
	grep -Eq '^ +[0-9]+: +12345 +[0-9]+  HeapBuilder\$Marker$' "$T/z.hprof.histo"
	check_top "$(close_line "$T/z.hprof" "$T/err")" "$T/z.hprof.histo"
	# it is the histogram of the dump the compressor took
	zstd -q -d -o "$T/z.out" "$T/z.hprof.zst"
	"$STRIP" --histo -o "$T/z.want" "$T/z.out"
	cmp_histo "$T/z.want" "$T/z.hprof.histo" z.hprof.zst
	# a filter that uploads the dump: the histogram stays
	HPROFSTRIP_FILTER='cat >"$HPROFSTRIP_PATH.up"' LD_PRELOAD=$SHIM timeout "$TMO" \
		java -cp "$B/java" HeapBuilder mxbean "$T/f.hprof" 2>"$T/err"
	[ -s "$T/f.hprof.up" ] || fail "the filter got nothing: $(cat "$T/err")"
	check_histo "$T/f.hprof.histo"
}

@test "JVM: HPROFSTRIP_REDACT=names: the .histo's names are the dump's tokens, never the originals" {
	HPROFSTRIP_REDACT=names LD_PRELOAD=$SHIM timeout "$TMO" java -cp "$B/java" \
		HeapBuilder mxbean "$T/n.hprof" 2>"$T/err"
	check_histo "$T/n.hprof.histo"
	! grep -q HeapBuilder "$T/n.hprof.histo" || fail "an original name: $(grep HeapBuilder "$T/n.hprof.histo")"
	# the markers' row, under its token, which is the dump's
	run grep -E '^ +[0-9]+: +12345 +[0-9]+  [^ ]+$' "$T/n.hprof.histo"
	assert_success
	tok=$(awk '{ print $4 }' <<<"$output")
	grep -qF "$tok" "$T/n.hprof" || fail "$tok is not in the dump"
	grep -qF 'HeapBuilder$Marker' "$T/n.hprof.names" || fail "no original in the map"
	# the offline histogram of the redacted dump: the same
	"$STRIP" --histo -o "$T/n.want" "$T/n.hprof"
	cmp_histo "$T/n.want" "$T/n.hprof.histo" n.hprof "$T/n.hprof"
}

# ---- every runtime's write pattern ------------------------------------

@test "replay: under every runtime's pattern the .histo is hprofstrip --histo's of the unstripped dump, byte for byte" {
	for f in $(corpus_files); do
		w=$(want "$f")
		for mode in random threads jdk8 jdk22 jdk25 art artcloexec pwrite writev; do
			out=$T/$mode.hprof
			rm -f "$out" "$out.histo"
			HPROFSTRIP_QUIET=1 LD_PRELOAD=$SHIM timeout 60 "$REPLAY" "$mode" "$f" "$out" 7 ||
				fail "$mode: replay failed on $f"
			cmp_histo "$w" "$out.histo" "$mode.hprof" "$out" || fail "$mode: $f"
			assert_equal "$(stat -c %a "$out.histo")" 600
		done
		rm -f "$T/j8.hprof" "$T/j8.hprof.histo"
		HPROFSTRIP_QUIET=1 REPLAY_JDK8_BUF=4096 LD_PRELOAD=$SHIM "$REPLAY" jdk8 "$f" "$T/j8.hprof"
		cmp_histo "$w" "$T/j8.hprof.histo" j8.hprof "$T/j8.hprof" || fail "jdk8 4096: $f"
	done
}

@test "replay: a dump written through a compressor, with no dump file left, gets the same .histo" {
	w=$(want "$F")
	for mode in threads jdk22 art; do
		rm -f "$T/c.hprof"*
		HPROFSTRIP_COMPRESS=zstd LD_PRELOAD=$SHIM "$REPLAY" "$mode" "$F" "$T/c.hprof" 2>"$T/err"
		[ -s "$T/c.hprof.zst" ] && [ ! -e "$T/c.hprof" ] || fail "$mode: $(cat "$T/err")"
		cmp_histo "$w" "$T/c.hprof.histo" c.hprof.zst || fail "$mode"
	done
}

@test "replay: two dumps in one process each get their own counts (the tables start from zero)" {
	w=$(want "$F")
	HPROFSTRIP_PROGRAMS=python3 LD_PRELOAD=$SHIM python3 - "$F" "$T" <<-'EOF'
		import os, sys
		d = open(sys.argv[1], 'rb').read()
		for name in ('a.hprof', 'b.hprof'):
		    fd = os.open(os.path.join(sys.argv[2], name),
		                 os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
		    for i in range(0, len(d), 65536):
		        os.write(fd, d[i:i + 65536])
		    os.close(fd)
	EOF
	cmp_histo "$w" "$T/a.hprof.histo" a.hprof "$T/a.hprof"
	cmp_histo "$w" "$T/b.hprof.histo" b.hprof "$T/b.hprof"
}

# ---- cut dumps ----------------------------------------------------------

# cut_rows HISTO: HISTO's lines but the notes after Total (where the dump
# was cut, which the shim and --salvage each say in their words)
cut_rows() {
	grep -v '^#' "$1"
}

@test "a dump closed mid-record gets the histogram of what came, marked cut where it ended" {
	head -c 2000000 "$F" >"$T/part.bin"
	HPROFSTRIP_PROGRAMS=dd LD_PRELOAD=$SHIM dd if="$F" of="$T/cut.hprof" \
		bs=1000000 count=2 status=none 2>"$T/err"
	check_histo "$T/cut.hprof.histo"
	run grep '^#' "$T/cut.hprof.histo"
	assert_line -n 0 "# cut: the dump could not be read past byte 2000000: these are the objects before it"
	assert_line -n 1 --regexp '^# dump: cut.hprof, stamped [0-9]+ '
	assert_equal "${#lines[@]}" 2
	# the rows are those of the bytes that came
	"$STRIP" --histo --salvage -o "$T/part.histo" "$T/part.bin"
	diff <(cut_rows "$T/part.histo") <(cut_rows "$T/cut.hprof.histo")
	# fewer objects than the whole dump's
	[ "$(awk '/^Total/ { print $2 }' "$T/cut.hprof.histo")" -lt \
	  "$(awk '/^Total/ { print $2 }' "$(want "$F")")" ]
}

@test "a process that exits with its dump open writes the histogram of what came, marked cut unless it ends whole, and says so" {
	HPROFSTRIP_PROGRAMS=python3 LD_PRELOAD=$SHIM python3 - "$F" "$T/open.hprof" 2>"$T/err" <<-'EOF'
		import os, sys
		d = open(sys.argv[1], 'rb').read()
		fd = os.open(sys.argv[2], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
		os.write(fd, d[:2000000])
		sys.exit(0)  # never closed
	EOF
	check_histo "$T/open.hprof.histo"
	run grep '^#' "$T/open.hprof.histo"
	assert_line -n 0 "# cut: the dump could not be read past byte 2000000: these are the objects before it"
	assert_line -n 1 --regexp '^# dump: open.hprof, stamped [0-9]+ '
	assert_equal "${#lines[@]}" 2
	run cat "$T/err"
	assert_output --regexp "^hprofstrip: $T/open.hprof: the process exits with the dump open, 2000000 bytes in; the histogram of what came is in $T/open.hprof.histo \(top classes by bytes: [^ ]+ [0-9]+\.[0-9]%, [^ ]+ [0-9]+\.[0-9]%, [^ ]+ [0-9]+\.[0-9]%(; top application class: [^ ]+ [0-9.]+ [KMG]?B \([0-9]+\.[0-9]%\))?\)$"
	# the whole dump, never closed: its histogram, not marked cut
	rm -f "$T/open.hprof"*
	HPROFSTRIP_PROGRAMS=python3 LD_PRELOAD=$SHIM python3 - "$F" "$T/open.hprof" 2>"$T/err" <<-'EOF'
		import os, sys
		d = open(sys.argv[1], 'rb').read()
		fd = os.open(sys.argv[2], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
		os.write(fd, d)
		sys.exit(0)  # never closed
	EOF
	"$STRIP" --histo "$F" >"$T/want.histo"
	cmp_histo "$T/want.histo" "$T/open.hprof.histo" open.hprof "$T/open.hprof"
	run cat "$T/err"
	assert_output --regexp "the histogram of it is in $T/open.hprof.histo"
	# killed (no exit handlers): none, and the dump is as far as it came
	rm -f "$T/open.hprof"*
	HPROFSTRIP_PROGRAMS=python3 LD_PRELOAD=$SHIM python3 - "$F" "$T/open.hprof" <<-'EOF'
		import os, sys
		d = open(sys.argv[1], 'rb').read()
		fd = os.open(sys.argv[2], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
		os.write(fd, d[:2000000])
		os._exit(0)
	EOF
	[ -s "$T/open.hprof" ] && [ ! -e "$T/open.hprof.histo" ]
}

# ---- failures change nothing else ---------------------------------------

@test "no memory for the tables: the dump is stripped as ever, no .histo, said once" {
	"$STRIP" -o "$T/want" "$F"
	run --separate-stderr env FAULT=nomap FAULT_LOG="$T/faults" \
		LD_PRELOAD="$SHIM $FI" "$REPLAY" threads "$F" "$T/m.hprof"
	assert_success
	assert_equal "$(cat "$T/faults")" nomap
	cmp_dump "$T/m.hprof" "$T/want"
	[ ! -e "$T/m.hprof.histo" ]
	assert_equal "${stderr_lines[0]}" "hprofstrip: $T/m.hprof: no memory for the class histogram; the dump is stripped without one (no .histo)"
	assert_equal "${stderr_lines[1]}" "hprofstrip: $T/m.hprof: 2223790 bytes in, 2074927 bytes out (93.3%), 2848 arrays stripped"
	assert_equal "${#stderr_lines[@]}" 2
}

@test "a .histo that cannot be written: removed, said, and the dump and the runtime's calls are as ever" {
	"$STRIP" -o "$T/want" "$F"
	# the disk is full for the .histo alone (its first byte fails)
	run --separate-stderr env FAULT=enospc:0 FAULT_PATTERN='*.histo' FAULT_LOG="$T/faults" \
		LD_PRELOAD="$SHIM $FI" "$REPLAY" writev "$F" "$T/w.hprof"
	assert_success
	assert_equal "$(cat "$T/faults")" enospc
	cmp_dump "$T/w.hprof" "$T/want"
	[ ! -e "$T/w.hprof.histo" ] || fail "a partial .histo is left"
	assert_equal "${stderr_lines[0]}" "hprofstrip: $T/w.hprof.histo: write failed: No space left on device; no histogram written"
	# the close line still names the top three (the counts are whole)
	[[ ${stderr_lines[1]} == "hprofstrip: $T/w.hprof: 2223790 bytes in, 2074927 bytes out (93.3%), 2848 arrays stripped; top classes by bytes: "*"%)" ]] ||
		fail "close line: ${stderr_lines[1]}"
}

@test "the shim's .histo: non-ASCII class names, the largest instance size; read back by --baseline, its dump note last, on either side" {
	# tests/edge-dump: Größe (size 0xFFFFFFFF), 日本.Klasse
	build_tests shimstress
	"$ROOT/tests/edge-dump" "$T/e.hprof"
	mkdir "$T/d"
	"$STRIP" -o "$T/e.exp" "$T/e.hprof"
	run -0 env HPROFSTRIP_PROGRAMS=shimstress LD_PRELOAD="$SHIM" \
		"$B/shimstress" write "$T/e.hprof" "$T/e.exp" "$T/d" e.hprof
	run -0 grep -v '^#' "$T/d/e.hprof.histo"
	assert_line --regexp '^ +1: +1 +4294967303  Größe$'
	assert_line --regexp '^ +2: +2 +48  日本\.Klasse$'
	# a replayed dump's .histo against --histo's text, both ways
	"$STRIP" --histo "$F" >"$T/a.histo"
	HPROFSTRIP_QUIET=1 LD_PRELOAD="$SHIM" "$REPLAY" threads "$F" "$T/r.hprof"
	tail -n 1 "$T/r.hprof.histo" | grep -q '^# dump: r.hprof, stamped '
	run -0 "$STRIP" --histo --baseline "$T/r.hprof.histo" "$T/a.histo"
	assert_line --regexp '^Total +0 +0 +[1-9][0-9]* +[1-9][0-9]*$'
	run -0 "$STRIP" --histo --baseline "$T/a.histo" "$T/r.hprof.histo"
	assert_line --regexp '^Total +0 +0 '
}
