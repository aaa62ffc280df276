#!/usr/bin/env bats
# Hostile input: lengths and counts that claim gigabytes, huge class
# dumps, files that are not dumps. Every tool (hprofstrip, hprofrestore,
# hprofrestore --jvm, hprofstrip --info) must exit 1 with one line naming
# the byte offset, never crash, never leave output that looks complete,
# and keep its memory small whatever the input claims.
#
# The files are built here from the header and first records of a small
# real dump (8-byte ids, 1.0.2) and of an ART dump (4-byte ids, 1.0.3).

load common

bats_require_minimum_version 1.5.0

# peak RSS allowed, in KiB (sanitized builds are not measured)
RSS_MAX=16384

setup_file() {
	# test drivers, not among make all's: built here (a suite run alone has them)
	build_tests oracle
}

setup() {
	[ -x "$STRIP" ] || fail "$STRIP is missing: run make"
	J=$CORPUS/hotspot/jdk11-string.hprof
	A=$CORPUS/art/art-host-2025.hprof
	[ -r "$J" ] && [ -r "$A" ] ||
		fail "no corpus in $CORPUS (see ../shared/corpus/README.md; or set HPROFSTRIP_CORPUS)"
	T=$BATS_TEST_TMPDIR
}

# ---- building blocks --------------------------------------------------------

be32() {
	printf '\\x%02x\\x%02x\\x%02x\\x%02x' $(($1 >> 24 & 255)) \
		$(($1 >> 16 & 255)) $(($1 >> 8 & 255)) $(($1 & 255))
}

# bytes HEX...: raw bytes from hex pairs
bytes() {
	local h
	for h in "$@"; do printf "\\x$h"; done
}

zeros() {
	head -c "$1" /dev/zero
}

# base SRC OUT: SRC's header and first 20 records (no heap record among
# them in the dumps used); prints the id size
base() {
	local off=31 i len
	for ((i = 0; i < 20; i++)); do
		len=$(od -An -tu4 --endian=big -j $((off + 5)) -N 4 "$1")
		off=$((off + 9 + len))
	done
	head -c "$off" "$1" >"$2"
	od -An -tu4 --endian=big -j 19 -N 4 "$1" | tr -d ' '
}

# rec TAG LEN: a record header
rec() {
	bytes "$1" 00 00 00 00
	printf "$(be32 "$2")"
}

# ---- checks -----------------------------------------------------------------

# Runs "$@", recording its peak RSS; sets status, stderr and
# output (stdout) like run --separate-stderr.
timed() {
	run --separate-stderr /usr/bin/time -f %M -o "$T/rss" "$@"
	rss=$(tail -n 1 "$T/rss")
	if [ -z "${HPROFSTRIP_SANITIZED:-}" ] && [ "$rss" -gt "$RSS_MAX" ]; then
		fail "peak RSS ${rss} KiB > ${RSS_MAX} KiB: $*"
	fi
}

# one_line MSG: exactly one stderr line, matching MSG
one_line() {
	[ "$status" -eq 1 ] || fail "status $status (want 1): $stderr"
	[ "${#stderr_lines[@]}" -eq 1 ] || fail "not one line: $stderr"
	[[ $stderr =~ $1 ]] || fail "message '$stderr' does not match '$1'"
}

# rejected IN OFF REASON: hprofstrip, hprofrestore, hprofrestore --jvm and
# hprofstrip --info all refuse IN with "offset OFF: REASON"
rejected() {
	local in=$1 off=$2 why=$3 name tool d
	for tool in "$STRIP" "$RESTORE" "$RESTORE --jvm"; do
		name=$(basename "${tool%% *}")
		d=$T/out.$RANDOM$RANDOM
		mkdir "$d"
		# -o: no output, no temporary file
		timed $tool -o "$d/o.hprof" "$in"
		one_line "^$name: $in: offset $off: $why\$"
		[ -z "$(ls -A "$d")" ] || fail "$tool left: $(ls -A "$d")"
		# stdout to a file: emptied
		timed sh -c '$1 "$2" >"$3"' _ "$tool" "$in" "$d/stdout.hprof"
		one_line "^$name: $in: offset $off: $why\$"
		[ ! -s "$d/stdout.hprof" ] || fail "$tool: stdout file not emptied"
		# stdout to a pipe: nothing
		run sh -c '$1 "$2" 2>/dev/null | wc -c' _ "$tool" "$in"
		[ "$output" -eq 0 ] || fail "$tool: $output bytes into a pipe"
	done
	timed "$STRIP" --info "$in"
	one_line "^hprofstrip: $in: offset $off: $why\$"
	# --info's own line has no --salvage hint
	local info_why=${why% \\(--salvage keeps what came before it\\)}
	[ "${lines[-1]}" = "malformed at offset $off: ${info_why//\\/}" ] ||
		fail "--info says: ${lines[-1]}"
	timed "$STRIP" --info --json "$in"
	one_line "^hprofstrip: $in: offset $off: $why\$"
	[[ $output == *"\"error_offset\": $off,"* ]] || fail "--json: $output"
}

# cut_short IN: rejected as a stream that ends inside a record, at its end
cut_short() {
	rejected "$1" "$(size_of "$1")" 'stream ended inside a record \(--salvage keeps what came before it\)'
}

# past_record BODY [LEN]: the base $T/b and a heap record of LEN bytes
# (BODY's size unless given) holding BODY, rejected at BODY's first byte:
# its sub-record runs past the end of the heap record
past_record() {
	{ cat "$T/b"; rec 1c "${2:-$(size_of "$1")}"; cat "$1"; } >"$T/h"
	rejected "$T/h" $(($(size_of "$T/b") + 9)) \
		'sub-record runs past the end of its heap record'
}

# both SRC...: runs the test body (function case_body SRC) for the 8-byte
# 1.0.2 base and the 4-byte 1.0.3 one
both() {
	case_body "$J"
	case_body "$A"
}

# ---- lengths ----------------------------------------------------------------

@test "a record length of 2^32-1 in a small file" {
	case_body() {
		base "$1" "$T/b" >/dev/null
		{ cat "$T/b"; rec 01 4294967295; zeros 64; } >"$T/h"
		cut_short "$T/h"
	}
	both
}

@test "a heap record length of 2^32-1 holding a few roots" {
	case_body() {
		local id
		id=$(base "$1" "$T/b")
		{ cat "$T/b"; rec 1c 4294967295
		  for i in 1 2 3; do bytes ff; zeros "$id"; done; } >"$T/h"
		cut_short "$T/h"
	}
	both
}

@test "a record that claims more than the file holds" {
	case_body() {
		local id
		id=$(base "$1" "$T/b")
		{ cat "$T/b"; rec 01 1000000; zeros 100; } >"$T/h"
		cut_short "$T/h"
		{ cat "$T/b"; rec 0c 1073741824; bytes ff; zeros "$id"; } >"$T/h"
		cut_short "$T/h"
	}
	both
}

# array TAG ID COUNT [TYPE]: an array's header (0x22: and its element
# class id), no elements
array() {
	bytes "$1"
	zeros $(($2 + 4))
	printf "$(be32 "$3")"
	if [ "$1" = 22 ]; then zeros "$2"; else bytes "$4"; fi
}

@test "element counts whose byte size overflows 32 bits" {
	case_body() {
		local id
		id=$(base "$1" "$T/b")
		# 0xFFFFFFFF longs, 2^29 longs (exactly 4 GiB), 0xFFFFFFFF ids,
		# in a record of the header's length and in one of 2^32-1
		for a in "23 4294967295 0b" "23 536870912 0b" "22 4294967295"; do
			array ${a%% *} "$id" ${a#* } >"$T/a"
			for len in "$(size_of "$T/a")" 4294967295; do
				past_record "$T/a" "$len"
			done
		done
		# an instance claiming 0xFFFFFFFF bytes of fields
		{ bytes 21; zeros $((2 * id + 4)); printf "$(be32 4294967295)"; } >"$T/a"
		past_record "$T/a" 4294967295
	}
	both
}

# ---- class dumps ------------------------------------------------------------

# class_dump ID CP STATICS FIELDS: a class dump's fixed part and counts,
# claiming CP constants, STATICS statics, FIELDS fields, holding none
class_dump() {
	local id=$1
	bytes 20
	zeros $((7 * id + 8))
	printf "$(be32 $(($2 << 16)))" | head -c 2
	if [ "$2" -eq 0 ]; then
		printf "$(be32 $(($3 << 16)))" | head -c 2
		[ "$3" -ne 0 ] || printf "$(be32 $(($4 << 16)))" | head -c 2
	fi
}

@test "class dumps claiming 65535 constants, statics or instance fields" {
	case_body() {
		local id
		id=$(base "$1" "$T/b")
		for counts in "65535 0 0" "0 65535 0" "0 0 65535"; do
			class_dump "$id" $counts >"$T/c"
			past_record "$T/c"
		done
	}
	both
}

@test "a class dump that really has 65535 statics and 65535 fields is fine" {
	local id=8 s="$T/s" o="$T/o"
	base "$J" "$T/b" >/dev/null
	{
		bytes 20; zeros $((7 * id + 8))
		bytes 00 00 ff ff
		# a static: name id, type byte, one byte of value
		printf '\0\0\0\0\0\0\0\1\010\1%.0s' $(seq 65535)
		bytes ff ff
		# a field: name id, type int
		printf '\0\0\0\0\0\0\0\2\012%.0s' $(seq 65535)
		array 23 "$id" 4 08; printf 'abcd'
	} >"$T/c"
	{ cat "$T/b"; rec 1c "$(size_of "$T/c")"; cat "$T/c"; rec 2c 0; } >"$T/h"
	timed "$STRIP" -o "$s" "$T/h"
	[ "$status" -eq 0 ] || fail "status $status: $stderr"
	"$ORACLE" strip "$T/h" "$o"
	cmp "$s" "$o"
	timed "$RESTORE" -o "$T/r" "$s"
	[ "$status" -eq 0 ]
	"$ORACLE" zero "$T/h" "$o"
	cmp "$T/r" "$o"
	timed "$STRIP" --info "$T/h"
	[ "$status" -eq 0 ]
	[ "${lines[-1]}" = well-formed ]
}

# ---- stripped arrays claiming gigabytes -------------------------------------

@test "hprofrestore refuses 0xC3 arrays claiming 4 GiB or more, at once" {
	case_body() {
		local id off n
		id=$(base "$1" "$T/b")
		off=$(($(size_of "$T/b") + 9))
		# 2^29 longs = 4 GiB, 2^32-1 longs = 32 GiB, 2^32-1 bytes (with
		# its header, over 4 GiB)
		for a in "536870912 0b" "4294967295 0b" "4294967295 08"; do
			{ cat "$T/b"; rec 1c $((1 + id + 9)); array c3 "$id" $a
			  rec 2c 0; } >"$T/h"
			for tool in "$RESTORE" "$RESTORE --jvm"; do
				d=$T/out.$RANDOM
				mkdir "$d"
				SECONDS=0
				timed $tool -o "$d/o" "$T/h"
				one_line "^hprofrestore: $T/h: offset $off: restored heap record would exceed 4 GiB\$"
				[ "$SECONDS" -le 2 ] || fail "$tool took ${SECONDS}s"
				[ -z "$(ls -A "$d")" ] || fail "left: $(ls -A "$d")"
				timed sh -c '$1 "$2" >"$3"' _ "$tool" "$T/h" "$d/stdout"
				[ "$status" -eq 1 ]
				[ ! -s "$d/stdout" ]
			done
			# stripping passes such a claim through untouched
			timed "$STRIP" -o "$T/s" "$T/h"
			[ "$status" -eq 0 ]
			cmp "$T/s" "$T/h"
		done
	}
	both
}

# ---- not dumps --------------------------------------------------------------

@test "a 0-length file" {
	: >"$T/e"
	rejected "$T/e" 0 'empty input: not an HPROF file'
}

@test "files that are not HPROF" {
	head -c 4096 /bin/sh >"$T/elf"
	rejected "$T/elf" 0 'not an HPROF file: no "JAVA PROFILE 1\.0\." header'
	printf 'hello, world\n' >"$T/txt"
	rejected "$T/txt" 0 'not an HPROF file: no "JAVA PROFILE 1\.0\." header'
	printf 'JAVA PROFILE 2.0.1\0' >"$T/v2"
	rejected "$T/v2" 13 'not an HPROF file: no "JAVA PROFILE 1\.0\." header'
	base "$J" "$T/b" >/dev/null
	# gzip'd, it is read through gzip (bats/compressed-input.bats has the rest)
	gzip -c "$T/b" >"$T/gz"
	"$STRIP" -o "$T/gz.s" "$T/gz"
	"$STRIP" -o "$T/b.s" "$T/b"
	cmp "$T/gz.s" "$T/b.s"
}

@test "a header string that never ends" {
	{ printf 'JAVA PROFILE 1.0.2'; head -c 200 /dev/zero | tr '\0' x; } >"$T/l"
	rejected "$T/l" 31 'malformed file header'
}

@test "a header string of 31 bytes, the most the engine holds, is read; one of 32 is refused at its 32nd byte" {
	case_body() {
		local v h
		v=$(head -c 18 "$1")
		# the dump's header string grown to 31 bytes, then its NUL and the rest
		{ printf '%sxxxxxxxxxxxxx' "$v"; tail -c +19 "$1"; } >"$T/h31"
		run "$STRIP" --info "$T/h31"
		assert_success
		assert_line well-formed
		"$STRIP" -o "$T/h31.s" "$T/h31"
		h=$(head -c 32 "$T/h31.s" | tr '\0' '@')
		assert_equal "$h" "${v}xxxxxxxxxxxxx@"
		"$RESTORE" -o "$T/h31.r" "$T/h31.s"
		"$STRIP" -o "$T/plain.s" "$1"
		"$RESTORE" -o "$T/plain.r" "$T/plain.s"
		cmp <(tail -c +33 "$T/h31.r") <(tail -c +20 "$T/plain.r")
		{ printf '%sxxxxxxxxxxxxxx' "$v"; tail -c +19 "$1"; } >"$T/h32"
		rejected "$T/h32" 31 'malformed file header'
	}
	both
}

@test "a dump that is only a header" {
	case_body() {
		head -c 31 "$1" >"$T/h"
		rejected "$T/h" 31 'no records after the file header'
		head -c 25 "$1" >"$T/h"
		rejected "$T/h" 25 'stream ended inside the file header'
	}
	both
}

@test "identifier sizes 3 and 16" {
	case_body() {
		for n in 3 16; do
			{ head -c 19 "$1"; printf "$(be32 $n)"; tail -c +24 "$1" | head -c 5000; } >"$T/i"
			rejected "$T/i" 19 'unsupported identifier size \(HPROF uses 4 or 8\)'
		done
	}
	both
}

@test "garbage after a valid header" {
	case_body() {
		# text: tag '1', a length of 0x0A340A35
		{ head -c 31 "$1"; seq 1 2000; } >"$T/g"
		cut_short "$T/g"
		# 0xFF: tag 0xFF, length 2^32-1
		{ head -c 31 "$1"; head -c 300 /dev/zero | tr '\0' '\377'; } >"$T/g"
		cut_short "$T/g"
		# a heap record full of bytes that are no sub-record tag
		{ head -c 31 "$1"; rec 1c 300; head -c 300 /dev/zero | tr '\0' '\167'; } >"$T/g"
		rejected "$T/g" 40 'unknown heap sub-record tag'
	}
	both
}
