/* SPDX-License-Identifier: GPL-2.0 */
/*
 * replay.h: the approximate (open-loop) replay (replay.c): the rows of
 * the variant table, what each counts, and the run's options.
 */
#ifndef _IDLE_LOOP_REPLAY_H
#define _IDLE_LOOP_REPLAY_H

#include <stdbool.h>
#include <stdio.h>

#include <linux/types.h>
#include <linux/cpuidle.h>
#include "govshim.h"
#include "trace.h"

/*
 * The prediction rules of the variant table: two that only the replay
 * has (no interrupt prediction at all; the last interval repeats), the
 * kernel's (enum irq_predict_rule), which the replay calls, and two
 * candidates from the distribution of the idle period that the sources'
 * windows give (replay.c): "energy", the state of least expected energy,
 * "dmedian", the median of that distribution, and "hybrid": energy when
 * the source of the adaptive point is irregular, that point otherwise;
 * and "rmean": the adaptive rule, but an irregular device source predicts
 * the mean, not the median, of its intervals still possible (the mean
 * residual wait, which a long tail lengthens; the kernel could compute it
 * from the sorted window in the same loop); "noring": the adaptive rule
 * without its repeating windows (each source's repeat bits cleared before
 * it predicts: an irregular source never predicts the interval one
 * window back).
 */
enum replay_rule {
	RULE_TIMER,
	RULE_LAST,
	RULE_RFC,
	RULE_ADAPTIVE,
	RULE_ENERGY,
	RULE_DMEDIAN,
	RULE_HYBRID,
	RULE_RMEAN,
	RULE_NORING,
	RULE_COND,
	NR_RULES,
};

/*
 * Rows of the variant table: the prediction rules, then the governors
 * (in link order), then "kernel": the states the traced kernel entered.
 */
#define ROW_GOV		NR_RULES
#define ROW_KERNEL	(ROW_GOV + GOV_MAX)
#define NR_ROWS		(ROW_KERNEL + 1)

/*
 * A row's counts.  The fit is the deepest usable state whose target
 * residency fits the actual period (sched_idle_select_state() given it):
 * the reference of the confusion table and of too deep / too shallow.
 * The oracle is the usable state of least energy for the period's halted
 * time (states_min_energy()): the reference of the energy.
 */
struct rule_stats {
	u64 periods, nopred, kernel_seen, kernel_match;
	u64 confusion[CPUIDLE_STATE_MAX][CPUIDLE_STATE_MAX];	/* [chosen][fit] */
	double energy, oracle_energy;
	double *err;		/* predicted - actual, ns */
	size_t nerr, errcap;
};

/* A row's counts on one CPU (the text output's per-CPU rows). */
struct row_cpu {
	u64 periods, deep, shallow, seen, match;
	double energy, oracle_energy;
};

/* replay.c's per-CPU state: the rules' tables, the ring, the open period */
struct cpu_state;

/* An open-loop run: its options (main.c sets them), then its counts. */
struct replay {
	int rule_on[NR_ROWS];	/* --rules: the rows replayed and printed */
	u64 tick_ns;		/* --tick-ns: the kept tick's grid, 0 for none */
	u64 gov_warmup;		/* --gov-warmup: entries per CPU not compared */
	bool learn;		/* false: --no-learn (sched_idle_learn=0) */
	FILE *dump;		/* --dump, or NULL */

	struct rule_stats stats[NR_ROWS];
	struct cpu_state *cpus[MAX_CPUS];
	u64 unmatched_enter, unmatched_exit;
	u64 hrt_lost;		/* hrtimers whose end was lost: expired when due */
};

const char *row_name(int r);
int row_exists(const struct trace *tr, int r);
const struct row_cpu *replay_row_cpu(const struct replay *rp, u32 cpu, int r);
void replay_open_loop(struct replay *rp, const struct trace *tr);

#endif
