// SPDX-License-Identifier: GPL-2.0
/*
 * replay.c: the approximate (open-loop) replay.  For each idle period of
 * the trace, every prediction rule goes through the kernel's predictor
 * (kernel/irq/predict.c) and state choice (kernel/sched/idle_select.c),
 * every governor (drivers/cpuidle/governors/menu.c, teo.c) is called as
 * the cpuidle core calls it, and each choice, like the traced kernel's,
 * is counted against two references that knew the actual idle period:
 * the fit (the deepest state whose target residency fits it: too deep,
 * too shallow, the confusion table) and the oracle (the state of least
 * energy for it: the energy).  The actual periods are the trace's,
 * whatever was chosen.  See README.md.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/minmax.h>
#include <linux/time.h>
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/irq_predict.h>
#include "idle_select.h"
#include "govshim.h"
#include "util.h"
#include "states.h"
#include "timers.h"
#include "replay.h"

/* kernel/irq/internals.h: IRQ_TIMINGS_SIZE, the per-CPU ring drained at idle entry. */
#define RING_SIZE	32

/* One CPU of the open loop: what the kernel and the cpuidle core keep per CPU. */
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
	u64 restarted_ns;	/* traced first expiry of a restarted tick */
	u64 irq_ns[NR_RULES];
	bool irq_irregular[NR_RULES];	/* irq_predict_irregular() of each */
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
	/* the idle loop as the trace shows it (idle_loop_event()) */
	u64 idle_entrytime;	/* its last interrupt in the idle task, NO_TIME: none */
	bool loop_left;		/* a task ran since the last exit */
	bool resched_known;	/* the last exit's need-resched flag was traced */
	u64 quiet_since;	/* the last exit, or the CPU's last event after it */
	bool got_idle_tick;	/* ts->got_idle_tick: the tick ran in the idle loop */
	size_t tick_read_upto;	/* ticks up to this event were read by a reflect() */
	int tick_stopped_sel;	/* enum sched_idle_tick at the entry */
	u64 gsleep, gnext;	/* the governors' sleep length and next event */
	struct row_cpu rc[NR_ROWS];
};

static const char *const rule_names[NR_RULES] = {
	[RULE_TIMER] = "timer",
	[RULE_LAST] = "last",
	[RULE_RFC] = "rfc",
	[RULE_ADAPTIVE] = "adaptive",
	[RULE_ENERGY] = "energy",
	[RULE_DMEDIAN] = "dmedian",
	[RULE_HYBRID] = "hybrid",
	[RULE_RMEAN] = "rmean",
	[RULE_NORING] = "noring",
	[RULE_COND] = "cond",
};

const char *row_name(int r)
{
	if (r < ROW_GOV)
		return rule_names[r];
	if (r < ROW_KERNEL)
		return shim_governors[r - ROW_GOV]->name;
	return "kernel";
}

/* Whether row @r is printed for @tr: a native trace has no kernel row (no state). */
int row_exists(const struct trace *tr, int r)
{
	if (r >= ROW_GOV && r < ROW_KERNEL)
		return r - ROW_GOV < shim_nr_governors;
	if (r == ROW_KERNEL)
		return !tr->native;
	return 1;
}

static struct cpu_state *cpu_get(struct replay *rp, u32 cpu)
{
	if (!rp->cpus[cpu]) {
		rp->cpus[cpu] = xcalloc(1, sizeof(*rp->cpus[cpu]));
		rp->cpus[cpu]->idle_entrytime = NO_TIME;
	}
	return rp->cpus[cpu];
}

/* Row @r's counts on @cpu, NULL when the CPU has no event. */
const struct row_cpu *replay_row_cpu(const struct replay *rp, u32 cpu, int r)
{
	return rp->cpus[cpu] ? &rp->cpus[cpu]->rc[r] : NULL;
}

/*
 * The last interval repeats: the rule the kernel had before one rule was
 * kept there.  The sources the kernel's predictor drops (silent too long,
 * stamped ahead of "now") are dropped first by asking it.
 */
static u64 predict_last(struct irq_predict_cpu *pc, u64 now, unsigned int *irq)
{
	u64 best = U64_MAX;
	unsigned int i;

	/* only to drop the stale sources, as the kernel would: not its irq */
	irq_predict_next(pc, now, IRQ_PREDICT_ADAPTIVE, irq);
	*irq = 0;
	for (i = 0; i < pc->nr_sources; i++) {
		const struct irq_source *s = &pc->sources[i];
		u64 next;

		if (!s->nr_intervals)
			continue;
		next = s->last_ns + s->interval_ns[(s->next + IRQ_PREDICT_WINDOW - 1) %
						   IRQ_PREDICT_WINDOW];
		if (next > now && next < best) {
			best = next;
			*irq = s->irq;
		}
	}
	return best;
}

/*
 * "rmean": irq_predict_next()'s adaptive rule, except that an irregular
 * device source predicts the mean of its intervals longer than its silence
 * so far, when it has any (the wakeup source keeps its adaptive point).
 */
static u64 predict_rmean(struct irq_predict_cpu *pc, u64 now, unsigned int *irq)
{
	u64 best = U64_MAX;
	unsigned int i, j;

	*irq = 0;
	for (i = 0; i < pc->nr_sources; i++) {
		const struct irq_source *s = &pc->sources[i];
		u64 el, sum = 0, next;
		unsigned int n = 0;

		if (s->last_ns > now || !s->nr_intervals)
			continue;
		next = irq_source_predict(s, now, IRQ_PREDICT_ADAPTIVE);
		if (!s->regular && s->irq != IRQ_PREDICT_WAKEUP) {
			el = now - s->last_ns;
			for (j = 0; j < s->nr_intervals; j++)
				if (s->sorted_ns[j] >= el) {
					sum += s->sorted_ns[j];
					n++;
				}
			if (n)
				next = s->last_ns + sum / n;
		}
		if (next != U64_MAX && next < best) {
			best = next;
			*irq = s->irq;
		}
	}
	return best;
}

/*
 * "noring": the adaptive rule with no source's window repeating itself;
 * the bits and the flag counted from them are cleared in the rule's own
 * table just before it predicts (the flag alone decides, and would
 * otherwise stay set until the source's next interval).
 */
static u64 predict_noring(struct irq_predict_cpu *pc, u64 now, unsigned int *irq)
{
	unsigned int i;

	for (i = 0; i < pc->nr_sources; i++) {
		pc->sources[i].repeats = 0;
		pc->sources[i].repeating = false;
	}
	return irq_predict_next(pc, now, IRQ_PREDICT_ADAPTIVE, irq);
}

static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return (x > y) - (x < y);
}

/*
 * "cond": an irregular device source with a full window predicts from the
 * intervals that followed one of the same class as its last (short: at
 * most the window's median), those still possible: their upper quarter
 * (the sorted candidates' element at three quarters); the adaptive point
 * when there is none, and for every other source.
 */
static u64 predict_cond(struct irq_predict_cpu *pc, u64 now, unsigned int *irq)
{
	const unsigned int w = IRQ_PREDICT_WINDOW;
	u64 best = U64_MAX;
	unsigned int i, k;

	/* only to drop the stale sources, as the kernel would: not its irq */
	irq_predict_next(pc, now, IRQ_PREDICT_ADAPTIVE, irq);
	*irq = 0;
	for (i = 0; i < pc->nr_sources; i++) {
		const struct irq_source *s = &pc->sources[i];
		u64 next, el, c[IRQ_PREDICT_WINDOW];
		unsigned int m = 0;
		u32 thr, last;

		if (s->last_ns > now || !s->nr_intervals)
			continue;
		next = irq_source_predict(s, now, IRQ_PREDICT_ADAPTIVE);
		if (!s->regular && s->irq != IRQ_PREDICT_WAKEUP && s->nr_intervals == w) {
			thr = s->sorted_ns[w / 2];
			el = now - s->last_ns;
			last = s->interval_ns[(s->next + w - 1) % w];
			/* the interval of age k + 1 was followed by that of age k */
			for (k = 0; k + 1 < w; k++) {
				u32 prev = s->interval_ns[(s->next + 2 * w - 2 - k) % w];
				u32 nx = s->interval_ns[(s->next + w - 1 - k) % w];

				if ((prev <= thr) == (last <= thr) && nx >= el)
					c[m++] = nx;
			}
			qsort(c, m, sizeof(*c), cmp_u64);
			if (m)
				next = s->last_ns + c[(3 * m) / 4];
		}
		if (next != U64_MAX && next < best) {
			best = next;
			*irq = s->irq;
		}
	}
	return best;
}

/* irq_predict_next() for a rule of the variant table. */
static u64 rule_predict(struct irq_predict_cpu *pc, int r, u64 now, unsigned int *irq)
{
	switch (r) {
	case RULE_TIMER:
		return U64_MAX;
	case RULE_LAST:
		return predict_last(pc, now, irq);
	case RULE_RFC:
		return irq_predict_next(pc, now, IRQ_PREDICT_RFC, irq);
	case RULE_RMEAN:
		return predict_rmean(pc, now, irq);
	case RULE_NORING:
		return predict_noring(pc, now, irq);
	case RULE_COND:
		return predict_cond(pc, now, irq);
#ifdef REPLAY_BUSTED
	case RULE_ADAPTIVE:	/* make control: the series' rule blind to interrupts */
		return U64_MAX;
#endif
	case RULE_ENERGY:	/* its point, for the error columns; energy_irq_ns() decides */
	case RULE_DMEDIAN:
	case RULE_HYBRID:
	default:
		return irq_predict_next(pc, now, IRQ_PREDICT_ADAPTIVE, irq);
	}
}

/*
 * The "energy" candidate.  Each source's window says when it may come
 * back: each of its intervals longer than its silence so far, equally
 * likely (a source silent past all of them contributes its adaptive
 * point, or nothing).  Taken as independent, with the timer as a
 * certainty, they give the distribution of the idle period D; the state
 * is the one of least expected energy under the driver's model
 * (state_energy_pj()).  It enters sched_idle_choose() as the duration
 * that picks that state, so that the tick and learning stay the same.
 */
#define ENERGY_MAX_POINTS	(IRQ_PREDICT_SOURCES * IRQ_PREDICT_WINDOW + 1)

/*
 * energy_irq_ns() modes: the state of least expected energy, the median
 * of D, or the former only when an irregular source is in the race
 * (*point is then set when none is: the caller keeps its adaptive point).
 */
enum { D_ENERGY, D_MEDIAN, D_HYBRID };

static u64 energy_irq_ns(struct irq_predict_cpu *pc, u64 now, u64 timer_ns,
			 u64 latency_req, int mode, int *point)
{
	int irregular = 0;
	int median_only = mode == D_MEDIAN;
	u64 first = U64_MAX;

	u64 pts[ENERGY_MAX_POINTS], arr[IRQ_PREDICT_SOURCES][IRQ_PREDICT_WINDOW];
	unsigned int m[IRQ_PREDICT_SOURCES], np = 0, ns = 0, i, j, k;
	double best_e = 0, prev_s = 1, e[CPUIDLE_STATE_MAX] = { 0 };
	int best = -1, st, med = -1;
	u64 median = U64_MAX;

	for (i = 0; i < pc->nr_sources; i++) {
		const struct irq_source *src = &pc->sources[i];
		u64 el;

		if (src->last_ns > now || !src->nr_intervals)
			continue;
		if (mode == D_HYBRID) {
			/* the source that the adaptive point comes from decides */
			u64 next = irq_source_predict(src, now, IRQ_PREDICT_ADAPTIVE);

			/*
			 * the wakeups nothing announced (IPIs) keep their
			 * point: energy over them cost more energy on ipi
			 */
			if (next != U64_MAX && next < first) {
				first = next;
				irregular = !src->regular &&
					    src->irq != IRQ_PREDICT_WAKEUP;
			}
		}
		el = now - src->last_ns;
		m[ns] = 0;
		for (j = 0; j < src->nr_intervals; j++)
			if (src->sorted_ns[j] >= el)
				arr[ns][m[ns]++] = src->last_ns + src->sorted_ns[j] - now;
		if (!m[ns]) {
			u64 next = irq_source_predict(src, now, IRQ_PREDICT_ADAPTIVE);

			if (next == U64_MAX)
				continue;
			arr[ns][m[ns]++] = next - now;
		}
		for (j = 0; j < m[ns]; j++)
			if (arr[ns][j] < timer_ns)
				pts[np++] = arr[ns][j];
		ns++;
	}
	if (mode == D_HYBRID && !irregular) {
		*point = 1;
		return U64_MAX;
	}
	if (!ns)
		return U64_MAX;
	if (timer_ns != NO_TIME)
		pts[np++] = timer_ns;
	qsort(pts, np, sizeof(*pts), cmp_u64);
	for (k = 0; k < np && prev_s > 0; k++) {
		double s = 1, p;

		if (k && pts[k] == pts[k - 1])
			continue;
		/* S(t): every source still silent after pts[k] */
		if (pts[k] < timer_ns)
			for (i = 0; i < ns; i++) {
				unsigned int later = 0;

				for (j = 0; j < m[i]; j++)
					later += arr[i][j] > pts[k];
				s *= (double)later / m[i];
			}
		else
			s = 0;
		p = prev_s - s;
		if (median == U64_MAX && s <= 0.5)
			median = pts[k];
		for (st = 0; st < drv.state_count; st++)
			e[st] += p * state_energy_pj(st, pts[k]);
		prev_s = s;
	}
	for (st = 0; st < drv.state_count; st++) {
		if (dev.states_usage[st].disable ||
		    drv.states[st].exit_latency_ns > latency_req)
			continue;
		if (best < 0 || e[st] < best_e) {
			best = st;
			best_e = e[st];
		}
	}
	if (best < 0 || median == U64_MAX || median_only)
		return median;
	/* The duration that picks @best: the median, moved into its bin. */
	med = sched_idle_select_state(&drv, &dev, median, latency_req);
	if (med == best)
		return median;
	if (med > best)
		for (st = best + 1; st < drv.state_count; st++)
			if (drv.states[st].target_residency_ns > drv.states[best].target_residency_ns)
				return drv.states[st].target_residency_ns - 1;
	return drv.states[best].target_residency_ns;
}

static ktime_t to_ktime(u64 ns)
{
	return ns > (u64)KTIME_MAX ? KTIME_MAX : (ktime_t)ns;
}

/* Time from @t to the next tick of the --tick-ns grid, U64_MAX for none. */
static u64 tick_grid_next(const struct replay *rp, u64 t)
{
	return rp->tick_ns ? rp->tick_ns - t % rp->tick_ns : U64_MAX;
}

/*
 * ts->idle_entrytime at a select() at @now (kernel/time/tick-sched.c):
 * set when the idle loop starts (tick_nohz_idle_enter()) and at the end
 * of each interrupt in it (tick_nohz_irq_exit()); the time
 * tick_nohz_get_sleep_length() counts from.  Started again since the
 * last exit (a task ran: need-resched traced at the exit, an event of
 * another task, or a silence a task explains), the loop started just
 * before @now; otherwise its last interrupt.
 */
static u64 idle_entrytime(const struct cpu_state *c, u64 now)
{
	if (c->loop_left || (!c->resched_known && now - c->quiet_since > IDLE_PATH_NS) ||
	    c->idle_entrytime == NO_TIME || c->idle_entrytime > now)
		return now;
	return c->idle_entrytime;
}

/*
 * cpuidle_select() for every governor, with what the nohz code would have
 * answered at entry event @e (prediction time @now): the sleep length is
 * the next timer other than the tick, the next event the tick's or an
 * earlier timer's (tick_nohz_get_sleep_length()).
 */
static void gov_select(struct replay *rp, const struct trace *tr,
		       struct cpu_state *c, const struct event *e, u64 now)
{
	struct cpuidle_device gsave_dev;
	u64 sleep, next;
	bool stopped = false, kept = false;
	int g;

	if (c->kernel_state >= 0 || tr->native) {
		/* sched_idle_select's timer_ns, or the native trace's */
		sleep = c->timer_ns;
		next = c->delta_tick_ns != NO_TIME ? c->delta_tick_ns :
		       min(sleep, tick_grid_next(rp, e->t));
	} else if (tr->have_hrt) {
		u64 since = idle_entrytime(c, now);

		sleep = hrt_next_ex(e->cpu, since, 1);
		next = clockevent_next(e->cpu, now, since);
		stopped = tick_stopped_at_select(e->cpu, c->exit_t);
		if (tr->have_wheel)
			sleep = wheel_sleep(e->cpu, now, since, stopped, sleep, next);
		kept = tick_kept_at_select(e->cpu, c->exit_t);
	} else {
		sleep = timer_by_lookahead(tr, e);
		next = min(sleep, tick_grid_next(rp, e->t));
	}
	c->traced_state = e->enter.state;
	c->gentries++;
	c->tick_stopped_sel = stopped;
	c->gsleep = sleep;
	c->gnext = next;
	for (g = 0; g < shim_nr_governors; g++) {
		struct cpuidle_device *d = &c->gdev[g];
		bool stop_tick = true;

		if (!rp->rule_on[ROW_GOV + g])
			continue;
		shim_cpu = e->cpu;
		if (!c->gov_ready) {
			/* cpuidle_enable_device() */
			memcpy(d->states_usage, dev.states_usage, sizeof(d->states_usage));
			d->cpu = e->cpu;
			shim_percpu_last = NULL;
			shim_governors[g]->enable(&drv, d);
			if (shim_percpu_last && shim_percpu_size <= sizeof(c->gsave[g])) {
				c->gdata[g] = shim_percpu_last;
				c->gsize[g] = shim_percpu_size;
			}
		}
		if (c->gdata[g]) {
			memcpy(c->gsave[g], c->gdata[g], c->gsize[g]);
			gsave_dev = *d;
		}
		shim_answers.now_ns = now;
		shim_answers.sleep_length_ns = to_ktime(sleep);
		shim_answers.delta_next_ns = to_ktime(next);
		shim_answers.tick_stopped = stopped;
		/* no PM QoS request: min(S32_MAX, PM_QOS_CPU_LATENCY_DEFAULT_VALUE) us */
		shim_answers.latency_req_ns = c->latency_req == U64_MAX ?
			2000000000LL * NSEC_PER_USEC : (s64)min(c->latency_req, (u64)S64_MAX);
		c->gchoice[g] = shim_governors[g]->select(&drv, d, &stop_tick);
		/*
		 * The governor asked for the tick to be stopped and the trace
		 * shows it kept: the nohz code refused (RCU callbacks,
		 * irq_work, a timer within a tick: tick_nohz_next_event()
		 * returned 0), and then its sleep length was the next event,
		 * tick included.  Choose again from the same history with
		 * that answer.  (A governor that kept the tick itself cannot
		 * tell which answer it had: the first stands.)
		 */
		if (kept && stop_tick && c->gdata[g] && next < sleep) {
			memcpy(c->gdata[g], c->gsave[g], c->gsize[g]);
			*d = gsave_dev;
			shim_answers.sleep_length_ns = to_ktime(next);
			stop_tick = true;
			c->gchoice[g] = shim_governors[g]->select(&drv, d, &stop_tick);
			c->gretried++;
		}
	}
	c->gov_ready = 1;
}

static void idle_enter(struct replay *rp, const struct trace *tr,
		       const struct event *e)
{
	struct cpu_state *c = cpu_get(rp, e->cpu);
	u64 now = e->t;
	unsigned int i, k;
	int r;

	if (c->open) {
		if (tr->native)
			fail(e->line, "idle_enter on cpu %u already idle", e->cpu);
		rp->unmatched_enter++;
	}
	if (e->enter.state >= drv.state_count)
		fail(e->line, "idle state %d is not in the %s table (%d states): give the machine's own with --states",
		     e->enter.state, states_name(), drv.state_count);
	c->kernel_state = -1;
	c->latency_req = U64_MAX;
	c->timer_ns = e->enter.timer_ns;
	c->delta_tick_ns = NO_TIME;
	c->stop_tick = -1;
	c->sel_tick_stopped = -1;
	c->restarted_ns = NO_TIME;
	if (c->sel_valid) {
		const struct ev_select *s = &c->sel.select;

		/* The kernel predicted at the tracepoint, just before entry. */
		now = c->sel.t;
		c->timer_ns = s->timer_ns;
		c->latency_req = s->latency_req_ns;
		c->kernel_state = s->state;
		c->delta_tick_ns = s->delta_tick_ns;
		c->stop_tick = s->stop_tick;
		c->sel_tick_stopped = s->tick_stopped;
		c->restarted_ns = s->restarted_ns;
		c->sel_valid = 0;
	} else if (!tr->have_native_timer && tr->have_hrt) {
		c->timer_ns = hrt_next(e->cpu, now);
	}

	gov_select(rp, tr, c, e, now);
	if (c->sel_tick_stopped >= 0)
		c->tick_stopped_sel = c->sel_tick_stopped;

	/* irq_predict_next_event(): drain the ring, then predict. */
	for (r = 0; r < NR_RULES; r++) {
		unsigned int irq = 0;
		u64 next;

		if (!rp->rule_on[r])
			continue;
		for (i = 0; i < c->ring_n; i++) {
			k = (c->ring_head + RING_SIZE - c->ring_n + i) % RING_SIZE;
			/* the kernel's ring keeps 16 bits of the number */
			irq_predict_record(&c->pc[r],
					   c->ring_irq[k] & IRQ_PREDICT_IRQ_MASK,
					   c->ring_t[k]);
		}
		next = rule_predict(&c->pc[r], r, now, &irq);
		c->irq_ns[r] = next == U64_MAX ? U64_MAX : next - now;
		c->irq_irregular[r] = irq_predict_irregular(&c->pc[r]);
	}
	c->ring_n = 0;
	c->open = 1;
	c->now_t = now;
	c->enter_t = e->t;
	c->irq_during = 0;
}

static void record_err(struct rule_stats *s, double err)
{
	s->err = grow(s->err, &s->errcap, s->nerr, sizeof(*s->err), 4096);
	s->err[s->nerr++] = err;
}

/* An idle period as every row is counted against it. */
struct period {
	u64 actual;	/* entry to exit, as traced */
	u64 halted;	/* state_halted_ns(): what every state is charged for */
	int fit;	/* the deepest usable state whose residency fits @actual */
	int oracle;	/* the usable state of least energy for @halted */
};

/* Row @r chose @index for the idle period @pd. */
static void count_row(struct replay *rp, struct cpu_state *c, int r, int index,
		      const struct period *pd)
{
	struct rule_stats *s = &rp->stats[r];
	struct row_cpu *p = &c->rc[r];

	s->periods++;
	s->confusion[index][pd->fit]++;
	s->energy += state_energy_pj(index, pd->halted);
	s->oracle_energy += state_energy_pj(pd->oracle, pd->halted);
	p->periods++;
	p->deep += index > pd->fit;
	p->shallow += index < pd->fit;
	p->energy += state_energy_pj(index, pd->halted);
	p->oracle_energy += state_energy_pj(pd->oracle, pd->halted);
}

/* Row @r chose @index where the traced kernel chose @kernel. */
static void count_kernel(struct replay *rp, struct cpu_state *c, int r, int index,
			 int kernel)
{
	rp->stats[r].kernel_seen++;
	rp->stats[r].kernel_match += index == kernel;
	c->rc[r].seen++;
	c->rc[r].match += index == kernel;
}

/*
 * cpuidle_reflect() for every governor at the exit event @idx, after
 * cpuidle_enter_state() measured the residency; the state entered is the
 * traced kernel's (the residency is that state's), or the governor's own
 * choice when the trace has none.  Then the governors' and the traced
 * kernel's choices are counted against the fit and the oracle.
 */
static void gov_exit(struct replay *rp, const struct trace *tr,
		     struct cpu_state *c, size_t idx, const struct period *pd)
{
	u64 actual = pd->actual;
	const struct event *e = &tr->evs[idx];
	/*
	 * tick_nohz_idle_got_tick(): the tick ran in the idle loop since the
	 * last reflect(), or ran right after the exit, before this one
	 */
	size_t after = tick_expired_after(tr, idx);
	bool got = c->got_idle_tick || after;
	int g;

	if (after && after > c->tick_read_upto)
		c->tick_read_upto = after;
	c->got_idle_tick = false;

	for (g = 0; g < shim_nr_governors; g++) {
		struct cpuidle_device *d = &c->gdev[g];
		int entered = c->traced_state >= 0 ? c->traced_state : c->gchoice[g];

		if (!rp->rule_on[ROW_GOV + g] || !c->gov_ready)
			continue;
		d->last_residency_ns = (s64)min(actual, (u64)S64_MAX);
		/* poll_idle(): polling ends at cpuidle_poll_time() */
		if (drv.states[entered].flags & CPUIDLE_FLAG_POLLING)
			d->poll_time_limit = actual > poll_limit_ns;
		shim_cpu = e->cpu;
		shim_answers.now_ns = e->t;
		shim_answers.got_tick = got;
		shim_governors[g]->reflect(d, entered);
		if (pd->fit < 0 || c->gchoice[g] < 0)
			continue;
		count_row(rp, c, ROW_GOV + g, c->gchoice[g], pd);
		if (c->traced_state >= 0 && c->gentries > rp->gov_warmup)
			count_kernel(rp, c, ROW_GOV + g, c->gchoice[g], c->traced_state);
		if (rp->dump)
			fprintf(rp->dump, "%s %u %" PRIu64 " -1 %" PRIu64 " %" PRId64 " %" PRId64
				" %d %d\n", row_name(ROW_GOV + g), e->cpu, c->enter_t, actual,
				c->gsleep == NO_TIME ? -1 : (s64)c->gsleep,
				c->gnext == NO_TIME ? -1 : (s64)c->gnext,
				c->gchoice[g], pd->fit);
	}
	if (!rp->rule_on[ROW_KERNEL] || c->traced_state < 0 || pd->fit < 0)
		return;
	count_row(rp, c, ROW_KERNEL, c->traced_state, pd);
	if (rp->dump)
		fprintf(rp->dump, "kernel %u %" PRIu64 " -1 %" PRIu64 " -1 %d %d %d\n",
			e->cpu, c->enter_t, actual, c->tick_stopped_sel,
			c->traced_state, pd->fit);
}

static void idle_exit(struct replay *rp, const struct trace *tr, size_t idx)
{
	const struct event *e = &tr->evs[idx];
	struct cpu_state *c = cpu_get(rp, e->cpu);
	struct sched_idle_choice ch;
	struct period pd;
	u64 actual, timer_ns, learned;
	int r, stamped;

	if (!c->open) {
		if (tr->native)
			fail(e->line, "idle_exit on cpu %u not idle", e->cpu);
		rp->unmatched_exit++;
		return;
	}
	c->open = 0;
	c->exit_t = e->t;
	actual = e->t - c->enter_t;
	/*
	 * A halting state ends with an interrupt, whose exit sets
	 * ts->idle_entrytime (tick_nohz_irq_exit()); it came in when the
	 * halt ended, the exit latency before the traced exit
	 * (state_halted_ns()).  Polling ends with no interrupt.
	 */
	if (c->traced_state >= 0 &&
	    !(drv.states[c->traced_state].flags & CPUIDLE_FLAG_POLLING)) {
		u64 woke = c->enter_t + state_halted_ns(c->traced_state, actual);

		if (c->idle_entrytime == NO_TIME || c->idle_entrytime < woke)
			c->idle_entrytime = woke;
	}
	c->loop_left = e->resched == RESCHED_SET;
	c->resched_known = e->resched != RESCHED_UNKNOWN;
	c->quiet_since = e->t;
	timer_ns = c->timer_ns;
	/* No timer input at all: a wakeup by no interrupt was the timer. */
	if (timer_ns == NO_TIME && !tr->have_select && !tr->have_hrt &&
	    !tr->have_native_timer && !c->irq_during && !woken_by_irq(tr, idx))
		timer_ns = actual;

	/* the kernel's ring holds a stamp since the entry (irq_predict_wakeup()) */
	stamped = c->irq_during || woken_by_irq(tr, idx);
	pd.actual = actual;
	pd.fit = sched_idle_select_state(&drv, &dev, actual, c->latency_req);
	pd.halted = state_halted_ns(c->traced_state, actual);
	pd.oracle = states_min_energy(pd.halted, c->latency_req);
	gov_exit(rp, tr, c, idx, &pd);
	for (r = 0; r < NR_RULES; r++) {
		struct rule_stats *s = &rp->stats[r];
		struct sched_idle_wakeup w = { 0 };
		int index;

		if (!rp->rule_on[r])
			continue;
		w.timer_ns = timer_ns;
		w.irq_ns = c->irq_ns[r];
		w.irq_irregular = c->irq_irregular[r];
		if (((r == RULE_ENERGY || r == RULE_HYBRID) && states_have_power()) ||
		    r == RULE_DMEDIAN) {
			int point = 0;
			u64 d = energy_irq_ns(&c->pc[r], c->now_t, timer_ns, c->latency_req,
					      r == RULE_DMEDIAN ? D_MEDIAN :
					      r == RULE_HYBRID ? D_HYBRID : D_ENERGY, &point);

			if (!point)
				w.irq_ns = d;
		}
		if (c->delta_tick_ns != NO_TIME)
			w.delta_tick_ns = c->delta_tick_ns;
		else
			w.delta_tick_ns = tick_grid_next(rp, c->enter_t);
		/*
		 * kernel/sched/idle.c: sched_idle(); whether the tick was
		 * stopped already is traced, or known from its hrtimer
		 * events, else it is taken to run.  The tick decision needs
		 * the tick period even when the tick's phase is not modelled
		 * (with 0, every duration would stop the tick).
		 */
		sched_idle_wakeup_combine(&w);
		sched_idle_choose(&drv, &dev, &w, rp->learn ? &c->hist[r] : NULL,
				  c->latency_req, rp->tick_ns ? rp->tick_ns : (u64)TICK_NSEC,
				  c->tick_stopped_sel, &ch);
		/* the restarted tick: traced, or the next of the grid */
		if (ch.index >= 0 && ch.restart_tick)
			sched_idle_tick_restarted(&drv, &dev, &w, c->latency_req,
						  c->restarted_ns != NO_TIME ? c->restarted_ns :
						  rp->tick_ns ? tick_grid_next(rp, c->enter_t) :
						  (u64)TICK_NSEC, &ch);
		index = ch.index;
		/* sched_idle_learn_from(), with the traced idle duration */
		if (rp->learn && index >= 0) {
			learned = sched_idle_learned_ns(&drv, index, actual,
							actual > poll_limit_ns,
							ch.expected_ns);
			sched_idle_reflect(&drv, &c->hist[r], ch.expected_ns,
					   learned);
			if (!stamped &&
			    !sched_idle_poll_gave_up(&drv, index,
						     actual > poll_limit_ns) &&
			    sched_idle_woken_early(&drv, &w, &ch, learned))
				irq_predict_record(&c->pc[r], IRQ_PREDICT_WAKEUP,
						   c->now_t + actual);
		}
		if (index < 0 || pd.fit < 0)
			continue;
		count_row(rp, c, r, index, &pd);
		if (w.duration_ns == U64_MAX)
			s->nopred++;
		else
			record_err(s, (double)w.duration_ns - (double)actual);
		if (c->kernel_state >= 0)
			count_kernel(rp, c, r, index, c->kernel_state);
		if (rp->dump)
			fprintf(rp->dump, "%s %u %" PRIu64 " %" PRId64 " %" PRIu64
				" %" PRId64 " %" PRId64 " %d %d\n",
				row_name(r), e->cpu, c->enter_t,
				w.duration_ns == U64_MAX ? -1 : (s64)w.duration_ns,
				actual,
				timer_ns == NO_TIME ? -1 : (s64)timer_ns,
				w.irq_ns == U64_MAX ? -1 : (s64)w.irq_ns,
				index, pd.fit);
	}
}

/*
 * What event @i says of its CPU's idle loop (kernel/time/tick-sched.c,
 * idle_entrytime()): an event of the idle task, but for the tick's
 * hrtimer started or cancelled right before an entry (the stop after
 * select()), comes from an interrupt in the loop, whose end sets
 * ts->idle_entrytime; one of another task means the loop was left.  The
 * tick's handler in the idle task sets ts->got_idle_tick
 * (tick_sched_do_timer()); without the task (native format), a tick
 * that expired in an idle period is taken to have.
 */
static void idle_loop_event(struct replay *rp, const struct trace *tr, size_t i)
{
	const struct event *e = &tr->evs[i];
	struct cpu_state *c;

	switch (e->type) {
	case EV_IRQ:
	case EV_HRT_START:
	case EV_HRT_CANCEL:
	case EV_HRT_EXPIRE:
	case EV_WT_START:
	case EV_WT_CANCEL:
	case EV_WT_EXPIRE:
		break;
	default:
		return;
	}
	c = cpu_get(rp, e->cpu);
	if (e->type == EV_HRT_EXPIRE && e->hrt.tick && i > c->tick_read_upto &&
	    (e->ctx == CTX_IDLE || (e->ctx == CTX_UNKNOWN && c->open)))
		c->got_idle_tick = true;
	if (e->ctx == CTX_UNKNOWN || tick_stop_event(tr, i))
		return;
	if (!c->open)
		c->quiet_since = e->t;
	if (e->ctx == CTX_TASK)
		c->loop_left = true;
	else
		c->idle_entrytime = e->t;
}

/* Replay @tr open loop into @rp's counts, with @rp's options. */
void replay_open_loop(struct replay *rp, const struct trace *tr)
{
	size_t i;

	timers_setup(tr);
	for (i = 0; i < tr->nev; i++) {
		const struct event *e = &tr->evs[i];
		struct cpu_state *c;

		idle_loop_event(rp, tr, i);
		switch (e->type) {
		case EV_IRQ:
			c = cpu_get(rp, e->cpu);
			c->ring_t[c->ring_head] = e->t;
			c->ring_irq[c->ring_head] = e->irq.irq;
			c->ring_head = (c->ring_head + 1) % RING_SIZE;
			if (c->ring_n < RING_SIZE)
				c->ring_n++;
			if (c->open)
				c->irq_during = 1;
			break;
		case EV_ENTER:
			idle_enter(rp, tr, e);
			break;
		case EV_EXIT:
			idle_exit(rp, tr, i);
			break;
		case EV_SELECT:
			c = cpu_get(rp, e->cpu);
			c->sel = *e;
			c->sel_valid = 1;
			break;
		case EV_HRT_EXPIRE:
		case EV_HRT_START:
		case EV_HRT_CANCEL:
		case EV_WT_START:
		case EV_WT_CANCEL:
		case EV_WT_EXPIRE:
			timers_event(tr, i);
			break;
		}
	}
	rp->hrt_lost = timers_lost();
}
