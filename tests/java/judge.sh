#!/bin/bash
# judge.sh: compile and run the Java side of the test suite.
#
#   tests/java/judge.sh build              compile HeapBuilder, BitmapHeap
#                                          (with android.graphics.Bitmap),
#                                          StringHeap, LongStrings, Secrets (with
#                                          com.acme.secret.Customer) and
#                                          HeapJudge into
#                                          "${BUILD:-build}/java"
#   tests/java/judge.sh CMD FILE [ARG]     compile if needed, then run
#                                          HeapJudge CMD FILE [ARG]
#                                          (histo, jmap-histo, count, arrays, markers,
#                                          strings, long-strings, refs,
#                                          fields; bitmaps [--stream] ORIG
#                                          RESTORED... takes 2 or more)
#
# The heap builders run from the same directory once built:
#   java -cp "${BUILD:-build}/java" HeapBuilder ...   (tests/java/HeapBuilder.java)
#   java -cp "${BUILD:-build}/java" StringHeap ...    (tests/java/StringHeap.java)
#   java -cp "${BUILD:-build}/java" LongStrings ...   (tests/java/LongStrings.java)
#   java -cp "${BUILD:-build}/java" Secrets ...       (tests/java/Secrets.java)
#   java -cp "${BUILD:-build}/java" BitmapHeap ...    (tests/java/BitmapHeap.java)
#
# BUILD is taken relative to the repository root unless absolute. The
# VisualVM heap library comes from the Debian package visualvm; override its
# path with HEAPJUDGE_JAR. Extra JVM options: HEAPJUDGE_JAVA_OPTS.
# Exit status 3: java, javac or the VisualVM jar is missing (tests may skip).
set -eu

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
src="$root/tests/java"
build=${BUILD:-build}
case $build in
/*) out="$build/java" ;;
*) out="$root/$build/java" ;;
esac
jar=${HEAPJUDGE_JAR:-/usr/share/visualvm/visualvm/modules/org-graalvm-visualvm-lib-jfluid-heap.jar}

missing() {
	echo "judge.sh: $1" >&2
	exit 3
}

command -v java >/dev/null || missing "java not found (apt-get install openjdk-17-jdk-headless)"
[ -r "$jar" ] || missing "$jar not found (apt-get install visualvm)"

# Paths from tests/java, less .java: a class in a package is in its
# directories there and in the output
classes="HeapBuilder LeakHeap android/app/Activity androidx/fragment/app/Fragment BitmapHeap StringHeap LongStrings Secrets com/acme/secret/Customer ManyClasses Sizes libcore/util/NativeAllocationRegistry android/graphics/Bitmap HeapJudge"

stale() {
	local c s
	for c in $classes; do
		[ -f "$out/$c.class" ] || return 0
		for s in $classes; do
			[ "$src/$s.java" -nt "$out/$c.class" ] && return 0
		done
	done
	return 1
}

compile() {
	command -v javac >/dev/null || missing "javac not found (apt-get install openjdk-17-jdk-headless)"
	mkdir -p "$out"
	# Tests may run in parallel: one compiles, the others wait for it.
	exec 9>"$out/.lock"
	if command -v flock >/dev/null; then flock 9; fi
	if stale; then
		local tmp
		tmp=$(mktemp -d "$out/.javac.XXXXXX")
		local c f srcs=()
		for c in $classes; do srcs+=("$src/$c.java"); done
		if ! javac -nowarn -Xlint:-options --release 11 -encoding UTF-8 \
			-cp "$jar" -d "$tmp" "${srcs[@]}"; then
			rm -rf "$tmp"
			exit 1
		fi
		# Each class file lands whole (rename); nested classes go first so
		# that a fresh top-level class (what stale checks) means all are.
		for c in $classes; do
			mkdir -p "$(dirname "$out/$c")"
			for f in "$tmp/$c"'$'*.class; do
				[ -e "$f" ] && mv -f "$f" "$(dirname "$out/$c")/"
			done
		done
		for c in $classes; do mv -f "$tmp/$c.class" "$out/$c.class"; done
		rm -rf "$tmp"
	fi
	exec 9>&-
}

if [ $# -lt 1 ]; then
	echo "usage: $0 build | histo FILE | jmap-histo FILE | count FILE CLASS | arrays FILE CLASS | markers FILE | strings FILE | long-strings FILE | refs FILE | fields FILE CLASS | bitmaps [--stream] ORIG RESTORED..." >&2
	exit 2
fi

if [ "$1" = build ]; then
	[ $# -eq 1 ] || { echo "usage: $0 build" >&2; exit 2; }
	compile
	exit 0
fi

if stale; then compile; fi
# shellcheck disable=SC2086
exec java ${HEAPJUDGE_JAVA_OPTS:-} -cp "$out:$jar" HeapJudge "$@"
