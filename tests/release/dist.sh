#!/bin/bash
# make dist: a release tarball per architecture, x86_64 and aarch64.
#
#   tests/release/dist.sh OUT    OUT/hprofstrip-VERSION-ARCH-linux.tar.gz
#
# Each holds hprofstrip-VERSION-ARCH-linux/:
#   bin/             the tools and hprofstrip-run, static against musl
#   lib/hprofstrip/glibc/, musl/   the shim built for each C library
#   share/man/man1, man7           the man pages
#   INSTALL          (tests/release/INSTALL, filled in)
# x86_64 with gcc and musl-gcc; aarch64 with aarch64-linux-gnu-gcc, for
# musl through musl-dev:arm64's specs file. Each build in OUT/obj/ARCH-LIBC.
# Refuses a tree with changes unless DIRTY=1 (lib.sh); file times are the
# commit's (SOURCE_DATE_EPOCH).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
out=${1:?usage: dist.sh OUT}
check_tree "make dist"
release_info
[ "$(uname -m)" = x86_64 ] || {
	echo "make dist: builds on x86_64 only (it cross-compiles aarch64); this is $(uname -m)" >&2
	exit 1
}
mkdir -p "$out"
out=$(cd "$out" && pwd)

# cc ARCH LIBC: the compiler for that pair
cc() {
	case $1-$2 in
	x86_64-glibc) echo gcc ;;
	x86_64-musl) echo musl-gcc ;;
	aarch64-glibc) echo aarch64-linux-gnu-gcc ;;
	aarch64-musl) echo "aarch64-linux-gnu-gcc -specs /usr/lib/aarch64-linux-musl/musl-gcc.specs" ;;
	esac
}

for arch in x86_64 aarch64; do
	name=hprofstrip-$version-$arch-linux
	tree=$out/$name
	strip=strip
	[ "$arch" = aarch64 ] && strip=aarch64-linux-gnu-strip
	rm -rf "$tree"
	mkdir -p "$tree/bin" "$tree/lib/hprofstrip/glibc" "$tree/lib/hprofstrip/musl" \
		"$tree/share/man/man1" "$tree/share/man/man7"
	for libc in musl glibc; do
		obj=$out/obj/$arch-$libc
		rm -rf "$obj"
		# no MULTIARCH: the launcher looks in the tarball's own layout
		make_tree "$obj" CC="$(cc "$arch" "$libc")" MULTIARCH= "$obj/libhprofstrip.so"
		install -m 644 "$obj/libhprofstrip.so" "$tree/lib/hprofstrip/$libc/"
		$strip --strip-unneeded --remove-section=.comment "$tree/lib/hprofstrip/$libc/libhprofstrip.so"
	done
	obj=$out/obj/$arch-static
	rm -rf "$obj"
	make_tree "$obj" CC="$(cc "$arch" musl)" MULTIARCH= LDFLAGS=-static \
		"$obj/hprofstrip" "$obj/hprofrestore" "$obj/hprofstrip-run"
	for t in hprofstrip hprofrestore hprofstrip-run; do
		file "$obj/$t" | grep -q 'statically linked' ||
			{ echo "make dist: $obj/$t is not static" >&2; exit 1; }
		install -m 755 "$obj/$t" "$tree/bin/"
	done
	$strip --remove-section=.comment "$tree"/bin/*
	install -m 644 "$top"/strip/cli/hprofstrip.1 "$top"/restore/hprofrestore.1 \
		"$top"/preload/hprofstrip-run.1 "$tree/share/man/man1/"
	install -m 644 "$top/preload/libhprofstrip.7" "$tree/share/man/man7/"
	# the oldest glibc the glibc shim loads into: its newest symbol version
	glibc=$(objdump -T "$tree/lib/hprofstrip/glibc/libhprofstrip.so" |
		grep -o 'GLIBC_[0-9.]*' | sed 's/GLIBC_//' | sort -V | tail -1)
	sed -e "s/@VERSION@/$version/g" -e "s/@ARCH@/$arch/g" -e "s/@GLIBC@/$glibc/g" \
		-e "s/@COMMIT@/$commit/g" "$top/tests/release/INSTALL" >"$tree/INSTALL"
	tar --sort=name --owner=0 --group=0 --numeric-owner \
		--mtime="@$SOURCE_DATE_EPOCH" --clamp-mtime -C "$out" -cf - "$name" |
		gzip -9n >"$out/$name.tar.gz"
	echo "make dist: $out/$name.tar.gz"
done
