# perf-scripts/bench.mk: rules for the bench, meant to be included by the
# top Makefile (include perf-scripts/bench.mk).  bench.py builds the same
# binaries itself when they are missing or older than their sources.
BENCH_CFLAGS := -O2 -Wall -Wextra -Werror

build/udpgen: perf-scripts/udpgen.c
	@mkdir -p build
	gcc $(BENCH_CFLAGS) -o $@ $< -lm

build/guest-tools/benchtool: perf-scripts/guest-tools/benchtool.c
	@mkdir -p build/guest-tools
	gcc $(BENCH_CFLAGS) -static -o $@ $<

.PHONY: bench-tools
bench-tools: build/udpgen build/guest-tools/benchtool
