#!/bin/sh
# dumpheap.sh: dump an Android app's heap over adb and strip it on the way
# to this machine.
#
#   examples/android/dumpheap.sh [-r] [-b png|jpg|webp] PROCESS [OUT]
#
# PROCESS: a pid or a process name (the package, usually). OUT defaults to
# PROCESS.stripped.hprof. The dump is written on the device by
#   adb shell am dumpheap PROCESS /data/local/tmp/hprofstrip-<pid>.hprof
# (am opens the file and hands the app an fd: with the shim in the app,
# see wrap.sh, the file is stripped already, found by sniffing), then
#   adb exec-out cat FILE | hprofstrip > OUT
# (hprofstrip passes an already stripped dump through unchanged); the
# shim's class histogram beside the dump, FILE.histo, comes to OUT.histo
# when the shim wrote one; both files on the device are removed. With -r, OUT is then restored to a plain
# JDK-style 1.0.2 dump (hprofrestore --jvm) that desktop viewers open.
# With -b FORMAT (API 35+), am dumpheap -b FORMAT first compresses every
# bitmap into the heap, and the bitmaps' pictures are kept: the dump is
# copied to OUT.full.tmp on this machine and stripped from the file with
# hprofstrip --keep-bitmaps, exact whatever the order (it needs room for
# the full dump for a moment); an app whose wrap.sh preloads the shim must
# set HPROFSTRIP_KEEP=bitmaps there too, or its shim strips them first.
#
# Environment: ADB (default adb), HPROFSTRIP and HPROFRESTORE (default:
# build/hprofstrip and build/hprofrestore next to this script's repository,
# else on PATH), ANDROID_SERIAL as adb uses it.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
adb=${ADB:-adb}
pick() {
	if [ -x "$root/build/$1" ]; then echo "$root/build/$1"; else echo "$1"; fi
}
strip=${HPROFSTRIP:-$(pick hprofstrip)}
restore=${HPROFRESTORE:-$(pick hprofrestore)}
jvm=0 bitmaps=
while [ $# -gt 0 ]; do
	case $1 in
	-r) jvm=1; shift ;;
	-b) case ${2:-} in
	    png|jpg|webp) bitmaps=$2; shift 2 ;;
	    *) echo "$0: -b: '${2:-}' is not png, jpg or webp" >&2; exit 2 ;;
	    esac ;;
	*) break ;;
	esac
done
if [ $# -lt 1 ] || [ $# -gt 2 ]; then
	echo "usage: $0 [-r] [-b png|jpg|webp] PROCESS [OUT]" >&2
	exit 2
fi
proc=$1
out=${2:-$proc.stripped.hprof}
remote=/data/local/tmp/hprofstrip-$$.hprof

# am dumpheap waits for the dump to finish (Android 10+; older versions
# return at once, so wait until the file stops growing)
if [ -n "$bitmaps" ]; then
	"$adb" shell am dumpheap -b "$bitmaps" "$proc" "$remote"
else
	"$adb" shell am dumpheap "$proc" "$remote"
fi
last=-1
while :; do
	size=$("$adb" shell "stat -c %s $remote 2>/dev/null || echo -1" | tr -d '\r')
	[ "$size" = "$last" ] && [ "$size" != -1 ] && break
	last=$size
	sleep 1
done
if [ -n "$bitmaps" ]; then
	"$adb" exec-out cat "$remote" >"$out.full.tmp"
	"$strip" --keep-bitmaps -o "$out.tmp" "$out.full.tmp"
	rm -f "$out.full.tmp"
else
	"$adb" exec-out cat "$remote" | "$strip" -o "$out.tmp"
fi
# the histogram, if the shim wrote one (an empty answer: it did not)
"$adb" exec-out "cat $remote.histo 2>/dev/null" >"$out.histo.tmp"
"$adb" shell rm -f "$remote" "$remote.histo"
if [ -s "$out.histo.tmp" ]; then
	mv "$out.histo.tmp" "$out.histo"
	echo "$out.histo"
else
	rm -f "$out.histo.tmp"
fi
if [ "$jvm" = 1 ]; then
	"$restore" --jvm -o "$out" "$out.tmp"
	rm -f "$out.tmp"
else
	mv "$out.tmp" "$out"
fi
echo "$out"
