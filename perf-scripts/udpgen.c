// SPDX-License-Identifier: GPL-2.0
/*
 * udpgen: host-side UDP traffic generator for the idle-governor bench.
 * QEMU user networking forwards 127.0.0.1:PORT into the guest
 * (hostfwd=udp:127.0.0.1:PORT-GUEST:PORT).
 *
 *   udpgen -m periodic -p PORT -P PERIOD_US -d SECONDS
 *   udpgen -m two      -p PORT -P PERIOD_US -q PORT2 -Q PERIOD2_US -d SECONDS
 *   udpgen -m burst    -p PORT -P PERIOD_US -n PACKETS -d SECONDS
 *   udpgen -m poisson  -p PORT -P MEAN_US [-s SEED] -d SECONDS
 *
 * Send times are absolute CLOCK_MONOTONIC deadlines (clock_nanosleep
 * TIMER_ABSTIME), so lateness does not accumulate.  At the end one line
 * "udpgen mode=... sent=N late=N max_late_us=N" goes to stdout.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define TOOL "udpgen"
#include "tool.h"

static void sleep_until(int64_t t)
{
	struct timespec ts = { .tv_sec = t / 1000000000LL, .tv_nsec = t % 1000000000LL };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: udpgen -m periodic|two|burst|poisson -p PORT -P PERIOD_US -d SECONDS\n"
		"              [-q PORT2 -Q PERIOD2_US] (two) [-n PACKETS] (burst) [-s SEED] (poisson)\n"
		"              [-a ADDR] (default 127.0.0.1)\n");
	exit(2);
}

/* xorshift64*: a seeded, reproducible generator (no libc rand state) */
static uint64_t rng = 88172645463325252ULL;
static double uniform01(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return ((rng * 2685821657736338717ULL) >> 11) * (1.0 / 9007199254740992.0);
}

int main(int argc, char **argv)
{
	const char *mode = NULL, *addr = "127.0.0.1";
	long port = 0, port2 = 0, period = 0, period2 = 0, burst = 1, secs = 0;
	int opt;

	while ((opt = getopt(argc, argv, "m:p:P:q:Q:n:d:s:a:")) != -1) {
		switch (opt) {
		case 'm': mode = optarg; break;
		case 'p': port = num(optarg, "port"); break;
		case 'P': period = num(optarg, "period"); break;
		case 'q': port2 = num(optarg, "port2"); break;
		case 'Q': period2 = num(optarg, "period2"); break;
		case 'n': burst = num(optarg, "burst size"); break;
		case 'd': secs = num(optarg, "duration"); break;
		case 's': rng = (uint64_t)num(optarg, "seed") * 0x9E3779B97F4A7C15ULL; break;
		case 'a': addr = optarg; break;
		default: usage();
		}
	}
	if (!mode || !port || !period || !secs || optind != argc)
		usage();
	int two = !strcmp(mode, "two");
	if (strcmp(mode, "periodic") && !two && strcmp(mode, "burst") && strcmp(mode, "poisson")) {
		fprintf(stderr, "udpgen: unknown mode '%s' (valid: periodic two burst poisson)\n", mode);
		return 2;
	}
	if (two && (!port2 || !period2)) {
		fprintf(stderr, "udpgen: mode two needs -q PORT2 and -Q PERIOD2_US\n");
		return 2;
	}

	int fd = socket(AF_INET, SOCK_DGRAM, 0);
	struct sockaddr_in dst[2] = { { .sin_family = AF_INET }, { .sin_family = AF_INET } };

	if (fd < 0 || inet_pton(AF_INET, addr, &dst[0].sin_addr) != 1) {
		fprintf(stderr, "udpgen: bad address '%s' or no socket\n", addr);
		return 2;
	}
	dst[1] = dst[0];
	dst[0].sin_port = htons((uint16_t)port);
	dst[1].sin_port = htons((uint16_t)port2);

	char payload[64];
	long sent = 0, late = 0, errors = 0;
	int64_t max_late = 0, start = now_ns() + 1000000, end = start + secs * 1000000000LL;
	/* next deadline of each stream */
	int64_t next[2] = { start, two ? start + period2 * 500 : INT64_MAX };

	while (1) {
		int s = next[1] < next[0];
		int64_t t = next[s];

		if (t >= end)
			break;
		sleep_until(t);
		int64_t lag = now_ns() - t;

		if (lag > 100000)
			late++;
		if (lag > max_late)
			max_late = lag;
		long n = !strcmp(mode, "burst") ? burst : 1;
		for (long i = 0; i < n; i++) {
			int len = snprintf(payload, sizeof(payload), "%d %ld", s, sent);

			if (sendto(fd, payload, (size_t)len, 0, (struct sockaddr *)&dst[s],
				   sizeof(dst[s])) < 0)
				errors++;
			else
				sent++;
		}
		if (!strcmp(mode, "poisson")) {
			double u = uniform01();

			next[0] += (int64_t)(-log(1.0 - u) * (double)period * 1000.0) + 1;
		} else {
			next[s] += (s ? period2 : period) * 1000LL;
		}
	}
	printf("udpgen mode=%s sent=%ld errors=%ld late=%ld max_late_us=%lld\n", mode, sent,
	       errors, late, (long long)(max_late / 1000));
	return 0;
}
