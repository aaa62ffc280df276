#!/bin/bash
# Helpers for tests/ports.mk (check-musl, check-arm64).
#
#   tests/ports.sh deps PKG...          apt-get install the Debian packages
#                                       not installed yet (retries while
#                                       apt or dpkg is locked)
#   tests/ports.sh wrappers DIR CMD...  DIR/NAME for each binary DIR/bin/NAME:
#                                       a script that runs CMD DIR/bin/NAME
#                                       "$@" (e.g. CMD = qemu-aarch64)
#   tests/ports.sh shim-replay DIR [RUN...]
#                                       DIR's replay driver under DIR's shim
#                                       (RUN: a command prefix such as
#                                       qemu-aarch64 -L SYSROOT; LD_PRELOAD
#                                       is passed with -E then) over the
#                                       corpus in several modes; each output
#                                       must equal DIR/hprofstrip's but for
#                                       the time stamp the replay writes
#                                       (tests/cmp-dump)
#   tests/ports.sh big DIR [MIB]        DIR/bigdump's dump of MIB MiB (2200)
#                                       under DIR's shim, as written and
#                                       JDK 8's way: hprofstrip's, and a
#                                       whole .histo that counts it all
#   tests/ports.sh shimstress DIR       DIR/shimstress under DIR's shim: the
#                                       in-process robustness checks, in a
#                                       runtime's process (the ART stub)
#                                       writing a dump stamped as its own
# The last two print one line per check and 'N passed, N failed'.
set -u
# a clean environment; root, corpus, pass and fail
. "$(dirname "$0")/lib.sh"

abs() { case $1 in /*) echo "$1" ;; *) echo "$root/$1" ;; esac; }

result() {
	if [ "$1" = 0 ]; then
		pass=$((pass + 1))
		echo "ok   $2"
	else
		fail=$((fail + 1))
		echo "FAIL $2"
		[ -n "${3:-}" ] && sed 's/^/     /' "$3"
	fi
}

summary() {
	echo "$pass passed, $fail failed"
	[ "$fail" -eq 0 ]
}

cmd=${1:-}
shift || true
case $cmd in
deps)
	need=()
	for p in "$@"; do
		# installed, not just known: a package removed by a conflict
		# (gcc-multilib's with the aarch64 compiler) keeps a status
		# that dpkg -s accepts
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
			need+=("$p")
	done
	[ ${#need[@]} -eq 0 ] && exit 0
	if [ "$(id -u)" != 0 ]; then
		echo "ports: not root; install these yourself: ${need[*]}" >&2
		exit 1
	fi
	echo "ports: installing ${need[*]}" >&2
	export DEBIAN_FRONTEND=noninteractive
	for try in 1 2 3 4 5 6 7 8 9 10; do
		if apt-get install -y -q "${need[@]}" >/dev/null 2>"${TMPDIR:-/tmp}/ports-apt.$$" ||
			{ apt-get update -q >/dev/null 2>&1 &&
				apt-get install -y -q "${need[@]}" >/dev/null 2>"${TMPDIR:-/tmp}/ports-apt.$$"; }; then
			rm -f "${TMPDIR:-/tmp}/ports-apt.$$"
			exit 0
		fi
		if grep -qi 'lock' "${TMPDIR:-/tmp}/ports-apt.$$"; then
			echo "ports: apt is locked, waiting (try $try)" >&2
			sleep 10
			continue
		fi
		cat "${TMPDIR:-/tmp}/ports-apt.$$" >&2
		break
	done
	rm -f "${TMPDIR:-/tmp}/ports-apt.$$"
	exit 1
	;;
wrappers)
	dir=$(abs "$1")
	shift
	for b in "$dir"/bin/*; do
		[ -f "$b" ] && [ -x "$b" ] || continue
		case $b in *.so) continue ;; esac
		w=$dir/$(basename "$b")
		{
			echo '#!/bin/sh'
			echo "# runs the $(basename "$b") built for another machine"
			printf 'exec'
			printf ' %q' "$@"
			printf ' "$(dirname "$0")/bin/%s" "$@"\n' "$(basename "$b")"
		} >"$w"
		chmod +x "$w"
	done
	;;
shim-replay)
	dir=$(abs "$1")
	shift
	bin=$dir/bin  # cross builds keep the real binaries there
	[ -d "$bin" ] || bin=$dir
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	files=$(ls "$corpus"/art/*.hprof "$corpus"/hotspot/*.hprof 2>/dev/null)
	[ -n "$files" ] || { echo "ports: no corpus in $corpus" >&2; exit 1; }
	for f in $files; do
		n=$(basename "$f")
		"$dir/hprofstrip" -o "$tmp/exp" "$f" || { result 1 "hprofstrip $n"; continue; }
		for m in random threads jdk8 jdk22 art artcloexec pwrite writev; do
			rm -f "$tmp"/out.hprof*
			if [ $# -gt 0 ]; then
				"$@" -E LD_PRELOAD="$bin/libhprofstrip.so" \
					"$bin/replay" "$m" "$f" "$tmp/out.hprof" 5 2>"$tmp/err" ||
					{ result 1 "shim, replay $m: $n" "$tmp/err"; continue; }
			else
				LD_PRELOAD="$bin/libhprofstrip.so" \
					"$bin/replay" "$m" "$f" "$tmp/out.hprof" 5 2>"$tmp/err" ||
					{ result 1 "shim, replay $m: $n" "$tmp/err"; continue; }
			fi
			# the shim was there: it said what it did
			same=0 said=0
			"$root/tests/cmp-dump" "$tmp/exp" "$tmp/out.hprof" >/dev/null 2>&1 && same=1
			grep -q ' arrays stripped; top classes by bytes: ' "$tmp/err" && said=1
			if [ $same = 1 ] && [ $said = 1 ]; then
				result 0 "shim, replay $m: $n"
				continue
			fi
			{
				if [ $same = 1 ]; then
					echo "output: equal to hprofstrip's"
				else
					echo "output differs from hprofstrip's:" \
						"$("$root/tests/cmp-dump" "$tmp/exp" "$tmp/out.hprof" 2>&1 | head -1)"
					echo "sizes: expected $(stat -c %s "$tmp/exp")," \
						"actual $(stat -c %s "$tmp/out.hprof" 2>/dev/null || echo missing)"
				fi
				if [ $said = 1 ]; then
					echo "the shim's summary line: present"
				else
					echo "the shim's summary line ('... arrays stripped; top classes by bytes: ...'): missing"
				fi
				echo "stderr:"
				cat "$tmp/err"
			} >"$tmp/why"
			result 1 "shim, replay $m: $n" "$tmp/why"
		done
	done
	summary
	;;
big)
	# a dump past 2 GiB written by DIR's bigdump under DIR's shim, as
	# written and with JDK 8's length patches seeked back to: equal to
	# DIR/hprofstrip's strip of the same stream from a pipe; its .histo
	# whole, its byte[] bytes past 2 GiB
	dir=$(abs "$1")
	mib=${2:-2200}
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	"$dir/bigdump" "$mib" - | "$dir/hprofstrip" -o "$tmp/exp" - || exit 1
	for m in plain jdk8; do
		rm -f "$tmp"/out.hprof*
		HPROFSTRIP_PROGRAMS=bigdump LD_PRELOAD="$dir/libhprofstrip.so" \
			"$dir/bigdump" "$mib" "$tmp/out.hprof" $m >"$tmp/n" 2>"$tmp/err" ||
			{ result 1 "bigdump $m $mib MiB, under the shim" "$tmp/err"; continue; }
		n=$(cat "$tmp/n")
		if [ "$n" -le 2147483647 ]; then
			echo "bigdump wrote $n bytes: not past 2 GiB" >"$tmp/err"
			result 1 "bigdump $m $mib MiB, under the shim" "$tmp/err"
			continue
		fi
		b=$(awk '$NF == "[B" { print $3 }' "$tmp/out.hprof.histo" 2>>"$tmp/err")
		cmp "$tmp/exp" "$tmp/out.hprof" >>"$tmp/err" 2>&1 &&
			[ "${b:-0}" -gt 2147483647 ] &&
			grep -q '^Total ' "$tmp/out.hprof.histo" 2>>"$tmp/err"
		rc=$?
		[ $rc = 0 ] || echo "written $n; the .histo's byte[] bytes: ${b:-none}" >>"$tmp/err"
		result $rc "bigdump $m: $n bytes, under the shim" "$tmp/err"
	done
	summary
	;;
shimstress)
	dir=$(abs "$1")
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	# the corpus's dump stamped 10 minutes from now: a runtime strips its
	# own dumps, stamped since it began, and takes an older one for a copy
	in=$tmp/in.hprof
	cp "$corpus/hotspot/jdk8-u05-x64.hprof" "$in" && chmod u+w "$in" || exit 1
	perl -e 'print pack("Q>", (time() + 600) * 1000)' |
		dd of="$in" bs=1 seek=23 count=8 conv=notrunc status=none || exit 1
	"$dir/hprofstrip" -o "$tmp/exp" "$in" || exit 1
	for t in threads "concurrent 6" fork vfork reuse dup2 errno lseek \
		"write open:w.hprof" "write openat+pwrite:w.hprof" \
		"write raw:w.bin"; do
		set -- $t
		rm -rf "$tmp/d" && mkdir "$tmp/d"
		"$dir/shimstress" "$1" "$in" "$in" "$tmp/d" ${2:-} >"$tmp/out" 2>&1 ||
			{ result 1 "shimstress $t, no shim" "$tmp/out"; continue; }
		rm -rf "$tmp/d" && mkdir "$tmp/d"
		# in a runtime's process (the ART stub), as raw:w.bin (an fd
		# from am dumpheap) needs to be sniffed
		HPROFSTRIP_QUIET=1 LD_PRELOAD="$dir/libhprofstrip.so $dir/stub/libart.so" \
			"$dir/shimstress" "$1" "$in" "$tmp/exp" "$tmp/d" ${2:-} >"$tmp/out" 2>&1
		result $? "shimstress $t, under the shim" "$tmp/out"
	done
	summary
	;;
*)
	sed -n '2,/^set -u$/{/^#/p}' "$0" >&2
	exit 2
	;;
esac
