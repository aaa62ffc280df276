# hprofstrip: see README.md. `make` builds build/, `make check` tests,
# `make demo` runs a real JVM under the shim.
CC ?= cc
BUILD ?= build
CFLAGS ?= -O2 -g
WARN = -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror
ALL_CFLAGS = $(WARN) $(CFLAGS)

ENGINE = strip/engine.c
CLI = strip/cli.c strip/out.c
HDRS = strip/hprof.h strip/cli.h strip/out.h

all: $(BUILD)/hprofstrip $(BUILD)/hprofrestore

$(BUILD):
	mkdir -p $@

$(BUILD)/hprofstrip: strip/hprofstrip.c $(ENGINE) $(CLI) $(HDRS) | $(BUILD)
	$(CC) $(ALL_CFLAGS) -o $@ strip/hprofstrip.c $(ENGINE) $(CLI) $(LDFLAGS)

$(BUILD)/hprofrestore: restore/hprofrestore.c $(ENGINE) $(CLI) $(HDRS) | $(BUILD)
	$(CC) $(ALL_CFLAGS) -o $@ restore/hprofrestore.c $(ENGINE) $(CLI) $(LDFLAGS)

clean:
	rm -rf $(BUILD)

.PHONY: all clean
