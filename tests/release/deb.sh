#!/bin/bash
# make deb: the Debian packages of this commit, with dpkg-deb.
#
#   tests/release/deb.sh OUT     OUT/hprofstrip_VERSION_ARCH.deb and
#                                OUT/libhprofstrip-dev_VERSION_ARCH.deb
#
# hprofstrip: the three tools in /usr/bin, the shim in
#   /usr/lib/MULTIARCH/hprofstrip/ (where hprofstrip-run looks first), the
#   four man pages, copyright, changelog and the README in
#   /usr/share/doc/hprofstrip. Depends: computed by dpkg-shlibdeps.
# libhprofstrip-dev: hprofstrip.h and libhprofstrip.a, for in-process
#   hooks. Apart, as Debian's policy puts headers and static libraries
#   (8.3, 8.4): a production host that wants the tools gets no headers.
#
# Built with dpkg-buildflags' flags (hardening=+all), in OUT/obj; stripped
# as dh_strip does. Refuses a tree with changes unless DIRTY=1
# (lib.sh). Files owned by root (dpkg-deb --root-owner-group); times no
# later than the commit's (SOURCE_DATE_EPOCH).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
out=${1:?usage: deb.sh OUT}
check_tree "make deb"
release_info
mkdir -p "$out"
out=$(cd "$out" && pwd)
arch=$(dpkg --print-architecture)
ma=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
obj=$out/obj
export DEB_BUILD_MAINT_OPTIONS=hardening=+all
cflags="$(dpkg-buildflags --get CPPFLAGS) $(dpkg-buildflags --get CFLAGS)"
ldflags=$(dpkg-buildflags --get LDFLAGS)
# a build of its own: flags differ from build/'s
rm -rf "$obj"
make_tree "$obj" CFLAGS="$cflags" LDFLAGS="$ldflags" all

rm -rf "$out/hprofstrip" "$out/libhprofstrip-dev" "$out/src"
p=$out/hprofstrip d=$out/libhprofstrip-dev
install -d "$p/DEBIAN" "$p/usr/bin" "$p/usr/lib/$ma/hprofstrip" \
	"$p/usr/share/man/man1" "$p/usr/share/man/man7" "$p/usr/share/doc/hprofstrip" \
	"$d/DEBIAN" "$d/usr/include" "$d/usr/lib/$ma" "$d/usr/share/doc/libhprofstrip-dev"
install -m 755 "$obj/hprofstrip" "$obj/hprofrestore" "$obj/hprofstrip-run" "$p/usr/bin/"
install -m 644 "$obj/libhprofstrip.so" "$p/usr/lib/$ma/hprofstrip/"
install -m 644 "$top/preload/hprofstrip.h" "$d/usr/include/"
install -m 644 "$obj/libhprofstrip.a" "$d/usr/lib/$ma/"
# as dh_strip: no debugging symbols, no .comment or .note sections
strip --remove-section=.comment --remove-section=.note "$p"/usr/bin/*
strip --remove-section=.comment --remove-section=.note --strip-unneeded \
	"$p/usr/lib/$ma/hprofstrip/libhprofstrip.so"
strip --strip-debug --remove-section=.comment --remove-section=.note \
	--enable-deterministic-archives "$d/usr/lib/$ma/libhprofstrip.a"
for m in "$top"/strip/cli/hprofstrip.1 "$top"/restore/hprofrestore.1 \
	"$top"/preload/hprofstrip-run.1; do
	gzip -9n <"$m" >"$p/usr/share/man/man1/${m##*/}.gz"
done
gzip -9n <"$top/preload/libhprofstrip.7" >"$p/usr/share/man/man7/libhprofstrip.7.gz"
gzip -9n <"$top/README.md" >"$p/usr/share/doc/hprofstrip/README.md.gz"

# a native package's changelog: one entry, this release
maint=$(sed -n 's/^Maintainer: //p' "$top/tests/release/control")
{
	printf 'hprofstrip (%s) unstable; urgency=medium\n\n' "$version"
	printf '  * Release %s, built from commit %s.\n' "$version" "$commit"
	printf '    See /usr/share/doc/hprofstrip/README.md.gz.\n\n'
	printf ' -- %s  %s\n' "$maint" "$(LC_ALL=C date -u -R -d "@$SOURCE_DATE_EPOCH")"
} >"$out/changelog"
for doc in "$p/usr/share/doc/hprofstrip" "$d/usr/share/doc/libhprofstrip-dev"; do
	install -m 644 "$top/tests/release/copyright" "$doc/copyright"
	gzip -9n <"$out/changelog" >"$doc/changelog.gz"
done

# Depends: what the tools and the shim link against
mkdir -p "$out/src/debian"
sed "s/@ARCH@/$arch/; s/@DEPENDS@/\${shlibs:Depends}/" "$top/tests/release/control" \
	>"$out/src/debian/control"
depends=$(cd "$out/src" && dpkg-shlibdeps -O "$p"/usr/bin/* \
	"$p/usr/lib/$ma/hprofstrip/libhprofstrip.so" | sed -n 's/^shlibs:Depends=//p')
[ -n "$depends" ] || { echo "make deb: dpkg-shlibdeps found no dependencies" >&2; exit 1; }

# a package's stanza of the control template, filled in
stanza() {
	awk -v pkg="$1" 'BEGIN { RS = ""; ORS = "\n" } $0 ~ "^Package: " pkg "\n" { print }' \
		"$top/tests/release/control"
}
for root in "$p" "$d"; do
	pkg=${root##*/}
	find "$root" -path "$root/DEBIAN" -prune -o -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +
	size=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
	{
		stanza "$pkg" | sed -n '1,/^Description:/{/^Description:/!p}' | sed \
			-e "s/@ARCH@/$arch/" -e "s/@DEPENDS@/$depends/"
		printf 'Version: %s\n' "$version"
		sed -n 's/^\(Maintainer\|Priority\): /&/p' "$top/tests/release/control" | head -2
		grep -q '^Section:' <(stanza "$pkg") || sed -n 's/^Section: .*/&/p' "$top/tests/release/control" | head -1
		printf 'Installed-Size: %s\n' "$size"
		stanza "$pkg" | sed -n '/^Description:/,$p'
	} >"$root/DEBIAN/control"
	(cd "$root" && find usr -type f -print0 | LC_ALL=C sort -z | xargs -0 md5sum) \
		>"$root/DEBIAN/md5sums"
	chmod 644 "$root/DEBIAN/control" "$root/DEBIAN/md5sums"
	dpkg-deb --root-owner-group -Zxz --build "$root" \
		"$out/${pkg}_${version}_${arch}.deb" >/dev/null
	echo "make deb: $out/${pkg}_${version}_${arch}.deb"
done
