// SPDX-License-Identifier: GPL-2.0
/*
 * timers.c: what the nohz code knew at each idle entry, reconstructed
 * from the trace's timer events (README.md, "The governors"): the
 * hrtimers pending on each CPU (timer:hrtimer_*) and the clock event
 * device they program, the timer wheel's (timer:timer_*) with jiffies
 * mapped to the trace clock, the tick's own hrtimer (stopped or running,
 * fired or not), and, with no timer event at all, the timer taken from
 * the idle periods no interrupt ended.
 */
#include <stdio.h>
#include <stdlib.h>

#include <linux/minmax.h>
#include <linux/jiffies.h>
#include "util.h"
#include "timers.h"

#define MAX_PENDING_HRT	65536
/* An interrupt this close after an idle exit is the one that woke the CPU. */
#define WAKE_SLACK_NS	20000

struct pending_hrt {
	u64 id, expires;
	u32 cpu;
	int tick;		/* the CPU's tick (sched_timer) */
	int lazy;		/* the hrtick: HRTIMER_MODE_LAZY_REARM */
	int lost_end;		/* no expiry or cancel of it follows in the trace */
};

static struct pending_hrt *hrt;
static size_t nhrt;
static s64 hrt_offset;		/* hrtimer clock minus trace clock */

/*
 * An hrtimer start that no expiry or cancel of the same timer follows
 * before its next start or the end of the trace (an event lost: seen in
 * recordings of real machines) would leave the timer due, its CPU's next
 * timer "now", until then.  timers_setup() marks those starts; such a
 * timer expires at its due time, counted in hrt_lost.  Started again
 * before its due time, it is replaced as any re-armed timer (a re-arm is
 * traced as a start alone by kernels whose hrtimer_start has was_armed=).
 */
static const struct event *evs0;
static bool *lost_end;
static u64 hrt_lost;

struct hrt_ref {
	u64 id;
	size_t i;
};

static int hrt_ref_cmp(const void *a, const void *b)
{
	const struct hrt_ref *x = a, *y = b;

	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

void timers_setup(const struct trace *tr)
{
	struct hrt_ref *r;
	size_t i, n = 0;

	evs0 = tr->evs;
	lost_end = xcalloc(tr->nev + 1, sizeof(*lost_end));
	r = xcalloc(tr->nev + 1, sizeof(*r));
	for (i = 0; i < tr->nev; i++) {
		enum ev_type t = tr->evs[i].type;

		if (t == EV_HRT_START || t == EV_HRT_EXPIRE || t == EV_HRT_CANCEL) {
			r[n].id = tr->evs[i].hrt.id;
			r[n++].i = i;
		}
	}
	qsort(r, n, sizeof(*r), hrt_ref_cmp);
	for (i = 0; i < n; i++)
		if (tr->evs[r[i].i].type == EV_HRT_START &&
		    (i + 1 == n || r[i + 1].id != r[i].id ||
		     tr->evs[r[i + 1].i].type == EV_HRT_START))
			lost_end[r[i].i] = true;
	free(r);
}

u64 timers_lost(void)
{
	return hrt_lost;
}

/* Removes the pending hrtimer @id; whether it was lazy (the hrtick). */
static int hrt_remove(u64 id)
{
	size_t i;
	int lazy;

	for (i = 0; i < nhrt; i++) {
		if (hrt[i].id == id) {
			lazy = hrt[i].lazy;
			hrt[i] = hrt[--nhrt];
			return lazy;
		}
	}
	return 0;
}

/*
 * Each CPU's clock event device: the time it is programmed for,
 * dev->next_event, which tick_nohz_get_sleep_length() answers as
 * *delta_next (kernel/time/tick-sched.c), and which is the earliest
 * pending hrtimer but where the kernel leaves it behind
 * (kernel/time/hrtimer.c): cpu_base->expires_next and next_timer are
 * set when a start comes earlier (hrtimer_reprogram()), and computed
 * again from the queue (hrtimer_force_reprogram()) when the timer that
 * set them is cancelled or started again later, and when the device
 * fires (hrtimer_interrupt(), whose rearm at the end sees the timers
 * its callbacks started), whether a timer was due then or not.  A
 * timer set up with HRTIMER_MODE_LAZY_REARM, the scheduler's hrtick
 * (kernel/sched/core.c, hrtick_rq_init()), leaves the device as it is
 * when it is cancelled or moved later (__remove_hrtimer(),
 * hrtimer_start_range_ns()): the device then still fires at its old
 * time, waking the CPU for nothing, and *delta_next counts to it.
 */
struct clockevent {
	s64 next;		/* trace clock, S64_MAX for none */
	u64 timer;		/* the hrtimer it was set for (next_timer) */
	bool known;		/* set since the trace began */
	bool fired;		/* it fired: set again once that interrupt ends */
};

static struct clockevent *ces[MAX_CPUS];

static struct clockevent *ce_get(u32 cpu)
{
	if (!ces[cpu])
		ces[cpu] = xcalloc(1, sizeof(*ces[cpu]));
	return ces[cpu];
}

/* hrtimer_force_reprogram(): the earliest hrtimer pending on @cpu. */
static void ce_reprogram(struct clockevent *ce, u32 cpu)
{
	size_t i;

	ce->next = S64_MAX;
	ce->timer = 0;
	for (i = 0; i < nhrt; i++) {
		s64 exp = (s64)hrt[i].expires - hrt_offset;

		if (hrt[i].cpu == cpu && exp < ce->next) {
			ce->next = exp;
			ce->timer = hrt[i].id;
		}
	}
	ce->known = true;
	ce->fired = false;
}

/* @cpu's device as of @t: fired since (its interrupt set it again), or unknown yet. */
static struct clockevent *ce_at(u32 cpu, u64 t)
{
	struct clockevent *ce = ce_get(cpu);

	if (!ce->known || ce->fired || ce->next <= (s64)t)
		ce_reprogram(ce, cpu);
	return ce;
}

static void hrt_start(const struct event *e)
{
	struct clockevent *ce = ce_at(e->cpu, e->t);
	s64 exp = (s64)e->hrt.expires - hrt_offset;
	bool was_first = ce->timer == e->hrt.id;

	hrt_remove(e->hrt.id);
	if (nhrt == MAX_PENDING_HRT)
		fail(e->line, "more than %d hrtimers pending", MAX_PENDING_HRT);
	if (!hrt)
		hrt = xcalloc(MAX_PENDING_HRT, sizeof(*hrt));
	hrt[nhrt].id = e->hrt.id;
	hrt[nhrt].expires = e->hrt.expires;
	hrt[nhrt].cpu = e->cpu;
	hrt[nhrt].tick = e->hrt.tick;
	hrt[nhrt].lazy = e->hrt.lazy;
	hrt[nhrt].lost_end = lost_end && lost_end[e - evs0];
	nhrt++;
	if (exp < ce->next) {
		ce->next = exp;
		ce->timer = e->hrt.id;
	} else if (was_first && !e->hrt.lazy) {
		ce_reprogram(ce, e->cpu);
	}
}

static void hrt_cancel(const struct event *e)
{
	struct clockevent *ce = ce_at(e->cpu, e->t);

	if (!hrt_remove(e->hrt.id) && ce->timer == e->hrt.id)
		ce_reprogram(ce, e->cpu);
}

/*
 * Timer-wheel timers (timer:timer_start): the nohz code's next event
 * counts them (tick_nohz_next_event()).  Jiffies are mapped to the trace
 * clock as jiffy J starting at jiffy_c + (J - jiffy_ref) * TICK_NSEC:
 * jiffies never run ahead of time, so every event that saw jiffies J at t
 * bounds jiffy_c from above, and the timer softirq's expiries, right
 * after the tick that advanced jiffies, make the bound tight.
 */
struct wheel_timer {
	u64 id, bucket;		/* bucket_expiry, in jiffies */
	u32 cpu;
};

static struct wheel_timer *wt;
static size_t nwt, wtcap;
static int jiffy_known;
static u64 jiffy_ref;
static s64 jiffy_c;

/* Jiffies this far from the first ones seen (years) are garbage: ignored. */
#define JIFFY_SPAN	(1LL << 31)

static int jiffy_rel(u64 j, s64 *rel)
{
	*rel = (s64)(j - jiffy_ref);
	return *rel > -JIFFY_SPAN && *rel < JIFFY_SPAN;
}

static void jiffy_seen(u64 t, u64 now_j)
{
	s64 c, rel;

	if (!jiffy_known) {
		jiffy_known = 1;
		jiffy_ref = now_j;
		jiffy_c = (s64)t;
		return;
	}
	if (!jiffy_rel(now_j, &rel))
		return;
	c = (s64)t - rel * TICK_NSEC;
	if (c < jiffy_c)
		jiffy_c = c;
}

static void wt_remove(u64 id)
{
	size_t i;

	for (i = 0; i < nwt; i++) {
		if (wt[i].id == id) {
			wt[i] = wt[--nwt];
			return;
		}
	}
}

static void wt_event(const struct event *e)
{
	if (e->wt.now_j != NO_TIME)
		jiffy_seen(e->t, e->wt.now_j);
	wt_remove(e->wt.id);
	/* deferrable timers do not end an idle period */
	if (e->type != EV_WT_START || e->wt.deferrable)
		return;
	if (nwt == MAX_PENDING_HRT)
		fail(e->line, "more than %d wheel timers pending", MAX_PENDING_HRT);
	wt = grow(wt, &wtcap, nwt, sizeof(*wt), 1024);
	wt[nwt].id = e->wt.id;
	wt[nwt].bucket = e->wt.bucket;
	wt[nwt].cpu = e->cpu;
	nwt++;
}

/*
 * tick_nohz_get_sleep_length() with the wheel: from the jiffy of @now,
 * the next wheel event on @cpu; within a tick with the tick running, the
 * nohz code keeps the tick and answers @next (the next tick or timer);
 * otherwise the earlier of the wheel event and @sleep_hrt (the next
 * hrtimer but the tick), counted from @from (ts->idle_entrytime, at or
 * before @now).  @sleep_hrt too until an event showed jiffies.
 */
u64 wheel_sleep(u32 cpu, u64 now, u64 from, bool stopped, u64 sleep_hrt, u64 next)
{
	s64 tick = TICK_NSEC, since = (s64)now - jiffy_c;
	s64 basej = since >= 0 ? since / tick : -((-since + tick - 1) / tick);
	s64 basemono = jiffy_c + basej * tick, best = S64_MAX, next_tick;
	size_t i;

	if (!jiffy_known)
		return sleep_hrt;
	for (i = 0; i < nwt; i++) {
		s64 j;

		if (wt[i].cpu == cpu && jiffy_rel(wt[i].bucket, &j) && j < best)
			best = j;
	}
	if (best == S64_MAX)
		return sleep_hrt;
	next_tick = best <= basej ? basemono : basemono + (best - basej) * tick;
	if (next_tick - basemono <= tick && !stopped)
		return next;
	if (next_tick <= (s64)from)
		return 0;
	return min((u64)(next_tick - (s64)from), sleep_hrt);
}

/*
 * Each CPU's tick, from its sched_timer's hrtimer events: stopped when
 * cancelled or armed more than a tick period ahead (a running tick is
 * re-armed to the next tick).  stopped_before is the state before the
 * last such event, at ev_t.
 */
struct tick_cpu {
	u64 id, ev_t;
	int seen, stopped, stopped_before, ev_stop;
};

static struct tick_cpu *ticks[MAX_CPUS];

static struct tick_cpu *tick_get(u32 cpu)
{
	if (!ticks[cpu])
		ticks[cpu] = xcalloc(1, sizeof(*ticks[cpu]));
	return ticks[cpu];
}

static void tick_event(struct tick_cpu *k, u64 t, int stopped)
{
	k->stopped_before = k->stopped;
	k->stopped = stopped;
	k->ev_stop = stopped;
	k->ev_t = t;
}

/*
 * The tick's sched_timer armed or cancelled on its CPU: stopped when
 * armed more than a tick ahead (a tick is first stopped only for an
 * event further than that: tick_nohz_next_event()), or by
 * tick_nohz_stop_tick() again (a tick already stopped is moved to the
 * next timer, within a tick or not), or cancelled.
 */
static void tick_hrt(const struct trace *tr, const struct event *e)
{
	struct tick_cpu *k = tick_get(e->cpu);
	s64 exp;

	if (e->type == EV_HRT_START && e->hrt.tick) {
		k->seen = 1;
		k->id = e->hrt.id;
		exp = (s64)e->hrt.expires - hrt_offset;
		tick_event(k, e->t, (exp > (s64)e->t && (u64)exp - e->t > (u64)TICK_NSEC) ||
				    (k->stopped && tick_stop_event(tr, e - tr->evs)));
	} else if (e->type == EV_HRT_CANCEL && k->seen && e->hrt.id == k->id) {
		tick_event(k, e->t, 1);
	}
}

/* @id is @cpu's tick hrtimer, as its starts named it. */
bool tick_is_hrt(u32 cpu, u64 id)
{
	const struct tick_cpu *k = ticks[cpu];

	return k && k->seen && k->id == id;
}

/*
 * tick_nohz_tick_stopped() when the governor chose the state of the
 * entry after the idle period that ended at @exit_t on @cpu.
 */
bool tick_stopped_at_select(u32 cpu, u64 exit_t)
{
	const struct tick_cpu *k = ticks[cpu];

	if (!k || !k->seen)
		return false;
	/* a stop since the last exit was this entry's own, after select() */
	if (k->ev_t > exit_t && k->ev_stop)
		return k->stopped_before;
	return k->stopped;
}

/*
 * The tick ran when the governor chose (as tick_stopped_at_select()) and
 * was not stopped after it: the nohz code kept it.
 */
bool tick_kept_at_select(u32 cpu, u64 exit_t)
{
	const struct tick_cpu *k = ticks[cpu];

	return k && k->seen && !tick_stopped_at_select(cpu, exit_t) &&
	       !(k->ev_t > exit_t && k->ev_stop);
}

/*
 * The tick expired on the CPU of the exit event @i in the interrupt
 * handling right after it, before the governor's reflect(), in the idle
 * task: tick_nohz_idle_got_tick() is true then as when it expired during
 * the period.  The last such expiry's event, 0 for none.
 */
size_t tick_expired_after(const struct trace *tr, size_t i)
{
	const struct event *evs = tr->evs, *x = &evs[i];
	size_t j, last = 0;

	for (j = i + 1; j < tr->nev && evs[j].t <= x->t + WAKE_SLACK_NS; j++) {
		if (evs[j].cpu != x->cpu)
			continue;
		if (evs[j].type == EV_HRT_EXPIRE && evs[j].hrt.tick &&
		    evs[j].ctx != CTX_TASK)
			last = j;
		if (evs[j].type == EV_ENTER)
			break;
	}
	return last;
}

/*
 * Event @i starts or cancels the tick's hrtimer in tick_nohz_stop_tick(),
 * called between the governor's select() and the idle entry
 * (tick_nohz_idle_stop_tick()): the next event of its CPU is that entry,
 * within IDLE_PATH_NS.  Not a start at the end of the tick's own handler
 * (the previous event its expiry), nor one restarting it when the idle
 * loop is left (tick_nohz_restart(), which cancels it first in 6.12; a
 * need-resched flag on the last exit shows the loop left).
 */
bool tick_stop_event(const struct trace *tr, size_t i)
{
	const struct event *evs = tr->evs, *x = &evs[i];
	bool prev = true;
	size_t j;

	if (!((x->type == EV_HRT_START && x->hrt.tick) ||
	      (x->type == EV_HRT_CANCEL && tick_is_hrt(x->cpu, x->hrt.id))))
		return false;
	for (j = i; j-- > 0;) {
		if (evs[j].cpu != x->cpu)
			continue;
		if (prev && (evs[j].type == EV_HRT_EXPIRE || evs[j].type == EV_HRT_CANCEL) &&
		    tick_is_hrt(x->cpu, evs[j].hrt.id))
			return false;
		if (evs[j].type == EV_EXIT) {
			if (evs[j].resched == RESCHED_SET)
				return false;
			break;
		}
		if (evs[j].type == EV_ENTER)
			break;
		prev = false;
	}
	for (j = i + 1; j < tr->nev && evs[j].t <= x->t + IDLE_PATH_NS; j++)
		if (evs[j].cpu == x->cpu)
			return evs[j].type == EV_ENTER;
	return false;
}

/* The timers whose end was lost and whose due time is past: expired. */
static void hrt_expire_lost(u64 now)
{
	size_t i = 0;

	while (i < nhrt) {
		if (hrt[i].lost_end && (s64)hrt[i].expires - hrt_offset <= (s64)now) {
			hrt[i] = hrt[--nhrt];
			hrt_lost++;
		} else {
			i++;
		}
	}
}

/*
 * Time from @now (trace clock) to the earliest hrtimer pending on @cpu,
 * the tick's left out with @no_tick.
 */
u64 hrt_next_ex(u32 cpu, u64 now, int no_tick)
{
	u64 best = NO_TIME;
	size_t i;

	hrt_expire_lost(now);
	for (i = 0; i < nhrt; i++) {
		s64 exp;

		if (hrt[i].cpu != cpu || (no_tick && hrt[i].tick))
			continue;
		exp = (s64)hrt[i].expires - hrt_offset;
		if (exp <= (s64)now)
			return 0;
		if ((u64)exp - now < best)
			best = (u64)exp - now;
	}
	return best;
}

u64 hrt_next(u32 cpu, u64 now)
{
	return hrt_next_ex(cpu, now, 0);
}

/*
 * *delta_next of tick_nohz_get_sleep_length() at @now: @cpu's clock
 * event device (struct clockevent) counted from @from, at or before
 * @now.
 */
u64 clockevent_next(u32 cpu, u64 now, u64 from)
{
	const struct clockevent *ce;

	hrt_expire_lost(now);
	ce = ce_at(cpu, now);
	if (ce->next == S64_MAX)
		return NO_TIME;
	return ce->next > (s64)from ? (u64)(ce->next - (s64)from) : 0;
}

/* Was the idle period ending at event @i ended by an interrupt of its CPU? */
int woken_by_irq(const struct trace *tr, size_t i)
{
	const struct event *evs = tr->evs, *x = &evs[i];
	size_t j;

	for (j = i + 1; j < tr->nev && evs[j].t <= x->t + WAKE_SLACK_NS; j++) {
		if (evs[j].cpu != x->cpu)
			continue;
		if (evs[j].type == EV_IRQ)
			return 1;
		if (evs[j].type == EV_ENTER)
			break;
	}
	return 0;
}

/*
 * No timer input in the trace: an idle period that no interrupt of its
 * CPU ended (none during it, none just after) is taken to have been ended
 * by its timer, as the rules' approximation does (idle_exit()); looked up
 * ahead here because the governors ask at entry.
 */
u64 timer_by_lookahead(const struct trace *tr, const struct event *e)
{
	const struct event *evs = tr->evs;
	size_t i;

	for (i = e - evs + 1; i < tr->nev; i++) {
		if (evs[i].cpu != e->cpu)
			continue;
		if (evs[i].type == EV_IRQ || evs[i].type == EV_ENTER)
			return NO_TIME;
		if (evs[i].type == EV_EXIT)
			return woken_by_irq(tr, i) ? NO_TIME : evs[i].t - e->t;
	}
	return NO_TIME;
}

/* The trace's hrtimer and timer-wheel events, in order: event @i of @tr. */
void timers_event(const struct trace *tr, size_t i)
{
	const struct event *e = &tr->evs[i];

	switch (e->type) {
	case EV_HRT_START:
		hrt_start(e);
		tick_hrt(tr, e);
		break;
	case EV_HRT_EXPIRE:
		/* now= is on the hrtimer clock: learn the offset. */
		hrt_offset = (s64)e->hrt.now - (s64)e->t;
		hrt_remove(e->hrt.id);
		ce_get(e->cpu)->fired = true;
		tick_hrt(tr, e);
		break;
	case EV_HRT_CANCEL:
		hrt_cancel(e);
		tick_hrt(tr, e);
		break;
	case EV_WT_START:
	case EV_WT_CANCEL:
	case EV_WT_EXPIRE:
		wt_event(e);
		break;
	}
}
