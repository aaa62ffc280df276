#!/usr/bin/env bats
# make install / uninstall, the hprofstrip-run launcher, the man pages, and
# examples/container (tests/container-stage.sh runs the Dockerfile's JVM
# without Docker).

load common

bats_require_minimum_version 1.5.0

# what make install puts under DESTDIR, PREFIX=/usr
INSTALLED="usr/bin/hprofrestore
usr/bin/hprofstrip
usr/bin/hprofstrip-run
usr/include/hprofstrip.h
usr/lib/hprofstrip/libhprofstrip.so
usr/lib/libhprofstrip.a
usr/share/man/man1/hprofrestore.1
usr/share/man/man1/hprofstrip-run.1
usr/share/man/man1/hprofstrip.1
usr/share/man/man7/libhprofstrip.7"

# make in the checkout, one at a time per build dir: install builds what is
# out of date, and nothing else may be writing the same files meanwhile
make_in_repo() {
	(
		flock 9
		env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$ROOT" BUILD="$B" "$@"
	) 9>"$B/.install.lock"
}

# files under DIR, relative, sorted
files_in() {
	(cd "$1" && find . -type f -o -type l) | sed 's|^\./||' | LC_ALL=C sort
}

setup_file() {
	export T=$BATS_FILE_TMPDIR
	[[ $T != "$ROOT"/* ]] || {
		echo "BATS_FILE_TMPDIR is inside the checkout" >&2
		return 1
	}
	"$JUDGE" build >&2
	# a test driver, not among make all's: built here (a suite run alone has it)
	build_tests oracle
	make_in_repo install DESTDIR="$T/stage" PREFIX=/usr >&2
	# a library that does nothing, for LD_PRELOAD values already there
	${CC:-cc} -std=c11 -Wall -Wextra -Werror -fPIC -shared -o "$T/libnoop.so" \
		-x c - <<<'void hs_noop(void) {}'
}

teardown() {
	local m
	[ -f "$BATS_TEST_TMPDIR/mounts" ] || return 0
	tac "$BATS_TEST_TMPDIR/mounts" | while read -r m; do
		umount "$m" || umount -l "$m"
	done
}

setup() {
	U=$T/stage/usr
	RUN=$U/bin/hprofstrip-run
	LIB=$U/lib/hprofstrip/libhprofstrip.so
}

# env_of NAME: NAME's value in $output (an env listing), or "<unset>"
env_of() {
	local v
	v=$(printf '%s\n' "$output" | sed -n "s/^$1=//p")
	printf '%s\n' "${v:-<unset>}"
}

@test "make install puts the tools, launcher, shim and man pages under DESTDIR/PREFIX" {
	assert_equal "$(files_in "$T/stage")" "$INSTALLED"
	local f
	for f in hprofstrip hprofrestore hprofstrip-run; do
		cmp "$B/$f" "$U/bin/$f"
		assert_equal "$(stat -c %a "$U/bin/$f")" 755
	done
	cmp "$SHIM" "$LIB"
	assert_equal "$(stat -c %a "$LIB")" 644
	for f in "$U"/share/man/man*/*; do
		assert_equal "$(stat -c %a "$f")" 644
	done
	cmp "$ROOT/preload/libhprofstrip.7" "$U/share/man/man7/libhprofstrip.7"
}

@test "installed copies work from elsewhere: a JVM's OOM dump under hprofstrip-run, restored" {
	# the staging root copied away, the program beside it, run from
	# another directory, with nothing of the checkout on PATH
	local m=$T/moved out=$T/elsewhere
	rm -rf "$m" "$out"
	cp -a "$T/stage" "$m"
	mkdir -p "$m/app" "$out/dumps"
	cp "$B"/java/HeapBuilder*.class "$m/app/"
	command -v strace >/dev/null || fail "strace is missing: apt-get install strace (or make deps)"
	local java
	java=$(readlink -f "$(command -v java)")
	[[ $java != "$ROOT"/* ]]
	cd "$out"
	# every file the launcher, the JVM and the shim open or run: none in the
	# checkout
	run --separate-stderr env PATH="$m/usr/bin:${java%/*}:/usr/bin:/bin" \
		strace -f --seccomp-bpf -qq -e trace=%file,execve -o "$out/trace" \
		hprofstrip-run java -Xmx64m -XX:+HeapDumpOnOutOfMemoryError \
		-XX:HeapDumpPath="$out/dumps/oom.hprof" -XX:+DisplayVMOutputToStderr \
		-cp "$m/app" HeapBuilder oom
	assert_success
	[[ $stderr == *"hprofstrip: $out/dumps/oom.hprof: "*" arrays stripped"* ]] ||
		fail "no summary line from the shim: $stderr"
	grep -qF "execve(\"$m/usr/bin/hprofstrip-run\"" "$out/trace"
	grep -qF "execve(\"${java%/*}/java\"" "$out/trace"
	grep -qF "\"$m/usr/lib/hprofstrip/libhprofstrip.so\"" "$out/trace"
	run grep -F "$ROOT" "$out/trace"
	assert_failure
	# the installed tools read and restore it
	run "$m/usr/bin/hprofstrip" --info "$out/dumps/oom.hprof"
	assert_success
	assert_line --regexp '^  PRIMITIVE_ARRAY_NODATA +0xC3 +[1-9][0-9]* '
	refute_line --regexp 'PRIMITIVE_ARRAY_DUMP'
	assert_line well-formed
	assert_stripped_dump "$out/dumps/oom.hprof"
	run "$m/usr/bin/hprofrestore" -v -o "$out/restored.hprof" "$out/dumps/oom.hprof"
	assert_success
	run "$m/usr/bin/hprofstrip" --info "$out/restored.hprof"
	assert_success
	assert_line --regexp '^  PRIMITIVE_ARRAY_DUMP +0x23 +[1-9][0-9]* '
	refute_line --regexp 'PRIMITIVE_ARRAY_NODATA'
	# VisualVM reads the restored dump: every marker at its length
	run "$JUDGE" markers "$out/restored.hprof"
	assert_success
	assert_line 'markers 12345'
	assert_line 'marker-array-length 4096 1028'
}

@test "hprofstrip-run -q --keep strings reaches the JVM's shim" {
	local d=$BATS_TEST_TMPDIR
	run --separate-stderr "$RUN" -q --keep strings java -Xmx64m \
		-XX:+HeapDumpOnOutOfMemoryError -XX:HeapDumpPath="$d/oom.hprof" \
		-XX:+DisplayVMOutputToStderr -cp "$B/java" HeapBuilder oom
	assert_success
	[[ $stderr != *hprofstrip:* ]] || fail "-q: the shim spoke: $stderr"
	run "$U/bin/hprofstrip" --info --json "$d/oom.hprof"
	assert_success
	assert_output --regexp '"kept_arrays": \{"count": [1-9][0-9]*,'
	assert_output --regexp '"stripped_arrays": \{"count": [1-9][0-9]*,'
	assert_output --partial '"well_formed": true'
}

@test "hprofstrip-run sets LD_PRELOAD to the installed library, and the variables asked for" {
	run --separate-stderr env -u LD_PRELOAD "$RUN" env
	assert_success
	assert_equal "$(env_of LD_PRELOAD)" "$LIB"
	# the command's name, as a program that strips every dump it writes
	# (adb pulling one), and nothing else of the shim's
	assert_equal "$(printf '%s\n' "$output" | grep '^HPROFSTRIP_')" HPROFSTRIP_PROGRAMS=env
	run --separate-stderr env -u LD_PRELOAD "$RUN" /usr/bin/env
	assert_equal "$(env_of HPROFSTRIP_PROGRAMS)" env
	# --programs names them instead; a list already there is added to
	run --separate-stderr "$RUN" --programs 'adb:my-*' env
	assert_success
	assert_equal "$(env_of HPROFSTRIP_PROGRAMS)" 'adb:my-*'
	run --separate-stderr env HPROFSTRIP_PROGRAMS=adb "$RUN" env
	assert_equal "$(env_of HPROFSTRIP_PROGRAMS)" adb:env
	run --separate-stderr env HPROFSTRIP_PROGRAMS=adb "$RUN" --programs=x env
	assert_equal "$(env_of HPROFSTRIP_PROGRAMS)" adb:x
	run --separate-stderr "$RUN" --keep strings env
	assert_success
	assert_equal "$(env_of HPROFSTRIP_KEEP)" strings
	run --separate-stderr "$RUN" --app-only env
	assert_success
	assert_equal "$(env_of HPROFSTRIP_APP_ONLY)" 1
	run --separate-stderr "$RUN" --pattern '*.bin:heap*' --compress zstd:19 \
		--filter 'gzip > "$HPROFSTRIP_PATH.gz"' -q -- env
	assert_success
	assert_equal "$(env_of HPROFSTRIP_PATTERN)" '*.bin:heap*'
	assert_equal "$(env_of HPROFSTRIP_COMPRESS)" zstd:19
	assert_equal "$(env_of HPROFSTRIP_FILTER)" 'gzip > "$HPROFSTRIP_PATH.gz"'
	assert_equal "$(env_of HPROFSTRIP_QUIET)" 1
	assert_equal "$(env_of HPROFSTRIP_KEEP)" '<unset>'
	run --separate-stderr "$RUN" --pattern=x.hprof --compress=xz:0 env
	assert_success
	assert_equal "$(env_of HPROFSTRIP_PATTERN)" x.hprof
	assert_equal "$(env_of HPROFSTRIP_COMPRESS)" xz:0
	# arguments go to the command untouched, options among them too
	run --separate-stderr "$RUN" printf '%s|' -q --keep -- x
	assert_success
	assert_output '-q|--keep|--|x|'
	# the shim's other variables pass through
	run --separate-stderr env HPROFSTRIP_SNIFF=0 HPROFSTRIP_LOG=/dev/null "$RUN" env
	assert_equal "$(env_of HPROFSTRIP_SNIFF)" 0
	assert_equal "$(env_of HPROFSTRIP_LOG)" /dev/null
}

@test "hprofstrip-run prepends to an existing LD_PRELOAD, never twice" {
	local noop=$T/libnoop.so
	run --separate-stderr env LD_PRELOAD="$noop" "$RUN" env
	assert_success
	assert_equal "$(env_of LD_PRELOAD)" "$LIB:$noop"
	assert_equal "$stderr" ""
	# already there: unchanged, wherever it is in the list
	for v in "$LIB" "$noop:$LIB" "$LIB:$noop" "$noop $LIB"; do
		run --separate-stderr env LD_PRELOAD="$v" "$RUN" env
		assert_success
		assert_equal "$(env_of LD_PRELOAD)" "$v"
	done
	# the same file by another path (a symlink) is the same library
	ln -sf "$LIB" "$BATS_TEST_TMPDIR/link.so"
	run --separate-stderr env LD_PRELOAD="$BATS_TEST_TMPDIR/link.so" "$RUN" env
	assert_equal "$(env_of LD_PRELOAD)" "$BATS_TEST_TMPDIR/link.so"
	# another file of that name is not
	cp "$LIB" "$BATS_TEST_TMPDIR/libhprofstrip.so"
	run --separate-stderr env LD_PRELOAD="$BATS_TEST_TMPDIR/libhprofstrip.so" "$RUN" env
	assert_equal "$(env_of LD_PRELOAD)" "$LIB:$BATS_TEST_TMPDIR/libhprofstrip.so"
}

@test "hprofstrip-run: a library with the shim's inode number on another file system is not the shim" {
	local d=$BATS_TEST_TMPDIR m
	[ "$(id -u)" -eq 0 ] || fail "needs root (mount)"
	# each fresh tmpfs numbers its first file alike: the shim as the
	# first file of one, another library as the first file of the other
	for m in a b; do
		mkdir "$d/$m"
		mount -t tmpfs -o size=16m tmpfs "$d/$m" || fail "cannot mount a tmpfs at $d/$m"
		echo "$d/$m" >>"$d/mounts"
	done
	cp "$LIB" "$d/a/libhprofstrip.so"
	cp "$T/libnoop.so" "$d/b/libnoop.so"
	[ "$(stat -c %i "$d/a/libhprofstrip.so")" = "$(stat -c %i "$d/b/libnoop.so")" ] ||
		fail "not the same inode number: $(stat -c '%n %i' "$d/a/libhprofstrip.so" "$d/b/libnoop.so")"
	[ "$(stat -c %d "$d/a/libhprofstrip.so")" != "$(stat -c %d "$d/b/libnoop.so")" ] ||
		fail "the same device"
	run --separate-stderr env LD_PRELOAD="$d/b/libnoop.so" \
		HPROFSTRIP_LIB="$d/a/libhprofstrip.so" "$RUN" env
	assert_success
	assert_equal "$(env_of LD_PRELOAD)" "$d/a/libhprofstrip.so:$d/b/libnoop.so"
	assert_equal "$stderr" ""
}

@test "hprofstrip-run finds the library: installed, build dir, HPROFSTRIP_LIB, or says it cannot" {
	local d=$BATS_TEST_TMPDIR
	# the build directory's launcher takes the build directory's library
	run --separate-stderr env -u LD_PRELOAD "$B/hprofstrip-run" env
	assert_success
	assert_equal "$(env_of LD_PRELOAD)" "$SHIM"
	# called through a relative path and a symlink: still absolute
	mkdir -p "$d/links"
	ln -s "$RUN" "$d/links/run"
	cd "$d"
	run --separate-stderr env -u LD_PRELOAD links/run env
	assert_success
	assert_equal "$(env_of LD_PRELOAD)" "$LIB"
	# HPROFSTRIP_LIB, relative: made absolute
	cp "$LIB" "$d/other.so"
	run --separate-stderr env -u LD_PRELOAD HPROFSTRIP_LIB=other.so "$RUN" env
	assert_success
	assert_equal "$(env_of LD_PRELOAD)" "$d/other.so"
	run --separate-stderr env HPROFSTRIP_LIB="$d/none.so" "$RUN" true
	assert_failure 125
	assert_equal "$stderr" "hprofstrip-run: HPROFSTRIP_LIB=$d/none.so: No such file or directory"
	# alone, with no library beside it
	mkdir -p "$d/lone/bin"
	cp "$RUN" "$d/lone/bin/"
	run --separate-stderr "$d/lone/bin/hprofstrip-run" true
	assert_failure 125
	# the places it looked: the build directory's, make install's, a
	# release tarball's two and the Debian package's (with gcc's triplet)
	local ma=
	ma=$(gcc -print-multiarch)
	assert_equal "$stderr" "hprofstrip-run: libhprofstrip.so not found in $d/lone/bin/ nor under $d/lone/lib/ (in hprofstrip/, hprofstrip/glibc/, hprofstrip/musl/${ma:+, $ma/hprofstrip/}); set HPROFSTRIP_LIB to its path"
	# each of them is found, the Debian package's first
	mkdir -p "$d/lone/lib/hprofstrip/glibc" "$d/lone/lib/hprofstrip/musl" \
		"$d/lone/lib/$ma/hprofstrip"
	cp "$SHIM" "$d/lone/lib/hprofstrip/"
	cp "$SHIM" "$d/lone/bin/"
	run env -u LD_PRELOAD "$d/lone/bin/hprofstrip-run" sh -c 'echo "$LD_PRELOAD"'
	assert_output "$d/lone/lib/hprofstrip/libhprofstrip.so"
	cp "$SHIM" "$d/lone/lib/hprofstrip/glibc/"
	run env -u LD_PRELOAD "$d/lone/bin/hprofstrip-run" sh -c 'echo "$LD_PRELOAD"'
	assert_output "$d/lone/lib/hprofstrip/glibc/libhprofstrip.so"
	cp "$SHIM" "$d/lone/lib/$ma/hprofstrip/"
	run env -u LD_PRELOAD "$d/lone/bin/hprofstrip-run" sh -c 'echo "$LD_PRELOAD"'
	assert_output "$d/lone/lib/$ma/hprofstrip/libhprofstrip.so"
}

@test "hprofstrip-run: usage errors exit 2, a missing command 127, one that cannot run 126" {
	local bad
	for bad in "" "--bogus true" "-x true" "--keep" "--keep names true" \
		"--keep strings,names true" "--pattern" "--filter" "--compress" \
		"--compress lz4:13 true" "--compress zstd:0 true" "--compress zstd:20 true" \
		"--compress zstd: true" "--compress zstd:03 true" "--compress zstd:-1 true" \
		"--compress gzip:0 true" "--compress gzip:10 true" "--compress xz:10 true" \
		"--compress ZSTD true" "--compress zstd:1:2 true" "-q" "--" \
		"--programs" "--programs= true"; do
		# shellcheck disable=SC2086
		run --separate-stderr "$RUN" $bad
		[ "$status" -eq 2 ] || fail "'$bad': status $status, not 2"
		assert_equal "$output" ""
		assert_equal "$(printf '%s\n' "$stderr" | tail -n 1)" "Try 'hprofstrip-run --help'."
		assert_equal "$(printf '%s\n' "$stderr" | wc -l)" 2
	done
	run --separate-stderr "$RUN" --pattern "" true
	assert_failure 2
	for good in zstd zstd:1 zstd:19 gzip gzip:1 gzip:9 xz xz:0 xz:9 lz4 lz4:12; do
		run --separate-stderr "$RUN" --compress "$good" true
		assert_success
	done
	run -127 --separate-stderr "$RUN" no-such-command-hprofstrip arg
	assert_equal "$stderr" "hprofstrip-run: no-such-command-hprofstrip: No such file or directory"
	run -127 --separate-stderr "$RUN" ./no/such/file
	printf 'not a program\n' > "$BATS_TEST_TMPDIR/text"
	chmod 644 "$BATS_TEST_TMPDIR/text"
	run --separate-stderr "$RUN" "$BATS_TEST_TMPDIR/text"
	assert_failure 126
	assert_equal "$stderr" "hprofstrip-run: $BATS_TEST_TMPDIR/text: Permission denied"
	# the command's own status comes back
	run "$RUN" sh -c 'exit 7'
	assert_failure 7
}

@test "hprofstrip-run jcmd or jmap: said that the target JVM writes the dump and must run under the shim; the command runs all the same" {
	local c
	for c in jcmd jmap; do
		command -v "$c" >/dev/null || fail "$c is not installed (the JDK)"
		run --separate-stderr "$RUN" "$c" -h
		assert_equal "${stderr_lines[0]}" "hprofstrip-run: $c asks the target JVM to write the dump, and that JVM's dumps are stripped only if it runs under the shim: start it with hprofstrip-run (or LD_PRELOAD=$LIB); $c itself writes no dump"
		assert_regex "$output$stderr" '[Uu]sage'
		run --separate-stderr "$RUN" -q "$c" -h
		[[ "$stderr" != *"asks the target JVM"* ]] || fail "-q: said all the same"
	done
	# a java command is not warned about
	run --separate-stderr "$RUN" java -version
	[[ "$stderr" != *"asks the target JVM"* ]] || fail "java: warned"
}

@test "hprofstrip-run --redact=LEVEL: level words in any case and blanks; an unknown level is named" {
	local w
	for w in bogus "" name "values,names"; do
		run --separate-stderr "$RUN" "--redact=$w" true
		assert_failure 2
		assert_equal "$output" ""
		assert_equal "$stderr" "hprofstrip-run: --redact: unknown level '$w' (the levels: values, names)
Try 'hprofstrip-run --help'."
	done
	for w in NAMES Names "names " "	names"; do
		run --separate-stderr "$RUN" "--redact=$w" env
		assert_success
		assert_equal "$(env_of HPROFSTRIP_REDACT)" names
	done
	for w in values VALUES " Values" 1 yes TRUE on; do
		run --separate-stderr "$RUN" "--redact=$w" env
		assert_success
		assert_equal "$(env_of HPROFSTRIP_REDACT)" values
	done
	run --separate-stderr "$RUN" --redact env
	assert_equal "$(env_of HPROFSTRIP_REDACT)" values
	for w in 0 no False OFF; do
		run --separate-stderr env HPROFSTRIP_REDACT=names "$RUN" --redact "--redact=$w" env
		assert_success
		assert_equal "$(env_of HPROFSTRIP_REDACT)" off
	done
	run --separate-stderr "$RUN" --redact=off --keep strings env
	assert_success
	run --separate-stderr "$RUN" --redact=NAMES --keep strings env
	assert_failure 2
}

@test "hprofstrip-run --help and --version" {
	run --separate-stderr "$RUN" --version
	assert_success
	assert_output "hprofstrip-run $(sed -n 's/^#define HS_VERSION "\(.*\)"$/\1/p' "$ROOT/strip/engine/hprof.h")"
	run --separate-stderr "$RUN" --help
	assert_success
	assert_line --regexp '^Usage: hprofstrip-run '
	local o
	for o in --pattern --keep --compress --filter --programs -q --help --version; do
		assert_output --partial " $o"
	done
	# the README's synopsis has every option --help lists (but help and
	# version)
	local syn
	syn=$(grep -m1 '^`hprofstrip-run \[' "$ROOT/README.md")
	[ -n "$syn" ] || fail "no hprofstrip-run synopsis in README.md"
	for o in $(printf '%s\n' "$output" | grep -oE '^  +--?[a-z][-a-z]*(\[=[a-z]+\])?(, --[a-z-]+)?' |
		sed 's/\[=[a-z]*\]//; s/,//' | tr -s ' ' '\n' | grep -v '^$'); do
		case $o in -h|--help|-V|--version) continue ;; esac
		[[ $syn == *"$o"* ]] || fail "the README's synopsis lacks $o: $syn"
	done
}

@test "the man pages: each tool's options, every variable the shim reads" {
	local man=$ROOT v o page tool
	# the page as text, hyphens plain
	text() { MANWIDTH=200 man --nh --nj -l "$1" | sed 's/‐/-/g'; }
	# the shim's variables: the names in its sources' string constants,
	# comments left out (not the launcher's HPROFSTRIP_LIB)
	shim_variables() {
		ls "$ROOT"/preload/*.[ch] | grep -v /hprofstrip-run.c |
			xargs perl -0777 -ne 's{/\*.*?\*/}{}gs;
				print "$1\n" while /"(HPROFSTRIP_[A-Z_]*)[="]/g' | sort -u
	}
	run shim_variables
	assert_success
	assert_line HPROFSTRIP_PATTERN
	refute_line HPROFSTRIP_LIB
	[ "${#lines[@]}" -ge 5 ]
	local seven
	seven=$(text "$man/preload/libhprofstrip.7")
	for v in "${lines[@]}" HPROFSTRIP_COMPRESS HPROFSTRIP_FILTER; do
		[[ $seven == *"$v"* ]] || fail "libhprofstrip.7 does not mention $v"
	done
	# each page's SYNOPSIS: brackets balanced, none closed before it opens
	for page in "$man/strip/cli/hprofstrip.1" "$man/restore/hprofrestore.1" \
		"$man/preload/hprofstrip-run.1"; do
		text "$page" | awk '/^SYNOPSIS/ { on = 1; next } /^[A-Z]/ { on = 0 } on' |
			tr '\n' ' ' | sed 's/  */ /g' | grep -o . | awk -v p="$page" '
				$0 == "[" { d++ } $0 == "]" { if (--d < 0) { print p ": a ] before its ["; exit 1 } }
				END { if (d) { print p ": " d " [ not closed"; exit 1 } }' ||
			fail "the SYNOPSIS of $page"
	done
	# every option in a tool's --help is in its page
	for tool in hprofstrip hprofrestore hprofstrip-run; do
		case $tool in
		hprofstrip) page=$man/strip/cli/hprofstrip.1 ;;
		hprofrestore) page=$man/restore/hprofrestore.1 ;;
		*) page=$man/preload/hprofstrip-run.1 ;;
		esac
		run bash -c "'$B/$tool' --help | grep -oE '^  +-[-a-zA-Z]+(, --[a-z-]+)?' | tr -d ' ' | tr ',' '\n'"
		assert_success
		[ "${#lines[@]}" -ge 4 ]
		local txt
		txt=$(text "$page")
		for o in "${lines[@]}"; do
			[[ $txt == *"$o"* ]] || fail "$page does not mention $o"
		done
	done
	# and every option of hprofstrip --suspects
	run bash -c "'$B/hprofstrip' --suspects --help | grep -oE '^  +-[-a-zA-Z]+' | tr -d ' '"
	[ "${#lines[@]}" -ge 10 ]
	txt=$(text "$man/strip/cli/hprofstrip.1")
	for o in "${lines[@]}" --background --private; do
		[[ $txt == *"$o"* ]] || fail "hprofstrip.1 does not mention $o"
	done
	# the installed pages read
	run --separate-stderr man -l "$U/share/man/man1/hprofstrip-run.1"
	assert_success
	assert_output --partial 'HPROFSTRIP_LIB'
}

@test "the documents name no variable and no flag that the man pages lack" {
	local man=$ROOT pages v o n=0 docs=()
	pages=$(for p in preload/libhprofstrip.7 strip/cli/hprofstrip.1 \
		restore/hprofrestore.1 preload/hprofstrip-run.1; do
		MANWIDTH=200 man --nh --nj -l "$man/$p"; done | sed 's/‐/-/g')
	[[ $pages == *HPROFSTRIP_PATTERN* ]] || fail "the man pages did not render"
	# the user's documents: the front page, the shim's, the engine's and
	# the tools', the examples' (tests/ documents the test tools' flags)
	mapfile -t docs < <(cd "$ROOT" && ls README.md preload/README.md strip/*.md \
		strip/*/*.md examples/*/README.md)
	[ "${#docs[@]}" -ge 8 ] || fail "only ${docs[*]}"
	# HPROFSTRIP_API_VERSION is the C header's macro, not a variable
	for v in $(cd "$ROOT" && cat "${docs[@]}" | grep -oE 'HPROFSTRIP_[A-Z0-9_]+' |
		sort -u | grep -vx HPROFSTRIP_API_VERSION); do
		n=$((n + 1))
		[[ $pages == *"$v"* ]] || fail "the documents name $v; no man page does"
	done
	[ "$n" -ge 12 ] || fail "only $n variables in the documents"
	# flags: a word that starts with -- after a space, a backquote or a
	# bracket; other programs' (docker run --rm) are listed
	n=0
	for o in $(cd "$ROOT" && cat "${docs[@]}" |
		grep -oE '(^|[ `(\[])--[a-z][a-z-]+' | sed 's/^[^-]*//' | sort -u |
		grep -vxE -- '--rm'); do
		n=$((n + 1))
		[[ $pages == *"$o"* ]] || fail "the documents name $o; no man page does"
	done
	[ "$n" -ge 25 ] || fail "only $n flags in the documents"
}

@test "the documents' links name files and headings that exist (tests/doclinks.py), and a broken one fails it" {
	run python3 "$ROOT/tests/doclinks.py" "$ROOT"
	assert_success
	assert_output --regexp "^doclinks: [0-9]{2,} links in [0-9]+ files, 0 broken$"
	# a tree of its own (no checkout): a good link, a wrong anchor, a
	# missing file, a heading with punctuation
	mkdir -p "$T/docs/sub"
	printf '# The shim, `libhprofstrip.so`\n\n## What it costs: 2×\n' >"$T/docs/sub/a.md"
	printf '# Top\n\n[ok](sub/a.md#what-it-costs-2) [ok](sub/a.md#the-shim-libhprofstripso)\n[a](#no-such-heading) [b](strip/gone.md) [c](#top)\n' >"$T/docs/README.md"
	mkdir -p "$T/docs/build" && printf '[x](nowhere.md)\n' >"$T/docs/build/skip.md"
	run python3 "$ROOT/tests/doclinks.py" "$T/docs"
	assert_failure
	assert_line "README.md: #no-such-heading: no such heading"
	assert_line "README.md: strip/gone.md: no such file"
	# (build/ left out; the good links pass)
	assert_line "doclinks: 5 links in 2 files, 2 broken"
}

@test "make check-man passes on the pages, fails on a page with a warning" {
	run make_in_repo check-man
	assert_success
	assert_line 'check-man: 4 pages, no warnings'
	printf '.TH BAD 1\n.SH NAME\nbad \\- bad\n.XY oops\n' > "$BATS_TEST_TMPDIR/bad.1"
	run make_in_repo check-man MANPAGES="$BATS_TEST_TMPDIR/bad.1"
	assert_failure
	assert_output --partial "macro 'XY' not defined"
}

@test "make demo installs what the demo needs alone: a JDK and VisualVM, never the tests' toolchain" {
	run -0 make -C "$ROOT" --no-print-directory -n demo BUILD="$B"
	assert_line "tests/install-deps.sh demo"
	refute_output --partial "ports.sh deps"
	refute_output --partial "clang"
	refute_output --regexp 'install-deps\.sh *$'
	# what demo mode would install: those two packages, nothing else
	run -0 grep -A4 '= demo' "$ROOT/tests/install-deps.sh"
	assert_output --partial visualvm
	assert_output --partial openjdk-17-jdk-headless
}

@test "make uninstall removes every installed file" {
	local d=$BATS_TEST_TMPDIR/u
	make_in_repo install DESTDIR="$d" PREFIX=/usr
	assert_equal "$(files_in "$d")" "$INSTALLED"
	# something of someone else's in the same directories stays
	touch "$d/usr/bin/other"
	make_in_repo uninstall DESTDIR="$d" PREFIX=/usr
	assert_equal "$(files_in "$d")" "usr/bin/other"
	[ ! -e "$d/usr/lib/hprofstrip" ]
	# and twice is fine
	make_in_repo uninstall DESTDIR="$d" PREFIX=/usr
}

@test "examples/container: the Dockerfile's JVM, staged without Docker, writes a stripped dump" {
	run "$ROOT/tests/container-stage.sh" "$BATS_TEST_TMPDIR/container"
	assert_success
	assert_line --regexp '^container-stage: ok: /dumps/java_pid[0-9]+\.hprof: [0-9]+ bytes stripped, [0-9]+ restored$'
	assert_line 'container-stage: ok: tar xf and gzip -d of a full dump under the image'"'"'s ENV: byte for byte'
}

@test "examples/container: Dockerfile, pod.yaml and make install agree" {
	local pod=$ROOT/examples/container/pod.yaml cfg prefix preload jto vol
	run "$ROOT/tests/container-stage.sh" --config
	assert_success
	cfg=$output
	get() { printf '%s\n' "$cfg" | sed -n "s/^$1=//p"; }
	prefix=$(get PREFIX) preload=$(get LD_PRELOAD) jto=$(get JAVA_TOOL_OPTIONS) vol=$(get VOLUME)
	# the shim where make install puts it for that PREFIX
	assert_equal "$preload" "$prefix/lib/hprofstrip/libhprofstrip.so"
	[[ $'\n'$INSTALLED$'\n' == *$'\n'"usr${preload#"$prefix"}"$'\n'* ]] ||
		fail "make install puts no usr${preload#"$prefix"} (PREFIX=/usr)"
	# the dump flags, into the volume
	[[ " $jto " == *" -XX:+HeapDumpOnOutOfMemoryError "* ]]
	[[ " $jto " == *" -XX:HeapDumpPath=$vol "* ]]
	# pod.yaml: the same variables, the volume mounted there with a size
	grep -qxF "          value: \"$jto\"" "$pod"
	grep -qxF "          value: $preload" "$pod"
	grep -qxF "          mountPath: $vol" "$pod"
	grep -Eq '^        sizeLimit: [0-9]+[MG]i$' "$pod"
	# the container README shows the Dockerfile's ENV lines as they are
	run grep -c -xF -e "      ENV LD_PRELOAD=$preload" \
		-e "      ENV JAVA_TOOL_OPTIONS=\"$jto\"" "$ROOT/examples/container/README.md"
	assert_output 2
}

@test "container-stage.sh fails when the Dockerfile's JVM writes no stripped dump" {
	local d=$BATS_TEST_TMPDIR df
	# no dump on OOM
	df=$d/Dockerfile.nodump
	sed 's/-XX:+HeapDumpOnOutOfMemoryError //' "$ROOT/examples/container/Dockerfile" > "$df"
	run "$ROOT/tests/container-stage.sh" --dockerfile "$df" "$d/nodump"
	assert_failure
	assert_output --partial 'FAIL: expected one file in /dumps, found 0'
	# no shim
	df=$d/Dockerfile.noshim
	grep -v '^ENV LD_PRELOAD=' "$ROOT/examples/container/Dockerfile" > "$df"
	run "$ROOT/tests/container-stage.sh" --dockerfile "$df" "$d/noshim"
	assert_failure
	assert_output --partial 'no ENV LD_PRELOAD=... in the final stage'
	# a source the build stage does not copy
	df=$d/Dockerfile.nosrc
	grep -v '^COPY preload/' "$ROOT/examples/container/Dockerfile" > "$df"
	run "$ROOT/tests/container-stage.sh" --dockerfile "$df" "$d/nosrc"
	assert_failure
}
