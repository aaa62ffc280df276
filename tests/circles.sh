#!/bin/bash
# circles.sh: the product's files call each other in layers, never in a
# circle. Each product source is compiled alone; an edge A -> B is a name
# A leaves undefined that B defines. preload/wrappers.c defines libc's own
# names (open, write, close...), so a call to one of those means libc, and
# edges into it are not counted. Fails, naming the files, on
#   - a circle (tsort finds a loop),
#   - the engine (strip/engine/) calling out of itself,
#   - the tools (strip/cli/, restore/) calling into the shim (preload/),
#   - the shim (preload/) or the I/O both use (strip/io/) reaching into
#     the tools' folder (strip/cli/): a call into it, or an include of a
#     file of it (whatever is shared lives in strip/io/).
# Prints the edges with -v.
. "$(dirname "$0")/lib.sh"
cd "$root" || exit 2
CC=${CC:-cc}
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT

srcs=$(ls strip/engine/*.c strip/io/*.c strip/cli/*.c restore/*.c preload/*.c |
	grep -v 'preload/hprofstrip-run.c')
for s in $srcs; do
	o=$tmp/$(echo "$s" | tr / @).o
	$CC -std=c11 -D_GNU_SOURCE -O0 -fPIC -c "$s" -o "$o" ||
		{ echo "circles: $s does not compile" >&2; exit 1; }
done
for o in "$tmp"/*.o; do
	f=$(basename "$o" .o | tr @ /)
	nm "$o" | awk -v f="$f" '
		$2 ~ /^[TDBR]$/ { print "D", $3, f }
		$1 == "U" { print "U", $2, f }'
done >"$tmp/syms"
awk '
	$1 == "D" { def[$2] = (def[$2] ? def[$2] " " : "") $3; next }
	{ use[NR] = $2; by[NR] = $3 }
	END {
		for (i in use) {
			n = split(def[use[i]], d, " ")
			for (j = 1; j <= n; j++)
				if (d[j] != by[i] && d[j] != "preload/wrappers.c")
					print by[i], d[j]
		}
	}' "$tmp/syms" | sort -u >"$tmp/edges"
[ "$1" = -v ] && cat "$tmp/edges"

bad=0
if ! tsort "$tmp/edges" >/dev/null 2>"$tmp/loop"; then
	echo "circles: the product's files call each other in a circle:" >&2
	grep -v 'input contains a loop' "$tmp/loop" >&2
	bad=1
fi
if grep '^strip/engine/' "$tmp/edges" | grep -v ' strip/engine/' >&2; then
	echo "circles: the engine calls out of strip/engine/ (above)" >&2
	bad=1
fi
if grep -E '^(strip/cli|restore)/[^ ]* preload/' "$tmp/edges" >&2; then
	echo "circles: the tools call into the shim (above)" >&2
	bad=1
fi
if grep -E '^(preload|strip/io)/[^ ]* strip/cli/' "$tmp/edges" >&2; then
	echo "circles: the shim calls into the tools' strip/cli/ (above)" >&2
	bad=1
fi
# (every file of the shim, hprofstrip-run.c too, and of strip/io/)
if grep -nE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"([^"]*/)?(\.\./)+(strip/)?cli/' \
		preload/*.[ch] strip/io/*.[ch] >&2; then
	echo "circles: the shim includes from the tools' strip/cli/ (above)" >&2
	bad=1
fi
# the Makefile's lists of what the shim is built from
shim=$(printf 'circles-shim:\n\t@echo $(SHIM_SRC) $(SHIM_HDRS) $(ARCHIVE_SRC)\n' |
	make -s --no-print-directory -f Makefile -f - circles-shim) || exit 2
if echo "$shim" | tr ' ' '\n' | grep '^strip/cli/' >&2; then
	echo "circles: the Makefile builds the shim from strip/cli/ (above)" >&2
	bad=1
fi
[ $bad = 0 ] && echo "circles: $(wc -l <"$tmp/edges") calls between files, no circle"
exit $bad
