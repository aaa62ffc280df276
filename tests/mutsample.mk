# Included by the Makefile: a seeded random sample of generated one-line
# mutants, each run against the test files of its file's area
# (tests/mutsample.py; tests/mutants.py's harness and area map).
#
#   make mutants-sample [SEED=1] [N=200] [FILES='preload/*'] [J=1]
#
# Prints one line per mutant (caught by which test, or SURVIVED), then the
# caught rate per file and in all; also build/mutsample/report.txt. Hours
# for the default 200 (a survivor runs its whole area): a development
# tool, like make mutants, not part of make check. It runs under
# nice -n 10.
SEED ?= 1
N ?= 200
J ?= 1
FILES ?=

mutants-sample: deps
	nice -n 10 tests/mutsample.py --seed $(SEED) -n $(N) -j $(J) \
		$(if $(FILES),--files '$(FILES)')

.PHONY: mutants-sample
