#!/usr/bin/env bats
# Redaction: hprofstrip --redact and, under the shim, HPROFSTRIP_REDACT=values
# zero every primitive instance field, static and constant pool value, and
# leave references, ids, lengths and types as the plain stripped dump has
# them. The heap is Secrets' (tests/java/Secrets.java): 500
# com.acme.secret.Customer instances holding a card number, a PIN and a
# balance, and a static KEY; "Secrets expect" prints their bytes as a dump
# holds them, and tests/find-bytes scans for them. Once restored,
# HeapJudge (VisualVM's heap library) reads the histogram and the object
# graph (refs) of a redacted dump equal to those of the plain one, and
# Customer's values (fields) as zeros.

load common

bats_require_minimum_version 1.5.0

TMO=${REDACT_TIMEOUT:-120}
FIND=$ROOT/tests/find-bytes
CUSTOMER=com.acme.secret.Customer

# The shim's settings and preloads come from each test, never the caller
# (common.bash clears HPROFSTRIP_*; TEST_LD_PRELOAD would set LD_PRELOAD).
clear_env() {
	local v
	for v in ${!HPROFSTRIP_*}; do
		case $v in HPROFSTRIP_CORPUS | HPROFSTRIP_SANITIZED) ;; *) unset "$v" ;; esac
	done
	unset LD_PRELOAD
}

# What every test compares with: Secrets' patterns and field values, an
# MXBean dump of its heap taken without the shim (orig.hprof), that dump
# stripped plainly and restored.
setup_file() {
	clear_env
	# test drivers, not among make all's: built here (a suite run alone has them)
	build_tests oracle replay
	"$JUDGE" build >&2
	local d=$BATS_FILE_TMPDIR
	java -cp "$B/java" Secrets expect >"$d/expect"
	java -cp "$B/java" Secrets fields >"$d/fields"
	timeout "$TMO" java -cp "$B/java" Secrets dump "$d/orig.hprof" >&2
	"$STRIP" -o "$d/plain.hprof" "$d/orig.hprof"
	"$RESTORE" -o "$d/plain.r.hprof" "$d/plain.hprof"
}

setup() {
	clear_env
	T=$BATS_TEST_TMPDIR
	D=$BATS_FILE_TMPDIR
	# the patterns to scan for, from Secrets expect ("NAME HEX" lines)
	mapfile -t PATS < <(cut -d' ' -f2 "$D/expect")
}

# assert_no_secret DUMP: find-bytes finds none of Secrets' patterns in DUMP
assert_no_secret() {
	run "$FIND" "$1" "${PATS[@]}"
	[ "$status" -eq 0 ] || fail "$1 holds secrets: $output"
}

# assert_every_secret DUMP: find-bytes finds each of Secrets' patterns in
# DUMP, the instance fields' once per Customer, KEY at least once
assert_every_secret() {
	local name hex n
	run "$FIND" "$1" "${PATS[@]}"
	[ "$status" -eq 1 ] || fail "find-bytes: status $status on $1: $output"
	while read -r name hex; do
		n=$(printf '%s\n' "$output" | sed -n "s/^$hex //p")
		[ -n "$n" ] || fail "find-bytes did not report $hex: $output"
		if [ "$name" = KEY ]; then
			[ "$n" -ge 1 ] || fail "$1: no $name ($hex)"
		else
			[ "$n" -ge 500 ] || fail "$1: $name ($hex) $n times, not once per Customer"
		fi
	done <"$D/expect"
}

# assert_zero_fields RESTORED: VisualVM reads every Customer's values, and
# KEY, as zeros, for as many Customers as Secrets built
assert_zero_fields() {
	local n
	n=$(sed -n 's/^instances \([0-9]*\) .*/\1/p' "$D/fields")
	run "$JUDGE" fields "$1" "$CUSTOMER"
	assert_success
	assert_equal "$output" "static KEY=0
instances $n balance=0.0 cardNumber=0 isAdmin=false pin=0 vip=false"
}

# histo RESTORED: the judge's histogram, "NAME COUNT SIZE" per class,
# "roots N", totals. VisualVM sizes objects with a reference size it
# guesses from JDK static values (the Unsafe field offsets
# FutureTask.runnerOffset and waitersOffset, or Class$Atomic's): redaction
# keeps the runtime's statics, so sizes are the plain dump's too (zeroed,
# it took the id size, 8, and Customer read 48 bytes, not 40).
histo() {
	"$JUDGE" histo "$1"
}

# census DUMP: hprofstrip --info of DUMP without its file name line
census() {
	"$STRIP" --info "$1" | tail -n +2
}

# customer_depths REFS: from HeapJudge refs output, how many Customers
# are at each distance from the one nobody referred ("DEPTH COUNT", by
# depth): the shape of the referrer tree whatever the ids are (a
# collection between two dumps moves objects); fails on a referrer that
# is no Customer of the dump, or a cycle
customer_depths() {
	awk -v cls="$CUSTOMER" '
		$1 == cls { sub(/^referrer=/, "", $3); ref[$2] = $3; n++ }
		function depth(id, k) {
			for (k = 0; ref[id] != 0; k++) {
				if (!(ref[id] in ref) || k > n) exit 1
				id = ref[id]
			}
			return k
		}
		END { for (id in ref) d[depth(id)]++; for (k = 0; k in d; k++) print k, d[k] }
	' "$1"
}

@test "Secrets expect: a pattern per secret, of its type's size, high-entropy" {
	run --separate-stderr java -cp "$B/java" Secrets expect
	assert_success
	assert_equal "$output" "$(cat "$D/expect")"
	assert_equal "$(cut -d' ' -f1 "$D/expect" | tr '\n' ' ')" "KEY balance cardNumber pin "
	assert_line --regexp '^KEY [0-9a-f]{16}$'
	assert_line --regexp '^balance [0-9a-f]{16}$'
	assert_line --regexp '^cardNumber [0-9a-f]{16}$'
	assert_line --regexp '^pin [0-9a-f]{8}$'
	# no zero byte: a pattern that a zeroed field could still match
	refute_line --regexp ' ([0-9a-f]{2})*00'
	# the unstripped dump holds them (else every scan below proves nothing)
	assert_every_secret "$D/orig.hprof"
	# and the judge reads them there as Secrets prints them
	run "$JUDGE" fields "$D/orig.hprof" "$CUSTOMER"
	assert_success
	assert_equal "$output" "$(cat "$D/fields")"
	assert_line --regexp '^instances 500 .* isAdmin=true .* vip=true$'
}

@test "find-bytes: counts, exit 1 on a find, 0 on none, 2 on bad usage" {
	printf 'xxABABAByy' >"$T/f"
	run "$FIND" "$T/f" 4142 41424142 7a7a
	assert_failure 1
	assert_output "4142 3
41424142 2
7a7a 0"
	run "$FIND" "$T/f" 7a7a
	assert_success
	assert_output "7a7a 0"
	: >"$T/empty"
	run "$FIND" "$T/empty" 00
	assert_success
	assert_output "00 0"
	run "$FIND" "$T/f"
	assert_failure 2
	run "$FIND" "$T/f" 4g
	assert_failure 2
	run "$FIND" "$T/nothing" 41
	assert_failure 2
}

@test "offline: plain hprofstrip keeps every secret, --redact none, and changes no length" {
	# stripping arrays keeps field values: the scan can fail
	assert_every_secret "$D/plain.hprof"
	run --separate-stderr "$STRIP" -v --redact -o "$T/red.hprof" "$D/orig.hprof"
	assert_success
	assert_output ""
	# one summary line of the strip, one of the redaction; nothing withheld
	# (a JDK dump's class dumps come before their instances)
	[ "$(printf '%s\n' "$stderr" | wc -l)" -eq 2 ] || fail "stderr: $stderr"
	[[ $stderr =~ "redacted the fields of "([0-9]+)" instances and "([0-9]+)" static and constant values; "[0-9]+" layouts in "[0-9]+" KiB, 1 pass"$ ]] ||
		fail "no redaction summary in: $stderr"
	[ "${BASH_REMATCH[1]}" -ge 500 ] && [ "${BASH_REMATCH[2]}" -ge 1 ] ||
		fail "too few redacted: $stderr"
	assert_no_secret "$T/red.hprof"
	# the same structure: no record, sub-record or array changes its size
	[ "$(size_of "$T/red.hprof")" -eq "$(size_of "$D/plain.hprof")" ]
	diff <(census "$D/plain.hprof") <(census "$T/red.hprof")
	assert_stripped_dump "$T/red.hprof"
	# --redact=values is the same; so is any other input form
	"$STRIP" --redact=values -o "$T/red2.hprof" "$D/orig.hprof"
	cmp "$T/red.hprof" "$T/red2.hprof"
	"$STRIP" --redact -o "$T/red3.hprof" <"$D/orig.hprof"
	cmp "$T/red.hprof" "$T/red3.hprof"
	"$STRIP" --redact "$D/orig.hprof" | "$STRIP" --redact -o "$T/red4.hprof"
	assert_no_secret "$T/red4.hprof"
	# and the redacted dump is all a second redaction would zero
	"$RESTORE" -o "$T/red.r.hprof" "$T/red.hprof"
	"$STRIP" --redact -o "$T/again.hprof" "$T/red.r.hprof"
	cmp "$T/red.hprof" "$T/again.hprof"
	# which a plainly stripped one is not
	"$STRIP" --redact -o "$T/again.hprof" "$D/plain.r.hprof"
	run cmp -s "$D/plain.hprof" "$T/again.hprof"
	assert_failure
}

@test "offline: restored, VisualVM reads the plain dump's histogram (sizes too) and graph, and zeros for Customer" {
	"$STRIP" --redact -o "$T/red.hprof" "$D/orig.hprof"
	"$RESTORE" -o "$T/red.r.hprof" "$T/red.hprof"
	histo "$D/plain.r.hprof" >"$T/plain.histo"
	histo "$T/red.r.hprof" >"$T/red.histo"
	diff "$T/plain.histo" "$T/red.histo"
	grep -q "^$CUSTOMER 500 " "$T/red.histo" || fail "no 500 Customers in the histogram"
	# every reference of every object, the JDK's too
	"$JUDGE" refs "$D/plain.r.hprof" >"$T/plain.refs"
	"$JUDGE" refs "$T/red.r.hprof" >"$T/red.refs"
	diff "$T/plain.refs" "$T/red.refs"
	[ "$(grep -c "^$CUSTOMER [0-9]* referrer=[1-9]" "$T/red.refs")" -eq 499 ]
	[ "$(grep -c "^$CUSTOMER [0-9]* referrer=0$" "$T/red.refs")" -eq 1 ]
	run customer_depths "$T/red.refs"
	assert_success
	assert_line --index 0 "0 1"
	assert_line --index 8 "8 245"
	# the values: Secrets' in the plain dump, zeros in the redacted one
	run "$JUDGE" fields "$D/plain.r.hprof" "$CUSTOMER"
	assert_success
	assert_equal "$output" "$(cat "$D/fields")"
	assert_zero_fields "$T/red.r.hprof"
}

@test "--redact with --keep-strings, --redact=LEVEL unknown, hprofrestore --redact: usage errors" {
	local a
	for a in "--redact --keep-strings" "--keep-strings --redact" \
		"--redact=values --keep-strings"; do
		# shellcheck disable=SC2086
		run --separate-stderr "$STRIP" $a -o "$T/x.hprof" "$D/orig.hprof"
		assert_failure 2
		assert_output ""
		assert_equal "$stderr" "hprofstrip: --redact and --keep-strings cannot be combined: redaction removes what Strings hold
Try 'hprofstrip --help'."
		[ ! -e "$T/x.hprof" ] || fail "$a left $T/x.hprof"
	done
	for a in bogus VALUES ""; do
		run --separate-stderr "$STRIP" "--redact=$a" -o "$T/x.hprof" "$D/orig.hprof"
		assert_failure 2
		assert_equal "$(printf '%s\n' "$stderr" | head -n 1)" \
			"hprofstrip: --redact: unknown level '$a' (the level there is: values)"
		[ ! -e "$T/x.hprof" ] || fail "--redact=$a left $T/x.hprof"
	done
	run --separate-stderr "$RESTORE" --redact -o "$T/x.hprof" "$D/plain.hprof"
	assert_failure 2
	[ ! -e "$T/x.hprof" ]
}

@test "from a file nothing is withheld; from a pipe, instances before their class dump are counted (ART, JDK 6)" {
	local f n file passes pipe said withheld=()
	for f in $(corpus_files); do
		n=$(basename "$f")
		# from a file: exact, and silent but for -v's lines
		run --separate-stderr "$STRIP" --redact -o "$T/$n.file" "$f"
		assert_success
		assert_equal "$stderr" ""
		run --separate-stderr "$STRIP" -v --redact -o "$T/$n.file" "$f"
		assert_success
		file=$(printf '%s\n' "$stderr" | sed -n 's/.*: redacted the fields of \([0-9]*\) instances .*/\1/p')
		passes=$(printf '%s\n' "$stderr" | sed -n 's/.* KiB, \([12]\) pass\(es\)\{0,1\}$/\1/p')
		[ -n "$file" ] && [ -n "$passes" ] || fail "$n: no summary: $stderr"
		# from a pipe: one pass; what it cannot split it says
		run --separate-stderr bash -c 'cat "$1" | "$2" -v --redact >"$3"' _ "$f" "$STRIP" "$T/$n.pipe"
		assert_success
		pipe=$(printf '%s\n' "$stderr" | sed -n 's/.*: redacted the fields of \([0-9]*\) instances .*/\1/p')
		said=$(printf '%s\n' "$stderr" | sed -n "s/^hprofstrip: stdin: --redact: \([0-9]*\) instances written before their class's field list .*/\1/p")
		if [ "$file" -eq "$pipe" ]; then
			[ -z "$said" ] || fail "$n: nothing withheld, yet: $stderr"
			assert_equal "$passes" 1
		else
			# every instance is redacted or withheld, and said; the file
			# was read again for them
			assert_equal "$said" $((file - pipe))
			assert_equal "$passes" 2
			withheld+=("$n")
		fi
		# -v or not, the count is said
		run --separate-stderr bash -c 'cat "$1" | "$2" --redact >/dev/null' _ "$f" "$STRIP"
		assert_success
		if [ -n "$said" ]; then
			assert_equal "$stderr" "hprofstrip: stdin: --redact: $said instances written before their class's field list (or past the tables: 0 classes): every byte of their fields is zero, references too; from a file, a second pass knows every layout"
		else
			assert_equal "$stderr" ""
		fi
	done
	# the ART dumps among them (JDK 6's hprof agent writes instances first too)
	for f in $(art_files); do
		[[ " ${withheld[*]} " == *" $(basename "$f") "* ]] ||
			fail "$(basename "$f"): from a pipe, nothing withheld (withheld: ${withheld[*]})"
	done
}

@test "Android: restored, --redact from a file keeps the graph; from a pipe the withheld lose their references" {
	local f n k
	for f in $(art_files); do
		n=$(basename "$f")
		"$STRIP" -o "$T/$n.plain" "$f"
		"$STRIP" --redact -o "$T/$n.file" "$f"
		# shellcheck disable=SC2002 # a pipe, which cannot be read twice
		cat "$f" | "$STRIP" -q --redact >"$T/$n.pipe"
		# a file written to a pipe: the layouts learnt first, silently
		run --separate-stderr bash -c '"$1" --redact "$2" | cat >"$3"' _ "$STRIP" "$f" "$T/$n.stream"
		assert_success
		assert_equal "$stderr" ""
		# a compressed file is decompressed twice
		gzip -c "$f" >"$T/$n.gz"
		run --separate-stderr "$STRIP" --redact -o "$T/$n.gzred" "$T/$n.gz"
		assert_success
		assert_equal "$stderr" ""
		cmp "$T/$n.file" "$T/$n.gzred"
		for k in plain file pipe stream; do
			"$RESTORE" --jvm -o "$T/$n.$k.jvm" "$T/$n.$k"
			"$JUDGE" histo "$T/$n.$k.jvm" >"$T/$n.$k.histo"
			"$JUDGE" refs "$T/$n.$k.jvm" >"$T/$n.$k.refs"
		done
		# Android's own converter, the other judge: hprof-conv of the
		# restored 1.0.3 dump reads the same as the plain one's
		for k in plain file; do
			"$RESTORE" -o "$T/$n.$k.r" "$T/$n.$k"
			"$HPROF_CONV" "$T/$n.$k.r" "$T/$n.$k.c0"
			# (its empty heap records, which VisualVM refuses)
			"$ROOT/tests/drop-empty-heap-records" "$T/$n.$k.c0" "$T/$n.$k.conv"
			"$JUDGE" histo "$T/$n.$k.conv" >"$T/$n.$k.chisto"
			"$JUDGE" refs "$T/$n.$k.conv" >"$T/$n.$k.crefs"
		done
		diff "$T/$n.plain.chisto" "$T/$n.file.chisto"
		diff "$T/$n.plain.crefs" "$T/$n.file.crefs"
		diff "$T/$n.plain.histo" "$T/$n.file.histo"
		diff "$T/$n.plain.histo" "$T/$n.pipe.histo"
		diff "$T/$n.plain.histo" "$T/$n.stream.histo"
		diff "$T/$n.plain.refs" "$T/$n.file.refs"
		diff "$T/$n.plain.refs" "$T/$n.stream.refs"
		# the refs check fails where references were zeroed
		run cmp -s "$T/$n.plain.refs" "$T/$n.pipe.refs"
		assert_failure
		# but the numbers of objects and reference fields are the same
		assert_equal "$(tail -n 1 "$T/$n.pipe.refs" | cut -d' ' -f1-7)" \
			"$(tail -n 1 "$T/$n.plain.refs" | cut -d' ' -f1-7)"
	done
}

@test "shim: HPROFSTRIP_REDACT=values under a real JVM: no secret, zeros, the referrer tree of a plain dump of the same process" {
	# two dumps of one heap, one after the other: only *.red.hprof matches
	# (no sniffing), so plain.hprof is the JVM's own, whole
	HPROFSTRIP_REDACT=values HPROFSTRIP_SNIFF=no HPROFSTRIP_PATTERN='*.red.hprof' \
		LD_PRELOAD=$SHIM timeout "$TMO" java -cp "$B/java" Secrets dump \
		"$T/x.plain.hprof" "$T/x.red.hprof" 2>"$T/err"
	# the heap held every secret at the time (the scan can fail)...
	assert_every_secret "$T/x.plain.hprof"
	run "$ORACLE" count "$T/x.plain.hprof"
	assert_output --regexp '^p23 [1-9][0-9]* c3 0$'
	# ... and the shim's dump holds none
	assert_no_secret "$T/x.red.hprof"
	assert_stripped_dump "$T/x.red.hprof"
	# its summary, and no line about the other dump or withheld instances
	run cat "$T/err"
	assert_line --regexp "^hprofstrip: $T/x.red.hprof: [0-9]+ bytes in, [0-9]+ bytes out \([0-9.]+%\), [1-9][0-9]* arrays stripped$"
	assert_line --regexp "^hprofstrip: $T/x.red.hprof: redacted the fields of [1-9][0-9]+ instances and [1-9][0-9]* static and constant values$"
	[ "${#lines[@]}" -eq 2 ] || fail "stderr: $output"
	# every primitive value is zero: a second redaction changes nothing
	"$RESTORE" -o "$T/x.red.r.hprof" "$T/x.red.hprof"
	"$STRIP" --redact -o "$T/again.hprof" "$T/x.red.r.hprof"
	cmp "$T/x.red.hprof" "$T/again.hprof"
	# (which it would for the plain dump stripped)
	"$STRIP" -o "$T/x.plain.s.hprof" "$T/x.plain.hprof"
	"$RESTORE" -o "$T/x.plain.r.hprof" "$T/x.plain.s.hprof"
	"$STRIP" --redact -o "$T/again.hprof" "$T/x.plain.r.hprof"
	run cmp -s "$T/x.plain.s.hprof" "$T/again.hprof"
	assert_failure
	assert_zero_fields "$T/x.red.r.hprof"
	# the Customers' referrer tree as the plain dump has it; the two
	# dumps are a collection apart, so ids may differ: the tree's shape
	"$JUDGE" refs "$T/x.plain.hprof" >"$T/plain.refs"
	"$JUDGE" refs "$T/x.red.r.hprof" >"$T/red.refs"
	customer_depths "$T/plain.refs" >"$T/plain.depths"
	customer_depths "$T/red.refs" >"$T/red.depths"
	diff "$T/plain.depths" "$T/red.depths"
	[ "$(awk '{ n += $2 } END { print n }' "$T/red.depths")" -eq 500 ]
}

@test "shim: replayed with each runtime's system calls, HPROFSTRIP_REDACT=values gives hprofstrip --redact's bytes" {
	local f n mode said
	for f in "$D/orig.hprof" $(corpus_files); do
		n=$(basename "$f")
		# the shim has one pass: what hprofstrip does from a pipe
		run --separate-stderr bash -c 'cat "$1" | "$2" --redact -o "$3"' _ "$f" "$STRIP" "$T/want"
		assert_success
		said=$(printf '%s\n' "$stderr" | sed -n 's/^hprofstrip: stdin: --redact: \([0-9]*\) instances .*/\1/p')
		for mode in random threads jdk8 art pwrite writev; do
			rm -f "$T/$mode.hprof"
			HPROFSTRIP_REDACT=values LD_PRELOAD=$SHIM timeout 60 \
				"$REPLAY" "$mode" "$f" "$T/$mode.hprof" 7 2>"$T/err" ||
				fail "$mode: replay failed on $n: $(cat "$T/err")"
			cmp_dump "$T/$mode.hprof" "$T/want" || fail "$mode: $n"
			if [ -n "$said" ]; then
				grep -qx "hprofstrip: $T/$mode.hprof: $said instances written before their class's field list: every byte of their fields is zero, references too (hprofstrip --redact from a file knows every layout)" "$T/err" ||
					fail "$mode: $n: not said: $(cat "$T/err")"
			else
				run grep -c 'written before' "$T/err"
				assert_output 0
			fi
		done
	done
	# Secrets' dump: exactly what --redact makes of the file (one pass is
	# enough for a JDK 17 dump), secrets gone, the plain dump's classes
	rm -f "$T/s.hprof"
	HPROFSTRIP_REDACT=values LD_PRELOAD=$SHIM "$REPLAY" threads "$D/orig.hprof" "$T/s.hprof" 2>"$T/err"
	"$STRIP" --redact -o "$T/want" "$D/orig.hprof"
	cmp_dump "$T/s.hprof" "$T/want"
	assert_no_secret "$T/s.hprof"
	"$RESTORE" -o "$T/s.r.hprof" "$T/s.hprof"
	histo "$T/s.r.hprof" >"$T/red.histo"
	histo "$D/plain.r.hprof" >"$T/plain.histo"
	diff "$T/plain.histo" "$T/red.histo"
	# JDK 22's segment files: no secret either (each .pN is its own
	# stream, without the class dumps: every instance's fields are zeros)
	rm -f "$T/jdk22.hprof"
	HPROFSTRIP_REDACT=values LD_PRELOAD=$SHIM timeout 60 \
		"$REPLAY" jdk22 "$D/orig.hprof" "$T/jdk22.hprof" 7 2>"$T/err"
	assert_no_secret "$T/jdk22.hprof"
	assert_stripped_dump "$T/jdk22.hprof"
}

@test "HPROFSTRIP_REDACT: values, no, a word it does not know (said once, values redacted), with HPROFSTRIP_KEEP=strings" {
	local f=$D/orig.hprof
	"$STRIP" --redact -o "$T/want" "$f"
	run env HPROFSTRIP_REDACT=no LD_PRELOAD="$SHIM" "$REPLAY" random "$f" "$T/no.hprof" 3
	assert_success
	cmp_dump "$T/no.hprof" "$D/plain.hprof"
	refute_output --partial redacted
	assert_every_secret "$T/no.hprof"
	run env HPROFSTRIP_REDACT=bogus LD_PRELOAD="$SHIM" "$REPLAY" random "$f" "$T/bogus.hprof" 3
	assert_success
	assert_line --index 0 "hprofstrip: HPROFSTRIP_REDACT: 'bogus' is not known (the level there is: values); values are redacted"
	run grep -c 'is not known' <<<"$output"
	assert_output 1
	cmp_dump "$T/bogus.hprof" "$T/want"
	# redaction wins over keeping Strings: nothing kept
	run env HPROFSTRIP_REDACT=values HPROFSTRIP_KEEP=strings LD_PRELOAD="$SHIM" \
		"$REPLAY" random "$f" "$T/keep.hprof" 3
	assert_success
	cmp_dump "$T/keep.hprof" "$T/want"
	assert_no_secret "$T/keep.hprof"
}
