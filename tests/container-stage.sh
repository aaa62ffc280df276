#!/bin/bash
# container-stage.sh: examples/container/Dockerfile, run without Docker.
#
#   tests/container-stage.sh [--config] [--dockerfile FILE] [DIR]
#
# Reads the Dockerfile and does what its two stages do, in DIR (default: a
# fresh temporary directory, removed on success), with DIR/build standing
# for the build stage's filesystem and DIR/root for the final image's:
#  1. copies what the build stage COPYs into DIR/build/src (so a source
#     the Dockerfile does not copy makes the build fail here too), and runs
#     its `make install PREFIX=... DESTDIR=...` and its javac line there;
#  2. copies what the final stage COPYs --from=build into DIR/root;
#  3. runs the image's CMD with the image's ENV (LD_PRELOAD and
#     JAVA_TOOL_OPTIONS, every absolute path under DIR/root), the staged
#     bin directory first in PATH and java from PATH (this machine's
#     OpenJDK 17, as in the image);
#  4. checks that the JVM wrote one dump into the VOLUME directory, stripped
#     on the way (the shim's summary line, PRIMITIVE_ARRAY_NODATA and no
#     PRIMITIVE_ARRAY_DUMP in the staged `hprofstrip --info`, which says
#     well-formed), and that the staged hprofrestore restores it;
#  5. with the image's ENV, unpacks that full (restored) dump into the
#     VOLUME with `tar xf` (what `kubectl cp` runs in the pod) and
#     `gzip -d`, and checks that both copies are byte for byte the dump:
#     the shim strips the JVM's own dumps, never a copy.
#
# --config prints what it read from the Dockerfile (one NAME=VALUE a line)
# and exits: bats/install.bats compares it with pod.yaml and the Makefile.
# --dockerfile reads another Dockerfile (the tests' broken copies).
# Exit status 0 when every check passes, 1 otherwise.
set -euo pipefail
# The caller's shim settings and preloads must not reach the run.
for v in ${!HPROFSTRIP_*}; do unset "$v"; done
unset LD_PRELOAD JAVA_TOOL_OPTIONS
# nor a parent make's flags and variables (BUILD, PREFIX, DESTDIR...)
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES BUILD PREFIX DESTDIR

repo=$(cd "$(dirname "$0")/.." && pwd)
dockerfile=$repo/examples/container/Dockerfile
me=container-stage

die() {
	echo "$me: $*" >&2
	exit 1
}

config=0
work=
while [ $# -gt 0 ]; do
	case $1 in
	--config) config=1 ;;
	--dockerfile)
		[ $# -ge 2 ] || die "--dockerfile needs a file"
		dockerfile=$2
		shift
		;;
	-*) die "unknown option '$1'" ;;
	*)
		[ -z "$work" ] || die "unexpected argument '$1'"
		work=$1
		;;
	esac
	shift
done

# ---- what the Dockerfile says -------------------------------------------

[ -r "$dockerfile" ] || die "$dockerfile is missing"
# the Dockerfile with continuation lines joined
joined=$(sed -e ':a' -e '/\\$/{N;s/\\\n[[:space:]]*/ /;ba' -e '}' "$dockerfile")
# lines of the build stage (up to the second FROM) and of the final one
build_stage=$(printf '%s\n' "$joined" | awk '/^FROM /{n++} n==1')
final_stage=$(printf '%s\n' "$joined" | awk '/^FROM /{n++} n==2')
{ [ -n "$build_stage" ] && [ -n "$final_stage" ]; } ||
	die "expected two stages (two FROM lines) in $dockerfile"

# ENV NAME=VALUE or ENV NAME="VALUE" in the final stage
env_of() {
	printf '%s\n' "$final_stage" |
		sed -n "s/^ENV $1=\"\\(.*\\)\"\$/\\1/p; s/^ENV $1=\\([^\" ]*\\)\$/\\1/p" |
		tail -n 1
}
LD_PRELOAD_VALUE=$(env_of LD_PRELOAD)
JTO_VALUE=$(env_of JAVA_TOOL_OPTIONS)
[ -n "$LD_PRELOAD_VALUE" ] || die "no ENV LD_PRELOAD=... in the final stage"
[ -n "$JTO_VALUE" ] || die "no ENV JAVA_TOOL_OPTIONS=\"...\" in the final stage"
VOLUME_VALUE=$(printf '%s\n' "$final_stage" | sed -n 's/^VOLUME \(\/[^ ]*\)$/\1/p')
[ -n "$VOLUME_VALUE" ] || die "no VOLUME /DIR in the final stage"
# CMD ["a", "b", ...] (exec form): one word a line
CMD_WORDS=$(printf '%s\n' "$final_stage" | sed -n 's/^CMD \[\(.*\)\]$/\1/p' |
	sed 's/", *"/\n/g; s/^"//; s/"$//')
[ -n "$CMD_WORDS" ] || die "no CMD [\"...\"] (exec form) in the final stage"
WORKDIR_VALUE=$(printf '%s\n' "$build_stage" | sed -n 's/^WORKDIR \(\/[^ ]*\)$/\1/p')
[ -n "$WORKDIR_VALUE" ] || die "no WORKDIR in the build stage"
INSTALL_LINE=$(printf '%s\n' "$build_stage" | grep -o 'make install PREFIX=[^ ]* DESTDIR=[^ ]*') ||
	die "no 'make install PREFIX=... DESTDIR=...' in the build stage"
PREFIX_VALUE=${INSTALL_LINE#*PREFIX=}
PREFIX_VALUE=${PREFIX_VALUE%% *}
DESTDIR_VALUE=${INSTALL_LINE##*DESTDIR=}
JAVAC_LINE=$(printf '%s\n' "$build_stage" | grep -o 'javac [^&;]*') ||
	die "no javac line in the build stage"
JAVAC_LINE=${JAVAC_LINE%"${JAVAC_LINE##*[! ]}"}

if [ "$config" = 1 ]; then
	printf 'LD_PRELOAD=%s\nJAVA_TOOL_OPTIONS=%s\nVOLUME=%s\nPREFIX=%s\nDESTDIR=%s\n' \
		"$LD_PRELOAD_VALUE" "$JTO_VALUE" "$VOLUME_VALUE" "$PREFIX_VALUE" "$DESTDIR_VALUE"
	printf 'CMD=%s\n' "$(printf '%s\n' "$CMD_WORDS" | paste -sd ' ')"
	printf 'JAVAC=%s\n' "$JAVAC_LINE"
	exit 0
fi

command -v java >/dev/null || die "java not found (apt-get install openjdk-17-jdk-headless)"
command -v javac >/dev/null || die "javac not found (apt-get install openjdk-17-jdk-headless)"

if [ -n "$work" ]; then
	mkdir -p "$work"
	keep=1
else
	work=$(mktemp -d "${TMPDIR:-/tmp}/hprofstrip-container.XXXXXX")
	keep=0
fi
b=$work/build
r=$work/root
rm -rf "$b" "$r"
mkdir -p "$b$WORKDIR_VALUE" "$r"
echo "$me: staging in $work"

# at ROOT WORD: WORD under ROOT when it is an absolute path
at() {
	case $2 in /*) printf '%s%s\n' "$1" "$2" ;; *) printf '%s\n' "$2" ;; esac
}

# ---- the build stage -----------------------------------------------------

src=$b$WORKDIR_VALUE
# COPY SRC... DST (no --from): relative DST is under WORKDIR
while read -r -a w; do
	[ "${w[0]}" = COPY ] || continue
	[ "${#w[@]}" -eq 3 ] || die "COPY with other than one source: ${w[*]}"
	from=$repo/${w[1]%/}
	case ${w[2]} in /*) dst=$b${w[2]} ;; ./) dst=$src/ ;; *) dst=$src/${w[2]} ;; esac
	[ -e "$from" ] || die "the Dockerfile copies ${w[1]}, which is not in the repository"
	if [ -d "$from" ]; then
		mkdir -p "$dst"
		cp -a "$from/." "$dst/"
	elif [ "${dst%/}" != "$dst" ]; then
		mkdir -p "$dst"
		cp -a "$from" "$dst"
	else
		mkdir -p "$(dirname "$dst")"
		cp -a "$from" "$dst"
	fi
done < <(printf '%s\n' "$build_stage" | grep '^COPY ' | grep -v -- '--from=')

echo "$me: $INSTALL_LINE"
make -s -C "$src" install PREFIX="$PREFIX_VALUE" DESTDIR="$(at "$b" "$DESTDIR_VALUE")"
# the javac line, its absolute paths in the build stage's root
read -r -a jw <<<"$JAVAC_LINE"
jargs=()
for x in "${jw[@]:1}"; do jargs+=("$(at "$b" "$x")"); done
(cd "$src" && javac "${jargs[@]}")

# ---- the final stage -----------------------------------------------------

# COPY --from=build SRC DST
n=0
while read -r -a w; do
	[ "${#w[@]}" -eq 4 ] || die "COPY --from with other than one source: ${w[*]}"
	mkdir -p "$r${w[3]}"
	cp -a "$b${w[2]%/}/." "$r${w[3]}"
	n=$((n + 1))
done < <(printf '%s\n' "$final_stage" | grep '^COPY --from=build ')
[ "$n" -gt 0 ] || die "the final stage copies nothing from the build stage"
[ -f "$r$LD_PRELOAD_VALUE" ] ||
	die "ENV LD_PRELOAD=$LD_PRELOAD_VALUE: not in the image (make install puts the shim elsewhere?)"

mkdir -p "$r$VOLUME_VALUE"
# the ENV, paths under the root: LD_PRELOAD and -XX:HeapDumpPath=
preload=$r$LD_PRELOAD_VALUE
jto=
for x in $JTO_VALUE; do
	case $x in -XX:HeapDumpPath=/*) x=-XX:HeapDumpPath=$r${x#-XX:HeapDumpPath=} ;; esac
	jto="$jto${jto:+ }$x"
done
cmd=()
while IFS= read -r x; do cmd+=("$(at "$r" "$x")"); done <<<"$CMD_WORDS"
[ "${cmd[0]}" = java ] || die "CMD does not start with java: ${cmd[*]}"

echo "$me: LD_PRELOAD=$preload JAVA_TOOL_OPTIONS=\"$jto\" ${cmd[*]}"
rc=0
(
	cd "$r"
	PATH=$r$PREFIX_VALUE/bin:$PATH LD_PRELOAD=$preload JAVA_TOOL_OPTIONS=$jto \
		timeout 120 "${cmd[@]}"
) >"$work/stdout" 2>"$work/stderr" || rc=$?
cat "$work/stderr" >&2

# ---- checks --------------------------------------------------------------

fail() {
	echo "$me: FAIL: $*" >&2
	exit 1
}
[ "$rc" -eq 0 ] || fail "${cmd[*]} exited $rc"
grep -q "^Picked up JAVA_TOOL_OPTIONS: $jto\$" "$work/stderr" ||
	fail "the JVM did not pick up JAVA_TOOL_OPTIONS"
# the dump and its class histogram (<dump>.histo)
mapfile -t dumps < <(find "$r$VOLUME_VALUE" -type f ! -name '*.histo')
[ "${#dumps[@]}" -eq 1 ] || fail "expected one file in $VOLUME_VALUE, found ${#dumps[@]}: ${dumps[*]}"
dump=${dumps[0]}
case $dump in */java_pid[0-9]*.hprof) ;; *) fail "unexpected dump name $dump" ;; esac
[ "$(find "$r$VOLUME_VALUE" -type f | wc -l)" -eq 2 ] && [ -s "$dump.histo" ] ||
	fail "expected $dump.histo beside the dump, alone"
grep -q "^hprofstrip: $dump: [0-9]* bytes in, [0-9]* bytes out (.*), [1-9][0-9]* arrays stripped; top classes by bytes: .* (all in ${dump##*/}.histo)\$" \
	"$work/stderr" || fail "no summary line from the shim"
bin=$r$PREFIX_VALUE/bin
info=$("$bin/hprofstrip" --info "$dump") || fail "hprofstrip --info: not well-formed"
printf '%s\n' "$info" | grep -q '^well-formed$' || fail "--info does not say well-formed"
printf '%s\n' "$info" | grep -Eq '^ +PRIMITIVE_ARRAY_NODATA +0xC3 +[1-9][0-9]* ' ||
	fail "no PRIMITIVE_ARRAY_NODATA in the dump"
if printf '%s\n' "$info" | grep -q 'PRIMITIVE_ARRAY_DUMP'; then
	fail "primitive arrays left in the dump"
fi
"$bin/hprofrestore" -o "$work/restored.hprof" "$dump" || fail "hprofrestore failed"
info=$("$bin/hprofstrip" --info "$work/restored.hprof") || fail "restored dump not well-formed"
printf '%s\n' "$info" | grep -Eq '^ +PRIMITIVE_ARRAY_DUMP +0x23 +[1-9][0-9]* ' ||
	fail "no PRIMITIVE_ARRAY_DUMP in the restored dump"
if printf '%s\n' "$info" | grep -q 'PRIMITIVE_ARRAY_NODATA'; then
	fail "stripped arrays left in the restored dump"
fi
s=$(stat -c %s "$dump")
t=$(stat -c %s "$work/restored.hprof")
[ "$t" -gt "$s" ] || fail "the restored dump ($t bytes) is not larger than the stripped one ($s)"

# ---- copies of a full dump under the image's ENV --------------------------
full=$work/restored.hprof
copies=$r$VOLUME_VALUE/copies
mkdir -p "$copies"
(cd "$work" && tar cf full.tar restored.hprof)
gzip -c "$full" >"$copies/gz.hprof.gz"
(
	cd "$copies"
	export LD_PRELOAD=$preload JAVA_TOOL_OPTIONS=$jto
	tar xf "$work/full.tar"
	gzip -d gz.hprof.gz
) 2>"$work/copies.err" || fail "tar xf or gzip -d failed: $(cat "$work/copies.err")"
cmp "$copies/restored.hprof" "$full" || fail "tar xf under the image's ENV changed the dump"
cmp "$copies/gz.hprof" "$full" || fail "gzip -d under the image's ENV changed the dump"
[ ! -s "$work/copies.err" ] || fail "the shim spoke to tar or gzip: $(cat "$work/copies.err")"
echo "$me: ok: tar xf and gzip -d of a full dump under the image's ENV: byte for byte"
echo "$me: ok: ${dump#"$r"}: $s bytes stripped, $t restored"
[ "$keep" = 1 ] || rm -rf "$work"
