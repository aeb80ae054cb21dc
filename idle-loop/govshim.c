// SPDX-License-Identifier: GPL-2.0
/*
 * govshim.c: the kernel functions the cpuidle governors call, answered
 * from the trace being replayed (see govshim.h).  No governor logic here:
 * only the values the nohz code, the clock and PM QoS would return.
 */
#include <linux/types.h>
#include <linux/cpuidle.h>
#include <linux/tick.h>
#include <linux/sched/clock.h>
#include "govshim.h"

unsigned int shim_cpu;
long shim_tick_nsec = 4000000;	/* TICK_NSEC at HZ=250 */
struct gov_answers shim_answers;
struct cpuidle_governor *shim_governors[GOV_MAX];
int shim_nr_governors;

void *shim_percpu_last;
unsigned long shim_percpu_size;

void *shim_percpu_note(void *obj, unsigned long size)
{
	shim_percpu_last = obj;
	shim_percpu_size = size;
	return obj;
}

int cpuidle_register_governor(struct cpuidle_governor *gov)
{
	if (shim_nr_governors == GOV_MAX)
		return -1;
	shim_governors[shim_nr_governors++] = gov;
	return 0;
}

s64 cpuidle_governor_latency_req(unsigned int cpu)
{
	(void)cpu;
	return shim_answers.latency_req_ns;
}

ktime_t tick_nohz_get_sleep_length(ktime_t *delta_next)
{
	*delta_next = shim_answers.delta_next_ns;
	return shim_answers.sleep_length_ns;
}

bool tick_nohz_tick_stopped(void)
{
	return shim_answers.tick_stopped;
}

bool tick_nohz_idle_got_tick(void)
{
	bool got = shim_answers.got_tick;

	shim_answers.got_tick = false;
	return got;
}

u64 local_clock(void)
{
	return shim_answers.now_ns;
}
