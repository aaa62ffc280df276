# Sourced by deb.sh and dist.sh: what both releases share.
#   top        the checkout
#   version    HS_VERSION of strip/engine/hprof.h, the one version number
#   commit     the commit released (git describe: a hash, "-dirty" if the
#              tree is)
#   check_tree refuses a tree with changes (tracked or not) unless
#              DIRTY=1, so that a release is always a commit
#   stamp      SOURCE_DATE_EPOCH: the commit's time (file times, the
#              changelog's date), so two builds of a commit agree
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
version=$(sed -n 's/^#define HS_VERSION "\(.*\)"$/\1/p' "$top/strip/engine/hprof.h")
[ -n "$version" ] || { echo "release: no HS_VERSION in strip/engine/hprof.h" >&2; exit 1; }

check_tree() {
	local what=$1 changed
	if ! git -C "$top" rev-parse --git-dir >/dev/null 2>&1; then
		[ "${DIRTY:-}" = 1 ] && return 0
		echo "$what: $top is not a git checkout, so the release would be no commit; DIRTY=1 builds it anyway" >&2
		exit 1
	fi
	changed=$(git -C "$top" status --porcelain | head -5)
	if [ -n "$changed" ] && [ "${DIRTY:-}" != 1 ]; then
		echo "$what: the tree has changes, so the release would be no commit (commit them, or DIRTY=1 to build anyway):" >&2
		printf '  %s\n' "$changed" >&2
		exit 1
	fi
}

release_info() {
	if git -C "$top" rev-parse --git-dir >/dev/null 2>&1; then
		commit=$(git -C "$top" describe --always --dirty --abbrev=12)
		SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git -C "$top" log -1 --format=%ct)}
	else
		commit=unknown
		SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(date +%s)}
	fi
	export SOURCE_DATE_EPOCH
}

# make in the checkout, a build of its own (BUILD=$1, then make's words)
make_tree() {
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$top" BUILD="$@"
}
