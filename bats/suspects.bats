#!/usr/bin/env bats
# hprofstrip --suspects offline (no JVM): its dominator tree
# (--dominator-tree) against judges that share no code with it:
# tests/domref.c (Cooper-Harvey-Kennedy on the test side's walker) on
# every corpus dump in both semantics and in every form the tools write
# (stripped, restored, redacted, compressed, piped, Android's converted);
# tests/graph-dump's dominators found by definition on hand-built graphs
# (cycles, diamonds, self-references, references to ids not in the dump,
# duplicate ids, roots referenced by others) and 300 random ones. Then
# bad input (cut, mutated, empty), the outputs' rules (permissions,
# nothing written on failure, symlinks), --json, --max-memory and the
# command line. The JVM's dumps and VisualVM are in suspects-jvm.bats.

load common
bats_require_minimum_version 1.5.0

setup_file() {
	build_tests domref
}

setup() {
	T=$BATS_TEST_TMPDIR
	DOMREF=$B/domref
	GD=$ROOT/tests/graph-dump
}

# tree_of DUMP [OPTS...]: hprofstrip's dominator tree of DUMP on stdout
tree_of() {
	local f=$1
	shift
	"$STRIP" --suspects "$@" --dominator-tree "$T/tree.$$" -o "$T/rep.$$" "$f" ||
		fail "hprofstrip --suspects $* $f failed"
	cat "$T/tree.$$"
}

# agrees DUMP [--strong]: hprofstrip's tree is domref's, line for line
agrees() {
	"$DOMREF" "${@:2}" "$1" >"$T/ref" || fail "domref $1 failed"
	tree_of "$1" "${@:2}" >"$T/mine"
	[ -s "$T/ref" ] || fail "domref found nothing reachable in $1"
	cmp "$T/ref" "$T/mine" || {
		diff "$T/ref" "$T/mine" | head -20
		fail "$1 ${*:2}: the dominator trees differ"
	}
}

@test "every corpus dump: the dominator tree is domref's, MAT's references and --strong's" {
	local f n=0
	for f in $(corpus_files); do
		agrees "$f"
		agrees "$f" --strong
		n=$((n + 1))
	done
	[ "$n" -ge 8 ]
}

@test "the forms the tools write: stripped, restored, redacted, gzip, zstd, a pipe: the original's tree" {
	local f
	for f in $(corpus_files); do
		tree_of "$f" >"$T/orig"
		"$STRIP" -o "$T/s.hprof" "$f"
		tree_of "$T/s.hprof" >"$T/t"
		cmp "$T/orig" "$T/t" || fail "$f: stripped, another tree"
		"$RESTORE" -o "$T/r.hprof" "$T/s.hprof"
		tree_of "$T/r.hprof" >"$T/t"
		cmp "$T/orig" "$T/t" || fail "$f: restored, another tree"
		"$STRIP" --redact -o "$T/x.hprof" "$f" 2>/dev/null
		tree_of "$T/x.hprof" --redacted >"$T/t"
		cmp "$T/orig" "$T/t" || fail "$f: redacted, another tree"
		gzip -c "$T/s.hprof" >"$T/s.hprof.gz"
		tree_of "$T/s.hprof.gz" >"$T/t"
		cmp "$T/orig" "$T/t" || fail "$f: gzip, another tree"
		zstd -q -c "$T/s.hprof" >"$T/s.hprof.zst"
		tree_of "$T/s.hprof.zst" >"$T/t"
		cmp "$T/orig" "$T/t" || fail "$f: zstd, another tree"
		cat "$f" | "$STRIP" --suspects --dominator-tree "$T/t" -o "$T/rep" ||
			fail "$f: from a pipe"
		cmp "$T/orig" "$T/t" || fail "$f: from a pipe, another tree"
	done
}

@test "Android: --jvm's conversion and --app-only's dump, each domref's tree" {
	local f
	for f in $(art_files); do
		"$RESTORE" --jvm -o "$T/j.hprof" "$f"
		agrees "$T/j.hprof"
		"$STRIP" --app-only -o "$T/a.hprof" "$f"
		agrees "$T/a.hprof"
		agrees "$T/a.hprof" --strong
	done
}

@test "hand-built graphs: cycles, diamonds, self-references, dangling and duplicate ids, by definition" {
	local s
	mkdir -p "$T/g"
	cat >"$T/g/cycle.spec" <<-'S'
	root 0x10
	0x10: 0x18
	0x18: 0x20
	0x20: 0x18 0x10
	S
	cat >"$T/g/diamond.spec" <<-'S'
	ids 4
	root 0x10
	0x10: 0x18 0x20
	0x18: 0x28
	0x20: 0x28
	0x28: 0x30
	0x30:
	S
	cat >"$T/g/self.spec" <<-'S'
	root 0x10
	0x10: 0x10 0x18
	0x18: 0x18
	S
	cat >"$T/g/dangling.spec" <<-'S'
	root 0x10
	root 0x99
	0x10: 0x99 0x18 0
	0x18: 0x77
	S
	cat >"$T/g/duplicate.spec" <<-'S'
	root 0x10
	0x10: 0x18
	0x18: 0x20
	0x18: 0x28
	0x20:
	0x28:
	S
	cat >"$T/g/rootref.spec" <<-'S'
	root 0x10
	root 0x20
	0x10: 0x18 0x20
	0x18: 0x28
	0x20: 0x28
	0x28:
	S
	cat >"$T/g/unreachable.spec" <<-'S'
	root 0x10
	0x10:
	0x18: 0x10
	S
	"$GD" random 11 300 "$T/g"
	for s in "$T"/g/*.spec; do
		"$GD" write "$s" "$T/g.hprof"
		"$GD" define "$s" >"$T/def"
		"$DOMREF" "$T/g.hprof" >"$T/ref"
		tree_of "$T/g.hprof" >"$T/mine"
		cmp -s "$T/def" "$T/ref" || fail "$s: domref is not the definition's: $(diff "$T/def" "$T/ref")"
		cmp -s "$T/def" "$T/mine" || fail "$s: hprofstrip is not the definition's: $(diff "$T/def" "$T/mine")"
	done
	# what the named ones must give
	"$GD" write "$T/g/diamond.spec" "$T/g.hprof"
	run tree_of "$T/g.hprof"
	assert_line "0x28 0x10 2 12"
	assert_line "0x30 0x28 1 4"
	"$GD" write "$T/g/dangling.spec" "$T/g.hprof"
	"$STRIP" --suspects -o "$T/rep" "$T/g.hprof"
	grep -q "2 to ids not in the dump" "$T/rep"
	"$GD" write "$T/g/duplicate.spec" "$T/g.hprof"
	run tree_of "$T/g.hprof"
	assert_line "0x20 0x18 1 8"
	refute_line --partial "0x28 "
}

@test "an empty heap and a dump of no heap: nothing reachable, said, exit 0" {
	printf 'root 0x10\n' >"$T/e.spec"
	"$GD" write "$T/e.spec" "$T/e.hprof"
	run tree_of "$T/e.hprof"
	[ -z "$output" ]
	"$STRIP" --suspects --json -o "$T/e.json" "$T/e.hprof"
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["reachable"]["objects"] == 0 and d["top"] == [], d' "$T/e.json"
}

@test "a cut dump: an error naming the offset and nothing written; --salvage analyses what came before" {
	local f=$CORPUS/hotspot/jdk21-demo.hprof size
	size=$(stat -c %s "$f")
	head -c $((size * 8 / 10)) "$f" >"$T/cut.hprof"
	echo keep >"$T/out"
	run -1 "$STRIP" --suspects -o "$T/out" "$T/cut.hprof"
	assert_output --regexp '^hprofstrip: .*cut.hprof: offset [0-9]+: the dump ends inside a record'
	[ "${#lines[@]}" = 1 ]
	[ "$(cat "$T/out")" = keep ]
	run -0 "$STRIP" --suspects --salvage --json -o "$T/cut.json" "$T/cut.hprof"
	assert_output --regexp 'a dump cut at offset [0-9]+'
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["cut"] is True and d["reachable"]["objects"] > 100, d["reachable"]' "$T/cut.json"
	# the objects before the cut are those hprofstrip --salvage keeps,
	# a whole dump that domref judges
	"$STRIP" --salvage -q -o "$T/salvaged.hprof" "$T/cut.hprof"
	agrees "$T/salvaged.hprof"
	tree_of "$T/cut.hprof" --salvage >"$T/t"
	cmp "$T/ref" "$T/t" || fail "the cut dump's tree is not its salvaged form's"
	# a gzip stream cut short too
	gzip -c "$f" | head -c 300000 >"$T/cut.gz"
	run -1 "$STRIP" --suspects -o "$T/out" "$T/cut.gz"
	[ "$(cat "$T/out")" = keep ]
	run -0 "$STRIP" --suspects --salvage -o "$T/out" "$T/cut.gz"
}

@test "mutated dumps: a clear error or a report, never a crash or a hang" {
	local f=$CORPUS/hotspot/jdk6-client-id4-small.hprof i rc size
	size=$(stat -c %s "$f")
	for i in $(seq 1 150); do
		python3 - "$f" "$T/m.hprof" "$i" <<-'P'
		import random, sys
		b = bytearray(open(sys.argv[1], 'rb').read())
		r = random.Random(int(sys.argv[3]))
		for _ in range(r.randint(1, 8)):
		    b[r.randrange(len(b))] = r.randrange(256)
		if r.random() < 0.3:
		    del b[r.randrange(len(b)):]
		open(sys.argv[2], 'wb').write(b)
		P
		rc=0
		timeout 20 "$STRIP" --suspects -o "$T/m.txt" --dominator-tree "$T/m.tree" "$T/m.hprof" 2>"$T/err" || rc=$?
		[ $rc = 0 ] || [ $rc = 1 ] || fail "mutant $i: exit $rc: $(cat "$T/err")"
		if [ $rc = 1 ]; then
			[ "$(wc -l <"$T/err")" = 1 ] || fail "mutant $i: $(cat "$T/err")"
			grep -Eq 'offset [0-9]+: |--suspects: ' "$T/err" || fail "mutant $i: $(cat "$T/err")"
		fi
	done
}

@test "outputs: the input's permissions, a symlink followed, nothing replaced on failure" {
	local f=$CORPUS/hotspot/jdk6-x32-id4.hprof
	cp "$f" "$T/in.hprof"
	chmod 600 "$T/in.hprof"
	"$STRIP" --suspects -o "$T/r600" --dominator-tree "$T/t600" "$T/in.hprof"
	[ "$(stat -c %a "$T/r600")" = 600 ]
	[ "$(stat -c %a "$T/t600")" = 600 ]
	chmod 644 "$T/in.hprof"
	"$STRIP" --suspects -o "$T/r644" "$T/in.hprof"
	[ "$(stat -c %a "$T/r644")" = 644 ]
	echo old >"$T/real"
	ln -s real "$T/link"
	"$STRIP" --suspects -o "$T/link" "$T/in.hprof"
	[ -L "$T/link" ]
	grep -q 'The biggest objects' "$T/real"
	# a bad input replaces neither output
	printf 'JAVA PROFILE 1.0.2\0\0\0\0\x08' >"$T/bad.hprof"
	echo keep >"$T/r"
	echo keep >"$T/t"
	run -1 "$STRIP" --suspects -o "$T/r" --dominator-tree "$T/t" "$T/bad.hprof"
	[ "$(cat "$T/r")" = keep ] && [ "$(cat "$T/t")" = keep ]
	[ -z "$(ls -A "$T" | grep '^\.hprofstrip')" ]
}

@test "--json: one object in the documented schema, its paths' steps named" {
	local f=$CORPUS/hotspot/jdk21-demo.hprof
	"$STRIP" --suspects --json --top 4 -o "$T/r.json" "$f"
	python3 - "$T/r.json" <<-'P'
	import json, sys
	d = json.load(open(sys.argv[1]))
	for k in ("file", "format", "id_size", "semantics", "objects", "reachable",
	          "unreachable", "roots", "references", "cut", "field_names", "top",
	          "by_class", "memory"):
	    assert k in d, k
	assert d["semantics"] == "mat" and d["id_size"] == 8 and d["field_names"]
	assert len(d["top"]) == 4 and len(d["by_class"]) == 4
	prev = None
	for t in d["top"]:
	    o, a = t["object"], t["accumulation"]
	    assert o["retained"] >= a["retained"] > 0
	    assert prev is None or prev >= o["retained"]
	    prev = o["retained"]
	    assert t["path"][0]["root"] and t["path"][-1]["id"] == a["id"]
	    for s in t["path"][1:]:
	        assert s["via"] not in ("?", ""), s
	P
	"$STRIP" --suspects --json --strong -o "$T/s.json" "$f"
	python3 -c 'import json,sys; assert json.load(open(sys.argv[1]))["semantics"] == "strong"' "$T/s.json"
}

@test "the report's paths from a pipe say their fields are not known; from a file they are named" {
	local f=$CORPUS/hotspot/jdk8-u05-x64.hprof
	"$STRIP" --suspects "$f" >"$T/file.txt"
	refute grep -q 'field not known' "$T/file.txt"
	grep -Eq '^ +(static [A-Za-z_]+|\.[A-Za-z_]+|\[[0-9]+\]) ' "$T/file.txt"
	cat "$f" | "$STRIP" --suspects >"$T/pipe.txt"
	grep -q 'field not known: the input was read once' "$T/pipe.txt"
}

@test "--max-memory a quarter of the need: the same tree from files beside the output, none left" {
	local f=$CORPUS/art/dalvik-api19-leak-service-binder.hprof peak
	mkdir "$T/o"
	run -0 "$STRIP" --suspects -v --dominator-tree "$T/o/full" -o "$T/o/r" "$f"
	peak=$(echo "$output" | sed -n 's/.*arrays held \([0-9]*\) KiB at most.*/\1/p')
	[ "$peak" -gt 1000 ]
	run -0 "$STRIP" --suspects -v --max-memory $((peak / 4))K --dominator-tree "$T/o/capped" -o "$T/o/r2" "$f"
	assert_output --regexp '\(([1-9][0-9]*) KiB in files\)'
	cmp "$T/o/full" "$T/o/capped"
	cmp "$T/o/r" "$T/o/r2"
	[ "$(ls -A "$T/o" | sort | tr '\n' ' ')" = "capped full r r2 " ]
}

@test "the command line: --help, bad --top and --max-memory, an unknown option" {
	run -0 "$STRIP" --suspects --help
	assert_output --partial 'Usage: hprofstrip --suspects'
	run -2 "$STRIP" --suspects --top -1 x
	assert_output --partial -- '--top takes'
	run -2 "$STRIP" --suspects --top 100001 x
	run -2 "$STRIP" --suspects --max-memory lots x
	assert_output --partial -- '--max-memory takes a size'
	run -2 "$STRIP" --suspects --frobnicate x
	assert_output --partial "unsupported option"
	run -2 "$STRIP" --suspects --dominator-tree - x
	run -1 "$STRIP" --suspects "$T/none.hprof"
	assert_output --partial 'No such file'
	run -0 "$STRIP" --suspects --top 0 "$CORPUS/hotspot/jdk6-x32-id4.hprof"
	refute_output --partial ' 1. '
}

# hex FILE: FILE's bytes as one line of hex digits
hex() {
	od -An -v -tx1 "$1" | tr -d ' \n'
}

# the filler's sub-record header in tests/filler-dump's dump: 0x22, id
# 0x3000, serial 0, 3 elements, class 0x200
FILLER=22000000000000300000000000000000030000000000000200

@test "a GC filler written as JDK-8391761 proposes (jdk.internal.vm.FillerElement[], an object array of dead words): stripped as an object array, counted under its name, unreachable, its words no references; --redact zeroes them" {
	local f=$T/f.hprof
	"$ROOT"/tests/filler-dump "$f"
	# the strip: the primitive array beside it goes, the filler stays whole
	"$STRIP" -o "$T/s.hprof" "$f"
	run -0 "$STRIP" --info "$T/s.hprof"
	assert_line --regexp '^  OBJECT_ARRAY_DUMP +0x22 +1 +49$'
	assert_line --regexp '^  PRIMITIVE_ARRAY_NODATA +0xC3 +1 '
	# (its 49 bytes as they came: id, serial, length 3, class, X, X, garbage)
	hex "$T/s.hprof" | grep -q "${FILLER}0000000000002000000000000000200000000000deadbeef" ||
		fail "the filler changed: $(hex "$T/s.hprof")"
	# the histogram: one object array of 3 ids, (3 + 1) x 8 bytes
	run -0 "$STRIP" --histo "$f"
	assert_line --regexp '^ +[0-9]+: +1 +32  \[Ljdk\.internal\.vm\.FillerElement;$'
	# the analyses: the filler and its class are unreachable (an array
	# class is no system class); its words reach X, which H still
	# dominates alone: the tree is domref's, which shares no code
	"$DOMREF" "$f" >"$T/ref"
	tree_of "$f" >"$T/mine"
	diff "$T/ref" "$T/mine"
	grep -qx '0x2000 0x1000 3 36' "$T/mine"
	! grep -q '^0x3000 \|^0x200 ' "$T/mine"
	run -0 "$STRIP" --suspects "$f"
	assert_line 'reachable: 6 objects, 52 bytes; unreachable, left out: 2 objects, 32 bytes'
	# --redact: the filler's words become zeros (dead memory may hold
	# anything), its id, length and class as they came; the graph the same
	"$STRIP" --redact -o "$T/r.hprof" "$f"
	hex "$T/r.hprof" | grep -q "$FILLER$(printf '0%.0s' $(seq 48))" ||
		fail "the filler's words are not zeros: $(hex "$T/r.hprof")"
	run grep -c deadbeef <(hex "$T/r.hprof")
	assert_output 0
	tree_of "$T/r.hprof" >"$T/red"
	diff "$T/mine" "$T/red"
	# from a pipe too (the shim's: redact.bats)
	cat "$f" | "$STRIP" --redact >"$T/rp.hprof"
	cmp "$T/r.hprof" "$T/rp.hprof"
	# JDK 21's filler, an int[] of class jdk.internal.vm.FillerArray: a
	# primitive array (HPROF gives it no class), stripped, counted as int[]
	"$ROOT"/tests/filler-dump "$T/i.hprof" --int-filler
	run -0 "$STRIP" --histo "$T/i.hprof"
	assert_line --regexp '^ +1: +2 +40  \[I$'
	"$STRIP" -o "$T/is.hprof" "$T/i.hprof"
	run -0 "$STRIP" --info "$T/is.hprof"
	assert_line --regexp '^  PRIMITIVE_ARRAY_NODATA +0xC3 +2 '
}

@test "--suspects: a STRING record longer than the reader's buffer (3 MB) is read past whole; non-ASCII class names are printed as they are" {
	"$ROOT/tests/edge-dump" "$T/e.hprof"
	"$ROOT/tests/edge-dump" "$T/long.hprof" 3000000
	run -0 --separate-stderr "$STRIP" --suspects "$T/e.hprof"
	printf '%s\n' "$output" | sed 1d >"$T/short.txt"
	assert_line --partial "class Größe @ 0x1000"
	assert_line --partial "class 日本.Klasse @ 0x1100"
	run -0 --separate-stderr "$STRIP" --suspects "$T/long.hprof"
	assert_equal "$stderr" ""
	cmp "$T/short.txt" <(printf '%s\n' "$output" | sed 1d)
	# and from a pipe
	run -0 --separate-stderr bash -c 'cat "$2" | "$1" --suspects' _ "$STRIP" "$T/long.hprof"
	assert_line --partial "class Größe @ 0x1000"
}
