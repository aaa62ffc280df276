# Included by the Makefile: the release, as a Debian package and as static
# tarballs (tests/release/).
#
#   make deb    build/deb/hprofstrip_VERSION_ARCH.deb (the tools, the shim,
#               the man pages) and libhprofstrip-dev_VERSION_ARCH.deb (the
#               header and static library), with dpkg-deb (deb.sh)
#   make dist   build/dist/hprofstrip-VERSION-{x86_64,aarch64}-linux.tar.gz:
#               tools static against musl, the shim for glibc and for musl
#               (dist.sh)
#   make version   the version, HS_VERSION in strip/engine/hprof.h
#
# Both refuse a tree with changes, tracked or not, so that a release is a
# commit; DIRTY=1 builds one anyway. make check-release (bats/release.bats,
# in .ci/run) checks both: lintian, an install into a throwaway root with dpkg --root
# and a real JVM under the installed shim, the tarballs' tools on a corpus
# dump natively and under qemu-aarch64.
VERSION = $(shell sed -n 's/^\#define HS_VERSION "\(.*\)"$$/\1/p' strip/engine/hprof.h)

deb: deps-release
	tests/release/deb.sh $(BUILD)/deb

dist: deps-release
	tests/release/dist.sh $(BUILD)/dist

version:
	@echo $(VERSION)

# bats/release.bats, apart from make check: the aarch64 cross compiler
# and musl-dev:arm64 it needs conflict with check-i386's gcc-multilib, so
# .ci/run runs it in the ports' lane, after check-arm64 and before
# check-i386, and make deps does not install them
check-release: deps deps-release all
	BUILD=$(BUILD) tests/run-bats.sh bats/release.bats

# what both need: dpkg-dev (dpkg-shlibdeps), lintian, musl for both
# architectures (musl-dev:arm64 needs dpkg's arm64 architecture), the
# aarch64 cross compiler, qemu-user for the aarch64 tarball's test
deps-release:
	@dpkg --print-foreign-architectures | grep -qx arm64 || \
		{ [ "$$(id -u)" = 0 ] && dpkg --add-architecture arm64 && \
		  apt-get update -q >/dev/null; } || \
		{ echo "release: dpkg --add-architecture arm64 failed (root?)"; exit 1; }
	tests/ports.sh deps dpkg-dev lintian man-db musl-tools musl-dev musl-dev:arm64 \
		gcc-aarch64-linux-gnu binutils-aarch64-linux-gnu qemu-user file

.PHONY: deb dist version deps-release check-release
