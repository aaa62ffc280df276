#!/usr/bin/env bats
# hprofrestore --jvm and --app-only: Android 1.0.3 dumps (stripped or not)
# become standard 1.0.2 dumps that read in VisualVM's heap library exactly
# as the original does, like hprof-conv [-z] but without empty segments and
# for 4- and 8-byte ids.

load common

bats_require_minimum_version 1.5.0

setup_file() {
	export HS=$STRIP HR=$RESTORE HPROFCONV=$HPROF_CONV
	export T=$BATS_FILE_TMPDIR
	# test drivers, not among make all's: built here (a suite run alone has them)
	build_tests oracle
	"$JUDGE" build >&2
	# the test helper that makes Android dumps out of JDK dumps
	${CC:-cc} -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O2 \
		-o "$T/androidize" "$ROOT/tests/androidize.c" "$ROOT/tests/walk.c"
	# a JDK 17 dump (8-byte ids), and its Android twins
	java -cp "$B/java" HeapBuilder mxbean "$T/jdk17.hprof" markers=1000
	"$T/androidize" "$T/jdk17.hprof" "$T/android8.hprof"
	"$T/androidize" -z "$T/jdk17.hprof" "$T/android8z.hprof"
}

setup() {
	ART=("$CORPUS/art/art-host-2025.hprof"
		"$CORPUS/art/dalvik-api19-leak-service-binder.hprof")
	DALVIK=$CORPUS/art/dalvik-api19-leak-service-binder.hprof
	[ -r "${ART[0]}" ] && [ -r "$DALVIK" ] ||
		fail "no ART corpus in $CORPUS (see ../shared/corpus/README.md; or set HPROFSTRIP_CORPUS)"
	[ -x "$HPROFCONV" ] ||
		fail "$HPROFCONV is missing: apt-get install android-sdk-platform-tools (or make deps)"
}

# histo FILE: the judge's histogram (fails if VisualVM cannot read FILE)
histo() {
	"$JUDGE" histo "$1"
}

# same_histo WANT GOT: VisualVM reads GOT exactly as WANT (the judge's
# histograms, left in $T/want and $T/got, are equal)
same_histo() {
	histo "$1" > "$T/want"
	histo "$2" > "$T/got"
	run diff "$T/want" "$T/got"
	assert_success
}

# the census of FILE without its first (file name) line
census() {
	"$HS" --info "$1" | tail -n +2
}

# the heap sub-record table of FILE's census
subs() {
	"$HS" --info "$1" | sed -n '/^heap sub-records/,/^$/p'
}

# count JSON NAME: the count of tag NAME in a --info --json report
count() {
	printf '%s\n' "$1" | sed -n "s/^ *\"$2\": {\"tag\": [0-9]*, \"count\": \([0-9]*\),.*/\1/p"
}

# a --jvm/--app-only result: 1.0.2, well-formed, no Android sub-record,
# no empty heap record
assert_plain_102() {
	run --separate-stderr "$HS" --info --json "$1"
	assert_success
	assert_output --partial '"version": "1.0.2"'
	assert_output --partial '"well_formed": true'
	assert_output --partial '"empty_heap_records": 0,'
	assert_output --partial '"stripped_arrays": {"count": 0,'
	refute_output --regexp '"tag": (137|138|139|140|141|142|144|195|254),'
	assert_equal "$(count "$output" HEAP_DUMP_INFO)" ""
}

# jvm_of F: hprofrestore --jvm of F into $T/NAME.jvm.hprof; that path
jvm_of() {
	local out
	out=$T/$(basename "$1" .hprof).jvm.hprof
	"$HR" --jvm -o "$out" "$1" >&2 && echo "$out"
}

# conv_of F: hprof-conv of F into $T/NAME.conv.hprof; that path
conv_of() {
	local conv
	conv=$T/$(basename "$1" .hprof).conv.hprof
	"$HPROFCONV" "$1" "$conv" >&2 && echo "$conv"
}

# Android roots in a --info --json report, 0x89..0x8E and 0x90
android_roots() {
	local n s=0
	for n in ROOT_INTERNED_STRING ROOT_FINALIZING ROOT_DEBUGGER \
		ROOT_REFERENCE_CLEANUP ROOT_VM_INTERNAL ROOT_JNI_MONITOR UNREACHABLE; do
		s=$((s + $(count "$1" $n) + 0))
	done
	echo $s
}

@test "--jvm on the ART corpus reads in VisualVM exactly as the original" {
	local f out
	for f in "${ART[@]}"; do
		out=$T/$(basename "$f" .hprof).jvm.hprof
		run --separate-stderr "$HR" --jvm -o "$out" "$f"
		assert_success
		same_histo "$f" "$out"
		grep -q '^roots [1-9]' "$T/want"
	done
}

@test "--jvm on stripped ART dumps reads in VisualVM exactly as the original" {
	local f s out direct
	for f in "${ART[@]}"; do
		s=$T/$(basename "$f" .hprof).s.hprof
		out=$T/$(basename "$f" .hprof).sjvm.hprof
		"$HS" -o "$s" "$f"
		run --separate-stderr "$HR" --jvm -o "$out" "$s"
		assert_success
		same_histo "$f" "$out"
		# the same dump as --jvm on the original, arrays zeroed
		direct=$(jvm_of "$f")
		assert_equal "$(census "$out")" "$(census "$direct")"
	done
}

@test "--jvm output is 1.0.2 without Android tags or empty segments" {
	local f out in_json
	for f in "${ART[@]}"; do
		out=$(jvm_of "$f")
		in_json=$("$HS" --info --json "$f")
		assert_plain_102 "$out"
		# every Android root became a ROOT_UNKNOWN, and nothing else did
		assert_equal "$(count "$output" ROOT_UNKNOWN)" \
			"$(($(android_roots "$in_json") + $(count "$in_json" ROOT_UNKNOWN) + 0))"
		assert_equal "$(count "$output" INSTANCE_DUMP)" \
			"$(count "$in_json" INSTANCE_DUMP)"
		assert_equal "$(count "$output" CLASS_DUMP)" \
			"$(count "$in_json" CLASS_DUMP)"
	done
	# art-host-2025 holds 497 empty segments: they are gone
	run "$HS" --info "${ART[0]}"
	assert_line --regexp '^  497 heap records of length 0$'
}

@test "--jvm matches hprof-conv (less its empty segments)" {
	local f out conv n_conv n_ours e_conv b_conv b_ours
	for f in "${ART[@]}"; do
		out=$(jvm_of "$f")
		conv=$(conv_of "$f")
		# the same sub-records
		assert_equal "$(subs "$out")" "$(subs "$conv")"
		# the same heap records, less hprof-conv's empty ones
		run "$HS" --info --json "$conv"
		e_conv=$(printf '%s\n' "$output" |
			sed -n 's/.*"empty_heap_records": \([0-9]*\).*/\1/p')
		n_conv=$(count "$output" HEAP_DUMP_SEGMENT)
		b_conv=$(printf '%s\n' "$output" |
			sed -n 's/.*"HEAP_DUMP_SEGMENT": .*"bytes": \([0-9]*\)}.*/\1/p')
		run "$HS" --info --json "$out"
		n_ours=$(count "$output" HEAP_DUMP_SEGMENT)
		b_ours=$(printf '%s\n' "$output" |
			sed -n 's/.*"HEAP_DUMP_SEGMENT": .*"bytes": \([0-9]*\)}.*/\1/p')
		assert_equal "$n_ours" "$((n_conv - e_conv))"
		assert_equal "$b_ours" "$((b_conv - 9 * e_conv))"
	done
}

@test "--jvm reads in VisualVM like hprof-conv's output, where that reads" {
	local f out conv
	for f in "${ART[@]}"; do
		out=$(jvm_of "$f")
		conv=$(conv_of "$f")
		if ! histo "$conv" > "$T/want" 2>"$T/err"; then
			# hprof-conv keeps empty segments, which 1.0.2 readers reject
			[ "$f" != "$DALVIK" ] || fail "hprof-conv output unreadable: $(cat "$T/err")"
			grep -q 'has zero length' "$T/err"
			continue
		fi
		histo "$out" > "$T/got"
		run diff "$T/want" "$T/got"
		assert_success
	done
}

@test "--jvm and --app-only on 1.0.1/1.0.2 dumps are a plain restore" {
	local f b
	for f in "$CORPUS"/hotspot/*.hprof; do
		b=$T/$(basename "$f" .hprof)
		"$HS" -o "$b.s" "$f"
		"$HR" -o "$b.r" "$b.s"
		"$HR" --jvm -o "$b.j" "$b.s"
		"$HR" --app-only -o "$b.a" "$b.s"
		cmp "$b.r" "$b.j"
		cmp "$b.r" "$b.a"
		"$HR" --jvm -o "$b.j" "$f"
		cmp "$f" "$b.j"
		rm -f "$b".*
	done
}

@test "--jvm on an 8-byte-id Android dump (JDK 17 + Android sub-records)" {
	local a=$T/android8.hprof out=$T/android8.jvm.hprof in_json
	# the input is Android-flavoured, with 8-byte ids
	run "$HS" --info --json "$a"
	assert_success
	in_json=$output
	assert_output --partial '"version": "1.0.3"'
	assert_output --partial '"id_size": 8'
	assert_output --partial '"empty_heap_records": 1,'
	for n in ROOT_INTERNED_STRING ROOT_FINALIZING ROOT_DEBUGGER \
		ROOT_REFERENCE_CLEANUP ROOT_VM_INTERNAL ROOT_JNI_MONITOR UNREACHABLE \
		HEAP_DUMP_INFO; do
		[ "$(count "$in_json" $n)" -gt 0 ]
	done
	# which hprof-conv cannot read (status 255, not 127: it is there)
	run "$HPROFCONV" "$a" "$T/android8.conv.hprof"
	assert_failure 255
	assert_output --regexp '^ERROR: unexpected subtype 0x[0-9a-f]+ at offset [0-9]+'
	run --separate-stderr "$HR" --jvm -o "$out" "$a"
	assert_success
	assert_plain_102 "$out"
	assert_output --partial '"id_size": 8'
	assert_equal "$(count "$output" ROOT_UNKNOWN)" "$(android_roots "$in_json")"
	# VisualVM reads it exactly as the JDK's own dump
	same_histo "$T/jdk17.hprof" "$out"
	# and so after hprofstrip
	"$HS" -o "$T/android8.s.hprof" "$a"
	"$HR" --jvm -o "$out" "$T/android8.s.hprof"
	assert_plain_102 "$out"
	same_histo "$T/jdk17.hprof" "$out"
}

@test "--app-only on the Dalvik dump keeps only app-heap instances" {
	local out=$T/dalvik.app.hprof n
	run --separate-stderr "$HR" --app-only -o "$out" "$DALVIK"
	assert_success
	assert_plain_102 "$out"
	n=$(($(count "$output" INSTANCE_DUMP) + $(count "$output" OBJECT_ARRAY_DUMP) +
		$(count "$output" PRIMITIVE_ARRAY_DUMP)))
	# VisualVM reads it, and sees exactly the instance dumps left
	histo "$DALVIK" > "$T/orig"
	histo "$out" > "$T/app"
	assert_equal "$(sed -n 's/^total-instances \([0-9]*\) .*/\1/p' "$T/app")" "$n"
	# fewer of them: the zygote heap held most
	[ "$n" -gt 0 ]
	[ "$n" -lt "$(sed -n 's/^total-instances \([0-9]*\) .*/\1/p' "$T/orig")" ]
	# roots stay (as hprof-conv -z keeps them)
	assert_equal "$(grep '^roots ' "$T/app")" "$(grep '^roots ' "$T/orig")"
	# no class gains instances
	run awk 'NR == FNR { if (NF == 3) c[$1] = $2; next }
		NF == 3 && !($1 in c && $2 <= c[$1]) { print "more:", $0; bad = 1 }
		END { exit bad }' "$T/orig" "$T/app"
	assert_success
	# the app heap's bytes in the original: all that is left of the objects
	run "$HS" --info "$DALVIK"
	assert_line --regexp '^  zygote +[1-9][0-9]*$'
	# stripped first: the same dump, arrays zeroed
	"$HS" -o "$T/dalvik.s.hprof" "$DALVIK"
	"$HR" --app-only -o "$T/dalvik.sapp.hprof" "$T/dalvik.s.hprof"
	assert_equal "$(census "$T/dalvik.sapp.hprof")" "$(census "$out")"
	histo "$T/dalvik.sapp.hprof" > "$T/sapp"
	run diff "$T/app" "$T/sapp"
	assert_success
}

@test "--app-only keeps what hprof-conv -z keeps (less its empty segments)" {
	local out=$T/dalvik.app.hprof conv=$T/dalvik.convz.hprof
	"$HR" --app-only -o "$out" "$DALVIK"
	"$HPROFCONV" -z "$DALVIK" "$conv"
	assert_equal "$(subs "$out")" "$(subs "$conv")"
	# hprof-conv -z leaves empty segments (VisualVM rejects them); we do not
	run "$HS" --info "$conv"
	assert_line --regexp '^  [1-9][0-9]* heap records of length 0$'
	run "$HS" --info "$out"
	refute_line --regexp 'heap records of length 0'
}

@test "--app-only with 8-byte ids drops the zygote heap's objects" {
	local out=$T/android8z.app.hprof
	run --separate-stderr "$HR" --app-only -o "$out" "$T/android8z.hprof"
	assert_success
	assert_plain_102 "$out"
	assert_equal "$(count "$output" PRIMITIVE_ARRAY_DUMP)" ""
	# androidize -z put exactly the primitive arrays in the zygote heap
	local prim='^(boolean|char|float|double|byte|short|int|long)\[\] '
	histo "$T/jdk17.hprof" | grep -Ev "$prim|^total-" > "$T/want"
	histo "$out" > "$T/app"
	run grep -E "$prim" "$T/app"
	assert_failure
	grep -v '^total-' "$T/app" > "$T/got"
	run diff "$T/want" "$T/got"
	assert_success
	# --jvm alone keeps them all
	"$HR" --jvm -o "$T/android8z.jvm.hprof" "$T/android8z.hprof"
	same_histo "$T/jdk17.hprof" "$T/android8z.jvm.hprof"
}

@test "--app-only on a dump with only the app heap equals --jvm" {
	"$HR" --jvm -o "$T/art.j" "${ART[0]}"
	"$HR" --app-only -o "$T/art.a" "${ART[0]}"
	cmp "$T/art.j" "$T/art.a"
}

@test "--app-only drops exactly the image and zygote heaps' objects (androidize -z -i)" {
	local src=$CORPUS/hotspot/jdk6-client-id4-small.hprof a=$T/a4i.hprof
	local all left in out
	[ -r "$src" ] || fail "$src is missing (see ../shared/corpus/README.md)"
	# 4-byte ids, so hprof-conv reads it: every 3rd instance in heap I,
	# every 5th object array and every primitive array in heap Z
	"$T/androidize" -z -i -c "$T/a4i.counts" "$src" "$a"
	moved() { sed -n "s/^$1 //p" "$T/a4i.counts"; }
	[ "$(moved image-instances)" -gt 0 ]
	[ "$(moved zygote-object-arrays)" -gt 0 ]
	[ "$(moved image-instances)" -lt "$(moved instances)" ]
	[ "$(moved zygote-object-arrays)" -lt "$(moved object-arrays)" ]
	run "$HS" --info "$a"
	assert_line --regexp '^  image +[1-9][0-9]*$'
	assert_line --regexp '^  zygote +[1-9][0-9]*$'
	# VisualVM counts in the source what androidize counted
	histo "$src" > "$T/src.histo"
	all=$(sed -n 's/^total-instances \([0-9]*\) .*/\1/p' "$T/src.histo")
	assert_equal "$all" "$(($(moved instances) + $(moved object-arrays) + $(moved primitive-arrays)))"
	left=$((all - $(moved image-instances) - $(moved zygote-object-arrays) -
		$(moved zygote-primitive-arrays)))
	# hprof-conv -z of the zeroed dump: what --app-only must write, less
	# hprof-conv's empty heap records
	"$ORACLE" zero "$a" "$T/a4i.zero"
	"$HPROFCONV" -z "$T/a4i.zero" "$T/a4i.convz"
	drop_empty_heap_records "$T/a4i.convz" "$T/a4i.want"
	"$HS" -o "$T/a4i.s.hprof" "$a"
	for in in "$a" "$T/a4i.s.hprof"; do
		out=$T/a4i.app.hprof
		run --separate-stderr "$HR" --app-only -o "$out" "$in"
		assert_success
		assert_plain_102 "$out"
		# VisualVM sees exactly the objects left in the app heap
		histo "$out" > "$T/app.histo"
		assert_equal "$(sed -n 's/^total-instances \([0-9]*\) .*/\1/p' "$T/app.histo")" "$left"
		# and the roots all stay (as hprof-conv -z keeps them)
		assert_equal "$(grep '^roots ' "$T/app.histo")" "$(grep '^roots ' "$T/src.histo")"
		cmp "$T/a4i.want" "$out" || fail "--app-only $in differs from hprof-conv -z"
	done
	# --jvm keeps every heap: VisualVM reads the source's heap
	"$HR" --jvm -o "$T/a4i.jvm.hprof" "$T/a4i.s.hprof"
	histo "$T/a4i.jvm.hprof" > "$T/jvm.histo"
	run diff "$T/src.histo" "$T/jvm.histo"
	assert_success
}
