// SPDX-License-Identifier: GPL-2.0
/*
 * exact.c: the exact replay (the irq_predict trace events): the stamps the kernel's
 * predictor recorded, the interrupts it forgot and the questions it was
 * asked are fed to the same code; each answer and each chosen state is
 * compared with the traced one.
 *
 * Warm-up.  The kernel's table K has history from before the trace that
 * the replay's table R lacks.  A question counts ("warm") only when its
 * answer cannot depend on that history:
 *  - --from-boot: the trace holds every stamp since the first idle entry,
 *    so R = K from the start, source order included;
 *  - otherwise, per CPU, with N0 the time of its first traced question:
 *    every stamp K took before the trace is older than N0, so at the
 *    first question Q* with now - N0 > IRQ_PREDICT_RESET_NS every source
 *    K knows only from before the trace is dropped without predicting.
 *    Before Q*, K may also have held 16 sources and evicted (restarted)
 *    one R keeps, which nothing in the trace shows; so knowledge is only
 *    earned after Q*: a source R starts after Q* is new to K as well (K
 *    holds only sources R holds); a source that went silent for over
 *    IRQ_PREDICT_RESET_NS restarts in both; any other needs
 *    IRQ_PREDICT_WINDOW + 1 stamps after Q*, so that its whole window of
 *    intervals was taken after any restart in K.  A question is warm when
 *    every source of R is known.  R evicting a source (16 sources) may
 *    differ from K from then on: the CPU stays cold.  A lost-events
 *    marker starts the CPU over (empty R, cold).  Without --from-boot the
 *    sources' order in the table may differ from the kernel's, so when
 *    two sources predict the same time either interrupt number matches.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/minmax.h>
#include <linux/jiffies.h>
#include <linux/irq_predict.h>
#include "idle_select.h"
#include "util.h"
#include "states.h"
#include "exact.h"

struct src_info {
	u32 irq;
	u8 known;
	u8 post;		/* accepted stamps since Q*, saturating */
};

struct exact_cpu {
	struct irq_predict_cpu pc;
	int boot, started, past_reset, unsound;
	u64 n0;
	struct src_info *si;
	size_t nsi, capsi;
	/* the last question, for the sched_idle_select that follows it */
	int pend, pend_warm;
	u64 pend_irq_ns;
	bool pend_irregular;	/* irq_predict_irregular() of that answer */
	/*
	 * sched_idle_learn_from(): the history, known from boot or once
	 * HIST_WARM periods were learned from; the last choice's expected
	 * duration, for the learned_ns of the next sched_idle_select
	 */
	struct sched_idle_history hist;
	u64 hist_expected, hist_learned;
	int hist_pend, hist_lost;
};

/* Periods after which a history started empty is taken as the kernel's. */
#define HIST_WARM	64

static struct exact_cpu *ecpus[MAX_CPUS];
/* TICK_NSEC: --tick-period-ns, the --states file's hz, or HZ=250 */
#define tick_period_ns	((u64)TICK_NSEC)

static struct exact_cpu *ecpu_get(const struct exact *xs, u32 cpu)
{
	if (!ecpus[cpu]) {
		ecpus[cpu] = xcalloc(1, sizeof(*ecpus[cpu]));
		ecpus[cpu]->boot = xs->from_boot;
	}
	return ecpus[cpu];
}

static struct irq_source *src_find(struct irq_predict_cpu *pc, u32 irq)
{
	unsigned int i;

	for (i = 0; i < pc->nr_sources; i++)
		if (pc->sources[i].irq == irq)
			return &pc->sources[i];
	return NULL;
}

static struct src_info *info_get(struct exact_cpu *x, u32 irq)
{
	size_t i;

	for (i = 0; i < x->nsi; i++)
		if (x->si[i].irq == irq)
			return &x->si[i];
	x->si = grow(x->si, &x->capsi, x->nsi, sizeof(*x->si), 16);
	memset(&x->si[x->nsi], 0, sizeof(*x->si));
	x->si[x->nsi].irq = irq;
	return &x->si[x->nsi++];
}

static void exact_mismatch(struct exact *xs, const struct event *e, const char *fmt, ...)
{
	va_list ap;

	if (xs->first_line)
		return;
	xs->first_line = e->line;
	va_start(ap, fmt);
	vsnprintf(xs->first_why, sizeof(xs->first_why), fmt, ap);
	va_end(ap);
}

static void exact_stamp(struct exact_cpu *x, const struct event *e)
{
	struct irq_source *src = src_find(&x->pc, e->stamp.irq);
	struct src_info *si = info_get(x, e->stamp.irq);
	int full = x->pc.nr_sources == IRQ_PREDICT_SOURCES;
	u64 last = src ? src->last_ns : 0;

	if (e->stamp.restart)
		irq_predict_restart(&x->pc, e->stamp.irq, e->stamp.ts_ns);
	else
		irq_predict_record(&x->pc, e->stamp.irq, e->stamp.ts_ns);
	if (!src) {
		/* irq_source_start() */
		if (full && !x->boot)
			x->unsound = 1;
		si->known = x->boot || x->past_reset;
		si->post = x->past_reset;
		return;
	}
	if (e->stamp.ts_ns < last)
		return;			/* out of order: ignored by both */
	if (e->stamp.ts_ns - last > IRQ_PREDICT_RESET_NS)
		si->known = 1;		/* restarted by both */
	if (x->past_reset && si->post < 255)
		si->post++;
	if (si->post > IRQ_PREDICT_WINDOW)
		si->known = 1;
}

static int exact_all_known(struct exact_cpu *x)
{
	unsigned int i;

	for (i = 0; i < x->pc.nr_sources; i++)
		if (!info_get(x, x->pc.sources[i].irq)->known)
			return 0;
	return 1;
}

static void exact_next(struct exact *xs, struct exact_cpu *x, const struct event *e)
{
	const struct ev_next *q = &e->next;
	u64 now = q->now_ns, next;
	unsigned int irq = 0;
	int warm, ok;
	size_t i;

	if (!x->started) {
		x->started = 1;
		x->n0 = now;
	}
	if (!x->boot && !x->past_reset && now > x->n0 &&
	    now - x->n0 > IRQ_PREDICT_RESET_NS) {
		x->past_reset = 1;
		for (i = 0; i < x->nsi; i++)
			x->si[i].known = x->si[i].post = 0;
	}
	next = irq_predict_next(&x->pc, now, q->rule, &irq);
	warm = x->boot || (x->past_reset && !x->unsound && exact_all_known(x));
	ok = next == q->next_ns;
	if (ok && next != U64_MAX && irq != q->irq) {
		/* a tie: another source may come first in the kernel's table */
		struct irq_source *s = x->boot ? NULL : src_find(&x->pc, q->irq);

		ok = s && irq_source_predict(s, max(now, s->last_ns), q->rule) == next;
	}
	xs->records++;
	if (warm) {
		xs->warm++;
		xs->pred_match += ok;
		if (!ok)
			exact_mismatch(xs, e, "cpu %u now_ns=%" PRIu64 " rule=%d: replayed next_ns=%" PRId64
				       " irq=%u, traced next_ns=%" PRId64 " irq=%u",
				       e->cpu, now, q->rule,
				       next == U64_MAX ? -1 : (s64)next, irq,
				       q->next_ns == NO_TIME ? -1 : (s64)q->next_ns, q->irq);
	}
	x->pend = 1;
	x->pend_warm = warm;
	x->pend_irq_ns = next == U64_MAX ? U64_MAX : next - now;
	x->pend_irregular = irq_predict_irregular(&x->pc);
}

/*
 * kernel/sched/idle.c: sched_idle()'s choice for the tick state @tick,
 * completed for the restarted tick's traced first expiry when the choice
 * restarts it.  Returns false when the choice restarts the tick where
 * the kernel traced that it did not (restarted_ns=-1): @c is then the
 * choice before the restart, which no traced expiry completes.
 */
static bool exact_choose(const struct event *e, const struct sched_idle_wakeup *w0,
			 struct sched_idle_history *h, u64 lat, int tick,
			 struct sched_idle_choice *c)
{
	struct sched_idle_wakeup w = *w0;

	sched_idle_choose(&drv, &dev, &w, h, lat, tick_period_ns, tick, c);
	if (c->index < 0 || !c->restart_tick)
		return true;
	if (e->select.restarted_ns == NO_TIME) {
		/* a guess at an untraced tick state: not the kernel's choice */
		if (e->select.tick_stopped < 0) {
			c->index = -1;
			return true;
		}
		if (!e->select.restarted_traced)
			fail(e->line, "sched_idle_select restarted the tick without restarted_ns: too old for exact replay");
		return false;
	}
	sched_idle_tick_restarted(&drv, &dev, &w, lat, e->select.restarted_ns, c);
	return true;
}

/* kernel/sched/idle.c: sched_idle(), from the replayed prediction. */
static void exact_select(struct exact *xs, struct exact_cpu *x, const struct event *e)
{
	const struct ev_select *s = &e->select;
	struct sched_idle_history *h = xs->learn ? &x->hist : NULL;
	struct sched_idle_wakeup w = { 0 };
	struct sched_idle_choice c0, c1, *c = &c0;
	u64 lat = s->latency_req_ns;
	int index, stop, ok, hist_pend = x->hist_pend;
	bool restart_kept = false;	/* the replay restarts a tick the kernel did not */

	x->hist_pend = 0;
	if (s->learned_ns != NO_TIME) {
		if (hist_pend) {
			sched_idle_reflect(&drv, &x->hist, x->hist_expected, s->learned_ns);
			x->hist_learned++;
		} else {
			/* learned from a choice this trace did not replay */
			x->hist_learned = 0;
			x->hist_lost = 1;
		}
	}
	if (!x->pend) {
		xs->unpaired++;
		return;
	}
	x->pend = 0;
	if (s->delta_tick_ns == NO_TIME)
		fail(e->line, "sched_idle_select without delta_tick_ns: too old for exact replay");
	w.timer_ns = s->timer_ns;
	w.delta_tick_ns = s->delta_tick_ns;
	w.irq_ns = x->pend_irq_ns;
	w.irq_irregular = x->pend_irregular;
	sched_idle_wakeup_combine(&w);
	stop = s->stop_tick;
	if (s->tick_stopped >= 0) {
		restart_kept = !exact_choose(e, &w, h, lat, s->tick_stopped, &c0);
		ok = !restart_kept && c0.index >= 0 && stop == c0.stop_tick &&
		     c0.index == s->state;
		index = c0.index;
	} else {
		/* tick_nohz_tick_stopped() is not traced: either is possible */
		exact_choose(e, &w, h, lat, 0, &c0);
		exact_choose(e, &w, h, lat, 1, &c1);
		ok = c0.index >= 0 && stop == c0.stop_tick && c0.index == s->state;
		index = c0.index;
		if (!ok && c1.index >= 0 && stop == c1.stop_tick && c1.index == s->state) {
			ok = 1;
			index = c1.index;
			c = &c1;
		}
	}
	/*
	 * The kernel's expected duration is unknown when it kept the tick
	 * the replay restarts: the next learned_ns starts the history over.
	 */
	if (c->index >= 0 && !restart_kept) {
		x->hist_expected = c->expected_ns;
		x->hist_pend = 1;
	}
	ok = ok && w.irq_ns == s->irq_ns;
	if (!x->pend_warm ||
	    ((!xs->from_boot || x->hist_lost) && x->hist_learned < HIST_WARM))
		return;
	xs->states++;
	xs->state_match += ok;
	xs->intercepted += ok && c->intercepted;
	if (restart_kept)
		exact_mismatch(xs, e, "cpu %u: replayed irq_ns=%" PRId64 " restarts the stopped tick (state=%d before"
			       " the restart), traced restarted_ns=-1 (not restarted) state=%d stop_tick=%d",
			       e->cpu, w.irq_ns == U64_MAX ? -1 : (s64)w.irq_ns, index, s->state, stop);
	else if (!ok)
		exact_mismatch(xs, e, "cpu %u: replayed irq_ns=%" PRId64 " state=%d (stop_tick %s), traced irq_ns=%" PRId64
			       " state=%d stop_tick=%d",
			       e->cpu, w.irq_ns == U64_MAX ? -1 : (s64)w.irq_ns, index,
			       index < 0 ? "-" : "checked",
			       s->irq_ns == NO_TIME ? -1 : (s64)s->irq_ns, s->state, stop);
}

static void exact_lost(struct exact_cpu *x)
{
	struct src_info *si = x->si;
	size_t capsi = x->capsi;

	memset(x, 0, sizeof(*x));
	x->si = si;
	x->capsi = capsi;
}

/* Replay @tr's irq_predict events into @xs's counts, with @xs's options. */
void replay_exact(struct exact *xs, const struct trace *tr)
{
	size_t i;

	for (i = 0; i < tr->nev; i++) {
		const struct event *e = &tr->evs[i];

		switch (e->type) {
		case EV_STAMP:
			exact_stamp(ecpu_get(xs, e->cpu), e);
			break;
		case EV_FORGET:
			fail(e->line, "irq_predict_forget: a trace of a kernel that forgot moved interrupts, too old for exact replay");
			break;
		case EV_NEXT:
			exact_next(xs, ecpu_get(xs, e->cpu), e);
			break;
		case EV_SELECT:
			exact_select(xs, ecpu_get(xs, e->cpu), e);
			break;
		case EV_LOST:
			exact_lost(ecpu_get(xs, e->cpu));
			break;
		case EV_RING_LOST:
			if (e->ring_lost.first_ns == NO_TIME)
				fail(e->line, "irq_predict_lost without first_ns: too old for exact replay");
			irq_predict_lost(&ecpu_get(xs, e->cpu)->pc, e->ring_lost.first_ns);
			break;
		case EV_RESET: {
			struct exact_cpu *x = ecpu_get(xs, e->cpu);

			/* an empty table again: what follows is known, as from boot */
			irq_predict_reset(&x->pc);
			x->nsi = 0;
			x->boot = 1;
			x->unsound = 0;
			break;
		}
		}
	}
}
