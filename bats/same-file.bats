#!/usr/bin/env bats
# An output that is the input file itself (same device and inode) is
# refused as cat refuses it: one line naming it, exit 2, and nothing
# touched: not the file's bytes, mode or times, and no temporary file
# beside it. Whether the output is -o PATH (the input's path, or a symlink
# to it) or a redirected stdout (1<> and >>; > truncates before the tool
# runs), and whether the input is a path or stdin, compressed or not.

load common

bats_require_minimum_version 1.5.0

setup() {
	T=$BATS_TEST_TMPDIR
	mkdir "$T/d"
	cp "$CORPUS/hotspot/jdk8-u05-x64.hprof" "$T/d/plain.hprof"
	chmod 0640 "$T/d/plain.hprof"
	"$STRIP" -o "$T/d/s.hprof" "$T/d/plain.hprof"
	ln -s plain.hprof "$T/d/plain.link"
	ln -s s.hprof "$T/d/s.link"
}

# refused FILE NAME SCRIPT [ARGS]: bash -c SCRIPT _ ARGS is refused with
# "TOOL: NAME: input file is output file" (TOOL: ARGS' first), exit 2,
# nothing on stdout, and FILE and its directory left exactly as they were
refused() {
	local f=$1 name=$2 script=$3 before listing
	shift 3
	cp "$f" "$T/copy"
	before=$(stat -c '%a %s %y %z' "$f")
	listing=$(ls -a "$(dirname "$f")")
	run --separate-stderr bash -c "$script" _ "$@"
	[ "$status" -eq 2 ] || fail "$script ($*): status $status: $stderr"
	assert_equal "$stderr" "$(basename "$1"): $name: input file is output file"
	cmp "$f" "$T/copy" || fail "$script ($*): $f changed"
	assert_equal "$(stat -c '%a %s %y %z' "$f")" "$before"
	assert_equal "$(ls -a "$(dirname "$f")")" "$listing"
}

# every way one tool's output can be its input; IN is a dump it takes,
# LINK a symlink to it
every_way() {
	local tool=$1 in=$2 link=$3
	refused "$in" stdin '"$1" <"$2" 1<>"$2"' "$tool" "$in"
	refused "$in" "$in" '"$1" "$2" 1<>"$2"' "$tool" "$in"
	refused "$in" "$in" '"$1" -o - "$2" 1<>"$2"' "$tool" "$in"
	refused "$in" "$in" '"$1" "$2" >>"$2"' "$tool" "$in"
	refused "$in" stdin '"$1" - <"$2" >>"$2"' "$tool" "$in"
	refused "$in" "$in" '"$1" -o "$2" "$2"' "$tool" "$in"
	refused "$in" "$in" '"$1" -o"$2" "$2"' "$tool" "$in"
	refused "$in" "$in" '"$1" -o "$2" <"$2"' "$tool" "$in"
	refused "$in" "$in" '"$1" -o "$3" "$2"' "$tool" "$in" "$link"
	refused "$in" "$link" '"$1" -o "$3" <"$2"' "$tool" "$in" "$link"
	refused "$in" "$link" '"$1" -o "$2" "$2"' "$tool" "$link"
	refused "$in" "$in" '"$1" --stream --salvage -o "$2" "$2"' "$tool" "$in"
	refused "$in" "$in" '"$1" --salvage "$2" 1<>"$2"' "$tool" "$in"
}

@test "hprofrestore < f 1<> f (the issue's case) and every other way: refused, f untouched" {
	every_way "$RESTORE" "$T/d/s.hprof" "$T/d/s.link"
	refused "$T/d/s.hprof" "$T/d/s.hprof" '"$1" --jvm -o "$2" "$2"' "$RESTORE" "$T/d/s.hprof"
}

@test "hprofstrip: every way its output can be its input is refused, the input untouched" {
	every_way "$STRIP" "$T/d/plain.hprof" "$T/d/plain.link"
	# --keep-strings reads a file twice before it writes: refused first
	refused "$T/d/plain.hprof" "$T/d/plain.hprof" '"$1" --keep-strings -o "$2" "$2"' "$STRIP" "$T/d/plain.hprof"
	refused "$T/d/plain.hprof" stdin '"$1" --keep-strings <"$2" 1<>"$2"' "$STRIP" "$T/d/plain.hprof"
}

@test "a compressed input is compared as the file it is, not the decompressor's pipe" {
	local c
	for c in gzip zstd xz; do
		command -v "$c" >/dev/null || fail "$c is missing: make deps"
		"$c" -c "$T/d/s.hprof" >"$T/d/s.$c"
		refused "$T/d/s.$c" "$T/d/s.$c" '"$1" -o "$2" "$2"' "$RESTORE" "$T/d/s.$c"
		refused "$T/d/s.$c" "$T/d/s.$c" '"$1" "$2" >>"$2"' "$RESTORE" "$T/d/s.$c"
		refused "$T/d/s.$c" stdin '"$1" <"$2" 1<>"$2"' "$RESTORE" "$T/d/s.$c"
		"$c" -c "$T/d/plain.hprof" >"$T/d/p.$c"
		refused "$T/d/p.$c" "$T/d/p.$c" '"$1" --keep-strings "$2" 1<>"$2"' "$STRIP" "$T/d/p.$c"
	done
}

@test "-q: refused without a word; another file is written as ever" {
	cp "$T/d/s.hprof" "$T/copy"
	run --separate-stderr "$RESTORE" -q -o "$T/d/s.hprof" "$T/d/s.hprof"
	assert_failure 2
	assert_equal "$stderr" ""
	cmp "$T/d/s.hprof" "$T/copy"
	# a copy of the input is another file
	cp "$T/d/s.hprof" "$T/d/other.hprof"
	"$RESTORE" "$T/d/s.hprof" 1<>"$T/d/other.hprof"
	"$RESTORE" -o "$T/d/r.hprof" "$T/d/s.hprof"
	cmp "$T/d/r.hprof" "$T/d/other.hprof"
}
