# Sourced by the shell test drivers (tests/unit.sh, tests/ports.sh,
# tests/bench/lib.sh, examples/demo.sh, examples/android/selftest.sh):
# one clean environment, the paths they share, and check().
#
# The caller's shim settings and preloads must not reach a run
# (HPROFSTRIP_CORPUS and HPROFSTRIP_SANITIZED configure the tests).
for v in ${!HPROFSTRIP_*}; do
	case $v in HPROFSTRIP_CORPUS | HPROFSTRIP_SANITIZED) ;; *) unset "$v" ;; esac
done
unset v LD_PRELOAD
# root: the checkout; b: the build directory (BUILD, relative to root
# unless absolute); corpus: the shared dumps
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD:-build}
case $build in /*) b=$build ;; *) b=$root/$build ;; esac
corpus=${HPROFSTRIP_CORPUS:-$root/../shared/corpus}

# check NAME CMD...: runs CMD; prints "ok   NAME", or "FAIL NAME" and CMD's
# output indented; counts in pass and fail (the driver prints
# 'N passed, N failed' at its end)
pass=0 fail=0
check() {
	local name=$1 out
	shift
	if out=$("$@" 2>&1); then
		pass=$((pass + 1))
		echo "ok   $name"
	else
		fail=$((fail + 1))
		echo "FAIL $name"
		echo "$out" | sed 's/^/     /'
	fi
}
