# perf-scripts/bench.mk: the host-side bench tool, included by the top
# Makefile.  The guest tools are built by guest-image/mkinitramfs.sh.
BENCH_CFLAGS := -O2 -Wall -Wextra -Werror

build/udpgen: perf-scripts/udpgen.c shared/tool.h
	@mkdir -p build
	gcc $(BENCH_CFLAGS) -Ishared -o $@ $< -lm

.PHONY: bench-tools
bench-tools: build/udpgen
