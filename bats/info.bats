#!/usr/bin/env bats
# hprofstrip --info [--json]: a census of any dump, stripped or not, whose
# last line says whether the dump is well-formed or names the first offset
# where it is not.

load common

bats_require_minimum_version 1.5.0

setup() {
	HS=$STRIP
	mapfile -t FILES < <(corpus_files)
	[ ${#FILES[@]} -gt 0 ] || fail "no corpus in $CORPUS"
}

# heap_offsets FILE: prints "REC SUB": the offset of the first heap record
# (0x0C/0x1C) with a body, and of its first sub-record. Walks the records
# with od and awk, independently of the engine.
heap_offsets() {
	od -An -v -tu1 -w1 "$1" | awk '
		hdr == 0 { if ($1 == 0) { hdr = 1; rec = NR + 13 }; next }
		NR == rec { n = 0 }
		NR >= rec && n < 9 {
			h[n++] = $1 + 0
			if (n == 9) {
				len = h[5] * 16777216 + h[6] * 65536 + h[7] * 256 + h[8]
				if ((h[0] == 12 || h[0] == 28) && len > 0) {
					print rec - 1, rec + 8; found = 1; exit
				}
				rec += 9 + len
			}
		}
		END { if (!found) exit 1 }'
}

# a writable copy of FILE in the test's temporary directory
copy() {
	local c=$BATS_TEST_TMPDIR/$(basename "$1")
	cp "$1" "$c"
	chmod u+w "$c"
	echo "$c"
}

# poke FILE OFFSET OCTAL: overwrite one byte
poke() {
	printf "\\$3" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}

json_ok() {
	if command -v python3 >/dev/null; then
		python3 -m json.tool >/dev/null
	else
		local s
		s=$(cat)
		[[ $s == \{* ]] && [[ $s == *\} ]]
	fi
}

@test "--info on every corpus file: well-formed, exit 0, sizes add up" {
	local f size
	for f in "${FILES[@]}"; do
		run --separate-stderr "$HS" --info "$f"
		assert_success
		assert_equal "$stderr" ""
		assert_equal "${lines[${#lines[@]} - 1]}" "well-formed"
		assert_line --regexp "^format +JAVA PROFILE 1\.0\.[123]$"
		assert_line --regexp "^id size +[48]$"
		size=$(stat -c %s "$f")
		assert_line --regexp "^bytes +$size$"
		# records plus the file header make the file
		local hdr rec
		hdr=$(head -c 40 "$f" | tr '\0' '\n' | head -n 1 | wc -c)
		rec=$(printf '%s\n' "$output" | sed -n '/^records/,/^$/p' |
			awk '$1 == "total" { print $3 }')
		assert_equal "$((rec + hdr + 12))" "$size"
	done
}

@test "--info names records and sub-records by tag" {
	run "$HS" --info "$CORPUS/art/art-host-2025.hprof"
	assert_success
	assert_line --regexp '^  STRING +0x01 +[0-9]+ +[0-9]+$'
	assert_line --regexp '^  LOAD_CLASS +0x02 '
	assert_line --regexp '^  HEAP_DUMP_SEGMENT +0x1C '
	assert_line --regexp '^  ROOT_JNI_GLOBAL +0x01 '
	assert_line --regexp '^  INSTANCE_DUMP +0x21 '
	assert_line --regexp '^  PRIMITIVE_ARRAY_DUMP +0x23 '
	assert_line --regexp '^  ROOT_INTERNED_STRING +0x89 '
	assert_line --regexp '^  HEAP_DUMP_INFO +0xFE '
	assert_line --regexp '^  byte +[0-9]+ +[0-9]+$'
	assert_line --regexp '^timestamp +[0-9]+ \(20[0-9-]+T[0-9:.]+Z\)$'
	# ART writes empty heap dump segments
	assert_line --regexp '^  [0-9]+ heap records of length 0$'
}

@test "--info heaps of a 1.0.3 dump add up to its sub-records" {
	run "$HS" --info "$CORPUS/art/dalvik-api19-leak-service-binder.hprof"
	assert_success
	local heaps subs
	heaps=$(printf '%s\n' "$output" | sed -n '/^heaps/,/^$/p' |
		awk 'NF == 2 { s += $2 } END { print s }')
	subs=$(printf '%s\n' "$output" | sed -n '/^heap sub-records/,/^$/p' |
		awk '$1 == "total" { print $3 }')
	assert_equal "$heaps" "$subs"
	assert_line --regexp '^  app +[1-9][0-9]*$'
	assert_line --regexp '^  zygote +[1-9][0-9]*$'
	# a 1.0.2 dump has no heaps section
	run "$HS" --info "$CORPUS/hotspot/jdk21-demo.hprof"
	refute_line --regexp '^heaps'
}

@test "--info on stripped dumps: 0xC3 arrays stand for the 0x23 bytes" {
	local f s
	for f in "${FILES[@]}"; do
		s=$BATS_TEST_TMPDIR/s.hprof
		"$HS" -o "$s" "$f"
		run "$HS" --info "$s"
		assert_success
		assert_equal "${lines[${#lines[@]} - 1]}" "well-formed"
		local orig strip
		orig=$("$HS" --info "$f" | sed -n '/^primitive arrays/,/^$/p' | tail -n +2)
		strip=$(printf '%s\n' "$output" | sed -n '/^stripped arrays/,/^$/p' | tail -n +2)
		assert_equal "$strip" "$orig"
		run "$HS" --info --json "$s"
		assert_output --partial '"primitive_arrays": {"count": 0, "bytes": 0'
	done
}

@test "--info --json on every corpus file parses" {
	local f
	for f in "${FILES[@]}" ; do
		run --separate-stderr "$HS" --info --json "$f"
		assert_success
		printf '%s\n' "$output" | json_ok
		assert_output --partial '"well_formed": true'
		assert_output --partial '"error_offset": null'
		assert_output --regexp '"id_size": [48]'
		assert_output --partial '"HEAP_DUMP'
	done
}

@test "--info names the offset of an invalid sub-record tag, exit 1" {
	local f c off
	for f in "${FILES[@]}"; do
		c=$(copy "$f")
		off=$(heap_offsets "$f" | cut -d' ' -f2)
		[ -n "$off" ]
		poke "$c" "$off" 167 # 0x77
		run --separate-stderr "$HS" --info "$c"
		assert_failure 1
		assert_equal "${lines[${#lines[@]} - 1]}" \
			"malformed at offset $off: unknown heap sub-record tag"
		assert_equal "$stderr" \
			"hprofstrip: $c: offset $off: unknown heap sub-record tag"
		run --separate-stderr "$HS" --info --json "$c"
		assert_failure 1
		printf '%s\n' "$output" | json_ok
		assert_output --partial '"well_formed": false'
		assert_output --partial "\"error_offset\": $off,"
		rm -f "$c"
	done
}

@test "--info on truncated dumps names the offset where the stream ends" {
	local f=$CORPUS/hotspot/jdk21-demo.hprof t=$BATS_TEST_TMPDIR/t.hprof
	local rec sub n
	read -r rec sub < <(heap_offsets "$f")
	# inside a sub-record, inside a record header, inside the file header
	for n in $((sub + 5)) $((rec + 4)) $((rec + 9)) 20; do
		head -c "$n" "$f" > "$t"
		run --separate-stderr "$HS" --info "$t"
		assert_failure 1
		assert_output --regexp "malformed at offset $n: stream ended inside (a record|the file header)$"
		hint=""
		[[ ${lines[-1]} != *"a record" ]] || hint=" (--salvage keeps what came before it)"
		assert_equal "$stderr" \
			"hprofstrip: $t: offset $n: ${lines[${#lines[@]} - 1]#*: }$hint"
	done
	# whole records only: well-formed
	head -c "$rec" "$f" > "$t"
	run "$HS" --info "$t"
	assert_success
	: > "$t"
	run "$HS" --info "$t"
	assert_failure 1
	assert_output --partial "malformed at offset 0: empty input"
}

@test "--info reads stdin, from a file or a pipe" {
	local f=$CORPUS/art/art-host-2025.hprof
	run bash -c "'$HS' --info < '$f'"
	assert_success
	assert_line --regexp '^file +stdin$'
	assert_line "well-formed"
	run bash -c "cat '$f' | '$HS' --info --json -"
	assert_success
	assert_output --partial '"file": "stdin"'
	run bash -c "head -c 300000 '$f' | '$HS' --info"
	assert_failure 1
	assert_output --partial "malformed at offset 300000: stream ended inside a record"
}

@test "--info usage errors exit 2; -q silences stderr" {
	run "$HS" --json "$CORPUS/art/art-host-2025.hprof"
	assert_failure 2
	run "$HS" --info --stream "$CORPUS/art/art-host-2025.hprof"
	assert_failure 2
	run "$HS" --info -o "$BATS_TEST_TMPDIR/a" -o "$BATS_TEST_TMPDIR/b" "$CORPUS/art/art-host-2025.hprof"
	assert_failure 2
	run "$HS" --info a b
	assert_failure 2
	run --separate-stderr "$HS" --info -q "$BATS_TEST_TMPDIR/does-not-exist"
	assert_failure 1
	assert_equal "$stderr" ""
	run "$HS" --info --help
	assert_success
	assert_output --partial "Usage: hprofstrip --info"
}

@test "--info --json: a file name of 2-, 3- and 4-byte UTF-8 characters comes out as it is; bytes that are no UTF-8 are escaped" {
	local d=$BATS_TEST_TMPDIR n
	for n in 'Größe' '日本語' 'emoji-😀' $'bad-\xc3(x' $'over-\xe0\x80\xaf' $'sur-\xed\xa0\x80'; do
		cp "$CORPUS/art/art-host-2025.hprof" "$d/$n.hprof"
		run -0 --separate-stderr "$HS" --info --json "$d/$n.hprof"
		printf '%s\n' "$output" >"$d/out.json"
		python3 -c '
import json, os, sys
want = os.fsencode(sys.argv[1])
got = json.load(open(sys.argv[2]))["file"]
try:
    ok = want.decode("utf-8") == got
except UnicodeDecodeError:
    # not UTF-8: escaped, so the JSON is valid, and not the bytes given
    ok = os.fsencode(got) != want and got.startswith(os.path.dirname(sys.argv[1]))
sys.exit(0 if ok else "%r came out as %r" % (want, got))' "$d/$n.hprof" "$d/out.json"
	done
}
