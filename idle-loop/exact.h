/* SPDX-License-Identifier: GPL-2.0 */
/*
 * exact.h: the exact replay of the irq_predict events (exact.c): its
 * options and what it counted.
 */
#ifndef _IDLE_LOOP_EXACT_H
#define _IDLE_LOOP_EXACT_H

#include <stdbool.h>

#include <linux/types.h>
#include "trace.h"

/* An exact run: its options (main.c sets them), then its counts. */
struct exact {
	bool from_boot;		/* --from-boot: the trace starts at boot */
	bool learn;		/* false: --no-learn (sched_idle_learn=0) */

	u64 records, warm, pred_match, states, state_match, unpaired, intercepted;
	u64 first_line;		/* the first warm mismatch, 0 for none */
	char first_why[200];
};

void replay_exact(struct exact *xs, const struct trace *tr);

#endif
