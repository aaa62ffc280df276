#!/bin/bash
# selftest.sh: what of examples/android can be checked on this machine,
# without a device: wrap.sh starting a program (the replay driver writing
# ART's syscall pattern) with the host-built shim preloaded, and
# dumpheap.sh against a fake adb that plays the device with a directory.
# The replay stamps the dump's header with the time it ran, as ART does, so
# its dumps are compared with hprofstrip's but for those 8 bytes
# (tests/cmp-dump).
# Prints one line per check and 'N passed, N failed'.
set -u
here=$(cd "$(dirname "$0")" && pwd)
# a clean environment; root, b, corpus; check()
. "$here/../../tests/lib.sh"
in=$corpus/art/art-host-2025.hprof
bm=$corpus/art/dalvik-api19-leak-service-binder.hprof
cmp_dump() { "$root/tests/cmp-dump" "$@"; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

[ -r "$in" ] || { echo "selftest: no corpus in $corpus" >&2; exit 1; }
"$b/hprofstrip" -o "$tmp/exp" "$in" || exit 1
"$b/hprofrestore" --jvm -o "$tmp/exp.jvm" "$tmp/exp" || exit 1

# the app's native library directory
mkdir -p "$tmp/lib" "$tmp/data"
cp "$here/wrap.sh" "$b/libhprofstrip.so" "$tmp/lib/"

# Debug.dumpHprofData(path): ART opens the file itself
wrapped_open() {
	HPROFSTRIP_PATTERN="$tmp/data/*.hprof" sh "$tmp/lib/wrap.sh" \
		"$b/replay" artcloexec "$in" "$tmp/data/a.hprof" 2>"$tmp/err" &&
		cmp_dump "$tmp/exp" "$tmp/data/a.hprof" && grep -q 'arrays stripped' "$tmp/err"
}
check "wrap.sh: a dump the app opens is stripped" wrapped_open

# am dumpheap: ART writes to an fd it was handed (here: stdout, opened by
# a shell without the shim); found by sniffing
wrapped_fd() {
	sh "$tmp/lib/wrap.sh" "$b/replay" artpipe "$in" - >"$tmp/data/fd.out" 2>"$tmp/err" &&
		cmp_dump "$tmp/exp" "$tmp/data/fd.out"
}
check "wrap.sh: a dump written to an fd from elsewhere is stripped (sniffing)" wrapped_fd

# the default pattern matches /data dumps
default_pattern() {
	env -u HPROFSTRIP_PATTERN sh "$tmp/lib/wrap.sh" \
		sh -c 'echo "$HPROFSTRIP_PATTERN"' >"$tmp/pat" &&
		grep -q '^/data/\*\.hprof:' "$tmp/pat"
}
check "wrap.sh: the default pattern covers /data" default_pattern

# a fake adb: the device is the directory $tmp/device
mkdir -p "$tmp/device/data/local/tmp" "$tmp/bin"
cat >"$tmp/bin/adb" <<EOS
#!/bin/bash
dev=$tmp/device
case "\$1 \$2 \$3" in
"shell am dumpheap")
	# the app, with wrap.sh's shim, writes to the fd am hands it (its
	# last argument); with -b, a dump with bitmaps, the app keeping them
	if [ "\$4" = -b ]; then
		HPROFSTRIP_KEEP=bitmaps exec sh "$tmp/lib/wrap.sh" "$b/replay" \\
			artcloexec "$bm" - >"\$dev\$7"
	fi
	exec sh "$tmp/lib/wrap.sh" "$b/replay" artcloexec "$in" - >"\$dev\$5" ;;
esac
case \$1 in
shell) shift; exec sh -c "\${*//\/data\//\$dev/data/}" ;;
exec-out) shift; exec sh -c "\${*//\/data\//\$dev/data/}" ;;
esac
echo "fake adb: \$*" >&2
exit 1
EOS
chmod +x "$tmp/bin/adb"

pipeline() {
	(cd "$tmp" && ADB="$tmp/bin/adb" "$here/dumpheap.sh" 1234 out.hprof) >"$tmp/log" 2>&1 &&
		cmp_dump "$tmp/exp" "$tmp/out.hprof" &&
		[ -z "$(ls "$tmp/device/data/local/tmp")" ] &&
		# the .histo: the offline histogram, then its note of the dump
		"$b/hprofstrip" --histo "$in" | cmp - <(sed '$d' "$tmp/out.hprof.histo") &&
		tail -n 1 "$tmp/out.hprof.histo" | grep -q '^# dump: [^/]*, stamped [0-9]'
}
check "dumpheap.sh: am dumpheap, adb exec-out cat | hprofstrip" pipeline

pipeline_jvm() {
	(cd "$tmp" && ADB="$tmp/bin/adb" "$here/dumpheap.sh" -r com.example.app) >"$tmp/log" 2>&1 &&
		cmp_dump "$tmp/exp.jvm" "$tmp/com.example.app.stripped.hprof"
}
check "dumpheap.sh -r: restored to a standard 1.0.2 dump" pipeline_jvm

# dumpheap.sh -b png: Dalvik's bitmaps (26 Bitmap.mBuffer arrays), the
# app's shim keeping what it can in one pass (HPROFSTRIP_KEEP=bitmaps):
# what a pipe through hprofstrip --keep-bitmaps keeps, and the host's exact
# pass changes nothing of it; without -b, none is kept
pipeline_bitmaps() {
	cat "$bm" | "$b/hprofstrip" --keep-bitmaps >"$tmp/exp.bm" &&
		(cd "$tmp" && ADB="$tmp/bin/adb" "$here/dumpheap.sh" -b png 1234 bm.hprof) >"$tmp/log" 2>&1 &&
		cmp_dump "$tmp/exp.bm" "$tmp/bm.hprof" &&
		[ -z "$(ls "$tmp/device/data/local/tmp")" ] && [ ! -e "$tmp/bm.hprof.full.tmp" ] &&
		"$b/hprofstrip" --info "$tmp/bm.hprof" | grep -Eq "^  byte +19 +236744$" &&
		! (cd "$tmp" && ADB="$tmp/bin/adb" "$here/dumpheap.sh" -b gif 1234 x.hprof 2>/dev/null)
}
check "dumpheap.sh -b png: the bitmaps' arrays the app's shim kept" pipeline_bitmaps

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
