#!/bin/sh
# Installs what the tests need, when it is missing (Debian); with "demo",
# only what make demo needs (a JDK, VisualVM's heap library).
set -eu
need=""
if [ "${1:-}" = demo ]; then
	dpkg -s visualvm >/dev/null 2>&1 || need="$need visualvm"
	command -v javac >/dev/null 2>&1 || need="$need openjdk-17-jdk-headless"
else
command -v bats >/dev/null 2>&1 || need="$need bats"
[ -d /usr/lib/bats/bats-assert ] || [ -d /usr/lib/bats-assert ] || need="$need bats-assert"
[ -d /usr/lib/bats/bats-support ] || [ -d /usr/lib/bats-support ] || need="$need bats-support"
[ -x /usr/lib/android-sdk/platform-tools/hprof-conv ] || need="$need hprof-conv"
dpkg -s visualvm >/dev/null 2>&1 || need="$need visualvm"
command -v javac >/dev/null 2>&1 || need="$need openjdk-17-jdk-headless"
command -v script >/dev/null 2>&1 || need="$need bsdutils"
# bats/compressed-input.bats: compressed input is read through zstd and xz (and
# gzip, which Debian always has)
command -v zstd >/dev/null 2>&1 || need="$need zstd"
command -v xz >/dev/null 2>&1 || need="$need xz-utils"
# ... and lz4, which the shim can compress with too (bats/shim-compress.bats)
command -v lz4 >/dev/null 2>&1 || need="$need lz4"
# a runtime's gzip dump under the shim is inflated by igzip (ISA-L) when
# it is there (bats/gzip-dumps.bats tests both it and gzip alone)
command -v igzip >/dev/null 2>&1 || need="$need isal"
# bats/bitmaps.bats: BitmapHeap encodes WEBP pictures with cwebp, HeapJudge
# decodes them with dwebp
command -v cwebp >/dev/null 2>&1 || need="$need webp"
# bats/own-dumps.bats compares a copy's system calls with and without the
# shim; bats/handover.bats uploads to a local server that answers 401
command -v strace >/dev/null 2>&1 || need="$need strace"
command -v curl >/dev/null 2>&1 || need="$need curl"
# make check-man: man --warnings formats the pages with groff
command -v man >/dev/null 2>&1 || need="$need man-db"
command -v troff >/dev/null 2>&1 || need="$need groff-base"
fi
[ -z "$need" ] && exit 0
echo "install-deps: installing:$need" >&2
if [ "$(id -u)" != 0 ]; then
	echo "install-deps: not root; install these yourself:$need" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >/dev/null
# shellcheck disable=SC2086
apt-get install -y -q $need >/dev/null
