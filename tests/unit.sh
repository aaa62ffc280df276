#!/bin/bash
# C unit tests: the engine's split invariance over every corpus dump and a
# fresh JDK 17 dump, in strip and restore mode, the JDK 8 open-length path
# and the fallback path; and that the results are right: a restore equals
# the independent oracle's zeroed original, and on the Android dumps
# --jvm and --app-only equal hprof-conv [-z] of that zeroed original (less
# hprof-conv's empty heap segments). Keeping strings: split invariance of
# the streamed mode (also with JDK 8 open lengths and a fallback), and the
# independent strcheck's count of String values kept: 100% from a file,
# at least 85% streamed, nothing else kept. --stream: split invariance,
# and strip | restore through pipes with no room in TMPDIR equals the zeroed
# original, sub-record for sub-record. Strip --app-only on the Android
# dumps: split invariance (also streamed, keeping strings, with JDK 8
# placeholder lengths and a fallback, also in the zygote heap), and a
# --jvm restore of it equals --app-only of the plain strip, byte for byte.
# Prints one line per check and 'N passed, N failed'.
set -u
# a clean environment; root, b, corpus; check()
. "$(dirname "$0")/lib.sh"
seed=${SEED:-$(date +%s)}
# splitcheck's 2-way split prefix and random rounds (make check-sanitize
# lowers them: sanitized drivers run 4x slower)
prefix=${UNIT_PREFIX:-256} rounds=${UNIT_ROUNDS:-10}
prefix4=$(( (prefix + 3) / 4 )) rounds2=$(( (rounds + 1) / 2 ))
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# drop_empty IN OUT: IN less its heap records (0x0C, 0x1C) of length 0,
# which hprof-conv keeps and --jvm drops (the filter the Bats suites use)
drop_empty() {
	"$root"/tests/drop-empty-heap-records "$1" "$2"
}

# restored F STRIPPED: hprofrestore of F's stripped form equals oracle zero F
restored() {
	"$b/oracle" zero "$1" "$tmp/zero" &&
		"$b/hprofrestore" -o "$tmp/r" "$2" &&
		cmp "$tmp/zero" "$tmp/r"
}

# like_conv MODE CONVOPT F STRIPPED EXACT: hprofrestore MODE of STRIPPED
# equals hprof-conv [CONVOPT] of F zeroed, byte for byte (EXACT=1) or once
# hprof-conv's empty heap records are dropped
like_conv() {
	local mode=$1 opt=$2 f=$3 s=$4 exact=$5
	"$b/oracle" zero "$f" "$tmp/zero" || return 1
	"$b/hprofrestore" "$mode" -o "$tmp/ours" "$s" || return 1
	"$hprofconv" $opt "$tmp/zero" "$tmp/conv" || return 1
	if [ "$exact" = 1 ]; then
		cmp "$tmp/conv" "$tmp/ours"
	else
		drop_empty "$tmp/conv" "$tmp/conv.ne" && cmp "$tmp/conv.ne" "$tmp/ours"
	fi
}

# kept_file F: --keep-strings from a file keeps every String value of F
kept_file() {
	"$b/hprofstrip" --keep-strings -o "$tmp/k" "$1" &&
		"$b/strcheck" --min 100 "$1" "$tmp/k"
}

# kept_streamed F: from a pipe (one pass, fixed tables): at least 85% of
# String values kept, nothing else. The floor holds when the String class
# dump comes before the Strings, or the dump is ART's (whose value is the
# next sub-record); the JDK 6 hprof agent writes it last, and one pass
# cannot know the layout in time: no floor there, no violation either.
kept_streamed() {
	local min=85
	cat "$1" | "$b/hprofstrip" --keep-strings >"$tmp/ks" || return 1
	case $(head -c 18 "$1") in
	*1.0.3) ;;
	*) "$b/strcheck" --layout "$1" "$tmp/ks" | grep -q 'after 0 of' || min=0 ;;
	esac
	"$b/strcheck" --min "$min" "$1" "$tmp/ks"
}

# streamed F: hprofstrip | hprofrestore through pipes (streamed, as any
# non-seekable output), with no room in TMPDIR, gives the oracle's zeroed F
# once both are flattened (the heap cut into other records, the same
# sub-records)
# app_only_jvm F STRIPPED: hprofstrip --app-only F, restored with --jvm,
# equals hprofrestore --app-only of F's plain strip, byte for byte; and it
# is no larger than the plain strip
app_only_jvm() {
	"$b/hprofstrip" --app-only -o "$tmp/ao" "$1" &&
		"$b/hprofrestore" --jvm -o "$tmp/ao.j" "$tmp/ao" &&
		"$b/hprofrestore" --app-only -o "$tmp/pa" "$2" &&
		cmp "$tmp/ao.j" "$tmp/pa" &&
		[ "$(stat -c %s "$tmp/ao")" -le "$(stat -c %s "$2")" ]
}

# zygote_tag F: the offset of the first instance dump right after a
# zygote HEAP_DUMP_INFO that starts a heap record (nothing if none)
zygote_tag() {
	python3 - "$1" <<'PY'
import struct, sys
b = open(sys.argv[1], 'rb').read()
i = b.index(b'\0') + 1
ids = struct.unpack('>I', b[i:i + 4])[0]
i += 12
while i + 9 <= len(b):
    n = struct.unpack('>I', b[i + 5:i + 9])[0]
    j = i + 9
    if b[i] == 0x1C and n > 5 + ids and b[j] == 0xFE and \
            b[j + 1:j + 5] == b'\0\0\0Z' and b[j + 5 + ids] == 0x21:
        print(j + 5 + ids)
        break
    i += 9 + n
PY
}

streamed() {
	TMPDIR=$tmp/none "$b/hprofstrip" "$1" | TMPDIR=$tmp/none "$b/hprofrestore" |
		cat >"$tmp/st" || return 1
	"$b/oracle" zero "$1" "$tmp/zero" &&
		"$b/oracle" flat "$tmp/zero" "$tmp/zero.flat" &&
		"$b/oracle" flat "$tmp/st" "$tmp/st.flat" &&
		cmp "$tmp/zero.flat" "$tmp/st.flat"
}

echo "unit: seed $seed (SEED=$seed reproduces)"
hprofconv=${HPROF_CONV:-/usr/lib/android-sdk/platform-tools/hprof-conv}
if [ ! -x "$hprofconv" ]; then
	echo "unit: $hprofconv is missing: apt-get install android-sdk-platform-tools (or make deps)" >&2
	exit 1
fi
files=$(ls "$corpus"/art/*.hprof "$corpus"/hotspot/*.hprof)
if [ -z "$files" ]; then
	echo "unit: no corpus in $corpus" >&2
	exit 1
fi
"$root/tests/java/judge.sh" build
fresh=$b/fixtures/jdk17-unit.hprof
mkdir -p "$b/fixtures"
if [ ! -s "$fresh" ]; then
	rm -f "$fresh.tmp.hprof"
	java -cp "$b/java" HeapBuilder mxbean "$fresh.tmp.hprof" &&
		mv "$fresh.tmp.hprof" "$fresh"
fi
for f in $files $fresh; do
	n=$(basename "$f")
	check "split invariance, strip: $n" "$b/splitcheck" -p "$prefix" -n "$rounds" -s "$seed" "$f"
	"$b/splitcheck" -w "$f" "$tmp/$n.s"
	check "hprofstrip equals the engine's one-shot strip: $n" \
		sh -c '"$1" -o "$2" "$3" && cmp "$2" "$4"' _ "$b/hprofstrip" "$tmp/cli.s" "$f" "$tmp/$n.s"
	check "restore equals the oracle's zeroed original: $n" restored "$f" "$tmp/$n.s"
	check "split invariance, restore: $n" "$b/splitcheck" -r -p "$prefix" -n "$rounds" -s "$seed" "$tmp/$n.s"
	check "JDK 8 placeholder lengths: $n" "$b/splitcheck" -O -p "$prefix4" -n "$rounds2" -s "$seed" "$f"
	case $(head -c 18 "$f") in
	*1.0.3)
		check "split invariance, --jvm: $n" "$b/splitcheck" -j -p "$prefix4" -n "$rounds2" -s "$seed" "$tmp/$n.s"
		check "split invariance, --app-only: $n" "$b/splitcheck" -a -p "$prefix4" -n "$rounds2" -s "$seed" "$tmp/$n.s"
		# what hprof-conv makes of the zeroed original: the Dalvik dump
		# byte for byte, ART's once its empty segments are dropped
		exact=0
		case $n in dalvik-*) exact=1 ;; esac
		check "--jvm equals hprof-conv: $n" like_conv --jvm "" "$f" "$tmp/$n.s" "$exact"
		check "--app-only equals hprof-conv -z: $n" like_conv --app-only -z "$f" "$tmp/$n.s" 0
		;;
	esac
	# fallback: an invalid tag at the first instance dump's offset
	off=$(( $("$b/oracle" offsets "$f" | sed -n "s/^sub-header //p") - 4 ))
	case $(head -c 18 "$f") in
	*1.0.3)
		check "split invariance, strip --app-only: $n" "$b/splitcheck" -A -p "$prefix4" -n "$rounds2" -s "$seed" "$f"
		check "split invariance, strip --app-only --stream: $n" "$b/splitcheck" -A -S -p "$prefix4" -n "$rounds2" -s "$seed" "$f"
		check "split invariance, strip --app-only keeping strings: $n" "$b/splitcheck" -A -k -p "$prefix4" -n "$rounds2" -s "$seed" "$f"
		check "split invariance, strip --app-only keeping strings, --stream: $n" "$b/splitcheck" -A -k -S -p "$prefix4" -n "$rounds2" -s "$seed" "$f"
		check "JDK 8 placeholder lengths, strip --app-only: $n" "$b/splitcheck" -A -O -p "$prefix4" -n "$rounds2" -s "$seed" "$f"
		check "fallback at offset $off, strip --app-only: $n" "$b/splitcheck" -A -F "$off" -p "$prefix4" -n "$rounds2" -s "$seed" "$f"
		check "fallback at offset $off, strip --app-only --stream: $n" "$b/splitcheck" -A -S -F "$off" -p "$prefix4" -n "$rounds2" -s "$seed" "$f"
		# a fallback where a zygote HEAP_DUMP_INFO is held back
		zoff=$(zygote_tag "$f")
		if [ -n "$zoff" ]; then
			check "fallback in the zygote heap at $zoff, strip --app-only: $n" "$b/splitcheck" -A -F "$zoff" -p "$prefix4" -n "$rounds2" -s "$seed" "$f"
			check "fallback in the zygote heap at $zoff, strip --app-only --stream: $n" "$b/splitcheck" -A -S -F "$zoff" -p "$prefix4" -n "$rounds2" -s "$seed" "$f"
		fi
		check "strip --app-only, restored with --jvm, equals --app-only of the plain strip: $n" app_only_jvm "$f" "$tmp/$n.s"
		;;
	esac
	check "fallback at offset $off: $n" "$b/splitcheck" -F "$off" -p "$prefix4" -n "$rounds2" -s "$seed" "$f"
	check "split invariance, keep strings: $n" "$b/splitcheck" -k -p "$prefix4" -n "$rounds2" -s "$seed" "$f"
	check "JDK 8 placeholder lengths, keep strings: $n" "$b/splitcheck" -k -O -p "$prefix4" -n "$rounds2" -s "$seed" "$f"
	check "fallback at offset $off, keep strings: $n" "$b/splitcheck" -k -F "$off" -p "$prefix4" -n "$rounds2" -s "$seed" "$f"
	check "split invariance, --stream strip: $n" "$b/splitcheck" -S -p "$prefix4" -n "$rounds2" -s "$seed" "$f"
	check "split invariance, --stream restore: $n" "$b/splitcheck" -S -r -p "$prefix4" -n "$rounds2" -s "$seed" "$tmp/$n.s"
	check "split invariance, --stream keeping strings: $n" "$b/splitcheck" -S -k -p "$prefix4" -n "$rounds2" -s "$seed" "$f"
	check "JDK 8 placeholder lengths, --stream: $n" "$b/splitcheck" -S -O -p "$prefix4" -n "$rounds2" -s "$seed" "$f"
	# --salvage: a dump cut at 60% and one byte short, plain and stripped
	sz=$(stat -c %s "$f")
	for cut in $((sz * 60 / 100)) $((sz - 1)); do
		check "split invariance, --salvage cut at $cut: $n" "$b/splitcheck" -V -c "$cut" -p "$prefix4" -n "$rounds2" -s "$seed" "$f"
		check "split invariance, --salvage --stream cut at $cut: $n" "$b/splitcheck" -V -S -c "$cut" -p "$prefix4" -n "$rounds2" -s "$seed" "$f"
	done
	ssz=$(stat -c %s "$tmp/$n.s")
	check "split invariance, restore --salvage cut at $((ssz * 2 / 3)): $n" "$b/splitcheck" -V -r -c $((ssz * 2 / 3)) -p "$prefix4" -n "$rounds2" -s "$seed" "$tmp/$n.s"
	check "fallback at offset $off, --stream (the shim compressing): $n" "$b/splitcheck" -S -F "$off" -p "$prefix4" -n "$rounds2" -s "$seed" "$f"
	check "strip | restore through pipes, no TMPDIR: the zeroed original's sub-records: $n" streamed "$f"
	check "keep strings from a file: all String values, nothing else: $n" kept_file "$f"
	check "keep strings streamed: most String values, nothing else: $n" kept_streamed "$f"
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
