// SPDX-License-Identifier: GPL-2.0
/*
 * benchtool: small interrupt sources for the idle-governor bench, run
 * inside the guest (static binary, see perf-scripts/README.md).
 *
 *   benchtool rtc RATE_HZ SECONDS        CMOS RTC periodic interrupt
 *   benchtool blk DEV PERIOD_US SECONDS  one 4 KiB O_DIRECT read per period
 *   benchtool udprecv PORT[,PORT] SECONDS  count UDP datagrams per port
 *   benchtool pipe PERIOD_US SECONDS CPU_A CPU_B [SPREAD_US]  one pipe
 *	round trip per period between a process on CPU_A and one on CPU_B
 *	(two cross-CPU wakeups, IPIs when the CPUs differ), paced on an
 *	absolute timeline; with SPREAD_US each interval is drawn uniformly
 *	from PERIOD_US +- SPREAD_US (a fixed-seed sequence: the same every
 *	run), wakeups that no period predicts
 *
 * Each prints one summary line "key=value ..." on stdout and exits 0, or
 * prints an error on stderr and exits 1 (2 for a bad argument).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/rtc.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define TOOL "benchtool"
#include "tool.h"

/*
 * Advance @next by one period and sleep until then (an absolute timeline:
 * a late wakeup does not shift the later ones).  Returns 1 when @next had
 * already passed.
 */
static int sleep_to_next(struct timespec *next, long period_us)
{
	next->tv_nsec += period_us * 1000;
	while (next->tv_nsec >= 1000000000L) {
		next->tv_nsec -= 1000000000L;
		next->tv_sec++;
	}
	int late = (int64_t)next->tv_sec * 1000000000LL + next->tv_nsec < now_ns();

	clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, next, NULL);
	return late;
}

static int pin(long cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET((int)cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) < 0) {
		fprintf(stderr, "benchtool: cannot pin to CPU %ld: %s\n", cpu, strerror(errno));
		return -1;
	}
	return 0;
}

/* a CPU number: 0 or more */
static long cpu_num(const char *s)
{
	return strcmp(s, "0") ? num(s, "cpu") : 0;
}

/* xorshift64: the pipe's intervals, the same sequence every run */
static uint64_t next_random(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

static int do_pipe(long period_us, long secs, long cpu_a, long cpu_b, long spread_us)
{
	int ab[2], ba[2];
	long n = 0, late = 0;
	uint64_t x = 0x9e3779b97f4a7c15ULL;
	char c = 0;
	pid_t child;
	struct timespec next;

	if (pipe(ab) < 0 || pipe(ba) < 0) {
		perror("benchtool: pipe");
		return 1;
	}
	child = fork();
	if (child < 0) {
		perror("benchtool: fork");
		return 1;
	}
	if (child == 0) {	/* CPU_B: echo every byte until the pipe closes */
		close(ab[1]);
		close(ba[0]);
		if (pin(cpu_b) < 0)
			_exit(1);
		while (read(ab[0], &c, 1) == 1)
			if (write(ba[1], &c, 1) != 1)
				_exit(1);
		_exit(0);
	}
	close(ab[0]);
	close(ba[1]);
	if (pin(cpu_a) < 0)
		return 1;
	int64_t t0 = now_ns(), end = t0 + secs * 1000000000LL;
	clock_gettime(CLOCK_MONOTONIC, &next);
	while (now_ns() < end) {
		if (write(ab[1], &c, 1) != 1 || read(ba[0], &c, 1) != 1) {
			perror("benchtool: pipe round trip");
			return 1;
		}
		n++;
		long step = period_us;

		if (spread_us)
			step += (long)(next_random(&x) % (uint64_t)(2 * spread_us + 1)) - spread_us;
		late += sleep_to_next(&next, step);
	}
	close(ab[1]);
	int st = 0;

	waitpid(child, &st, 0);
	printf("pipe round_trips=%ld late=%ld period_us=%ld spread_us=%ld cpus=%ld,%ld elapsed_ns=%lld\n",
	       n, late, period_us, spread_us, cpu_a, cpu_b, (long long)(now_ns() - t0));
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 1;
}

static int do_rtc(long rate, long secs)
{
	int fd = open("/dev/rtc0", O_RDONLY);
	unsigned long data;
	long n = 0, want = rate * secs;

	if (fd < 0) {
		perror("benchtool: /dev/rtc0");
		return 1;
	}
	if (ioctl(fd, RTC_IRQP_SET, (unsigned long)rate) < 0) {
		perror("benchtool: RTC_IRQP_SET");
		return 1;
	}
	if (ioctl(fd, RTC_PIE_ON, 0) < 0) {
		perror("benchtool: RTC_PIE_ON");
		return 1;
	}
	int64_t t0 = now_ns();
	while (n < want) {
		if (read(fd, &data, sizeof(data)) != sizeof(data)) {
			perror("benchtool: read rtc");
			break;
		}
		n += data >> 8;	/* number of interrupts since the last read */
	}
	ioctl(fd, RTC_PIE_OFF, 0);
	printf("rtc rate=%ld irqs=%ld elapsed_ns=%lld\n", rate, n,
	       (long long)(now_ns() - t0));
	close(fd);
	return n >= want ? 0 : 1;
}

static int do_blk(const char *dev, long period_us, long secs)
{
	int fd = open(dev, O_RDONLY | O_DIRECT);
	void *buf;
	off_t size, off = 0;
	long n = 0, late = 0;
	struct timespec next;

	if (fd < 0) {
		perror("benchtool: open block device");
		return 1;
	}
	size = lseek(fd, 0, SEEK_END);
	if (size < 4096 || posix_memalign(&buf, 4096, 4096)) {
		fprintf(stderr, "benchtool: %s too small or no memory\n", dev);
		return 1;
	}
	int64_t t0 = now_ns(), end = t0 + secs * 1000000000LL;
	clock_gettime(CLOCK_MONOTONIC, &next);
	while (now_ns() < end) {
		if (pread(fd, buf, 4096, off) != 4096) {
			perror("benchtool: pread");
			return 1;
		}
		n++;
		/* stride through the disk so the host page cache, not a
		 * guest cache, serves each read */
		off += 4096 * 17;
		if (off + 4096 > size)
			off = 0;
		late += sleep_to_next(&next, period_us);
	}
	printf("blk reads=%ld late=%ld period_us=%ld elapsed_ns=%lld\n", n, late,
	       period_us, (long long)(now_ns() - t0));
	close(fd);
	return 0;
}

static int do_udprecv(char *ports, long secs)
{
	struct pollfd pfd[4];
	long count[4] = { 0 };
	int port[4], n = 0;
	char buf[2048];

	for (char *p = strtok(ports, ","); p && n < 4; p = strtok(NULL, ",")) {
		struct sockaddr_in a = { .sin_family = AF_INET };
		int fd = socket(AF_INET, SOCK_DGRAM, 0);

		port[n] = (int)num(p, "port");
		a.sin_port = htons(port[n]);
		if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
			perror("benchtool: bind");
			return 1;
		}
		pfd[n].fd = fd;
		pfd[n].events = POLLIN;
		n++;
	}
	int64_t t0 = now_ns(), end = t0 + secs * 1000000000LL;
	for (int64_t t = t0; t < end; t = now_ns()) {
		int r = poll(pfd, n, (int)((end - t) / 1000000) + 1);

		if (r < 0 && errno != EINTR) {
			perror("benchtool: poll");
			return 1;
		}
		for (int i = 0; r > 0 && i < n; i++)
			if (pfd[i].revents & POLLIN)
				while (recv(pfd[i].fd, buf, sizeof(buf), MSG_DONTWAIT) > 0)
					count[i]++;
	}
	printf("udprecv");
	for (int i = 0; i < n; i++)
		printf(" port%d=%ld", port[i], count[i]);
	printf(" elapsed_ns=%lld\n", (long long)(now_ns() - t0));
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "rtc"))
		return do_rtc(num(argv[2], "rate"), num(argv[3], "seconds"));
	if (argc == 5 && !strcmp(argv[1], "blk"))
		return do_blk(argv[2], num(argv[3], "period"), num(argv[4], "seconds"));
	if (argc == 4 && !strcmp(argv[1], "udprecv"))
		return do_udprecv(argv[2], num(argv[3], "seconds"));
	if ((argc == 6 || argc == 7) && !strcmp(argv[1], "pipe")) {
		long period = num(argv[2], "period");
		long spread = argc == 7 ? num(argv[6], "spread") : 0;

		if (spread >= period) {
			fprintf(stderr, "benchtool: spread %ld us must be under the period (%ld us)\n",
				spread, period);
			return 2;
		}
		return do_pipe(period, num(argv[3], "seconds"), cpu_num(argv[4]),
			       cpu_num(argv[5]), spread);
	}
	fprintf(stderr, "usage: benchtool rtc RATE_HZ SECONDS | blk DEV PERIOD_US SECONDS | "
		"udprecv PORT[,PORT] SECONDS | pipe PERIOD_US SECONDS CPU_A CPU_B [SPREAD_US]\n");
	return 1;
}
