#!/usr/bin/env bats
# The release (tests/release/): make deb's packages, checked by lintian,
# installed into a throwaway root with dpkg --root, used there under a real
# JVM, and removed; make dist's tarballs, their static tools run on a corpus
# dump natively and (aarch64) under qemu; the one version everywhere.

load common

bats_require_minimum_version 1.5.0

setup_file() {
	export T=$BATS_FILE_TMPDIR
	[[ $T != "$ROOT"/* ]] || {
		echo "BATS_FILE_TMPDIR is inside the checkout" >&2
		return 1
	}
	"$JUDGE" build >&2
	export VERSION ARCH MA
	VERSION=$(sed -n 's/^#define HS_VERSION "\(.*\)"$/\1/p' "$ROOT/strip/engine/hprof.h")
	ARCH=$(dpkg --print-architecture)
	MA=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
	# the checkout under test may have changes: DIRTY=1 (the refusal is a
	# test of its own)
	DIRTY=1 "$ROOT/tests/release/deb.sh" "$T/deb" >&2
	DIRTY=1 "$ROOT/tests/release/dist.sh" "$T/dist" >&2
}

@test "one version: HS_VERSION in every --version, the packages' names and fields, the tarballs' names" {
	[[ $VERSION =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]]
	assert_equal "$(make -s -C "$ROOT" version)" "$VERSION"
	local t
	for t in hprofstrip hprofrestore hprofstrip-run; do
		run "$B/$t" --version
		assert_output "$t $VERSION"
	done
	run "$B/hprofstrip" --suspects --version
	assert_output "hprofstrip $VERSION"
	assert_equal "$(dpkg-deb -f "$T/deb/hprofstrip_${VERSION}_$ARCH.deb" Version)" "$VERSION"
	assert_equal "$(dpkg-deb -f "$T/deb/libhprofstrip-dev_${VERSION}_$ARCH.deb" Version)" "$VERSION"
	[ -f "$T/dist/hprofstrip-$VERSION-x86_64-linux.tar.gz" ]
	[ -f "$T/dist/hprofstrip-$VERSION-aarch64-linux.tar.gz" ]
	# the changelog's entry is this version
	run sh -c "zcat '$T/deb/hprofstrip/usr/share/doc/hprofstrip/changelog.gz' | head -1"
	assert_output "hprofstrip ($VERSION) unstable; urgency=medium"
}

@test "make deb and make dist refuse a tree with changes, tracked or not; DIRTY=1 is the way past" {
	local c=$T/clone
	rm -rf "$c"
	git clone -q "$ROOT" "$c"
	# the checkout's release files and Makefile, committed in the clone
	# (they may be changes here), so that the clone starts clean
	cp -r "$ROOT/tests/release/." "$c/tests/release/"
	cp "$ROOT/Makefile" "$c/Makefile"
	git -C "$c" add -A
	git -C "$c" -c user.name=t -c user.email=t@t commit -qm release --allow-empty
	[ -z "$(git -C "$c" status --porcelain)" ]
	echo stray >"$c/strip/stray.c"
	run make -s -C "$c" deb
	assert_failure
	assert_output --partial "make deb: the tree has changes, so the release would be no commit (commit them, or DIRTY=1 to build anyway):"
	assert_output --partial "?? strip/stray.c"
	rm "$c/strip/stray.c"
	echo '/* changed */' >>"$c/strip/engine/hprof.h"
	run make -s -C "$c" dist
	assert_failure
	assert_output --partial "make dist: the tree has changes"
	assert_output --partial " M strip/engine/hprof.h"
	[ ! -e "$c/build/deb" ] && [ ! -e "$c/build/dist" ]
}

@test "lintian: no error and no warning on either package, pedantic tags included" {
	command -v lintian >/dev/null || fail "lintian is missing (make deps)"
	run --separate-stderr lintian --allow-root --fail-on error,warning --pedantic \
		"$T/deb/hprofstrip_${VERSION}_$ARCH.deb" "$T/deb/libhprofstrip-dev_${VERSION}_$ARCH.deb"
	assert_success
	# what it reports at all: nothing but the one experimental tag that
	# the README explains (the shim names ../../bin/hprofstrip, the tool
	# it starts for --suspects, a relative path lintian takes for /bin's)
	refute_output --regexp '^[EWIP]: '
}

@test "the packages hold the tools, the shim where hprofstrip-run looks, the man pages, the docs; Depends computed" {
	run sh -c "dpkg-deb -c '$T/deb/hprofstrip_${VERSION}_$ARCH.deb' | awk '{print \$1, \$2, \$6}' | grep -v '/\$'"
	assert_success
	assert_output "-rwxr-xr-x root/root ./usr/bin/hprofrestore
-rwxr-xr-x root/root ./usr/bin/hprofstrip
-rwxr-xr-x root/root ./usr/bin/hprofstrip-run
-rw-r--r-- root/root ./usr/lib/$MA/hprofstrip/libhprofstrip.so
-rw-r--r-- root/root ./usr/share/doc/hprofstrip/README.md.gz
-rw-r--r-- root/root ./usr/share/doc/hprofstrip/changelog.gz
-rw-r--r-- root/root ./usr/share/doc/hprofstrip/copyright
-rw-r--r-- root/root ./usr/share/man/man1/hprofrestore.1.gz
-rw-r--r-- root/root ./usr/share/man/man1/hprofstrip-run.1.gz
-rw-r--r-- root/root ./usr/share/man/man1/hprofstrip.1.gz
-rw-r--r-- root/root ./usr/share/man/man7/libhprofstrip.7.gz"
	run sh -c "dpkg-deb -c '$T/deb/libhprofstrip-dev_${VERSION}_$ARCH.deb' | awk '{print \$6}' | grep -v '/\$'"
	assert_output "./usr/include/hprofstrip.h
./usr/lib/$MA/libhprofstrip.a
./usr/share/doc/libhprofstrip-dev/changelog.gz
./usr/share/doc/libhprofstrip-dev/copyright"
	# the libc the tools link against, at the version dpkg-shlibdeps reads
	run dpkg-deb -f "$T/deb/hprofstrip_${VERSION}_$ARCH.deb" Depends
	assert_output --regexp '^libc6 \(>= 2\.[0-9]+\)$'
	# stripped, as Debian's packages are
	run file "$T/deb/hprofstrip/usr/bin/hprofstrip" "$T/deb/hprofstrip/usr/lib/$MA/hprofstrip/libhprofstrip.so"
	refute_output --partial "not stripped"
}

@test "dpkg --root: install, a JVM's OOM dump under the installed hprofstrip-run (no LD_PRELOAD typed), .histo and .suspects, man, then remove leaves nothing" {
	local r=$T/root out=$T/run
	rm -rf "$r" "$out"
	mkdir -p "$r/var/lib/dpkg/info" "$r/var/lib/dpkg/updates" "$r/var/lib/dpkg/triggers" "$out/dumps"
	: >"$r/var/lib/dpkg/status"
	# the throwaway root holds no libc6 of its own: the system's serves
	run dpkg --root="$r" --force-depends --force-script-chrootless -i \
		"$T/deb/hprofstrip_${VERSION}_$ARCH.deb" "$T/deb/libhprofstrip-dev_${VERSION}_$ARCH.deb"
	assert_success
	run dpkg --root="$r" -s hprofstrip
	assert_line "Status: install ok installed"
	local java
	java=$(readlink -f "$(command -v java)")
	cd "$out"
	run --separate-stderr env -u LD_PRELOAD PATH="$r/usr/bin:${java%/*}:/usr/bin:/bin" \
		strace -f --seccomp-bpf -qq -e trace=%file,execve -o "$out/trace" \
		hprofstrip-run --suspects java -Xmx64m -XX:+HeapDumpOnOutOfMemoryError \
		-XX:HeapDumpPath="$out/dumps/oom.hprof" -XX:+DisplayVMOutputToStderr \
		-cp "$B/java" HeapBuilder oom
	assert_success
	[[ $stderr == *"hprofstrip: $out/dumps/oom.hprof: "*" arrays stripped"* ]] ||
		fail "no summary line from the installed shim: $stderr"
	grep -qF "\"$r/usr/lib/$MA/hprofstrip/libhprofstrip.so\"" "$out/trace"
	assert_stripped_dump "$out/dumps/oom.hprof"
	[ -s "$out/dumps/oom.hprof.histo" ]
	# the shim's --suspects child is the installed hprofstrip, three
	# directories up from the shim (strace -f waited for it too)
	grep -qF "execve(\"$r/usr/lib/$MA/hprofstrip/../../../bin/hprofstrip\"" "$out/trace"
	grep -q 'retained' "$out/dumps/oom.hprof.suspects"
	# the installed tools restore it; VisualVM reads the result
	run "$r/usr/bin/hprofrestore" -o "$out/restored.hprof" "$out/dumps/oom.hprof"
	assert_success
	run "$JUDGE" markers "$out/restored.hprof"
	assert_success
	# man opens the installed pages
	run env MANPAGER=cat MANWIDTH=80 man -M "$r/usr/share/man" hprofstrip
	assert_success
	assert_output --partial "hprofstrip - "
	run env MANPAGER=cat man -M "$r/usr/share/man" 7 libhprofstrip
	assert_success
	assert_output --partial "HPROFSTRIP_PATTERN"
	# remove: nothing is left outside dpkg's own database (no conffiles,
	# so purge has nothing more to do)
	run dpkg --root="$r" --force-script-chrootless -r hprofstrip libhprofstrip-dev
	assert_success
	run sh -c "cd '$r' && find . -mindepth 1 -path ./var -prune -o -print"
	assert_success
	assert_output ""
	run dpkg --root="$r" --force-script-chrootless -P hprofstrip libhprofstrip-dev
	assert_success
	run dpkg --root="$r" -l hprofstrip
	assert_failure
}

# tar TARBALL into DIR: the tree it holds
unpack() {
	mkdir -p "$2"
	tar -xzf "$1" -C "$2"
}

@test "make dist x86_64: static tools strip and restore a corpus dump as the build's do; hprofstrip-run picks the shim of the command's libc" {
	local d=$T/x86 n=hprofstrip-$VERSION-x86_64-linux dump=$CORPUS/hotspot/jdk6-client-id4-small.hprof
	rm -rf "$d"
	unpack "$T/dist/$n.tar.gz" "$d"
	local top=$d/$n
	assert_equal "$(cd "$top" && find . -type f | LC_ALL=C sort)" "./INSTALL
./bin/hprofrestore
./bin/hprofstrip
./bin/hprofstrip-run
./lib/hprofstrip/glibc/libhprofstrip.so
./lib/hprofstrip/musl/libhprofstrip.so
./share/man/man1/hprofrestore.1
./share/man/man1/hprofstrip-run.1
./share/man/man1/hprofstrip.1
./share/man/man7/libhprofstrip.7"
	local t
	for t in hprofstrip hprofrestore hprofstrip-run; do
		run file "$top/bin/$t"
		assert_output --partial "x86-64"
		assert_output --partial "statically linked"
	done
	run file "$top/lib/hprofstrip/musl/libhprofstrip.so"
	assert_output --partial "shared object"
	grep -q "glibc [0-9.]* or later" "$top/INSTALL"
	"$top/bin/hprofstrip" -o "$d/s.hprof" "$dump"
	"$B/hprofstrip" -o "$d/b.hprof" "$dump"
	cmp "$d/s.hprof" "$d/b.hprof"
	"$top/bin/hprofrestore" -o "$d/r.hprof" "$d/s.hprof"
	"$B/hprofrestore" -o "$d/rb.hprof" "$d/b.hprof"
	cmp "$d/r.hprof" "$d/rb.hprof"
	# a glibc command (sh) gets glibc's shim
	run env -u LD_PRELOAD "$top/bin/hprofstrip-run" sh -c 'echo "$LD_PRELOAD"'
	assert_success
	assert_output "$top/lib/hprofstrip/glibc/libhprofstrip.so"
	# a musl program, by path, on PATH and as a script's interpreter,
	# gets musl's: musl's loader could not load glibc's shim at all
	musl-gcc -o "$d/musl-hello" -x c - <<<'#include <stdio.h>
#include <stdlib.h>
int main(void) { const char *p = getenv("LD_PRELOAD"); printf("%s\n", p ? p : "-"); return 0; }'
	run env -u LD_PRELOAD "$top/bin/hprofstrip-run" "$d/musl-hello"
	assert_success
	assert_output "$top/lib/hprofstrip/musl/libhprofstrip.so"
	run env -u LD_PRELOAD PATH="$d:$PATH" "$top/bin/hprofstrip-run" musl-hello
	assert_success
	assert_output "$top/lib/hprofstrip/musl/libhprofstrip.so"
	printf '#!%s\n' "$d/musl-hello" >"$d/script"
	printf '#! %s -x\n' "$d/script" >"$d/script2"
	chmod +x "$d/script" "$d/script2"
	run env -u LD_PRELOAD "$top/bin/hprofstrip-run" "$d/script2"
	assert_success
	assert_output "$top/lib/hprofstrip/musl/libhprofstrip.so"
	# env is what runs a '#!/usr/bin/env' script, and it is glibc's here
	printf '#!/usr/bin/env sh\necho "$LD_PRELOAD"\n' >"$d/script3"
	chmod +x "$d/script3"
	run env -u LD_PRELOAD "$top/bin/hprofstrip-run" "$d/script3"
	assert_success
	assert_output "$top/lib/hprofstrip/glibc/libhprofstrip.so"
}

@test "make dist aarch64: static tools under qemu-aarch64 strip and restore a corpus dump as the build's do" {
	command -v qemu-aarch64 >/dev/null || fail "qemu-aarch64 is missing (make deps)"
	local d=$T/a64 n=hprofstrip-$VERSION-aarch64-linux dump=$CORPUS/art/art-host-2025.hprof
	rm -rf "$d"
	unpack "$T/dist/$n.tar.gz" "$d"
	local top=$d/$n t
	for t in hprofstrip hprofrestore hprofstrip-run; do
		run file "$top/bin/$t"
		assert_output --partial "ARM aarch64"
		assert_output --partial "statically linked"
	done
	for t in glibc musl; do
		run file "$top/lib/hprofstrip/$t/libhprofstrip.so"
		assert_output --partial "ARM aarch64"
	done
	run qemu-aarch64 "$top/bin/hprofstrip" --version
	assert_output "hprofstrip $VERSION"
	qemu-aarch64 "$top/bin/hprofstrip" -o "$d/s.hprof" "$dump"
	"$B/hprofstrip" -o "$d/b.hprof" "$dump"
	cmp "$d/s.hprof" "$d/b.hprof"
	qemu-aarch64 "$top/bin/hprofrestore" --jvm -o "$d/r.hprof" "$d/s.hprof"
	"$B/hprofrestore" --jvm -o "$d/rb.hprof" "$d/b.hprof"
	cmp "$d/r.hprof" "$d/rb.hprof"
	run qemu-aarch64 "$top/bin/hprofstrip" --histo "$d/s.hprof"
	assert_success
	assert_equal "$output" "$("$B/hprofstrip" --histo "$d/s.hprof")"
}

# the value of the first "ENV NAME=VALUE" (or COPY/ADD source) of a
# Dockerfile
dockerfile_env() {
	sed -n "s/^ENV $2=//p" "$1" | head -1
}

@test "examples/container's Dockerfile.deb and Dockerfile.tarball name what the package and the tarball hold" {
	local f=$ROOT/examples/container/Dockerfile.deb src pre
	# the package's file name, and its shim at the preloaded path
	src=$(awk '$1 == "COPY" && $2 ~ /\.deb$/ { print $2 }' "$f")
	[[ $src == build/deb/* ]]
	compgen -G "$T/deb/${src#build/deb/}" >/dev/null || fail "no package matches $src"
	pre=$(dockerfile_env "$f" LD_PRELOAD)
	assert_equal "$pre" "/usr/lib/$MA/hprofstrip/libhprofstrip.so"
	[ -f "$T/deb/hprofstrip$pre" ]
	grep -q '^RUN dpkg -i /tmp/hprofstrip_\*_amd64.deb' "$f"
	# the tarball's name, the folder it unpacks to, and its musl shim
	f=$ROOT/examples/container/Dockerfile.tarball
	src=$(awk '$1 == "ADD" && $2 ~ /\.tar\.gz$/ { print $2 }' "$f")
	[[ $src == build/dist/* ]]
	local tb
	tb=$(compgen -G "$T/dist/${src#build/dist/}") || fail "no tarball matches $src"
	local d=$T/image
	rm -rf "$d" && mkdir -p "$d/opt"
	tar -xzf "$tb" -C "$d/opt"
	# the RUN's mv, done here
	mv "$d"/opt/hprofstrip-*-x86_64-linux "$d/opt/hprofstrip"
	grep -q '^RUN mv /opt/hprofstrip-\*-x86_64-linux /opt/hprofstrip' "$f"
	pre=$(dockerfile_env "$f" LD_PRELOAD)
	[ -f "$d$pre" ] || fail "the tarball holds no $pre"
	run file "$d$pre"
	assert_output --partial "x86-64"
	run readelf -d "$d$pre"
	assert_output --partial "Shared library: [libc.so]"   # musl's
	# the same ENV as the Dockerfile built from source
	assert_equal "$(dockerfile_env "$f" JAVA_TOOL_OPTIONS)" \
		"$(dockerfile_env "$ROOT/examples/container/Dockerfile" JAVA_TOOL_OPTIONS)"
}
