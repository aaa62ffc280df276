#!/usr/bin/env bash
# Section 10 of make bench: what keeping bitmaps keeps, and what it costs
# in bytes.
#
#   BUILD=build tests/bench/bitmaps.sh      (bench.sh runs it last)
#
#   BENCH_BITMAPS       bitmaps in the heap (default 200, the issue's)
#   BENCH_DIR           work dir parent (default /tmp/hprofstrip-bench);
#                       this script uses BENCH_DIR/bitmaps
#
# Three JDK 17 heaps of tests/java/BitmapHeap.java (fixed seed): its mix
# of PNG, JPEG and WEBP pictures in Bitmap.dumpData allocated as AOSP's
# dumpAll does (the "dumpAll" order), the same with the pictures
# allocated before their DumpData ("late"), and API 25's raw mBuffer
# bitmaps alone ("old", no DumpData class); each also in ART's 1.0.3 form
# (tests/androidize), and the corpus's real Dalvik dump (26 Bitmap.mBuffer
# arrays). For each: the bytes of the full dump, of a plain strip, of
# --keep-bitmaps from the file (exact) and from a pipe (streamed), and the
# arrays kept (hprofstrip --info's count of 0x23 byte[] left), the
# streamed ones by their image signature alone (-v). Prints a table;
# asserts nothing.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
B=$(realpath "${BUILD:-build}")
N=${BENCH_BITMAPS:-200}
W=${BENCH_DIR:-/tmp/hprofstrip-bench}/bitmaps
corpus=$root/../shared/corpus
rm -rf "$W"
mkdir -p "$W"
trap 'rm -rf "$W"' EXIT

"$root/tests/java/judge.sh" build >/dev/null
cc -std=c11 -D_GNU_SOURCE -O2 -o "$W/androidize" "$root/tests/androidize.c" \
	"$root/tests/walk.c"

# the byte[] arrays a stripped dump still holds whole
kept() {
	"$B/hprofstrip" --info "$1" | sed -n '/^kept arrays/,/^$/s/^  byte  *\([0-9]*\) .*/\1/p'
}

row() {  # NAME DUMP
	local name=$1 f=$2 full plain file pipe kf kp sig
	"$B/hprofstrip" -o "$W/plain" "$f"
	"$B/hprofstrip" --keep-bitmaps -o "$W/file" "$f"
	sig=$(cat "$f" | "$B/hprofstrip" -v --keep-bitmaps 2>&1 >"$W/pipe" |
		sed -n 's/.*streamed: \([0-9]*\) kept by their image signature.*/\1/p')
	full=$(stat -c %s "$f")
	plain=$(stat -c %s "$W/plain")
	file=$(stat -c %s "$W/file")
	pipe=$(stat -c %s "$W/pipe")
	kf=$(kept "$W/file")
	kp=$(kept "$W/pipe")
	printf '  %-22s %11d %11d %11d %6.1f%% %6.1f%% %6d %6d %4.0f%% %5d\n' \
		"$name" "$full" "$plain" "$file" \
		"$(echo "100 * $file / $full" | bc -l)" \
		"$(echo "100 * ($file - $plain) / $plain" | bc -l)" \
		"${kf:-0}" "${kp:-0}" \
		"$(echo "${kf:-0}" "${kp:-0}" | awk '{ print $1 ? 100 * $2 / $1 : 100 }')" \
		"${sig:-0}"
	rm -f "$W/plain" "$W/file" "$W/pipe"
}

echo "== 10. keeping bitmaps: $N bitmaps (BitmapHeap), sizes and arrays kept"
cd "$W"
java -cp "$B/java" BitmapHeap mxbean "$W/dumpall.hprof" "bitmaps=$N" >/dev/null
java -cp "$B/java" BitmapHeap mxbean "$W/late.hprof" "bitmaps=$N" late=1 >/dev/null
java -cp "$B/java" BitmapHeap mxbean "$W/old.hprof" "bitmaps=$N" old=1 >/dev/null
for k in dumpall late old; do
	"$W/androidize" "$W/$k.hprof" "$W/$k-art.hprof"
done
printf '  %-22s %11s %11s %11s %7s %7s %6s %6s %5s %5s\n' dump full \
	"plain" "--keep-bm" "of full" "over" "file" "pipe" "pipe" "sig"
for k in dumpall late old; do
	row "$k (HotSpot order)" "$W/$k.hprof"
	row "$k (ART form)" "$W/$k-art.hprof"
done
row "Dalvik API 19 (real)" "$corpus/art/dalvik-api19-leak-service-binder.hprof"
echo "  (bytes; 'of full': --keep-bitmaps from the file over the full dump;"
echo "  'over': over the plain strip; file / pipe: byte[] kept exact from the"
echo "  file and streamed from a pipe; sig: of those streamed, kept by their"
echo "  image signature alone)"
echo
