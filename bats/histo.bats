#!/usr/bin/env bats
# hprofstrip --histo [--json] [--baseline OLD] [-o FILE]: the class
# histogram of any dump the tools read (plain, stripped, app-only,
# redacted, compressed, from a pipe, cut with --salvage), and the change
# per class between two.

load common

bats_require_minimum_version 1.5.0

KEY=00112233445566778899aabbccddeeff

setup() {
	mapfile -t FILES < <(corpus_files)
	[ ${#FILES[@]} -gt 0 ] || fail "no corpus in $CORPUS"
	T=$BATS_TEST_TMPDIR
	J8=$CORPUS/hotspot/jdk8-u05-x64.hprof
	DALVIK=$CORPUS/art/dalvik-api19-leak-service-binder.hprof
}

# rows_ok FILE: a histogram's text is whole and sound: the header, the
# dashes, ranks 1..N in order, bytes never growing down the rows, a Total
# whose instances and bytes are the sums of the rows (awk, apart from the
# tool)
rows_ok() {
	awk '
		NR == 1 { if ($1 != "num" || $2 != "#instances" || $3 != "#bytes" ||
		              $(NF - 1) != "class" || $NF != "name") exit 1
		          heaps = NF - 5; next }
		NR == 2 { if ($0 !~ /^-+$/) exit 2; next }
		$1 == "Total" { if ($2 != n || $3 != b) exit 3; total = 1; next }
		/^#/ { if (!total) exit 4; next }
		{ if (total || $1 != (++rank) ":") exit 5
		  if (rank > 1 && $3 + 0 > last) exit 6
		  last = $3 + 0; n += $2; b += $3
		  h = 0; for (i = 4; i < 4 + heaps; i++) h += $i
		  if (heaps && h != $3) exit 7 }
		END { if (!total || rank == 0) exit 8 }' "$1"
}

# name_counts FILE: "name instances bytes" per row of a histogram's text,
# sorted (the heap columns left out)
name_counts() {
	awk 'NR > 2 && $1 ~ /^[0-9]+:$/ {
		name = $0; sub(/^ *[0-9]+: +[0-9]+ +[0-9]+ +/, "", name)
		for (i = 0; i < heaps; i++) sub(/^[0-9]+ +/, "", name)
		print name, $2, $3 }
		NR == 1 { heaps = NF - 5 }' "$1" | LC_ALL=C sort
}

@test "--histo: every corpus dump gives a whole, sorted histogram whose Total is the sum of its rows" {
	local f
	for f in "${FILES[@]}"; do
		run --separate-stderr "$STRIP" --histo "$f"
		assert_success
		# (the hprof agent's file of two dumps says it sums them)
		[ -z "$stderr" ] || [[ $stderr == *": 2 heap dumps in one file: the histogram is their sum" ]] ||
			fail "$f: $stderr"
		printf '%s\n' "$output" >"$T/h"
		rows_ok "$T/h" || fail "$f: rows_ok: $?"
		# the classes every JVM has, in jmap's form
		grep -q ' java\.lang\.String$' "$T/h" || fail "$f: no java.lang.String"
		grep -Eq ' \[[BC]$' "$T/h" || fail "$f: no [B or [C"
	done
}

@test "--histo: non-ASCII class names, the largest instance size a class dump gives" {
	# tests/edge-dump: Größe (size 0xFFFFFFFF, 1 instance), 日本.Klasse
	# (16, 2), Plain (0, 3); each instance counts its class's size and an id
	"$BATS_TEST_DIRNAME/../tests/edge-dump" "$T/e.hprof"
	run -0 "$STRIP" --histo "$T/e.hprof"
	assert_line --regexp '^ +1: +1 +4294967303  Größe$'
	assert_line --regexp '^ +2: +2 +48  日本\.Klasse$'
	assert_line --regexp '^ +3: +3 +24  Plain$'
	assert_line --regexp '^Total +6 +4294967375$'
}

@test "--histo: rows are sorted by bytes, then as jmap sorts names" {
	"$STRIP" --histo "$J8" >"$T/h"
	rows_ok "$T/h"
	# rows of equal bytes: array classes first, then names in byte order
	awk 'NR > 2 && $1 ~ /:$/ { print $3, ($4 ~ /^\[/ ? 0 : 1), $4 }' "$T/h" >"$T/keys"
	LC_ALL=C sort -k1,1nr -k2,2n -k3,3 "$T/keys" | cmp - "$T/keys"
}

@test "--histo: a stripped dump gives the histogram of its unstripped dump" {
	local f
	for f in "${FILES[@]}"; do
		"$STRIP" -o "$T/s.hprof" "$f"
		"$STRIP" --histo "$f" >"$T/plain"
		"$STRIP" --histo "$T/s.hprof" >"$T/stripped"
		cmp "$T/plain" "$T/stripped" || fail "$f: stripped differs"
		# and a restored one too
		"$RESTORE" -o "$T/r.hprof" "$T/s.hprof"
		"$STRIP" --histo "$T/r.hprof" | cmp - "$T/plain"
	done
}

@test "--histo: a pipe and stdin give the file's histogram" {
	local f
	for f in "${FILES[@]}"; do
		"$STRIP" --histo "$f" >"$T/file"
		cat "$f" | "$STRIP" --histo >"$T/pipe"
		cmp "$T/file" "$T/pipe" || fail "$f: the pipe differs"
		"$STRIP" --histo - <"$f" | cmp - "$T/file"
	done
}

@test "--histo: a compressed dump, from a file or a pipe, gives the plain dump's histogram" {
	local z
	"$STRIP" --histo "$J8" >"$T/plain"
	gzip -c "$J8" >"$T/j.gz"
	"$STRIP" --histo "$T/j.gz" | cmp - "$T/plain"
	cat "$T/j.gz" | "$STRIP" --histo | cmp - "$T/plain"
	for z in zstd xz; do
		command -v $z >/dev/null || continue
		$z -c "$J8" >"$T/j.$z"
		"$STRIP" --histo "$T/j.$z" | cmp - "$T/plain"
	done
}

@test "--histo --app-only: ART dumps show the app (and default) heaps only, as --app-only's output does" {
	local f
	for f in $(art_files); do
		run --separate-stderr "$STRIP" --histo "$f"
		assert_success
		# the whole dump: a column per heap with objects
		[[ ${lines[0]} == *" app "* ]] || fail "$f: no app column: ${lines[0]}"
		run --separate-stderr "$STRIP" --histo --app-only "$f"
		assert_success
		printf '%s\n' "$output" >"$T/app"
		rows_ok "$T/app"
		assert_regex "${lines[0]}" '^ num +#instances +#bytes +(default +)?app +class name$'
		# the histogram of hprofstrip --app-only's output is the same
		"$STRIP" --app-only -o "$T/a.hprof" "$f"
		"$STRIP" --histo "$T/a.hprof" | cmp - "$T/app"
	done
	# the Dalvik dump has zygote objects: fewer rows and bytes app-only
	"$STRIP" --histo "$DALVIK" >"$T/all"
	"$STRIP" --histo --app-only "$DALVIK" >"$T/app"
	head -n 1 "$T/all" | grep -q ' zygote '
	[ "$(awk '$1 == "Total" { print $3 }' "$T/app")" -lt \
	  "$(awk '$1 == "Total" { print $3 }' "$T/all")" ]
}

@test "--histo: a --redact=names dump shows the tokens, never the original names, with the same counts" {
	local f=$J8 app='org.eclipse.mat.tests.CreateCollectionDump$ListCollectionTestData'
	HPROFSTRIP_NAMES_KEY=$KEY "$STRIP" --redact=names -o "$T/n.hprof" "$f"
	"$STRIP" --histo "$f" >"$T/plain"
	"$STRIP" --histo "$T/n.hprof" >"$T/red"
	rows_ok "$T/red"
	grep -qF " $app" "$T/plain"
	# no application class name left; the runtime's stay
	run grep -c 'org\.eclipse' "$T/red"
	assert_output 0
	grep -q ' java\.lang\.String$' "$T/red"
	# a token of the same length stands where the name stood, same counts
	grep -F " $app" "$T/plain" | awk '{ print $2, $3 }' >"$T/want"
	awk -v len=${#app} 'NR > 2 && $1 ~ /:$/ && length($4) == len &&
		$4 !~ /^org\.eclipse/ { print $2, $3 }' "$T/red" | grep -qxFf "$T/want"
	awk '$1 == "Total"' "$T/plain" | cmp - <(awk '$1 == "Total"' "$T/red")
}

@test "--histo --json parses and says what the text says" {
	local f
	for f in "${FILES[@]}"; do
		"$STRIP" --histo "$f" >"$T/text"
		"$STRIP" --histo --json "$f" >"$T/json"
		python3 -m json.tool "$T/json" >/dev/null
		python3 - "$T/json" >"$T/from-json" <<-'EOF'
			import json, sys
			d = json.load(open(sys.argv[1]))
			n = b = 0
			for c in d["classes"]:
			    print(c["name"], c["instances"], c["bytes"])
			    n += c["instances"]; b += c["bytes"]
			assert d["total"] == {"instances": n, "bytes": b}, d["total"]
			assert d["cut"] is False
		EOF
		LC_ALL=C sort "$T/from-json" | cmp - <(name_counts "$T/text") ||
			fail "$f: JSON and text differ"
	done
}

@test "--histo -o FILE: the text there, never wider than the input, through a symlink, into a FIFO" {
	"$STRIP" --histo "$J8" >"$T/stdout"
	cp "$J8" "$T/in.hprof"
	chmod 640 "$T/in.hprof"
	"$STRIP" --histo -o "$T/out.histo" "$T/in.hprof"
	cmp "$T/out.histo" "$T/stdout"
	assert_equal "$(stat -c %a "$T/out.histo")" 640
	chmod 600 "$T/in.hprof"
	"$STRIP" --histo -o "$T/out.histo" "$T/in.hprof"
	assert_equal "$(stat -c %a "$T/out.histo")" 600
	# from a pipe: 0600
	cat "$J8" | "$STRIP" --histo -o "$T/pipe.histo"
	assert_equal "$(stat -c %a "$T/pipe.histo")" 600
	# --baseline: no wider than either input
	cp "$J8" "$T/wide.hprof"
	chmod 644 "$T/wide.hprof"
	"$STRIP" --histo --baseline "$T/in.hprof" -o "$T/change.histo" "$T/wide.hprof"
	assert_equal "$(stat -c %a "$T/change.histo")" 600
	# a symlink is followed, and stays
	ln -s target.histo "$T/link.histo"
	"$STRIP" --histo -o "$T/link.histo" "$J8"
	[ -L "$T/link.histo" ]
	cmp "$T/target.histo" "$T/stdout"
	# a FIFO is written into
	mkfifo "$T/fifo"
	cat "$T/fifo" >"$T/from-fifo" &
	"$STRIP" --histo -o "$T/fifo" "$J8"
	wait $!
	cmp "$T/from-fifo" "$T/stdout"
	# -o naming the input is refused, the input left as it was
	run "$STRIP" --histo -o "$T/in.hprof" "$T/in.hprof"
	assert_failure 2
	cmp "$T/in.hprof" "$J8"
}

@test "--histo: bad input is one line naming the offset, exit 1, no histogram" {
	local off
	off=$(bad_tag "$J8" "$T/bad.hprof")
	run --separate-stderr "$STRIP" --histo "$T/bad.hprof"
	assert_failure 1
	assert_equal "$output" ""
	assert_equal "$(printf '%s\n' "$stderr" | wc -l)" 1
	assert_regex "$stderr" "^hprofstrip: .*bad.hprof: offset $off: "
	# -o: no file, and an old one stays as it was
	echo old >"$T/keep.histo"
	run "$STRIP" --histo -o "$T/keep.histo" "$T/bad.hprof"
	assert_failure 1
	assert_equal "$(cat "$T/keep.histo")" old
	run "$STRIP" --histo -o "$T/none.histo" "$T/bad.hprof"
	assert_failure 1
	[ ! -e "$T/none.histo" ]
	[ -z "$(ls "$T" | grep tmp)" ]
}

@test "--histo: a cut dump is an error; with --salvage its histogram is marked cut and counts no more than the whole" {
	local size cut
	size=$(size_of "$J8")
	cut=$((size * 85 / 100))
	head -c $cut "$J8" >"$T/cut.hprof"
	run --separate-stderr "$STRIP" --histo "$T/cut.hprof"
	assert_failure 1
	assert_equal "$output" ""
	assert_regex "$stderr" "offset $cut: .*--salvage"
	run --separate-stderr "$STRIP" --histo --salvage "$T/cut.hprof"
	assert_success
	printf '%s\n' "$output" >"$T/cut.histo"
	rows_ok "$T/cut.histo"
	assert_line "# cut: the dump could not be read past byte $cut: these are the objects before it"
	assert_regex "$stderr" "cut at offset $cut"
	# every class: no more objects than in the whole dump, fewer in all
	"$STRIP" --histo "$J8" >"$T/whole.histo"
	join -j1 -a1 -e0 -o 0,1.2,2.2 \
		<(name_counts "$T/cut.histo" | awk '{ print $1, $2 }' | LC_ALL=C sort) \
		<(name_counts "$T/whole.histo" | awk '{ print $1, $2 }' | LC_ALL=C sort) |
		awk '$2 > $3 { print; bad = 1 } END { exit bad }'
	[ "$(awk '$1 == "Total" { print $2 }' "$T/cut.histo")" -lt \
	  "$(awk '$1 == "Total" { print $2 }' "$T/whole.histo")" ]
	"$STRIP" --histo --salvage --json "$T/cut.hprof" |
		python3 -c 'import json, sys; d = json.load(sys.stdin); assert d["cut"] is True and d["cut_at"] == int(sys.argv[1]), d' "$cut"
	# a whole dump with --salvage: not marked
	"$STRIP" --histo --salvage "$J8" | cmp - "$T/whole.histo"
	# a compressed dump cut short: the same with --salvage, an error without
	gzip -c "$J8" >"$T/j.gz"
	head -c $(( $(size_of "$T/j.gz") * 80 / 100 )) "$T/j.gz" >"$T/cut.gz"
	run "$STRIP" --histo "$T/cut.gz"
	assert_failure 1
	run --separate-stderr "$STRIP" --histo --salvage "$T/cut.gz"
	assert_success
	assert_line --regexp '^# cut: the dump could not be read past byte [0-9]+'
}

@test "--histo --baseline: a dump against itself is all zero, and a .histo file of it gives the same" {
	local f
	for f in "$J8" "$DALVIK"; do
		run --separate-stderr "$STRIP" --histo --baseline "$f" "$f"
		assert_success
		printf '%s\n' "$output" >"$T/self"
		assert_regex "${lines[0]}" '^ num +#instances \+- +#bytes \+- +#instances +#bytes +class name$'
		# every row and the Total: no change
		awk 'NR > 2 && !/^#/ { if ($1 == "Total") { if ($2 != "0" || $3 != "0") exit 1 }
			else if ($2 != "0" || $3 != "0") exit 1 }' "$T/self"
		"$STRIP" --histo "$f" >"$T/h.histo"
		"$STRIP" --histo --json "$f" >"$T/h.json"
		"$STRIP" --histo --baseline "$T/h.histo" "$f" | grep -v '^# baseline:' >"$T/from-text"
		"$STRIP" --histo --baseline "$T/h.json" "$f" | grep -v '^# baseline:' >"$T/from-json"
		grep -v '^# baseline:' "$T/self" | cmp - "$T/from-text"
		cmp "$T/from-text" "$T/from-json"
		# the same classes: one row per name of the histogram
		[ "$(grep -c '^ *[0-9]*:' "$T/self")" -eq \
		  "$(name_counts "$T/h.histo" | awk '{ $NF = ""; $(NF - 1) = ""; print }' | sort -u | wc -l)" ]
	done
}

@test "--histo --baseline: growth sorted largest first, a Total of the sums, JSON alike" {
	local size cut
	size=$(size_of "$J8")
	cut=$((size * 60 / 100))
	head -c $cut "$J8" >"$T/old.hprof"
	"$STRIP" --histo --salvage "$T/old.hprof" >"$T/old.histo"
	run --separate-stderr "$STRIP" --histo --baseline "$T/old.histo" "$J8"
	assert_success
	printf '%s\n' "$output" >"$T/change"
	assert_line "# baseline: $T/old.histo"
	assert_line "# baseline cut: its dump could not be read past byte $cut: its counts are of the objects before it"
	awk 'NR > 2 && $1 ~ /:$/ {
		if ($1 != (++r) ":") exit 1
		d = $3 + 0; if (r > 1 && d > last) exit 2; last = d
		dn += $2; db += $3; n += $4; b += $5 }
		$1 == "Total" { if ($2 + 0 != dn || $3 + 0 != db || $4 != n || $5 != b) exit 3; t = 1 }
		END { if (!t) exit 4 }' "$T/change"
	# it grew: the first row's change is positive, the total the difference
	[ "$(awk 'NR == 3 { print $3 + 0 }' "$T/change")" -gt 0 ]
	[ "$(awk '$1 == "Total" { print $3 + 0 }' "$T/change")" -eq \
	  $(( $(awk '$1 == "Total" { print $3 }' <("$STRIP" --histo "$J8")) -
	      $(awk '$1 == "Total" { print $3 }' "$T/old.histo") )) ]
	# a dump that lost objects: negative changes, at the bottom
	"$STRIP" --histo --salvage --baseline "$J8" "$T/old.hprof" >"$T/shrink"
	awk 'NR == 3 { first = $3 } $1 == "Total" { exit !($3 + 0 < 0 && first + 0 <= 0) }' "$T/shrink"
	# JSON: the same rows
	"$STRIP" --histo --json --baseline "$T/old.histo" "$J8" >"$T/change.json"
	python3 - "$T/change.json" "$T/change" <<-'EOF'
		import json, sys
		d = json.load(open(sys.argv[1]))
		rows = [l.split() for l in open(sys.argv[2]) if l.split() and l.split()[0].endswith(":")]
		assert len(rows) == len(d["classes"]), (len(rows), len(d["classes"]))
		for r, c in zip(rows, d["classes"]):
		    assert int(r[1]) == c["instances_change"] and int(r[2]) == c["bytes_change"], (r, c)
		    assert int(r[3]) == c["instances"] and int(r[4]) == c["bytes"], (r, c)
		    assert " ".join(r[5:]) == c["name"], (r, c)
		    assert c["instances"] - c["baseline_instances"] == c["instances_change"]
		assert d["baseline_cut"] is True and d["cut"] is False
		assert d["total"]["bytes_change"] == sum(c["bytes_change"] for c in d["classes"])
	EOF
}

@test "--histo --baseline: same-named classes are summed, classes of one side only are listed" {
	cat >"$T/old.histo" <<-'EOF'
		 num     #instances         #bytes  class name
		----------------------------------------------
		   1:            10           1000  a.Gone
		   2:             5            500  a.Twice
		   3:             2            200  a.Twice
		   4:        999999       99999999  java.lang.String
		Total       1000016      100001699
	EOF
	run --separate-stderr "$STRIP" --histo --baseline "$T/old.histo" "$J8"
	assert_success
	assert_line --regexp '^ *[0-9]+: +-7 +-700 +0 +0  a\.Twice$'
	assert_line --regexp '^ *[0-9]+: +-10 +-1000 +0 +0  a\.Gone$'
	# the largest loss last
	assert_regex "${lines[$(( ${#lines[@]} - 3 ))]}" ' java\.lang\.String$'
	assert_line --regexp '^ *1: +\+[0-9]+ +\+[0-9]+ +4336 +363590  \[C$'
}

@test "--histo --baseline: a damaged or cut .histo file is refused with where" {
	"$STRIP" --histo "$J8" >"$T/h.histo"
	sed '3s/363590/363591/' "$T/h.histo" >"$T/edited.histo"
	run --separate-stderr "$STRIP" --histo --baseline "$T/edited.histo" "$J8"
	assert_failure 1
	assert_equal "$output" ""
	assert_regex "$stderr" 'edited.histo: the Total .* is not the sum of the rows'
	head -n 50 "$T/h.histo" >"$T/short.histo"
	run --separate-stderr "$STRIP" --histo --baseline "$T/short.histo" "$J8"
	assert_failure 1
	assert_equal "$output" ""
	assert_regex "$stderr" 'short.histo: line 50: the text ends before its Total row'
	"$STRIP" --histo --json "$J8" | head -c 2000 >"$T/short.json"
	run "$STRIP" --histo --baseline "$T/short.json" "$J8"
	assert_failure 1
	run "$STRIP" --histo --baseline "$T/missing" "$J8"
	assert_failure 1
	assert_output --partial 'missing: No such file or directory'
	# nested 200,000 deep, where the parser skips (an unknown member) and
	# at the top: one line, exit 1, never a crash of the stack
	local n
	for n in '{"x":' '{"x":[' '['; do
		python3 -c "import sys; sys.stdout.write(sys.argv[1] + '[' * 200000)" "$n" >"$T/deep.json"
		run --separate-stderr "$STRIP" --histo --baseline "$T/deep.json" "$J8"
		assert_failure 1
		assert_equal "$output" ""
		[ "$(wc -l <<<"$stderr")" = 1 ] || fail "$n: $stderr"
		assert_regex "$stderr" 'deep.json: (line 1: JSON: nested too deep|offset 0: not)'
	done
}

@test "--histo: usage errors and help" {
	run "$STRIP" --histo --keep-strings "$J8"
	assert_failure 2
	assert_output --partial "--histo: unsupported option '--keep-strings'"
	run "$STRIP" --histo --redact=names "$J8"
	assert_failure 2
	run "$STRIP" --baseline "$J8" "$J8"
	assert_failure 2
	assert_output --partial '--baseline goes with --histo'
	run "$STRIP" --histo --baseline - <"$J8"
	assert_failure 2
	run "$STRIP" --histo --baseline
	assert_failure 2
	run "$RESTORE" --histo "$J8"
	assert_failure 2
	run "$STRIP" --histo --help
	assert_success
	assert_line --partial '--baseline OLD'
	run "$STRIP" --help
	assert_success
	assert_line --partial '--histo'
	# -v: the three largest classes on stderr
	run --separate-stderr "$STRIP" --histo -v "$J8"
	assert_success
	assert_regex "$stderr" ': 14637 objects, 932546 bytes in 270 rows: \[C 39\.0%, '
}

@test "--histo --baseline: IN may be a histogram too; jmap -histo's text from a real JVM is read by its counts and said so" {
	"$STRIP" --histo "$J8" >"$T/a.histo"
	"$STRIP" --histo "$DALVIK" >"$T/b.histo"
	# histogram to histogram: what dump to dump gives
	"$STRIP" --histo --baseline "$T/a.histo" "$DALVIK" >"$T/want"
	run -0 "$STRIP" --histo --baseline "$T/a.histo" "$T/b.histo"
	cmp "$T/want" <(printf '%s\n' "$output")
	"$STRIP" --histo --json --baseline "$T/a.histo" "$DALVIK" >"$T/want.json"
	run -0 "$STRIP" --histo --json --baseline "$T/a.histo" "$T/b.histo"
	cmp "$T/want.json" <(printf '%s\n' "$output")
	# a histogram without --baseline: said what it gives
	run --separate-stderr "$STRIP" --histo "$T/a.histo"
	assert_failure 2
	assert_equal "$stderr" "hprofstrip: $T/a.histo: a class histogram already; --histo --baseline OLD $T/a.histo gives its change since OLD"
	# jmap -histo of a live JVM (JDK 17: names with their modules)
	start_jvm HeapBuilder
	env -u LD_PRELOAD jmap -histo "$JVM" >"$T/jmap.histo"
	env -u LD_PRELOAD jcmd "$JVM" GC.heap_dump "$T/live.hprof" >/dev/null
	stop_jvm
	head -n 1 "$T/jmap.histo" | grep -q 'class name (module)$' ||
		fail "not jmap's JDK 9+ layout: $(head -n 1 "$T/jmap.histo")"
	run -0 "$STRIP" --histo --baseline "$T/jmap.histo" "$T/live.hprof"
	assert_line "# baseline from jmap -histo: its #bytes are the JVM's object sizes, not a dump's, so the #bytes change mixes two measures; compare #instances (the rows are sorted by their change)"
	# HeapBuilder's 12345 markers, named without their module, as many
	# in both (the dump taken after jmap's count)
	assert_line --regexp '^ +[0-9]+: +0 +[-+0-9]+ +12345 +[0-9]+  HeapBuilder\$Marker$'
	# sorted by the change in #instances, largest growth first
	awk 'NR > 2 && $1 ~ /:$/ { v = $2 + 0; if (NR > 3 && v > last) exit 1; last = v }' <<<"$output" ||
		fail "not sorted by the change in instances"
	run -0 "$STRIP" --histo --json --baseline "$T/jmap.histo" "$T/live.hprof"
	python3 -c 'import json, sys; d = json.load(sys.stdin); assert d["baseline_kind"] == "jmap" and d["kind"] == "hprofstrip", d' <<<"$output"
	# jmap's text as IN, ours as OLD: the same note, for the other side
	run -0 "$STRIP" --histo --baseline "$T/a.histo" "$T/jmap.histo"
	assert_line --partial "# histogram from jmap -histo: "
}

@test "--histo of a file of two heap dumps (the hprof agent's): their sum, said on stderr, in a note, and in JSON" {
	local A=$CORPUS/hotspot/jdk6-hprof-agent-id4.hprof
	run --separate-stderr "$STRIP" --histo "$A"
	assert_success
	assert_equal "$stderr" "hprofstrip: $A: 2 heap dumps in one file: the histogram is their sum"
	assert_equal "${lines[-1]}" "# 2 heap dumps in one file: the counts are their sum"
	printf '%s\n' "$output" >"$T/a.histo"
	rows_ok "$T/a.histo"
	# the sum: both dumps' primitive arrays, as an independent walker
	# counts them
	assert_equal "$(awk '$NF ~ /^\[[ZCFDBSIJ]$/ { n += $2 } END { print n }' "$T/a.histo")" \
		"$("$ORACLE" count "$A" | awk '{ print $2 }')"
	run -0 --separate-stderr "$STRIP" --histo --json "$A"
	python3 -c 'import json, sys; d = json.load(sys.stdin); assert d["dumps"] == 2, d.get("dumps")' <<<"$output"
	# one dump: no note, nothing said
	run --separate-stderr "$STRIP" --histo "$J8"
	assert_equal "$stderr" ""
	[[ "$output" != *"heap dumps in one file"* ]] || fail "a note for one dump"
	run -0 "$STRIP" --histo -q "$A"
}
