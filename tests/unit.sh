#!/bin/bash
# C unit tests: the engine's split invariance over every corpus dump and a
# fresh JDK 17 dump, in strip and restore mode, the JDK 8 open-length path
# and the fallback path; and that the results are right: a restore equals
# the independent oracle's zeroed original, and on the Android dumps
# --jvm and --app-only equal hprof-conv [-z] of that zeroed original (less
# hprof-conv's empty heap segments); on a generated dump of dense value
# instances (tests/dense-dump), the redaction fed in one piece passes
# redactcheck. Keeping strings: split invariance of
# the streamed mode (also with JDK 8 open lengths and a fallback), and the
# independent strcheck's count of String values kept: 100% from a file,
# at least 85% streamed, nothing else kept. --stream: split invariance,
# and strip | restore through pipes with no room in TMPDIR equals the zeroed
# original, sub-record for sub-record. Strip --app-only on the Android
# dumps: split invariance (also streamed, keeping strings, with JDK 8
# placeholder lengths and a fallback, also in the zygote heap), and a
# --jvm restore of it equals --app-only of the plain strip, byte for byte.
# The independent redactcheck can fail: on the plain strip (values kept),
# and on a byte flipped in a dump whose values tests/redact-fixture zeroed
# (which it passes, also restored and streamed, and with the fixture's
# count of withheld instances, not one more or fewer than it tells apart),
# a static value of the runtime's classes (kept) among them, and on those
# statics zeroed; and on a listed size (kept) flipped or zeroed. hprofstrip --redact=names passes redactcheck --names
# (from a file and through pipes), and redactcheck --names fails on its
# output edited by tests/names-fixture: a name left untokenized, a kept
# name changed, a token's shape broken, a word given two tokens, a
# record missing from the names map.
# Every check is a row of the table of modes (tests/modes.tsv), walked for
# every dump;
# UNIT_ONLY=REGEX runs only the rows whose name matches (bash =~),
# UNIT_SKIP=REGEX all but those (make check-arm64, under qemu, leaves out
# the redaction's variants and redactcheck's own checks: ARM64_UNIT_SKIP in
# tests/ports.mk).
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
# fd 3: the driver's stdout, for a note from a check (check() shows a
# check's own output only when it fails)
exec 3>&1

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

# conv_of EXACT MODE [CONVOPT] F S: hprofrestore MODE of S equals
# hprof-conv [CONVOPT] of F zeroed, byte for byte (EXACT=1) or once
# hprof-conv's empty heap records are dropped
conv_of() {
	local exact=$1 mode=$2
	shift 2
	local f=${@: -2:1} s=${@: -1}
	"$b/oracle" zero "$f" "$tmp/zero" || return 1
	"$b/hprofrestore" "$mode" -o "$tmp/ours" "$s" || return 1
	"$hprofconv" "${@:1:$#-2}" "$tmp/zero" "$tmp/conv" || return 1
	if [ "$exact" = 1 ]; then
		cmp "$tmp/conv" "$tmp/ours"
	else
		drop_empty "$tmp/conv" "$tmp/conv.ne" && cmp "$tmp/conv.ne" "$tmp/ours"
	fi
}

# hprof_conv MODE [CONVOPT] F S: conv_of, byte for byte on the Dalvik dump
# (what hprof-conv makes of ART's keeps its empty segments)
hprof_conv() {
	case $(basename "${@: -2:1}") in
	dalvik-*) conv_of 1 "$@" ;;
	*) conv_of 0 "$@" ;;
	esac
}

# hprof_conv_ne MODE [CONVOPT] F S: conv_of, less the empty heap records
hprof_conv_ne() {
	conv_of 0 "$@"
}

# cli_strip F S: hprofstrip -o of F equals S, the engine's one-shot strip
cli_strip() {
	"$b/hprofstrip" -o "$tmp/cli.s" "$1" && cmp "$tmp/cli.s" "$2"
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

# pipes F: hprofstrip | hprofrestore through pipes (streamed, as any
# non-seekable output), with no room in TMPDIR, gives the oracle's zeroed F
# once both are flattened (the heap cut into other records, the same
# sub-records)
pipes() {
	TMPDIR=$tmp/none "$b/hprofstrip" "$1" | TMPDIR=$tmp/none "$b/hprofrestore" |
		cat >"$tmp/st" || return 1
	"$b/oracle" zero "$1" "$tmp/zero" &&
		"$b/oracle" flat "$tmp/zero" "$tmp/zero.flat" &&
		"$b/oracle" flat "$tmp/st" "$tmp/st.flat" &&
		cmp "$tmp/zero.flat" "$tmp/st.flat"
}

# flip F OFF OUT: F with the byte at offset OFF inverted
flip() {
	cp "$1" "$3" && chmod u+w "$3" && perl -e '
		open(my $f, "+<:raw", $ARGV[0]) or die "$ARGV[0]: $!\n";
		seek($f, $ARGV[1], 0);
		read($f, my $c, 1) == 1 or die "$ARGV[0]: no byte at $ARGV[1]\n";
		seek($f, $ARGV[1], 0);
		print $f chr(ord($c) ^ 0xFF);
		close($f) or die "$ARGV[0]: $!\n";' "$3" "$2"
}

# rejects WHAT [OPTION...] F R: redactcheck fails on R (status 1, not a
# usage error or a crash), its line on stderr matching WHAT (grep -E)
rejects() {
	local what=$1 st
	shift
	"$b/redactcheck" "$@" >/dev/null 2>"$tmp/rc.err"
	st=$?
	[ "$st" = 1 ] && grep -Eq -e "$what" "$tmp/rc.err" && return 0
	echo "redactcheck $*: status $st, wanted 1 and a line matching '$what':"
	cat "$tmp/rc.err"
	return 1
}

# redact_plain F S: the plain strip keeps the values: redactcheck fails
redact_plain() {
	rejects ': offset [0-9]+: .* is not zero$' "$1" "$2"
}

# redacted F S: S and F with every value zeroed by tests/redact-fixture
# (the runtime's statics kept) pass redactcheck, and so do S's restored
# and streamed (the heap cut into other records, 1.0.1 become 1.0.2); with
# one byte of it flipped (of an instance's reference, an instance's value,
# a static value of a class not the runtime's) it fails, naming that
# byte's offset. A dump with no such static (the JDK 6, 11 and 21 ones of
# the corpus: their application classes have none) skips that flip, and
# says so
redacted() {
	local r=$tmp/red x k off
	"$root/tests/redact-fixture" "$2" "$r" >"$r.at" &&
		"$root/tests/redact-fixture" "$1" "$r.f" >/dev/null &&
		"$b/hprofrestore" -o "$r.r" "$r" &&
		"$b/hprofstrip" --stream -o "$r.st" "$r" || return 1
	for x in "$r" "$r.f" "$r.r" "$r.st"; do
		"$b/redactcheck" "$1" "$x" || return 1
	done
	for k in "reference:instance .* \\(object\\) differs from the original" \
		"value:instance .* is not zero" "static:class .* static field .* is not zero"; do
		off=$(sed -n "s/^${k%%:*} //p" "$r.at")
		if [ "${off:--1}" -lt 0 ] && [ "${k%%:*}" = static ]; then
			echo "     note: $(basename "$1"): no class but the runtime's has a primitive static: that flip skipped" >&3
			continue
		elif [ "${off:--1}" -lt 0 ]; then
			echo "redact-fixture found no ${k%%:*} byte to flip"
			return 1
		fi
		flip "$r" "$off" "$r.x" && rejects ": offset $off: ${k#*:}\$" "$1" "$r.x" ||
			return 1
	done
}

# kept_rule F S RULE: a value the redaction keeps (RULE runtime: the
# runtime's classes' statics, sizes: the listed sizes): S zeroed by
# tests/redact-fixture with the byte of the first such value that is not
# zero flipped, or with those values zeroed too (the rule before), fails
# redactcheck at that byte, "differs from the original"
kept_rule() {
	local r=$tmp/kept off zero key what
	case $3 in
	runtime) zero=--zero-runtime key=kept
		what='class 0x[0-9a-f]+ \([^)]*\) (static field|constant pool entry) .* differs from the original$' ;;
	sizes) zero=--zero-sizes key=size
		what='instance 0x[0-9a-f]+ field [0-9]+ `[^`]*`, a size of the list, \([a-z]+\) differs from the original$' ;;
	esac
	"$root/tests/redact-fixture" "$2" "$r" >"$r.at" &&
		"$root/tests/redact-fixture" "$zero" "$2" "$r.z" >"$r.zat" ||
		return 1
	off=$(sed -n "s/^$key //p" "$r.at")
	if [ "${off:--1}" -lt 0 ] && [ "$3" = sizes ]; then
		echo "     note: $(basename "$1"): no listed size that is not zero: skipped" >&3
		return 0
	elif [ "${off:--1}" -lt 0 ]; then
		echo "redact-fixture found no static value of the runtime's that is not zero"
		return 1
	fi
	# the runtime's: the same value found with --zero-runtime; the
	# sizes: the fixture's zeroed dump passes as it is
	case $3 in
	runtime) [ "$(sed -n 's/^kept //p' "$r.zat")" = "$off" ] ;;
	sizes) "$b/redactcheck" "$1" "$r" >/dev/null ;;
	esac &&
		flip "$r" "$off" "$r.x" &&
		rejects ": offset $off: $what" "$1" "$r.x" &&
		rejects ": offset $off: $what" "$1" "$r.z"
}

# redact_runtime F S: the runtime's classes keep their statics: S zeroed
# by tests/redact-fixture with a byte of the runtime's first static value
# that is not zero flipped, or with the runtime's statics zeroed too
# (--zero-runtime: the rule before), fails at that byte, the class named
redact_runtime() {
	kept_rule "$1" "$2" runtime
}

# redact_sizes F S: the listed sizes keep their values: S zeroed by
# tests/redact-fixture with a byte of the first listed size that is not
# zero flipped, or with the sizes zeroed too (--zero-sizes: the rule
# before), fails at that byte, "a size of the list". A dump with no such
# size says so
redact_sizes() {
	kept_rule "$1" "$2" sizes
}

# redact_held F S: S zeroed by tests/redact-fixture --withhold (an
# instance that comes before a class dump of its layout all zero,
# references too): redactcheck passes with --withheld N, the fixture's
# count, and with L, those of them that held a reference; fails with
# N + 1, with L - 1 and, when L > 0, without the option
redact_held() {
	local r=$tmp/wh n l
	"$root/tests/redact-fixture" --withhold "$2" "$r" >"$r.at" || return 1
	n=$(sed -n 's/^withheld //p' "$r.at") l=$(sed -n 's/^lost //p' "$r.at")
	"$b/redactcheck" --withheld "$n" "$1" "$r" &&
		"$b/redactcheck" --withheld "$l" "$1" "$r" &&
		rejects "withheld $((n + 1)), but $l instances .* and $((n - l)) more" \
			--withheld $((n + 1)) "$1" "$r" || return 1
	[ "$l" = 0 ] || { rejects 'allows no more$' --withheld $((l - 1)) "$1" "$r" &&
		rejects 'allows no more$' "$1" "$r"; }
}

# redact_whole F: the engine's redaction of F fed in one piece (splitcheck
# -R -w: the fast path gathers as much as it can) passes redactcheck
redact_whole() {
	"$b/splitcheck" -R -w "$1" "$tmp/whole.r" &&
		"$b/redactcheck" "$1" "$tmp/whole.r" >/dev/null
}

# redact_cuts F: the redaction of F does not depend on its cuts
redact_cuts() {
	timeout 900 "$b/splitcheck" -R -p "$prefix4" -n "$rounds2" -s "$seed" "$1"
}

# redact_cli F: hprofstrip --redact of F passes redactcheck from a file
# (layouts from a second pass when instances came first: none withheld,
# nothing said), after hprofrestore too, and through pipes with exactly
# the count of instances withheld that it says
redact_cli() {
	local r=$tmp/rcli w
	"$b/hprofstrip" --redact -o "$r" "$1" 2>"$r.err" &&
		[ ! -s "$r.err" ] &&
		"$b/redactcheck" "$1" "$r" >/dev/null &&
		"$b/hprofrestore" -o "$r.r" "$r" &&
		"$b/redactcheck" "$1" "$r.r" >/dev/null || return 1
	cat "$1" | "$b/hprofstrip" --redact 2>"$r.err" | cat >"$r.p" || return 1
	w=$(sed -n 's/^hprofstrip: stdin: --redact: \([0-9]*\) instances written before .*/\1/p' "$r.err")
	"$b/redactcheck" --withheld "${w:-0}" "$1" "$r.p"
}

# The names redaction's key, fixed: the same tokens every run
names_key=00112233445566778899aabbccddeeff

# names_made F: $tmp/nm-F, hprofstrip --redact=names of F under
# names_key, and its names map $tmp/nm-F.names, made once a dump
names_made() {
	local r
	r=$tmp/nm-$(basename "$1")
	[ -s "$r" ] && [ -e "$r.names" ] && return 0
	rm -f "$r" "$r.names"
	HPROFSTRIP_NAMES_KEY=$names_key "$b/hprofstrip" --redact=names \
		-o "$r" "$1" 2>"$r.err" && [ ! -s "$r.err" ] && return 0
	cat "$r.err"
	rm -f "$r"
	return 1
}

# redact_names F: hprofstrip --redact=names of F passes redactcheck
# --names with its map, from a file and through pipes (--names-map, the
# count of instances withheld that it says); hprofrestore --unredact of it
# with the map passes redactcheck as a "values" redaction (every STRING
# given back byte for byte)
redact_names() {
	local r w
	r=$tmp/nm-$(basename "$1")
	names_made "$1" &&
		"$b/redactcheck" --names "$r.names" "$1" "$r" &&
		"$b/hprofrestore" --unredact "$r.names" -o "$r.u" "$r" &&
		"$b/redactcheck" "$1" "$r.u" >/dev/null || return 1
	rm -f "$r.pm"
	cat "$1" | HPROFSTRIP_NAMES_KEY=$names_key "$b/hprofstrip" \
		--redact=names --names-map "$r.pm" 2>"$r.perr" | cat >"$r.p" ||
		return 1
	w=$(sed -n 's/^hprofstrip: stdin: --redact: \([0-9]*\) instances written before .*/\1/p' "$r.perr")
	"$b/redactcheck" --withheld "${w:-0}" --names "$r.pm" "$1" "$r.p" >/dev/null
}

# redact_names_wrong F: tests/names-fixture edits of F's --redact=names
# output, each of which redactcheck --names fails on, naming the offset
# the fixture found: the original text back in a tokenized record (not
# tokenized), a letter of a kept runtime name changed, a separator of a
# token made 'x' (the shape), a word's token unlike its earlier one (one
# token a word), the map's last record dropped (its original missing:
# the STRING record's offset)
redact_names_wrong() {
	local r m off k
	r=$tmp/nm-$(basename "$1")
	names_made "$1" || return 1
	for k in "untokenize:: not tokenized: the original text" \
		"kept:: a name the rule keeps \\(the runtime's\\) differs from the original" \
		"separator:: byte [0-9]+ '[/.]' became 'x': a token keeps every byte that is not a word byte" \
		"reword:: the word .* became .*, but .* at offset [0-9]+: a word has one token across the dump" \
		"unmapped:: tokenized, but the names map has no more records"; do
		m=${k%%::*}
		off=$("$root/tests/names-fixture" "$m" "$1" "$r" "$r.names" "$r.$m") ||
			return 1
		if [ "$off" -lt 0 ]; then
			echo "names-fixture $m found nothing to edit"
			return 1
		fi
		if [ "$m" = unmapped ]; then
			rejects ": offset $off: STRING 0x[0-9a-f]+ .*${k#*::}" \
				--names "$r.$m" "$1" "$r" || return 1
		else
			rejects ": offset $off: STRING 0x[0-9a-f]+.*${k#*::}" \
				--names "$r.names" "$1" "$r.$m" || return 1
		fi
	done
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
# more than 1 MiB of dense value instances in one heap record: the
# redaction's fast path fills its gather buffer (redact_whole)
dense=$b/fixtures/dense.hprof
[ -s "$dense" ] || "$root/tests/dense-dump" "$dense"
if [ ! -s "$fresh" ]; then
	rm -f "$fresh.tmp.hprof"
	java -cp "$b/java" HeapBuilder mxbean "$fresh.tmp.hprof" &&
		mv "$fresh.tmp.hprof" "$fresh"
fi
# The modes: one row a check, run in this order for every dump F; S is
# F's one-shot strip by the engine (splitcheck -w).
#   when     all: every dump; 1.0.3: the Android dumps; zygote: those
#            with a zygote HEAP_DUMP_INFO that starts a heap record
#   inputs   what the judge is given, after the options: F, S or F+S
#   judge    what the output is compared against:
#            cuts    splitcheck OPTIONS: the output of every cut equals
#                    the whole's (2-way split prefix and random rounds
#                    as set above; a run over 15 minutes, hung, fails)
#            cuts/4  the same with a quarter of the prefix and half the
#                    rounds
#            else a function above: cli_strip, restored (the oracle's
#            zeroed original), hprof_conv and hprof_conv_ne (hprof-conv
#            of it), app_only_jvm, pipes, kept_file, kept_streamed
#   options  the judge's; @off is the first instance dump's tag (an
#            invalid tag there: a fallback), @zoff the zygote heap's,
#            @cut60 and @cut1 F's size at 60% and less one byte, @scut
#            S's size at 2/3
#   name     the check's name (its @ words too), then ": " and F's name
#            (the rest of the line: it may hold a |)
# The rows are those of tests/modes.tsv, under each mode's row there (the
# modes named in OPTIONS become splitcheck's letters)
rows=$("$root/tests/modes.sh" unit) && [ -n "$rows" ] ||
	{ echo "unit: tests/modes.sh unit gave no rows" >&2; exit 2; }
mapfile -t modes <<<"$rows"

# at TEXT: TEXT with the dump's @ words replaced
at() {
	local t=$1
	t=${t//@zoff/$zoff}
	t=${t//@off/$off}
	t=${t//@cut60/$cut60}
	t=${t//@cut1/$cut1}
	printf '%s' "${t//@scut/$scut}"
}

for f in $files $fresh; do
	n=$(basename "$f")
	s=$tmp/$n.s
	"$b/splitcheck" -w "$f" "$s"
	android= zoff=
	case $(head -c 18 "$f") in *1.0.3) android=1 zoff=$(zygote_tag "$f") ;; esac
	off=$(( $("$b/oracle" offsets "$f" | sed -n "s/^sub-header //p") - 4 ))
	sz=$(stat -c %s "$f") ssz=$(stat -c %s "$s")
	cut60=$((sz * 60 / 100)) cut1=$((sz - 1)) scut=$((ssz * 2 / 3))
	for row in "${modes[@]}"; do
		IFS='|' read -r when inputs judge opts name <<<"$row"
		read -r when <<<"$when"
		read -r inputs <<<"$inputs"
		read -r judge <<<"$judge"
		read -r name <<<"$name"
		case $when in
		all) ;;
		1.0.3) [ -n "$android" ] || continue ;;
		zygote) [ -n "$zoff" ] || continue ;;
		*) echo "unit: MODES: no such 'when': $when" >&2; exit 2 ;;
		esac
		case $inputs in
		F) ins=("$f") ;;
		S) ins=("$s") ;;
		F+S) ins=("$f" "$s") ;;
		*) echo "unit: MODES: no such inputs: $inputs" >&2; exit 2 ;;
		esac
		# options are words (no quoting in the table)
		read -ra o <<<"$(at "$opts")"
		name="$(at "$name"): $n"
		[[ -z ${UNIT_ONLY:-} || $name =~ $UNIT_ONLY ]] || continue
		[[ -z ${UNIT_SKIP:-} || ! $name =~ $UNIT_SKIP ]] || continue
		case $judge in
		cuts) check "$name" timeout 900 "$b/splitcheck" "${o[@]}" -p "$prefix" -n "$rounds" -s "$seed" "${ins[@]}" ;;
		cuts/4) check "$name" timeout 900 "$b/splitcheck" "${o[@]}" -p "$prefix4" -n "$rounds2" -s "$seed" "${ins[@]}" ;;
		*) check "$name" "$judge" "${o[@]}" "${ins[@]}" ;;
		esac
	done
done

# The dense fixture: more than 1 MiB of dense value instances in one heap
# record, redacted whole (the fast path fills its gather buffer) and cut.
for row in "redact_whole|redaction fed in one piece passes redactcheck" \
	"redact_cuts|split invariance, redact"; do
	IFS='|' read -r judge name <<<"$row"
	name="$name: $(basename "$dense")"
	[[ -z ${UNIT_ONLY:-} || $name =~ $UNIT_ONLY ]] || continue
	[[ -z ${UNIT_SKIP:-} || ! $name =~ $UNIT_SKIP ]] || continue
	check "$name" "$judge" "$dense"
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
