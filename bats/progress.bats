#!/usr/bin/env bats
# The progress line: shown on stderr when stderr is a terminal and the input
# a regular file; never when stderr is a pipe or a file. Terminals come
# from util-linux script(1), which runs a command under a pseudo-terminal.

load common

bats_require_minimum_version 1.5.0

setup() {
	HS=$STRIP
	HR=$RESTORE
	IN=$CORPUS/hotspot/jdk21-demo.hprof
	[ -r "$IN" ] || fail "no corpus in $CORPUS"
	script --version 2>/dev/null | grep -q util-linux ||
		fail "script(1) from util-linux is needed"
	OUT=$BATS_TEST_TMPDIR/out.hprof
}

# tty CMD: run the shell command CMD under a pseudo-terminal; what the
# terminal showed lands in $output
tty() {
	run script -qec "$1" /dev/null
}

@test "a pseudo-terminal is a terminal (sanity check of the harness)" {
	tty "test -t 2 && echo stderr-is-a-tty"
	assert_success
	assert_output --partial "stderr-is-a-tty"
}

@test "hprofstrip shows progress on a terminal, then clears the line" {
	tty "'$HS' -o '$OUT' '$IN'"
	assert_success
	assert_output --regexp $'\rhprofstrip: +[0-9]+% +[0-9.]+ MB/s +[0-9]+:[0-9]{2} left'
	assert_output --partial "hprofstrip: 100%"
	# the last thing written erases the line
	[[ $output == *$'\r\e[K' ]]
	# and the output is the same as without a terminal
	"$HS" -o "$OUT.plain" "$IN"
	cmp "$OUT" "$OUT.plain"
}

@test "hprofrestore shows progress on a terminal" {
	"$HS" -o "$OUT.s" "$IN"
	tty "'$HR' -o '$OUT' '$OUT.s'"
	assert_success
	assert_output --regexp $'\rhprofrestore: +[0-9]+% +[0-9.]+ MB/s'
	assert_output --partial "hprofrestore: 100%"
}

@test "progress with stdin redirected from a regular file" {
	tty "'$HS' -o '$OUT' < '$IN'"
	assert_success
	assert_output --partial "hprofstrip: 100%"
}

@test "no progress when stderr is a file" {
	run "$HS" -o "$OUT" "$IN" 2> "$BATS_TEST_TMPDIR/err"
	assert_success
	[ ! -s "$BATS_TEST_TMPDIR/err" ]
	# even with stdin and stdout on a terminal
	tty "'$HS' -o '$OUT' '$IN' 2> '$BATS_TEST_TMPDIR/err'"
	assert_success
	assert_output ""
	[ ! -s "$BATS_TEST_TMPDIR/err" ]
}

@test "no progress when stderr is a pipe" {
	run bash -c "'$HS' -o '$OUT' '$IN' 2>&1 >/dev/null | cat"
	assert_success
	assert_output ""
	tty "'$HS' -o '$OUT' '$IN' 2>&1 | cat"
	assert_success
	assert_output ""
	tty "'$HR' -o '$OUT.r' '$OUT' 2>&1 | cat"
	assert_success
	assert_output ""
}

@test "no progress on a terminal when the input is a pipe" {
	tty "cat '$IN' | '$HS' -o '$OUT'"
	assert_success
	assert_output ""
	"$HS" -o "$OUT.plain" "$IN"
	cmp "$OUT" "$OUT.plain"
}

@test "no progress on a terminal with -q" {
	tty "'$HS' -q -o '$OUT' '$IN'"
	assert_success
	assert_output ""
}

@test "no progress from --info, on a terminal or not" {
	tty "'$HS' --info '$IN' > '$BATS_TEST_TMPDIR/report'"
	assert_success
	assert_output ""
	run tail -n 1 "$BATS_TEST_TMPDIR/report"
	assert_output "well-formed"
}

@test "errors on a terminal: the progress line gives way to the message" {
	head -c 3000000 "$IN" > "$BATS_TEST_TMPDIR/cut.hprof"
	tty "'$HS' -o '$OUT' '$BATS_TEST_TMPDIR/cut.hprof'"
	assert_failure 1
	assert_output --regexp $'\e\\[K'"hprofstrip: $BATS_TEST_TMPDIR/cut.hprof: offset 3000000: stream ended inside a record"
}

@test "an input that grows while it is read: the progress line stays within 100% and its time left within range" {
	command -v strace >/dev/null || fail "strace is needed"
	local g=$BATS_TEST_TMPDIR/grow.hprof recs=$BATS_TEST_TMPDIR/recs i
	cp "$IN" "$g"
	chmod u+w "$g"
	# 2000 UTF8 records (tag 1, time 0, length 12: an 8-byte id and
	# "grow"), appended while hprofstrip reads (each read slowed 300 ms):
	# read past the size it started with
	for i in $(seq 2000); do printf '\001\0\0\0\0\0\0\0\014\0\0\0\0\0\0\0\001grow'; done >"$recs"
	# (appended once the first MiB is read: hprofstrip has its size)
	local log=$BATS_TEST_TMPDIR/strace.log
	: >"$log"
	( for i in $(seq 200); do
		grep -q '1048576) = 1048576' "$log" && break
		sleep 0.05
	  done; cat "$recs" >>"$g" ) &
	# (a sanitized build's leak check cannot run under ptrace: off here)
	tty "ASAN_OPTIONS=\${ASAN_OPTIONS:-}:detect_leaks=0 strace -qq -o '$log' -e trace=read -e inject=read:delay_exit=300000 '$HS' -o '$OUT' '$g'"
	wait
	assert_success
	# it did read past the size it started with (else nothing was tested)
	"$HS" -o "$OUT.before" "$IN"
	[ "$(stat -c %s "$OUT")" -gt "$(stat -c %s "$OUT.before")" ] ||
		fail "the records appended were not read"
	local lines
	lines=$(tr '\r' '\n' <<<"$output" | grep '^hprofstrip: ')
	[ -n "$lines" ] || fail "no progress line"
	if grep -E -- '-|[0-9]{4,}%|(10[1-9]|1[1-9][0-9])%' <<<"$lines"; then
		fail "a progress line out of range"
	fi
}
