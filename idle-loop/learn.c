// SPDX-License-Identifier: GPL-2.0
/* See learn.h: a candidate rule, evaluated in the replay only. */
#include "learn.h"

/* The bin of a duration: the deepest state whose target residency fits. */
static int learn_bin(struct cpuidle_driver *drv, u64 duration_ns)
{
	int i, bin = 0;

	for (i = 1; i < drv->state_count; i++)
		if (drv->states[i].target_residency_ns <= duration_ns)
			bin = i;
	return bin;
}

/* After an idle period: a hit in the expected bin, or an intercept. */
void learn_reflect(struct cpuidle_driver *drv, struct learn_history *h,
		   u64 expected_ns, u64 actual_ns)
{
	int expected = learn_bin(drv, expected_ns);
	int actual = learn_bin(drv, actual_ns);
	int i;

	for (i = 0; i < drv->state_count; i++) {
		h->hits[i] -= h->hits[i] >> LEARN_DECAY_SHIFT;
		h->intercepts[i] -= h->intercepts[i] >> LEARN_DECAY_SHIFT;
	}
	if (actual < expected)
		h->intercepts[actual] += LEARN_PULSE;
	else
		h->hits[expected] += LEARN_PULSE;
}

/*
 * When intercepts below @index outweigh the rest (all periods, or with
 * @teo_total the periods that did not hit below @index, as teo counts),
 * the deepest state that more than half of the intercepted periods
 * reached.
 */
int learn_intercepted(struct cpuidle_driver *drv, struct cpuidle_device *dev,
		      const struct learn_history *h, int index,
		      u64 latency_req_ns, int teo_total)
{
	unsigned int total = 0, below = 0, hits_below = 0, sum = 0;
	int i;

	for (i = 0; i < drv->state_count; i++) {
		total += h->hits[i] + h->intercepts[i];
		if (i < index) {
			below += h->intercepts[i];
			hits_below += h->hits[i];
		}
	}
	if (teo_total)
		total -= hits_below;
	if (2 * below <= total)
		return index;
	for (i = index - 1; i >= 0; i--) {
		sum += h->intercepts[i];
		if (2 * sum > below && !dev->states_usage[i].disable &&
		    drv->states[i].exit_latency_ns <= latency_req_ns)
			return i;
	}
	return index;
}
