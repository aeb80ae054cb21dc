/* SPDX-License-Identifier: GPL-2.0 */
/*
 * replay.h: what the parts of the replay share (README.md, "Files"):
 * the events the parser makes (parse.c), the emulated driver's states
 * (states.c), the timers reconstructed from the trace (timers.c), the
 * open-loop replay's per-CPU state and rows (replay.c), the exact replay
 * (exact.c) and the output (output.c).
 */
#ifndef _IDLE_LOOP_REPLAY_H
#define _IDLE_LOOP_REPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <linux/types.h>
#include <linux/limits.h>
#include <linux/cpuidle.h>
#include <linux/irq_predict.h>
#include "idle_select.h"
#include "govshim.h"

#define MAX_CPUS	4096
#define MAX_IRQ		(1U << 24)
/* Stamps past 2^62 ns (146 years) are refused as garbage. */
#define MAX_TIME_NS	(1ULL << 62)
#define NO_TIME		U64_MAX

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
 * it predicts: the rule of patch 13, before an irregular source whose
 * window repeats itself predicted the interval one window back).
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
	NR_RULES,
};

/*
 * Rows of the variant table: the prediction rules, then the governors
 * (in link order), then "kernel": the states the traced kernel entered.
 */
#define ROW_GOV		NR_RULES
#define ROW_KERNEL	(ROW_GOV + GOV_MAX)
#define NR_ROWS		(ROW_KERNEL + 1)

/* ------------------------------------------------------------------ */
/* Events (parse.c). */

enum ev_type {
	EV_IRQ, EV_ENTER, EV_EXIT, EV_SELECT,
	EV_HRT_START, EV_HRT_CANCEL, EV_HRT_EXPIRE,
	EV_STAMP, EV_FORGET, EV_NEXT, EV_LOST, EV_RING_LOST, EV_RESET,
	EV_WT_START, EV_WT_CANCEL, EV_WT_EXPIRE,
};

/* EV_IRQ (irq_handler_entry, native "irq"), EV_FORGET (irq_predict_forget) */
struct ev_irq {
	u32 irq;
};

/* EV_ENTER: power:cpu_idle entry, native "idle_enter" */
struct ev_enter {
	u64 timer_ns;		/* native: TIMER_NS, NO_TIME for - or not native */
	int state;		/* the state entered, -1 native (none traced) */
};

/* EV_SELECT: sched_idle:sched_idle_select (irq= is checked, not kept) */
struct ev_select {
	u64 timer_ns;
	u64 irq_ns;		/* NO_TIME for no prediction */
	u64 latency_req_ns;	/* 0 for a negative one */
	u64 delta_tick_ns;	/* NO_TIME when not traced */
	u64 learned_ns;		/* residency learned from, NO_TIME for none */
	int state;		/* the state the kernel chose */
	int stop_tick;		/* the kernel's tick decision */
	int tick_stopped;	/* tick stopped before, -1 not traced */
};

/* EV_HRT_START, EV_HRT_CANCEL, EV_HRT_EXPIRE: timer:hrtimer_* */
struct ev_hrt {
	u64 id;			/* hash of the printed address */
	u64 expires;		/* start: expires=, hrtimer clock */
	u64 now;		/* expire: now=, hrtimer clock */
	bool tick;		/* start, expire: the tick's sched_timer */
};

/* EV_STAMP: irq_predict_stamp */
struct ev_stamp {
	u32 irq;
	u64 ts_ns;
};

/* EV_NEXT: irq_predict_next */
struct ev_next {
	u64 now_ns;
	u64 next_ns;		/* NO_TIME for none (-1) */
	u32 irq;
	int rule;
};

/* EV_RING_LOST: irq_predict_lost (patch 6: the ring overflowed) */
struct ev_ring_lost {
	u64 stamps;
};

/* EV_RESET: irq_predict_reset (patch 6: too many forgets missed) */
struct ev_reset {
	u64 forgets;
};

/*
 * EV_WT_START, EV_WT_CANCEL, EV_WT_EXPIRE: timer:timer_* (the wheel).
 * now_j is jiffies at the event: expires - [timeout=N] for a start, now=
 * for an expiry, NO_TIME for a cancel.
 */
struct ev_wt {
	u64 id;			/* hash of the printed address */
	u64 bucket;		/* start: bucket_expiry, in jiffies */
	u64 now_j;
	bool deferrable;	/* start: flags has D */
};

/* One trace event: the type says which member of the union is set. */
struct event {
	u64 t;
	u32 cpu;
	u32 line;
	u8 type;		/* enum ev_type */
	union {
		struct ev_irq irq;		/* EV_IRQ */
		struct ev_enter enter;		/* EV_ENTER */
		struct ev_select select;	/* EV_SELECT */
		struct ev_hrt hrt;		/* EV_HRT_* */
		struct ev_stamp stamp;		/* EV_STAMP */
		struct ev_irq forget;		/* EV_FORGET */
		struct ev_next next;		/* EV_NEXT */
		struct ev_ring_lost ring_lost;	/* EV_RING_LOST */
		struct ev_reset reset;		/* EV_RESET */
		struct ev_wt wt;		/* EV_WT_* */
	};				/* EV_EXIT, EV_LOST: none */
};

extern struct event *evs;
extern size_t nev;
extern int native_format;		/* decided by the first event line */
extern int ignore_unknown, keep_timer_irqs;
extern int have_select, have_hrt, have_native_timer, have_predict, have_wheel;
extern const char *input_name;

void fail(unsigned long line, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), noreturn));
void *xcalloc(size_t n, size_t size);
void *grow(void *p, size_t *cap, size_t n, size_t size, size_t first);
int parse_u64(const char *s, size_t len, u64 *out);
void read_input(FILE *f);

/* ------------------------------------------------------------------ */
/*
 * The emulated driver's states (states.c): the cpuidle table every row
 * chooses from, and its energy model.
 */

extern struct cpuidle_driver drv;
extern struct cpuidle_device dev;
extern u64 poll_limit_ns;		/* cpuidle_poll_time() */

int states_setup(const char *spec);
void states_read(const char *path);
void states_setup_poll_limit(void);
const char *states_name(void);
bool states_have_power(void);
double state_energy_pj(int index, u64 halted_ns);
u64 state_halted_ns(int entered, u64 period_ns);
int states_min_energy(u64 halted_ns, u64 latency_req_ns);

/* ------------------------------------------------------------------ */
/* The open-loop replay (replay.c). */

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

/* kernel/irq/internals.h: IRQ_TIMINGS_SIZE, the per-CPU ring drained at idle entry. */
#define RING_SIZE	32

struct row_cpu {
	u64 periods, deep, shallow, seen, match;
	double energy, oracle_energy;
};

struct cpu_state {
	struct irq_predict_cpu pc[NR_RULES];
	u64 ring_t[RING_SIZE];
	u32 ring_irq[RING_SIZE];
	unsigned int ring_n, ring_head;
	/* the open idle period */
	int open;
	u64 enter_t, timer_ns, latency_req;
	u64 now_t;		/* when the inputs were read (sched_idle_select) */
	u64 delta_tick_ns;	/* traced, or NO_TIME: model it from --tick-ns */
	int stop_tick;		/* traced tick decision, or -1 */
	int sel_tick_stopped;	/* traced tick state at selection, or -1 */
	u64 irq_ns[NR_RULES];
	struct sched_idle_history hist[NR_RULES];
	int kernel_state;	/* from sched_idle_select, or -1 */
	int irq_during;
	/* the last sched_idle_select, waiting for its cpu_idle entry */
	int sel_valid;
	struct event sel;
	/* the governors: one cpuidle_device each, as the core has per CPU */
	struct cpuidle_device gdev[GOV_MAX];
	int gov_ready;
	int gchoice[GOV_MAX];
	/* each governor's per-CPU data, and a copy of it before select() */
	void *gdata[GOV_MAX];
	unsigned long gsize[GOV_MAX];
	u64 gsave[GOV_MAX][64];
	u64 gretried;		/* selections run again (nohz kept the tick) */
	u64 gentries;		/* idle entries replayed through them */
	int traced_state;	/* state the traced kernel entered, or -1 */
	u64 exit_t;		/* end of the previous idle period */
	/*
	 * The tick, from its sched_timer's hrtimer events (timers.c):
	 * stopped when cancelled or armed more than a tick period ahead (a
	 * running tick is re-armed to the next tick).  tick_stopped_before
	 * is the state before the last such event, at tick_ev_t.
	 */
	u64 tick_id, tick_ev_t;
	int tick_seen, tick_stopped, tick_stopped_before, tick_ev_stop;
	int tick_fired;		/* the tick expired in the open period */
	bool tick_stopped_sel;	/* tick_stopped_at_select() at the entry */
	u64 gsleep, gnext;	/* the governors' sleep length and next event */
	bool got_tick_unread[GOV_MAX];	/* set, not yet read by reflect() */
	struct row_cpu rc[NR_ROWS];
};

extern struct cpu_state *cpus[MAX_CPUS];
extern struct rule_stats stats[NR_ROWS];
extern int rule_on[NR_ROWS];
extern u64 tick_ns;
extern u64 unmatched_enter, unmatched_exit;
extern u64 gov_warmup;
extern int learn;
extern FILE *dump;

const char *row_name(int r);
int row_exists(int r);
struct cpu_state *cpu_get(u32 cpu);
void replay(void);

/* ------------------------------------------------------------------ */
/* Timers and the tick, reconstructed from the trace (timers.c). */

void timers_event(const struct event *e);
u64 hrt_next(u32 cpu, u64 now);
u64 hrt_next_ex(u32 cpu, u64 now, int no_tick);
u64 wheel_sleep(u32 cpu, u64 now, bool stopped, u64 sleep_hrt, u64 next);
bool tick_stopped_at_select(const struct cpu_state *c);
bool tick_got(const struct cpu_state *c, size_t i);
int woken_by_irq(size_t i);
u64 timer_by_lookahead(const struct event *e);

/* ------------------------------------------------------------------ */
/* The exact replay (exact.c). */

struct exact_stats {
	u64 records, warm, pred_match, states, state_match, unpaired, intercepted;
	u64 first_line;
	char first_why[200];
};

extern struct exact_stats xs;
extern int from_boot;

void replay_exact(void);

/* ------------------------------------------------------------------ */
/* Output (output.c). */

void print_exact(FILE *f);
void print_text(void);
void print_csv(void);

#endif
