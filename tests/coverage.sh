#!/bin/bash
# Helpers for tests/coverage.mk (make coverage): gcov line and branch
# coverage of the product's files by the C unit tests, tests/unit.sh and
# the Bats suites.
#
#   tests/coverage.sh cc ARG...     gcc ARG..., but a command that compiles
#                                   and links several .c files at once
#                                   compiles each to an object of its own
#                                   first (OUT.cov/PATH_OF_SOURCE.o), then
#                                   links those: gcc names the notes and
#                                   data of a one-command build OUT-BASE.gcno,
#                                   so strip/cli/names.c and
#                                   strip/engine/names.c (histo.c too)
#                                   would overwrite each other's
#   tests/coverage.sh run DIR UNIT SUITE...
#                                   the .gcda files under DIR removed, then
#                                   DIR/UNIT for each name in UNIT (one
#                                   word, space-separated), BUILD=DIR
#                                   tests/unit.sh and each Bats suite (a
#                                   file or bats/) by tests/run-bats.sh; the
#                                   time each took in DIR/times.txt, its
#                                   output in DIR/logs/; a
#                                   failure is noted (DIR/failed.txt) and
#                                   the run goes on; fails if one failed
#   tests/coverage.sh report DIR    gcovr over DIR's notes and data:
#                                   DIR/summary.txt (per product file:
#                                   lines and branches covered, total, %;
#                                   totals of strip/, preload/, restore/),
#                                   DIR/uncovered-branches.txt (per file,
#                                   the lines with a branch never taken),
#                                   DIR/gcovr.json, DIR/gcovr.txt; prints
#                                   the totals
set -u

root=$(cd "$(dirname "$0")/.." && pwd)
cmd=${1:-}
shift || true

case $cmd in
cc)
	# (anything but a link of several .c files: gcc as it is)
	n=0
	for a in "$@"; do
		case $a in
		-c | -E | -S | -x | -M | -MM) exec gcc "$@" ;;
		*.c) n=$((n + 1)) ;;
		esac
	done
	[ $n -ge 2 ] || exec gcc "$@"
	srcs=() copts=() lopts=() out=
	while [ $# -gt 0 ]; do
		case $1 in
		-o) out=$2; shift ;;
		*.c) srcs+=("$1") ;;
		-l* | -L* | -Wl,* | -shared | -r | -nostdlib | -static | *.o | *.a | *.so)
			lopts+=("$1") ;;
		*) copts+=("$1") ;;
		esac
		shift
	done
	[ -n "$out" ] || exec gcc "${copts[@]}" "${srcs[@]}" "${lopts[@]}"
	objdir=$out.cov
	mkdir -p "$objdir" || exit 1
	objs=()
	for s in "${srcs[@]}"; do
		o=$objdir/$(printf '%s' "${s%.c}" | sed 's|^\./||; s|/|_|g').o
		gcc "${copts[@]}" -c -o "$o" "$s" || exit 1
		objs+=("$o")
	done
	exec gcc "${copts[@]}" -o "$out" "${objs[@]}" "${lopts[@]}"
	;;
run)
	dir=$1 unit=$2
	shift 2
	case $dir in /*) ;; *) dir=$root/$dir ;; esac
	cd "$root" || exit 1
	find "$dir" -name '*.gcda' -delete
	: >"$dir/times.txt"
	: >"$dir/failed.txt"
	rm -rf "$dir/logs" && mkdir -p "$dir/logs"
	# libgcov's complaints (a data file it cannot write: a test's fd or
	# file size limit) go here, not into the stderr a test checks
	export GCOV_ERROR_FILE=$dir/gcov-errors.log
	rm -f "$GCOV_ERROR_FILE"
	start=$(date +%s)
	step() {
		local name=$1 t0 rc
		shift
		echo "coverage: $name" >&2
		t0=$(date +%s)
		"$@" 2>&1 | tee "$dir/logs/$(echo "$name" | tr / _).log"
		rc=${PIPESTATUS[0]}
		printf '%6ds  %s%s\n' $(($(date +%s) - t0)) "$name" \
			"$([ $rc = 0 ] || echo "  (failed: $rc)")" >>"$dir/times.txt"
		[ $rc = 0 ] || echo "$name" >>"$dir/failed.txt"
	}
	for t in $unit; do
		step "$t" "$dir/$t"
	done
	step tests/unit.sh env BUILD="$dir" tests/unit.sh
	for s in "$@"; do
		if [ -d "$s" ]; then
			for f in "$s"/*.bats; do
				step "$f" env BUILD="$dir" tests/run-bats.sh "$f"
			done
		else
			step "$s" env BUILD="$dir" tests/run-bats.sh "$s"
		fi
	done
	printf '%6ds  all\n' $(($(date +%s) - start)) >>"$dir/times.txt"
	cat "$dir/times.txt"
	if [ -s "$dir/failed.txt" ]; then
		echo "coverage: these failed (the figures still count what ran):" >&2
		sed 's/^/  /' "$dir/failed.txt" >&2
		exit 1
	fi
	;;
report)
	dir=$1
	case $dir in /*) ;; *) dir=$root/$dir ;; esac
	cd "$root" || exit 1
	# the product's files: every .c under strip/ and preload/, and
	# hprofrestore.c
	files=$(find strip preload -name '*.c' | LC_ALL=C sort; echo restore/hprofrestore.c)
	filter='^(strip|preload)/.*\.c$|^restore/hprofrestore\.c$'
	gcovr -r "$root" --object-directory "$dir" -j 2 \
		--filter "$root/(strip|preload)/.*\.c$" \
		--filter "$root/restore/hprofrestore\.c$" \
		--json "$dir/gcovr.json" --txt "$dir/gcovr.txt" --branches \
		"$dir" >"$dir/gcovr.log" 2>&1 || {
		cat "$dir/gcovr.log" >&2
		echo "coverage: gcovr failed" >&2
		exit 1
	}
	python3 - "$dir" "$filter" $files <<-'EOF' || exit 1
		import json, re, sys
		d, filt, want = sys.argv[1], re.compile(sys.argv[2]), sys.argv[3:]
		data = json.load(open(d + "/gcovr.json"))
		stats = {}
		for f in data["files"]:
		    name = f["file"]
		    if not filt.search(name):
		        continue
		    lt = lc = bt = bc = 0
		    missed = []
		    for l in f["lines"]:
		        if l.get("gcovr/noncode"):
		            continue
		        lt += 1
		        lc += l["count"] > 0
		        br = l.get("branches", [])
		        bt += len(br)
		        n = sum(b["count"] > 0 for b in br)
		        bc += n
		        if n < len(br):
		            missed.append(l["line_number"])
		    stats[name] = (lc, lt, bc, bt, missed)
		def pct(a, b):
		    return "%5.1f%%" % (100.0 * a / b) if b else "    -"
		def row(name, lc, lt, bc, bt):
		    return "%-32s lines %5d/%-5d %s   branches %5d/%-5d %s" % (
		        name, lc, lt, pct(lc, lt), bc, bt, pct(bc, bt))
		out = []
		absent = [w for w in want if w not in stats]
		for w in want:
		    lc, lt, bc, bt, _ = stats.get(w, (0, 0, 0, 0, []))
		    out.append(row(w, lc, lt, bc, bt))
		out.append("")
		totals = []
		for top in ("strip/", "preload/", "restore/", ""):
		    s = [stats[w] for w in want if w.startswith(top) and w in stats]
		    t = [sum(x[i] for x in s) for i in range(4)]
		    totals.append(row("total " + (top or "all"), *t))
		out += totals
		if absent:
		    out.append("")
		    out.append("no notes or data (never built with --coverage): " + " ".join(absent))
		open(d + "/summary.txt", "w").write("\n".join(out) + "\n")
		with open(d + "/uncovered-branches.txt", "w") as u:
		    u.write("# per product file: the lines with a branch never taken\n")
		    for w in want:
		        m = stats.get(w, (0, 0, 0, 0, []))[4]
		        u.write("%s: %s\n" % (w, " ".join(map(str, m)) if m else "-"))
		print("\n".join(totals))
		if absent:
		    print("coverage: not measured: " + " ".join(absent))
	EOF
	echo "coverage: $dir/summary.txt, $dir/uncovered-branches.txt"
	;;
*)
	echo "usage: tests/coverage.sh cc ARG... | run DIR UNIT SUITE... | report DIR" >&2
	exit 2
	;;
esac
