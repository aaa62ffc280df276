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
#
# The names level (--redact=names, HPROFSTRIP_REDACT=names) also makes
# every STRING text that is not the runtime's a token of the same length,
# the originals in a names map (OUT.names, --names-map, DUMP.names beside a
# shim's dump) that hprofrestore --unredact puts back. "Secrets names"
# prints the application's names a dump holds (Customer's class name, its
# fields, the literals of a thread's name); "Secrets literals" the secret
# parts of literals shaped like the runtime's names, which the names level
# tokenizes whole; tests/pair-names checks a names-level dump against the
# values level's and the map.

load common

bats_require_minimum_version 1.5.0

TMO=${REDACT_TIMEOUT:-120}
FIND=$ROOT/tests/find-bytes
CUSTOMER=com.acme.secret.Customer
PAIR=$ROOT/tests/pair-names
# a key for the tokens that every run of a test shares
KEY=0123456789abcdef0123456789ABCDEF

# The shim's settings and preloads come from each test, never the caller:
# setup_file and setup call common.bash's clear_env (TEST_LD_PRELOAD would
# set LD_PRELOAD).

# What every test compares with: Secrets' patterns, field values and
# names, an MXBean dump of its heap taken without the shim (orig.hprof),
# that dump stripped plainly and restored, and redacted (values) and
# restored.
setup_file() {
	clear_env
	# test drivers, not among make all's: built here (a suite run alone has them)
	build_tests oracle replay splitcheck redactcheck namerule
	"$JUDGE" build >&2
	local d=$BATS_FILE_TMPDIR
	java -cp "$B/java" Secrets expect >"$d/expect"
	java -cp "$B/java" Secrets fields >"$d/fields"
	java -cp "$B/java" Secrets names >"$d/names"
	java -cp "$B/java" Secrets literals >"$d/literals"
	timeout "$TMO" java -cp "$B/java" Secrets dump "$d/orig.hprof" >&2
	"$STRIP" -o "$d/plain.hprof" "$d/orig.hprof"
	"$RESTORE" -o "$d/plain.r.hprof" "$d/plain.hprof"
	# the values level, which the names level is but for names
	"$STRIP" --redact -o "$d/values.hprof" "$d/orig.hprof"
	"$RESTORE" -o "$d/values.r.hprof" "$d/values.hprof"
}

setup() {
	clear_env
	T=$BATS_TEST_TMPDIR
	D=$BATS_FILE_TMPDIR
	# the patterns to scan for, from Secrets expect ("NAME HEX" lines)
	mapfile -t PATS < <(cut -d' ' -f2 "$D/expect")
	# the names to scan for, from Secrets names ("NAME HEX" lines)
	mapfile -t NAMES < <(cut -d' ' -f2 "$D/names")
	# the secret parts of literals shaped like the runtime's names, from
	# Secrets literals ("PART HEX" lines)
	mapfile -t LITS < <(cut -d' ' -f2 "$D/literals")
}

# find_none FILE WHAT PATTERN...: find-bytes finds none of the patterns
# (WHAT, in the message) in FILE
find_none() {
	local f=$1 what=$2
	shift 2
	run "$FIND" "$f" "$@"
	[ "$status" -eq 0 ] || fail "$f holds $what: $output"
}

# find_each FILE LIST LEAST PATTERN...: find-bytes finds the patterns in
# FILE, each "NAME HEX" of LIST at least `LEAST NAME` times (LEAST prints
# nothing: NAME is not looked for)
find_each() {
	local f=$1 list=$2 least=$3 name hex n min
	shift 3
	run "$FIND" "$f" "$@"
	[ "$status" -eq 1 ] || fail "find-bytes: status $status on $f: $output"
	while read -r name hex; do
		min=$("$least" "$name")
		[ -n "$min" ] || continue
		n=$(printf '%s\n' "$output" | sed -n "s/^$hex //p")
		[ "${n:-0}" -ge "$min" ] ||
			fail "$f: $name ($hex) found ${n:-0} times, not $min: $output"
	done <"$list"
}

# once NAME: 1 (each name of a list at least once)
once() {
	echo 1
}

# per_customer NAME: how often a pattern of Secrets expect must be found:
# KEY at least once, an instance field's once per Customer
per_customer() {
	[ "$1" = KEY ] && echo 1 || echo 500
}

# in_strings NAME: 1, but nothing for the class name as Java writes it (a
# dot in it), which only the contents of Strings hold
in_strings() {
	[[ $1 == *.* ]] || echo 1
}

# assert_no_secret DUMP: find-bytes finds none of Secrets' patterns in DUMP
assert_no_secret() {
	find_none "$1" secrets "${PATS[@]}"
}

# assert_every_secret DUMP: find-bytes finds each of Secrets' patterns in
# DUMP, the instance fields' once per Customer, KEY at least once
assert_every_secret() {
	find_each "$1" "$D/expect" per_customer "${PATS[@]}"
}

# assert_no_name DUMP: find-bytes finds none of Secrets' names in DUMP
assert_no_name() {
	find_none "$1" names "${NAMES[@]}"
}

# assert_every_name FILE: find-bytes finds each of Secrets' names in FILE,
# a dump's or a map's STRING records: all but the class name as Java
# writes it
assert_every_name() {
	find_each "$1" "$D/names" in_strings "${NAMES[@]}"
}

# assert_literals HOW FILE: find-bytes finds each of the literals' secret
# parts in FILE (HOW "each") or none of them (HOW "none")
assert_literals() {
	if [ "$1" = none ]; then
		find_none "$2" "the literals' secrets" "${LITS[@]}"
	else
		find_each "$2" "$D/literals" once "${LITS[@]}"
	fi
}

# map_names MAP: the records of MAP, a names map, framed to its end
map_names() {
	"$ROOT/tests/hprof-walk" frame "$1" | sed -n 's/^records \([0-9]*\), framed to EOF$/\1/p'
}

# assert_private FILE: FILE is the owner's alone (mode 0600)
assert_private() {
	assert_equal "$(stat -c %a "$1")" 600
}

# assert_token_histo PLAIN NAMES TOKEN: the histograms of two restored
# dumps of a heap, the plain one and the names level's, are the same but
# for the application's class names: the same roots and totals, the
# runtime's classes the same lines, every class the same count and size;
# Customer, none of whose names is left, under TOKEN, the token of
# com/acme/secret/Customer (with dots, as VisualVM writes it)
assert_token_histo() {
	local jdk='^((java|javax|jdk|sun|com\.sun)\.|(boolean|byte|char|short|int|long|float|double)(\[\])+ )'
	local tok=${3//\//.}
	diff <(tail -n 2 "$1") <(tail -n 2 "$2")
	diff <(grep -E "$jdk" "$1") <(grep -E "$jdk" "$2")
	[ "$(grep -cE "$jdk" "$2")" -ge 100 ] || fail "few runtime classes in $2"
	diff <(awk '{ print $(NF - 1), $NF }' "$1" | sort) <(awk '{ print $(NF - 1), $NF }' "$2" | sort)
	run grep -e acme -e Secrets -e Customer "$2"
	assert_failure
	# "NAME COUNT SIZE" of Customer and of its arrays, by NAME
	assert_equal "$(awk -v c="$tok" '$1 == c || $1 == c "[]" { print $2, $3 }' "$2")" \
		"$(awk -v c="$CUSTOMER" '$1 == c || $1 == c "[]" { print $2, $3 }' "$1")"
	assert_equal "$(awk -v c="$tok" '$1 == c { print $2 }' "$2")" 500
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
	for a in bogus "" " " name "values,names" "na mes"; do
		run --separate-stderr "$STRIP" "--redact=$a" -o "$T/x.hprof" "$D/orig.hprof"
		assert_failure 2
		assert_equal "$(printf '%s\n' "$stderr" | head -n 1)" \
			"hprofstrip: --redact: unknown level '$a' (the levels: values, names)"
		[ ! -e "$T/x.hprof" ] || fail "--redact=$a left $T/x.hprof"
	done
	run --separate-stderr "$RESTORE" --redact -o "$T/x.hprof" "$D/plain.hprof"
	assert_failure 2
	[ ! -e "$T/x.hprof" ]
}

@test "--redact=LEVEL: the level words in any case, blanks around them left out; yes/no words" {
	local a
	export HPROFSTRIP_NAMES_KEY=$KEY
	"$STRIP" --redact=names -o "$T/names.hprof" "$D/orig.hprof"
	for a in NAMES Names "names " "	nAmEs "; do
		rm -f "$T/x.hprof" "$T/x.hprof.names"
		run --separate-stderr "$STRIP" "--redact=$a" -o "$T/x.hprof" "$D/orig.hprof"
		assert_success
		cmp_dump "$T/x.hprof" "$T/names.hprof" || fail "'$a': not the names level"
		cmp_dump "$T/x.hprof.names" "$T/names.hprof.names" || fail "'$a': not the map"
	done
	for a in VALUES " Values" 1 yes TRUE on; do
		run --separate-stderr "$STRIP" "--redact=$a" -o "$T/x.hprof" "$D/orig.hprof"
		assert_success
		cmp_dump "$T/x.hprof" "$D/values.hprof" || fail "'$a': not the values level"
	done
	for a in 0 no False OFF; do
		run --separate-stderr "$STRIP" --redact "--redact=$a" -o "$T/x.hprof" "$D/orig.hprof"
		assert_success
		cmp_dump "$T/x.hprof" "$D/plain.hprof" || fail "'$a': not a plain strip"
	done
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
	assert_line --regexp "^hprofstrip: $T/x.red.hprof: [0-9]+ bytes in, [0-9]+ bytes out \([0-9.]+%\), [1-9][0-9]* arrays stripped; top classes by bytes: .+ \\(all in x.red.hprof.histo\\)$"
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

@test "shim: replayed with each runtime's system calls, HPROFSTRIP_REDACT=values gives hprofstrip --redact's bytes (JDK 22 and 25's segment files too)" {
	local f n mode said
	for f in "$D/orig.hprof" $(corpus_files); do
		n=$(basename "$f")
		# the shim has one pass: what hprofstrip does from a pipe
		run --separate-stderr bash -c 'cat "$1" | "$2" --redact -o "$3"' _ "$f" "$STRIP" "$T/want"
		assert_success
		said=$(printf '%s\n' "$stderr" | sed -n 's/^hprofstrip: stdin: --redact: \([0-9]*\) instances .*/\1/p')
		for mode in random threads jdk8 art pwrite writev jdk22 jdk25; do
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
	# JDK 22's segment files: exactly the same, no secret either
	rm -f "$T/jdk22.hprof"
	HPROFSTRIP_REDACT=values LD_PRELOAD=$SHIM timeout 60 \
		"$REPLAY" jdk22 "$D/orig.hprof" "$T/jdk22.hprof" 7 2>"$T/err"
	cmp_dump "$T/jdk22.hprof" "$T/want"
	assert_no_secret "$T/jdk22.hprof"
}

# sealed_run NAME N KILL LEVEL: a JDK 25 replay of Secrets' dump as
# $T/d/NAME with N dumpers under HPROFSTRIP_REDACT=LEVEL, the segment
# files hard-linked into $T/keep as they were before the merge;
# KILL: REPLAY_KILL's moment, or "" (the dump ends)
sealed_run() {
	rm -rf "$T/d" "$T/keep"
	mkdir "$T/d" "$T/keep"
	run --separate-stderr env REPLAY_DUMPERS="$2" REPLAY_KILL="$3" \
		REPLAY_PN_KEEP="$T/keep" HPROFSTRIP_REDACT="$4" \
		HPROFSTRIP_NAMES_KEY=$KEY LD_PRELOAD=$SHIM \
		timeout 60 "$REPLAY" jdk25 "$D/orig.hprof" "$T/d/$1" 5
}

@test "JDK 25's segment files under HPROFSTRIP_REDACT: sealed on disk till the merge, none readable when the runtime is killed before it or mid-dump; a sniffed heap.bin's too; the dump exactly --redact's, 1 to 8 dumpers" {
	local name n kill lvl f
	"$STRIP" --redact -o "$T/values" "$D/orig.hprof"
	HPROFSTRIP_NAMES_KEY=$KEY "$STRIP" --redact=names -o "$T/names" "$D/orig.hprof"
	# the secrets are in the segment files of a plain strip (long and
	# int fields): the scans below can fail
	sealed_run x.hprof 4 "" no
	assert_success
	cat "$T"/keep/* >"$T/plain-segments"
	run "$FIND" "$T/plain-segments" "${PATS[@]}"
	assert_failure
	for name in x.hprof heap.bin; do
		for n in 1 4 8; do
			for lvl in values names; do
				sealed_run "$name" "$n" "" "$lvl"
				assert_success
				cmp_dump "$T/d/$name" "$T/$lvl" || fail "$name, $n dumpers, $lvl"
				[ -z "$(ls "$T/d" | grep '\.p[0-9]')" ] || fail "$name: $(ls "$T/d")"
				for f in "$T"/keep/* "$T"/d/*; do
					assert_no_secret "$f"
				done
				refute_output --partial "written before"
			done
		done
		# killed before the merge, or right after the class dumps:
		# the main file (its non-heap records) and the sealed segments
		for kill in merge segments; do
			sealed_run "$name" 4 "$kill" values
			assert_equal "$status" 137
			ls "$T/d" | grep -q '\.p0$' || fail "$kill: no segment left: $(ls "$T/d")"
			for f in "$T"/d/*; do
				assert_no_secret "$f"
			done
		done
	done
	# a sealed segment is no HPROF record: random bytes, not 0x1C
	sealed_run x.hprof 2 merge values
	[ "$(head -c 1 "$T/d/x.hprof.p0" | od -An -tx1 | tr -d ' ')" != 1c ]
}

@test "a runtime's gzip dump under HPROFSTRIP_REDACT (JDK 17's members, JDK 25's segments and merge): the streamed --redact, as gzip; no secret in any file, whole or killed before the merge or mid-dump" {
	local mode n kill lvl f
	"$STRIP" --stream --redact -o "$T/values" "$D/orig.hprof"
	HPROFSTRIP_NAMES_KEY=$KEY "$STRIP" --stream --redact=names -o "$T/names" "$D/orig.hprof"
	# the secrets are in the runtime's gzip stream: the scans can fail
	REPLAY_GZIP=1 "$REPLAY" threads "$D/orig.hprof" "$T/plain.gz"
	gzip -dc "$T/plain.gz" >"$T/plain"
	run "$FIND" "$T/plain" "${PATS[@]}"
	assert_failure
	for lvl in values names; do
		for mode in random threads pwrite writev; do
			rm -rf "$T/d" && mkdir "$T/d"
			REPLAY_GZIP=1 HPROFSTRIP_REDACT=$lvl HPROFSTRIP_NAMES_KEY=$KEY \
				HPROFSTRIP_QUIET=1 LD_PRELOAD=$SHIM timeout 60 \
				"$REPLAY" "$mode" "$D/orig.hprof" "$T/d/x.hprof.gz" 3
			cmp_dump <(gzip -dc "$T/d/x.hprof.gz") "$T/$lvl" || fail "$mode, $lvl"
		done
		for n in 1 4; do
			rm -rf "$T/d" "$T/keep" && mkdir "$T/d" "$T/keep"
			REPLAY_GZIP=1 REPLAY_DUMPERS=$n REPLAY_PN_KEEP=$T/keep \
				HPROFSTRIP_REDACT=$lvl HPROFSTRIP_NAMES_KEY=$KEY \
				HPROFSTRIP_QUIET=1 LD_PRELOAD=$SHIM timeout 60 \
				"$REPLAY" jdk25 "$D/orig.hprof" "$T/d/x.hprof.gz" 5
			cmp_dump <(gzip -dc "$T/d/x.hprof.gz") "$T/$lvl" || fail "jdk25, $n, $lvl"
			for f in "$T"/keep/* "$T"/d/*; do
				assert_no_secret "$f"
			done
		done
	done
	# killed: the main file holds the runtime's stream sealed, the
	# segments too; gzip -dc finds no gzip in them
	for kill in merge segments; do
		rm -rf "$T/d" && mkdir "$T/d"
		run env REPLAY_GZIP=1 REPLAY_DUMPERS=4 REPLAY_KILL=$kill \
			HPROFSTRIP_REDACT=values LD_PRELOAD=$SHIM timeout 60 \
			"$REPLAY" jdk25 "$D/orig.hprof" "$T/d/x.hprof.gz" 5
		assert_equal "$status" 137
		ls "$T/d" | grep -q '\.p0$' || fail "$kill: $(ls "$T/d")"
		for f in "$T"/d/*; do
			assert_no_secret "$f"
			case $f in
			*.hprofstrip~)
				# the stripped dump's stand-in, its compressor
				# ended when the runtime died (whole or cut):
				# what it holds is redacted
				run bash -c 'gzip -dc "$1" >"$2"' _ "$f" "$T/part"
				[ -s "$T/part" ] || fail "$f: nothing in it"
				assert_no_secret "$T/part" ;;
			*)
				run gzip -t "$f"
				assert_failure ;;
			esac
		done
	done
}

@test "HPROFSTRIP_REDACT: values, no, level words in any case and blanks, a word it does not know (said once, the names level), with HPROFSTRIP_KEEP=strings" {
	local f=$D/orig.hprof w
	export HPROFSTRIP_NAMES_KEY=$KEY
	"$STRIP" --redact -o "$T/want" "$f"
	"$STRIP" --redact=names -o "$T/names" "$f"
	run env HPROFSTRIP_REDACT=no LD_PRELOAD="$SHIM" "$REPLAY" random "$f" "$T/no.hprof" 3
	assert_success
	cmp_dump "$T/no.hprof" "$D/plain.hprof"
	refute_output --partial redacted
	assert_every_secret "$T/no.hprof"
	# the names level, whatever the word's case and the blanks around it
	for w in NAMES Names 'names ' '	names'; do
		rm -f "$T/w.hprof" "$T/w.hprof.names"
		run env HPROFSTRIP_REDACT="$w" LD_PRELOAD="$SHIM" "$REPLAY" random "$f" "$T/w.hprof" 3
		assert_success
		refute_output --partial 'not known'
		cmp_dump "$T/w.hprof" "$T/names" || fail "'$w': not the names level"
		assert_no_name "$T/w.hprof"
	done
	run env HPROFSTRIP_REDACT=' VALUES ' LD_PRELOAD="$SHIM" "$REPLAY" random "$f" "$T/v.hprof" 3
	assert_success
	cmp_dump "$T/v.hprof" "$T/want"
	# a word it does not know: the strongest level, said once
	run env HPROFSTRIP_REDACT=bogus LD_PRELOAD="$SHIM" "$REPLAY" random "$f" "$T/bogus.hprof" 3
	assert_success
	assert_line --index 0 "hprofstrip: HPROFSTRIP_REDACT: 'bogus' is not known (the levels: values, names); the strongest is used: names"
	run grep -c 'is not known' <<<"$output"
	assert_output 1
	cmp_dump "$T/bogus.hprof" "$T/names"
	assert_no_name "$T/bogus.hprof"
	assert_no_secret "$T/bogus.hprof"
	unset HPROFSTRIP_NAMES_KEY
	# redaction wins over keeping Strings: nothing kept
	run env HPROFSTRIP_REDACT=values HPROFSTRIP_KEEP=strings LD_PRELOAD="$SHIM" \
		"$REPLAY" random "$f" "$T/keep.hprof" 3
	assert_success
	cmp_dump "$T/keep.hprof" "$T/want"
	assert_no_secret "$T/keep.hprof"
}

@test "--redact=names: no secret value or name left, the names in the map alone; --redact leaves the names" {
	local n
	# the names are in the dump as Secrets made it, the class name as
	# Java writes it too (in Strings): the scans below can fail
	run "$FIND" "$D/orig.hprof" "${NAMES[@]}"
	assert_failure 1
	refute_output --regexp ' 0$'
	# the values level keeps every name of the dump's
	assert_every_name "$D/values.hprof"
	run --separate-stderr "$STRIP" -v --redact=names -o "$T/red.hprof" "$D/orig.hprof"
	assert_success
	assert_output ""
	# the strip's line, the values', the names'
	[ "$(printf '%s\n' "$stderr" | wc -l)" -eq 3 ] || fail "stderr: $stderr"
	[[ $stderr =~ "redacted the fields of "[1-9][0-9]*" instances and "[1-9][0-9]*" static and constant values; " ]] ||
		fail "no redaction summary in: $stderr"
	[[ $stderr =~ $'\n'"hprofstrip: $D/orig.hprof: "([0-9]+)" names tokenized; their originals in $T/red.hprof.names (keep it private)"$ ]] ||
		fail "no names summary in: $stderr"
	n=${BASH_REMATCH[1]}
	assert_no_secret "$T/red.hprof"
	assert_no_name "$T/red.hprof"
	assert_stripped_dump "$T/red.hprof"
	# the map: an HPROF file of the originals, the owner's alone, as many
	# as said; the names are there, no value
	assert_equal "$(head -c 19 "$T/red.hprof.names" | tr '\0' '@')" "JAVA PROFILE 1.0.2@"
	assert_private "$T/red.hprof.names"
	assert_equal "$(map_names "$T/red.hprof.names")" "$n"
	[ "$n" -ge "${#NAMES[@]}" ]
	assert_every_name "$T/red.hprof.names"
	assert_no_secret "$T/red.hprof.names"
	# the values level's dump but for the texts the map has, each the
	# same length; Customer's class name one token, the same in its array
	# class's name and its source file's; the runtime's names kept
	run "$PAIR" "$D/values.hprof" "$T/red.hprof" "$T/red.hprof.names" \
		com/acme/secret/Customer "[Lcom/acme/secret/Customer;" Customer.java \
		java/lang/String "[Ljava/lang/String;" "[B" "<init>" value next
	assert_success
	assert_line --index 0 "names $n"
	[[ ${lines[1]} =~ ^changed\ ([0-9]+)$ ]] && [ "${BASH_REMATCH[1]}" -ge $((n * 9 / 10)) ] ||
		fail "few names changed: $output"
	[[ ${lines[2]} =~ ^com/acme/secret/Customer\ ([a-z]{3}/[a-z]{4}/[a-z]{6}/[A-Z][a-z]{7})$ ]] ||
		fail "Customer's token: $output"
	local tok=${BASH_REMATCH[1]}
	assert_line --index 3 "[Lcom/acme/secret/Customer; [L$tok;"
	assert_line --index 4 "Customer.java ${tok##*/}.${lines[4]##*.}"
	refute_line --index 4 "Customer.java ${tok##*/}.java"
	assert_line --index 5 "java/lang/String kept"
	assert_line --index 6 "[Ljava/lang/String; kept"
	assert_line --index 7 "[B kept"
	assert_line --index 8 "<init> kept"
	assert_line --index 9 "value kept"
	assert_line --index 10 "next kept"
	[ "${#lines[@]}" -eq 11 ]
	# the structure of the values level: sizes and census
	[ "$(size_of "$T/red.hprof")" -eq "$(size_of "$D/values.hprof")" ]
	diff <(census "$D/values.hprof") <(census "$T/red.hprof")
	# without -v, not a word
	run --separate-stderr "$STRIP" --redact=names -o "$T/quiet.hprof" "$D/orig.hprof"
	assert_success
	assert_equal "$stderr" ""
	[ -s "$T/quiet.hprof.names" ]
}

# rule_words FILE: the names level's rule as FILE says it (redaction.md's
# list, names.c's comment), its words on one line
rule_words() {
	sed -n '/A text stays readable only when the whole text/,/seen whole\./p' "$1" |
		sed -e 's/^ *\* \{0,1\}//' -e 's/^ *//' | tr -s ' \n' '  '
}

@test "strip/engine/redaction.md: the names level's rule is names.c's, word for word" {
	local readme code
	readme=$(rule_words "$ROOT/strip/engine/redaction.md")
	code=$(rule_words "$ROOT/strip/engine/names.c")
	[[ $readme == *"seen whole."* ]] || fail "no rule in strip/engine/redaction.md: $readme"
	assert_equal "$code" "$readme"
}

@test "the names rule over a table of texts (tests/namerule.c): the runtime's names kept, texts shaped like them tokens; hprofstrip --redact=names of the table passes redactcheck --names, whose rule is its own copy" {
	run "$B/namerule"
	assert_success
	assert_output --regexp "^namerule: [1-9][0-9]* passed, 0 failed$"
	"$B/namerule" -w "$T/rule.hprof"
	HPROFSTRIP_NAMES_KEY=$KEY "$STRIP" --redact=names -o "$T/red.hprof" "$T/rule.hprof"
	run "$B/redactcheck" --names "$T/red.hprof.names" "$T/rule.hprof" "$T/red.hprof"
	assert_success
	assert_output --regexp ", [1-9][0-9]* names tokenized, [1-9][0-9]* kept$"
}

@test "--redact=names: literals that start or look like the runtime's names (markup, '=', ':', ';', spaces, tabs, newlines, an application class in a descriptor, past 256 bytes) are tokenized whole; redactcheck --names fails on a prefix rule's output" {
	# each secret part is in the JVM's dump, and stays at the values level
	# (it keeps every symbol the runtime made)
	assert_literals each "$D/orig.hprof"
	assert_literals each "$D/values.hprof"
	HPROFSTRIP_NAMES_KEY=$KEY "$STRIP" --redact=names -o "$T/red.hprof" "$D/orig.hprof"
	assert_literals none "$T/red.hprof"
	assert_literals each "$T/red.hprof.names"
	run "$B/redactcheck" --names "$T/red.hprof.names" "$D/orig.hprof" "$T/red.hprof"
	assert_success
	# the runtime's names stay: classes, descriptors, <init>
	run "$PAIR" "$D/values.hprof" "$T/red.hprof" "$T/red.hprof.names" \
		java/lang/Thread "Ljava/lang/String;" "(Ljava/lang/String;)V" "[[I" \
		"<clinit>" "<resolved_references>"
	assert_success
	assert_line --index 2 "java/lang/Thread kept"
	assert_line --index 3 "Ljava/lang/String; kept"
	assert_line --index 4 "(Ljava/lang/String;)V kept"
	assert_line --index 5 "[[I kept"
	assert_line --index 6 "<clinit> kept"
	assert_line --index 7 "<resolved_references> kept"
	# a writer that keeps what starts like a runtime name: a literal such
	# as java.security.cert.Certificate: back; the checker says where
	run "$ROOT/tests/names-fixture" prefixed "$D/orig.hprof" "$T/red.hprof" \
		"$T/red.hprof.names" "$T/prefixed.hprof"
	assert_success
	[ "$output" -ge 0 ] || fail "names-fixture found no such literal"
	local off=$output
	run "$B/redactcheck" --names "$T/red.hprof.names" "$D/orig.hprof" "$T/prefixed.hprof"
	assert_failure 1
	assert_output --regexp "^redactcheck: $T/prefixed.hprof: offset $off: STRING 0x[0-9a-f]+ .*: not tokenized: the original text"
}

@test "shim: HPROFSTRIP_REDACT=names under a real JVM: literals shaped like the runtime's names leave no secret in the dump, each in the map" {
	HPROFSTRIP_REDACT=names HPROFSTRIP_SNIFF=no HPROFSTRIP_PATTERN='*.red.hprof' \
		LD_PRELOAD=$SHIM timeout "$TMO" java -cp "$B/java" Secrets dump \
		"$T/x.plain.hprof" "$T/x.red.hprof" 2>"$T/err"
	assert_literals each "$T/x.plain.hprof"
	assert_literals none "$T/x.red.hprof"
	assert_literals each "$T/x.red.hprof.names"
	assert_stripped_dump "$T/x.red.hprof"
}

@test "--redact=names, restored: with --unredact the values level's dump byte for byte, VisualVM's plain histogram; without it, the same histogram under tokens" {
	local tok
	HPROFSTRIP_NAMES_KEY=$KEY "$STRIP" --redact=names -o "$T/red.hprof" "$D/orig.hprof"
	run --separate-stderr "$RESTORE" -v --unredact "$T/red.hprof.names" -o "$T/red.u.hprof" "$T/red.hprof"
	assert_success
	assert_equal "$(printf '%s\n' "$stderr" | tail -n 1)" \
		"hprofrestore: $T/red.hprof: $(map_names "$T/red.hprof.names") names given back from $T/red.hprof.names"
	cmp "$T/red.u.hprof" "$D/values.r.hprof"
	# from stdin to stdout, the same
	"$RESTORE" --unredact "$T/red.hprof.names" <"$T/red.hprof" >"$T/red.u2.hprof"
	cmp "$T/red.u2.hprof" "$D/values.r.hprof"
	# VisualVM reads it as the plain dump, and Customer's values as zeros
	histo "$D/plain.r.hprof" >"$T/plain.histo"
	histo "$T/red.u.hprof" >"$T/red.u.histo"
	diff "$T/plain.histo" "$T/red.u.histo"
	grep -q "^$CUSTOMER 500 " "$T/red.u.histo"
	assert_zero_fields "$T/red.u.hprof"
	# restored without the map: the same classes, counts and sizes, the
	# application's under tokens (the runtime's size statics are read by
	# their names: those stay)
	tok=$("$PAIR" "$D/values.hprof" "$T/red.hprof" "$T/red.hprof.names" com/acme/secret/Customer | sed -n 3p)
	tok=${tok#* }
	[ -n "$tok" ] && [ "$tok" != kept ] || fail "no token for Customer"
	"$RESTORE" -o "$T/red.r.hprof" "$T/red.hprof"
	run --separate-stderr "$JUDGE" histo "$T/red.r.hprof"
	[ "$status" -eq 0 ] || fail "VisualVM cannot read it: $stderr"
	printf '%s\n' "$output" >"$T/red.histo"
	assert_token_histo "$T/plain.histo" "$T/red.histo" "$tok"
}

@test "HPROFSTRIP_NAMES_KEY: a fixed key gives the same tokens every run; a random one other tokens of the same names" {
	local k
	for k in 1 2; do
		HPROFSTRIP_NAMES_KEY=$KEY "$STRIP" --redact=names -o "$T/k$k.hprof" "$D/orig.hprof"
		"$STRIP" --redact=names -o "$T/r$k.hprof" "$D/orig.hprof"
	done
	cmp "$T/k1.hprof" "$T/k2.hprof"
	cmp "$T/k1.hprof.names" "$T/k2.hprof.names"
	# in any case or form of input (a JDK 17 dump: from a pipe as from
	# the file), and whatever the case of its hex digits
	# shellcheck disable=SC2002 # a pipe
	cat "$D/orig.hprof" | HPROFSTRIP_NAMES_KEY=$KEY "$STRIP" --redact=names --names-map "$T/k3.map" >"$T/k3.hprof"
	cmp "$T/k1.hprof" "$T/k3.hprof"
	cmp "$T/k1.hprof.names" "$T/k3.map"
	HPROFSTRIP_NAMES_KEY=${KEY,,} "$STRIP" --redact=names -o "$T/k4.hprof" "$D/orig.hprof"
	cmp "$T/k1.hprof" "$T/k4.hprof"
	# another key, other tokens
	HPROFSTRIP_NAMES_KEY=fedcba9876543210fedcba9876543210 "$STRIP" --redact=names -o "$T/k5.hprof" "$D/orig.hprof"
	run cmp -s "$T/k1.hprof" "$T/k5.hprof"
	assert_failure
	# without a key, each run its own tokens...
	run cmp -s "$T/r1.hprof" "$T/r2.hprof"
	assert_failure
	run cmp -s "$T/k1.hprof" "$T/r1.hprof"
	assert_failure
	# ... of the same names: the same maps, and the dumps differ from the
	# values level in those names' texts alone
	for k in k1 k5 r1 r2; do
		cmp "$T/k1.hprof.names" "$T/$k.hprof.names"
		run "$PAIR" "$D/values.hprof" "$T/$k.hprof" "$T/$k.hprof.names" com/acme/secret/Customer
		assert_success
		printf '%s\n' "${lines[2]}" >"$T/$k.tok"
		[ "$(size_of "$T/$k.hprof")" -eq "$(size_of "$D/values.hprof")" ]
		diff <(census "$D/values.hprof") <(census "$T/$k.hprof")
	done
	run cmp -s "$T/r1.tok" "$T/r2.tok"
	assert_failure
	run cmp -s "$T/k1.tok" "$T/k5.tok"
	assert_failure
}

@test "--redact=names usage: stdout needs --names-map, --names-map needs --redact=names, HPROFSTRIP_NAMES_KEY 32 hex digits; the map is 0600 whatever the input's mode" {
	local a k
	cp "$D/orig.hprof" "$T/in.hprof"
	chmod 0644 "$T/in.hprof"
	mkdir "$T/o"
	for a in "" "-o -"; do
		# shellcheck disable=SC2086
		run --separate-stderr "$STRIP" --redact=names $a "$T/in.hprof"
		assert_failure 2
		assert_output ""
		assert_equal "$stderr" "hprofstrip: --redact=names to stdout needs --names-map FILE, where the original names go
Try 'hprofstrip --help'."
	done
	for a in "--names-map $T/o/m" "--redact --names-map $T/o/m" "--redact=values --names-map $T/o/m"; do
		# shellcheck disable=SC2086
		run --separate-stderr "$STRIP" $a -o "$T/o/x.hprof" "$T/in.hprof"
		assert_failure 2
		assert_equal "$stderr" "hprofstrip: --names-map goes with --redact=names
Try 'hprofstrip --help'."
	done
	run --separate-stderr "$STRIP" --redact=names -o "$T/o/x.hprof" "$T/in.hprof" --names-map
	assert_failure 2
	assert_equal "$(printf '%s\n' "$stderr" | head -n 1)" "hprofstrip: --names-map needs a file name"
	for k in xyz "${KEY}0" "${KEY:1}" "${KEY:1}g" " $KEY"; do
		run --separate-stderr env HPROFSTRIP_NAMES_KEY="$k" "$STRIP" --redact=names -o "$T/o/x.hprof" "$T/in.hprof"
		assert_failure 2
		assert_output ""
		assert_equal "$(printf '%s\n' "$stderr" | head -n 1)" "hprofstrip: HPROFSTRIP_NAMES_KEY: not 32 hex digits"
	done
	# nothing written by any
	run ls -A "$T/o"
	assert_output ""
	# the map is the owner's alone; the dump has the input's mode
	"$STRIP" --redact=names -o "$T/o/x.hprof" "$T/in.hprof"
	assert_equal "$(stat -c %a "$T/o/x.hprof")" 644
	assert_private "$T/o/x.hprof.names"
	# --names-map, to stdout too; an older map there, readable by all,
	# is replaced by one that is not
	install -m 0644 /dev/null "$T/o/m"
	"$STRIP" --redact=names --names-map "$T/o/m" "$T/in.hprof" >"$T/o/y.hprof"
	assert_private "$T/o/m"
	assert_every_name "$T/o/m"
	[ ! -e "$T/o/y.hprof.names" ]
	# a fixed key (in case of a world-readable umask too)
	(umask 0 && HPROFSTRIP_NAMES_KEY=$KEY "$STRIP" --redact=names -o "$T/o/z.hprof" "$T/in.hprof")
	assert_private "$T/o/z.hprof.names"
}

@test "--redact=names: the names map is never the input or the output" {
	local a
	cp "$D/orig.hprof" "$T/in.hprof"
	for a in "--names-map $T/in.hprof -o $T/out.hprof" \
		"--names-map $T/out.hprof -o $T/out.hprof"; do
		rm -f "$T/out.hprof"
		# shellcheck disable=SC2086
		run --separate-stderr "$STRIP" --redact=names $a "$T/in.hprof"
		assert_failure 2
		cmp "$T/in.hprof" "$D/orig.hprof" || fail "$a: the input is gone"
		[ ! -e "$T/out.hprof" ] || fail "$a: $(head -c 18 "$T/out.hprof") in the output"
	done
	# OUT.names the input: IN named x.names, -o x
	cp "$D/orig.hprof" "$T/x.names"
	run --separate-stderr "$STRIP" --redact=names -o "$T/x" "$T/x.names"
	assert_failure 2
	cmp "$T/x.names" "$D/orig.hprof" || fail "-o x, x.names the input: the input is gone"
}

@test "hprofrestore --unredact: a missing map, a file that is no map, a map cut short: exit 1, one line, no output" {
	local m off cut
	HPROFSTRIP_NAMES_KEY=$KEY "$STRIP" --redact=names -o "$T/red.hprof" "$D/orig.hprof"
	m=$T/red.hprof.names
	mkdir "$T/o"
	# unredact_fails MAP LINE: --unredact MAP fails with LINE, and leaves
	# no output, to a file or to stdout
	unredact_fails() {
		run --separate-stderr "$RESTORE" --unredact "$1" -o "$T/o/x.hprof" "$T/red.hprof"
		assert_failure 1
		assert_output ""
		assert_equal "$stderr" "$2"
		run --separate-stderr "$RESTORE" --unredact "$1" "$T/red.hprof"
		assert_failure 1
		assert_output ""
		assert_equal "$stderr" "$2"
		run ls -A "$T/o"
		assert_output ""
	}
	unredact_fails "$T/none" "hprofrestore: $T/none: No such file or directory"
	unredact_fails "$T" "hprofrestore: $T: not a regular file"
	printf 'a names map\n' >"$T/text"
	unredact_fails "$T/text" "hprofrestore: $T/text: offset 0: not a names map (no \"JAVA PROFILE 1.0.2\" header)"
	# a dump is no map: its first record that is no STRING
	run --separate-stderr "$RESTORE" --unredact "$D/values.hprof" -o "$T/o/x.hprof" "$T/red.hprof"
	assert_failure 1
	[[ $stderr =~ ^"hprofrestore: $D/values.hprof: offset "([0-9]+)": not a STRING record"$ ]] || fail "stderr: $stderr"
	off=${BASH_REMATCH[1]}
	[ "$(od -An -tx1 -j "$off" -N 1 "$D/values.hprof")" = " 02" ] || fail "offset $off is no LOAD_CLASS"
	# cut in a record's text: the offset of that record
	off=$("$ROOT/tests/hprof-walk" strings "$m" | awk '{ p = q; q += 9 + length($1 $2) / 2 } NR == 1000 { print 31 + p; exit }')
	# (past the id: its text, of a byte or more, cut away)
	cut=$((off + 9 + 8))
	head -c "$cut" "$m" >"$T/cut"
	unredact_fails "$T/cut" "hprofrestore: $T/cut: offset $off: record cut short"
	head -c $((off + 4)) "$m" >"$T/cut"
	unredact_fails "$T/cut" "hprofrestore: $T/cut: offset $off: cut inside a record header"
	# the map of another dump (the same heap dumped again: the same names,
	# another time stamp) gives nothing back
	fresh_dump "$D/orig.hprof" "$T/again.hprof"
	HPROFSTRIP_NAMES_KEY=$KEY "$STRIP" --redact=names -o "$T/again.red.hprof" "$T/again.hprof"
	# (to a file: no output left; to stdout the bytes went before the
	# map's stamp could be compared, and the exit status says so)
	run --separate-stderr "$RESTORE" --unredact "$T/again.red.hprof.names" -o "$T/o/x.hprof" "$T/red.hprof"
	assert_failure 1
	assert_equal "$stderr" "hprofrestore: $T/again.red.hprof.names: the names map of another dump (its time stamp is not $T/red.hprof's)"
	run ls -A "$T/o"
	assert_output ""
	run --separate-stderr bash -c '"$1" --unredact "$2" "$3" >/dev/null' _ "$RESTORE" "$T/again.red.hprof.names" "$T/red.hprof"
	assert_failure 1
	assert_equal "$stderr" "hprofrestore: $T/again.red.hprof.names: the names map of another dump (its time stamp is not $T/red.hprof's)"
	# whole, it gives back
	run --separate-stderr "$RESTORE" --unredact "$m" -o "$T/o/x.hprof" "$T/red.hprof"
	assert_success
	cmp "$T/o/x.hprof" "$D/values.r.hprof"
	run --separate-stderr "$RESTORE" --unredact
	assert_failure 2
	assert_equal "$(printf '%s\n' "$stderr" | head -n 1)" "hprofrestore: --unredact needs a names map"
}

@test "shim: HPROFSTRIP_REDACT=names under a real JVM: no secret, no name; the map beside the dump, 0600; --unredact gives Customer back" {
	local n
	HPROFSTRIP_REDACT=names HPROFSTRIP_SNIFF=no HPROFSTRIP_PATTERN='*.red.hprof' \
		LD_PRELOAD=$SHIM timeout "$TMO" java -cp "$B/java" Secrets dump \
		"$T/x.plain.hprof" "$T/x.red.hprof" 2>"$T/err"
	# the heap's names, in the JVM's own dump (the scan can fail)...
	assert_every_name "$T/x.plain.hprof"
	assert_every_secret "$T/x.plain.hprof"
	# ... none in the shim's
	assert_no_secret "$T/x.red.hprof"
	assert_no_name "$T/x.red.hprof"
	assert_stripped_dump "$T/x.red.hprof"
	run cat "$T/err"
	assert_line --regexp "^hprofstrip: $T/x.red.hprof: [0-9]+ bytes in, [0-9]+ bytes out \([0-9.]+%\), [1-9][0-9]* arrays stripped; top classes by bytes: .+ \\(all in x.red.hprof.histo\\)$"
	assert_line --regexp "^hprofstrip: $T/x.red.hprof: redacted the fields of [1-9][0-9]+ instances and [1-9][0-9]* static and constant values$"
	[[ $output =~ "hprofstrip: $T/x.red.hprof: "([0-9]+)" names tokenized; their originals in $T/x.red.hprof.names (keep it private)" ]] ||
		fail "no names summary: $output"
	n=${BASH_REMATCH[1]}
	[ "${#lines[@]}" -eq 3 ] || fail "stderr: $output"
	# the map: beside the dump, the owner's, the names and none else;
	# none beside the dump the shim left alone
	assert_private "$T/x.red.hprof.names"
	assert_equal "$(map_names "$T/x.red.hprof.names")" "$n"
	assert_every_name "$T/x.red.hprof.names"
	assert_no_secret "$T/x.red.hprof.names"
	[ ! -e "$T/x.plain.hprof.names" ]
	# given back: Customer's 500, their values zeros
	run --separate-stderr "$RESTORE" -v --unredact "$T/x.red.hprof.names" -o "$T/x.u.hprof" "$T/x.red.hprof"
	assert_success
	assert_equal "$(printf '%s\n' "$stderr" | tail -n 1)" \
		"hprofrestore: $T/x.red.hprof: $n names given back from $T/x.red.hprof.names"
	histo "$T/x.u.hprof" >"$T/u.histo"
	grep -q "^$CUSTOMER 500 [1-9][0-9]*$" "$T/u.histo" || fail "no 500 Customers: $(head "$T/u.histo")"
	assert_zero_fields "$T/x.u.hprof"
	# the plain dump's Customer line (the same heap, a collection apart)
	"$STRIP" -o "$T/x.plain.s.hprof" "$T/x.plain.hprof"
	"$RESTORE" -o "$T/x.plain.r.hprof" "$T/x.plain.s.hprof"
	histo "$T/x.plain.r.hprof" >"$T/plain.histo"
	assert_equal "$(grep "^$CUSTOMER " "$T/u.histo")" "$(grep "^$CUSTOMER " "$T/plain.histo")"
	# and a second --redact=names of it finds no name left to hide
	"$RESTORE" -o "$T/x.red.r.hprof" "$T/x.red.hprof"
	HPROFSTRIP_NAMES_KEY=$KEY "$STRIP" --redact=names -o "$T/again.hprof" "$T/x.red.r.hprof"
	assert_no_name "$T/again.hprof.names"
}

@test "shim: replayed with each runtime's system calls, HPROFSTRIP_REDACT=names with a fixed key gives hprofstrip --redact=names's dump and map from a pipe" {
	local f n mode said
	export HPROFSTRIP_NAMES_KEY=$KEY
	for f in "$D/orig.hprof" $(corpus_files); do
		n=$(basename "$f")
		run --separate-stderr bash -c 'cat "$1" | "$2" -v --redact=names --names-map "$3.map" >"$3"' _ "$f" "$STRIP" "$T/want"
		assert_success
		said=$(printf '%s\n' "$stderr" | sed -n 's/^hprofstrip: stdin: \([0-9]*\) names tokenized; .*/\1/p')
		[ -n "$said" ] && [ "$said" -gt 0 ] || fail "$n: no names said: $stderr"
		for mode in random threads jdk8 art pwrite writev; do
			rm -f "$T/$mode.hprof" "$T/$mode.hprof.names"
			HPROFSTRIP_REDACT=names LD_PRELOAD=$SHIM timeout 60 \
				"$REPLAY" "$mode" "$f" "$T/$mode.hprof" 7 2>"$T/err" ||
				fail "$mode: replay failed on $n: $(cat "$T/err")"
			cmp_dump "$T/$mode.hprof" "$T/want" || fail "$mode: $n: the dump"
			# the map carries the dump's time stamp, the replayer's
			cmp_dump "$T/$mode.hprof.names" "$T/want.map" || fail "$mode: $n: the map"
			[ "$(od -An -tx1 -j23 -N8 "$T/$mode.hprof.names")" = "$(od -An -tx1 -j23 -N8 "$T/$mode.hprof")" ] ||
				fail "$mode: $n: the map's time stamp is not the dump's"
			assert_private "$T/$mode.hprof.names"
			grep -qx "hprofstrip: $T/$mode.hprof: $said names tokenized; their originals in $T/$mode.hprof.names (keep it private)" "$T/err" ||
				fail "$mode: $n: not said: $(cat "$T/err")"
		done
	done
	# Secrets' dump: no secret, no name; the map gives them back
	rm -f "$T/s.hprof"
	HPROFSTRIP_REDACT=names LD_PRELOAD=$SHIM "$REPLAY" threads "$D/orig.hprof" "$T/s.hprof" 2>"$T/err"
	assert_no_secret "$T/s.hprof"
	assert_no_name "$T/s.hprof"
	"$RESTORE" --unredact "$T/s.hprof.names" -o "$T/s.u.hprof" "$T/s.hprof"
	cmp_dump "$T/s.u.hprof" "$D/values.r.hprof"
	# JDK 22's segment files hold no names; the map is the main file's
	rm -f "$T/jdk22.hprof"*
	HPROFSTRIP_REDACT=names LD_PRELOAD=$SHIM timeout 60 \
		"$REPLAY" jdk22 "$D/orig.hprof" "$T/jdk22.hprof" 7 2>"$T/err"
	assert_no_secret "$T/jdk22.hprof"
	assert_no_name "$T/jdk22.hprof"
	cmp_dump "$T/jdk22.hprof.names" "$T/s.hprof.names"
	run ls "$T"
	refute_output --regexp '\.p[0-9]+\.names'
}

@test "shim: HPROFSTRIP_REDACT=names: a copy, a program that hosts no runtime, a file that is no dump get no map; a bad key is said, a random one used; no map through a symlink" {
	local f=$CORPUS/hotspot/jdk11-string.hprof mode long
	export HPROFSTRIP_REDACT=names
	mkdir "$T/o"
	# in a runtime's process, a copy of an older dump, in every pattern
	for mode in random threads jdk8 art artcloexec pwrite writev setlength; do
		run --separate-stderr env REPLAY_STAMP=keep LD_PRELOAD="$SHIM" \
			timeout 60 "$REPLAY" "$mode" "$f" "$T/o/$mode.hprof" 7
		assert_success
		cmp "$T/o/$mode.hprof" "$f" || fail "$mode: a copy was changed"
		assert_equal "$stderr" "hprofstrip: $T/o/$mode.hprof: a copy of a dump made 2020-01-28 13:05:25 UTC, before this process began: written unchanged"
	done
	# a program that hosts no runtime, whatever it writes
	run --separate-stderr env REPLAY_RUNTIME=none HPROFSTRIP_PATTERN='*' \
		LD_PRELOAD="$SHIM" timeout 60 "$REPLAY" random "$f" "$T/o/none.hprof" 7
	assert_success
	cmp_replayed "$f" "$T/o/none.hprof"
	assert_equal "$stderr" ""
	# copies by other programs under an exported LD_PRELOAD
	run env LD_PRELOAD="$SHIM" cp "$D/orig.hprof" "$T/o/cp.hprof"
	assert_success
	cmp "$T/o/cp.hprof" "$D/orig.hprof"
	run env LD_PRELOAD="$SHIM" dd if="$D/orig.hprof" of="$T/o/dd.hprof" bs=64k status=none
	assert_success
	cmp "$T/o/dd.hprof" "$D/orig.hprof"
	# a file named like a dump that is none, written by a runtime's process
	seq 1 200000 >"$T/text"
	run --separate-stderr env LD_PRELOAD="$SHIM" timeout 60 "$REPLAY" random "$T/text" "$T/o/text.hprof" 7
	assert_success
	cmp "$T/o/text.hprof" "$T/text"
	assert_equal "$stderr" "hprofstrip: $T/o/text.hprof: not an HPROF dump: written unchanged"
	run find "$T/o" -name '*.names'
	assert_output ""
	# a JVM's Files.copy of an older dump gets none; its own dump in the
	# same run gets its map
	"$JUDGE" build >&2
	run --separate-stderr env LD_PRELOAD="$SHIM" timeout "$TMO" \
		java -cp "$B/java" HeapBuilder copy "$f" "$T/o/copied.hprof" "$T/o/own.hprof"
	assert_success
	cmp "$T/o/copied.hprof" "$f"
	[ ! -e "$T/o/copied.hprof.names" ]
	assert_private "$T/o/own.hprof.names"
	run find "$T/o" -name '*.names'
	assert_output "$T/o/own.hprof.names"
	# a bad key: said, names tokenized all the same with a random key:
	# a map that gives them back
	run env HPROFSTRIP_NAMES_KEY=bogus LD_PRELOAD="$SHIM" \
		"$REPLAY" random "$D/orig.hprof" "$T/bad.hprof" 3
	assert_success
	assert_line --index 0 "hprofstrip: HPROFSTRIP_NAMES_KEY: not 32 hex digits; a random key is used"
	assert_line --index 3 --regexp "^hprofstrip: $T/bad.hprof: [1-9][0-9]* names tokenized; their originals in $T/bad.hprof.names \(keep it private\)$"
	[ "${#lines[@]}" -eq 4 ] || fail "$output"
	assert_no_name "$T/bad.hprof"
	"$RESTORE" --unredact "$T/bad.hprof.names" -o "$T/bad.u.hprof" "$T/bad.hprof"
	cmp_dump "$T/bad.u.hprof" "$D/values.r.hprof"
	# a symlink where the map goes is not followed: the map takes the
	# next free name (bats/redact-closed.bats); where none can be made,
	# names are tokenized all the same, with no map
	: >"$T/target"
	ln -s "$T/target" "$T/link.hprof.names"
	run --separate-stderr env LD_PRELOAD="$SHIM" "$REPLAY" random "$D/orig.hprof" "$T/link.hprof" 3
	assert_success
	[ ! -s "$T/target" ] || fail "the map went through the symlink"
	assert_no_name "$T/link.hprof"
	assert_private "$T/link.hprof.names.1"
	# a dump's name so long that PATH.names is past NAME_MAX
	long=$T/$(printf 'x%.0s' $(seq 245)).hprof
	run --separate-stderr env LD_PRELOAD="$SHIM" "$REPLAY" random "$D/orig.hprof" "$long" 3
	assert_success
	assert_no_name "$long"
	[[ $stderr == *": cannot create $long.names: File name too long; names are tokenized all the same, with no map to give them back"* ]] ||
		fail "stderr: $stderr"
	[[ $stderr == *": "[0-9]*" names tokenized; no map of them"* ]] || fail "stderr: $stderr"
	run ls "$T"
	refute_output --partial "xxxxx.hprof.names"
}

@test "shim: more than 1 MiB of dense value instances in one heap record, in JDK 8's 8 MiB writes: every value zeroed (redactcheck)" {
	# the fast path gathers the record's instances in its 1 MiB buffer,
	# and must flush before one would straddle its end
	"$ROOT/tests/dense-dump" --jdk8 "$T/dense.hprof"
	HPROFSTRIP_REDACT=values LD_PRELOAD=$SHIM timeout 60 \
		"$REPLAY" jdk8 "$T/dense.hprof" "$T/d.hprof" 2>"$T/err" ||
		fail "replay failed: $(cat "$T/err")"
	run "$B/redactcheck" "$T/dense.hprof" "$T/d.hprof"
	assert_success
	assert_output --partial "700 instances (0 withheld)"
	# and offline, the engine fed it in one piece
	"$B/splitcheck" -R -w "$T/dense.hprof" "$T/w.hprof"
	run "$B/redactcheck" "$T/dense.hprof" "$T/w.hprof"
	assert_success
}

@test "tens of thousands of classes: a JVM that loaded every JDK class, redacted under the shim and offline, passes redactcheck at both levels" {
	local n
	# the unstripped dump, no shim
	run java -cp "$B/java" ManyClasses "$T/all.hprof"
	assert_success
	n=$(printf '%s\n' "$output" | sed -n 's/^loaded \([0-9]*\) of .*/\1/p')
	[ "${n:-0}" -ge 20000 ] || fail "only ${n:-no} classes loaded: $output"
	# offline: every layout and every runtime class's name fits the tables
	"$STRIP" --redact -o "$T/v.hprof" "$T/all.hprof"
	run "$B/redactcheck" "$T/all.hprof" "$T/v.hprof"
	assert_success
	[[ $output == *"classes ("*" the runtime's), "* ]]
	n=$(printf '%s\n' "$output" | sed -n 's/.*, \([0-9]*\) classes (\([0-9]*\) the runtime.s).*/\2/p')
	[ "${n:-0}" -ge 20000 ] || fail "the runtime's classes: $output"
	HPROFSTRIP_NAMES_KEY=$KEY "$STRIP" --redact=names -o "$T/n.hprof" "$T/all.hprof"
	run "$B/redactcheck" --names "$T/n.hprof.names" "$T/all.hprof" "$T/n.hprof"
	assert_success
	# the shim: its dump of such a heap is what the tool makes of its own
	# unstripped twin, and says nothing of tables full
	HPROFSTRIP_REDACT=values LD_PRELOAD=$SHIM timeout "$TMO" \
		java -cp "$B/java" ManyClasses "$T/s.hprof" 2>"$T/err" >/dev/null
	run "$STRIP" --info "$T/s.hprof"
	assert_success
	run grep -c 'past the tables\|written before' "$T/err"
	assert_output 0
	grep -q "redacted the fields of [0-9]* instances" "$T/err" ||
		fail "no summary: $(cat "$T/err")"
}

# The sizes the values level keeps (README: "What the values level keeps"):
# a class whose instances a dump of Sizes' heap holds, then the listed
# fields of it and its superclasses; every other primitive field of it is
# zeroed. Written apart from the engine's list (strip/engine/redact.c).
SIZES_KEPT=(
	"libcore.util.NativeAllocationRegistry size"
	"android.graphics.Bitmap mWidth mHeight"
	"java.nio.DirectByteBuffer capacity"
	"java.nio.HeapByteBuffer capacity"
	"java.util.ArrayList size"
	"java.util.LinkedList size"
	"java.util.Vector elementCount"
	"java.util.PriorityQueue size"
	"java.util.HashMap size"
	"java.util.Hashtable count"
	"java.util.IdentityHashMap size"
	"java.util.WeakHashMap size"
	"java.util.TreeMap size"
	"java.lang.ThreadLocal\$ThreadLocalMap size"
	"java.util.concurrent.ConcurrentHashMap baseCount"
	"java.util.concurrent.LinkedBlockingDeque count"
	"Sizes\$Cache size"
	"Sizes\$Box"
	"java.util.ArrayList\$SubList"
)

# kept_fields FIELDS...: HeapJudge fields' instance lines on stdin, each
# cut to the fields named (in its order), "N NAME=VALUE ...", summed over
# the lines that cut to the same, sorted
kept_fields() {
	awk -v want="$*" '
		BEGIN { n = split(want, w, " "); for (i = 1; i <= n; i++) keep[w[i]] = 1 }
		$1 == "instances" {
			k = ""
			for (i = 3; i <= NF; i++) {
				split($i, kv, "=")
				if (kv[1] in keep) k = k " " $i
			}
			sum[k] += $2
		}
		END { for (k in sum) print sum[k] k }' | LC_ALL=C sort
}

# other_fields FIELDS...: of HeapJudge fields' instance lines on stdin, the
# fields not named whose value is not zero (0, 0.0, false), one a line
other_fields() {
	awk -v want="$*" '
		BEGIN { n = split(want, w, " "); for (i = 1; i <= n; i++) keep[w[i]] = 1 }
		$1 == "instances" {
			for (i = 3; i <= NF; i++) {
				split($i, kv, "=")
				if (!(kv[1] in keep) && kv[2] != "0" && kv[2] != "0.0" && kv[2] != "false")
					print $i
			}
		}'
}

# sizes_judged PLAIN REDACTED: for each class of SIZES_KEPT, VisualVM's
# values of its listed fields in REDACTED (restored) are PLAIN's, and
# every other primitive field of its instances is zero
sizes_judged() {
	local e cls fields
	for e in "${SIZES_KEPT[@]}"; do
		read -r cls fields <<<"$e"
		"$JUDGE" fields "$1" "$cls" >"$T/plain.fields" ||
			fail "$cls: HeapJudge fields of $1"
		"$JUDGE" fields "$2" "$cls" >"$T/red.fields" ||
			fail "$cls: HeapJudge fields of $2"
		diff <(kept_fields $fields <"$T/plain.fields") \
			<(kept_fields $fields <"$T/red.fields") ||
			fail "$cls: the listed fields ($fields) differ from the plain strip's"
		run other_fields $fields <"$T/red.fields"
		assert_output ""
	done
}

@test "the values level keeps the listed sizes: stand-ins and the JDK's own on a JDK 17 heap, offline and under the shim, the plain strip's values, every other field zero" {
	local line cls kv
	timeout "$TMO" java -cp "$B/java" Sizes dump "$T/orig.hprof" 2>/dev/null
	java -cp "$B/java" Sizes expect >"$T/expect"
	"$STRIP" -o "$T/plain.hprof" "$T/orig.hprof"
	"$RESTORE" -o "$T/plain.r.hprof" "$T/plain.hprof"
	"$STRIP" --redact -o "$T/v.hprof" "$T/orig.hprof"
	"$RESTORE" -o "$T/v.r.hprof" "$T/v.hprof"
	# the independent check: the listed sizes equal, everything else zero
	run "$B/redactcheck" "$T/orig.hprof" "$T/v.hprof"
	assert_success
	[[ $output == *", "[1-9]*" sizes kept, "* ]] || fail "$output"
	sizes_judged "$T/plain.r.hprof" "$T/v.r.hprof"
	# each size Sizes set is there, with its value (not all zero in both)
	while read -r cls kv; do
		"$JUDGE" fields "$T/v.r.hprof" "$cls" | grep -q " $kv\( \|$\)" ||
			fail "$cls: no instance with $kv in the redacted dump"
	done <"$T/expect"
	# under the shim, the same heap: the same sizes
	HPROFSTRIP_REDACT=values LD_PRELOAD=$SHIM timeout "$TMO" \
		java -cp "$B/java" Sizes dump "$T/shim.hprof" 2>/dev/null
	"$RESTORE" -o "$T/shim.r.hprof" "$T/shim.hprof"
	while read -r cls kv; do
		"$JUDGE" fields "$T/shim.r.hprof" "$cls" | grep -q " $kv\( \|$\)" ||
			fail "$cls: no instance with $kv in the shim's dump"
	done <"$T/expect"
}

@test "Android: restored, --redact keeps NativeAllocationRegistry's sizes (ahat's native sizes) as the plain strip has them" {
	local f n found=0
	for f in $(art_files); do
		n=$(basename "$f")
		"$STRIP" -o "$T/$n.plain" "$f"
		"$STRIP" --redact -o "$T/$n.red" "$f"
		"$RESTORE" --jvm -o "$T/$n.plain.jvm" "$T/$n.plain"
		"$RESTORE" --jvm -o "$T/$n.red.jvm" "$T/$n.red"
		# a dump older than the registry (Dalvik) has none
		"$JUDGE" count "$T/$n.plain.jvm" libcore.util.NativeAllocationRegistry >"$T/count"
		[ "$(cat "$T/count")" -gt 0 ] || continue
		found=1
		"$JUDGE" fields "$T/$n.plain.jvm" libcore.util.NativeAllocationRegistry |
			kept_fields size >"$T/plain.sizes"
		"$JUDGE" fields "$T/$n.red.jvm" libcore.util.NativeAllocationRegistry |
			kept_fields size >"$T/red.sizes"
		grep -q ' size=[1-9]' "$T/plain.sizes" || fail "$n: no size: $(cat "$T/plain.sizes")"
		diff "$T/plain.sizes" "$T/red.sizes"
		run "$B/redactcheck" "$f" "$T/$n.red"
		assert_success
	done
	[ "$found" = 1 ] || fail "no ART dump holds a NativeAllocationRegistry"
}

@test "shim: HPROFSTRIP_REDACT zeroes a GC filler's words (jdk.internal.vm.FillerElement[], tests/filler-dump) in every runtime's pattern, as --redact does" {
	local mode
	"$ROOT"/tests/filler-dump "$T/f.hprof"
	"$STRIP" --redact -o "$T/want" "$T/f.hprof"
	for mode in random threads jdk8 jdk25 art pwrite writev bytes; do
		rm -f "$T/$mode.hprof"
		HPROFSTRIP_REDACT=values HPROFSTRIP_QUIET=1 LD_PRELOAD=$SHIM \
			"$REPLAY" "$mode" "$T/f.hprof" "$T/$mode.hprof" 3
		cmp_dump "$T/$mode.hprof" "$T/want" || fail "$mode"
	done
	run grep -c deadbeef <(od -An -v -tx1 "$T/want" | tr -d ' \n')
	assert_output 0
}
