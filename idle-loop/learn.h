/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A candidate rule under evaluation, not in the kernel yet: learn from the
 * idle periods that actually happened (teo's hits and intercepts, binned
 * on the states' target residencies, with the expected duration of the
 * scheduler's path as the reference instead of the sleep length).
 */
#ifndef IDLE_LOOP_LEARN_H
#define IDLE_LOOP_LEARN_H

#include <linux/cpuidle.h>

#define LEARN_PULSE		1024
#define LEARN_DECAY_SHIFT	3

struct learn_history {
	unsigned int hits[CPUIDLE_STATE_MAX];
	unsigned int intercepts[CPUIDLE_STATE_MAX];
};

void learn_reflect(struct cpuidle_driver *drv, struct learn_history *h,
		   u64 expected_ns, u64 actual_ns);
int learn_intercepted(struct cpuidle_driver *drv, struct cpuidle_device *dev,
		      const struct learn_history *h, int index,
		      u64 latency_req_ns, int teo_total);

#endif
