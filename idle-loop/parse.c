// SPDX-License-Identifier: GPL-2.0
/*
 * parse.c: the trace reader.  Tokenizes each line and turns perf script,
 * ftrace / trace-cmd report text, or the native synthetic format (tests)
 * into struct trace (trace.h); every malformed input stops with
 * FILE:LINE: reason (README.md, "What it reads").
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/cpuidle.h>
#include <linux/irq_predict.h>
#include "util.h"
#include "parse.h"

/* The trace being read, with what only the reading needs. */
struct reader {
	struct trace *tr;
	const struct parse_opts *o;
	size_t evcap;
	u64 last_event_t;
	u8 ctx;			/* the task of the line being read (task_ctx()) */
	u8 resched;		/* its need-resched flag (resched_flag()) */
};

static int parse_s64(const char *s, size_t len, s64 *out)
{
	u64 v;
	int neg = len && s[0] == '-';

	if (parse_u64(s + neg, len - neg, &v))
		return -1;
	if (v > (u64)INT64_MAX)
		return -1;
	*out = neg ? -(s64)v : (s64)v;
	return 0;
}

/* "SECONDS.FRACTION" (perf script, ftrace) to ns; up to 9 digits of fraction. */
static int parse_stamp(const char *s, size_t len, u64 *out)
{
	const char *dot = memchr(s, '.', len);
	u64 sec, frac = 0;
	size_t flen, i;

	if (!dot)
		return -1;
	if (parse_u64(s, dot - s, &sec))
		return -1;
	flen = len - (dot - s) - 1;
	if (!flen || flen > 9 || parse_u64(dot + 1, flen, &frac))
		return -1;
	for (i = flen; i < 9; i++)
		frac *= 10;
	if (sec > MAX_TIME_NS / 1000000000ULL)
		return -1;
	*out = sec * 1000000000ULL + frac;
	return 0;
}

struct tok {
	const char *s;
	size_t len;
};

#define MAX_TOKS 64

static int tokenize(char *line, struct tok *t)
{
	int n = 0;
	char *p = line;

	while (*p) {
		while (*p && isspace((unsigned char)*p))
			p++;
		if (!*p)
			break;
		if (n == MAX_TOKS)
			return -1;
		t[n].s = p;
		while (*p && !isspace((unsigned char)*p))
			p++;
		t[n].len = p - t[n].s;
		n++;
	}
	return n;
}

static int tok_is(const struct tok *t, const char *word)
{
	return t->len == strlen(word) && !memcmp(t->s, word, t->len);
}

/* Value of KEY=VALUE among the argument tokens, or NULL. */
static const struct tok *arg(const struct tok *t, int n, const char *key,
			     struct tok *val)
{
	size_t kl = strlen(key);
	int i;

	for (i = 0; i < n; i++) {
		if (t[i].len > kl && t[i].s[kl] == '=' &&
		    !memcmp(t[i].s, key, kl)) {
			val->s = t[i].s + kl + 1;
			val->len = t[i].len - kl - 1;
			return val;
		}
	}
	return NULL;
}

/* The number of key=, which the event must have: a fatal error if not. */
static u64 arg_num(unsigned long ln, const struct tok *t, int n,
		   const char *key, bool is_signed)
{
	struct tok v;
	u64 x = 0;
	s64 y = 0;

	if (!arg(t, n, key, &v))
		fail(ln, "missing %s=", key);
	if (is_signed ? parse_s64(v.s, v.len, &y) : parse_u64(v.s, v.len, &x))
		fail(ln, "bad %s=%.*s", key, (int)v.len, v.s);
	return is_signed ? (u64)y : x;
}

static u64 arg_u64(unsigned long ln, const struct tok *t, int n, const char *key)
{
	return arg_num(ln, t, n, key, false);
}

static s64 arg_s64(unsigned long ln, const struct tok *t, int n, const char *key)
{
	return (s64)arg_num(ln, t, n, key, true);
}

/* function= of an hrtimer event names the tick's (tick_sched_timer before 6.10). */
static int is_tick_timer(const struct tok *a, int na)
{
	struct tok fn;

	return arg(a, na, "function", &fn) &&
	       (tok_is(&fn, "tick_nohz_handler") || tok_is(&fn, "tick_sched_timer"));
}

/* function= of an hrtimer_start names the scheduler's hrtick. */
static int is_hrtick(const struct tok *a, int na)
{
	struct tok fn;

	return arg(a, na, "function", &fn) && tok_is(&fn, "hrtick");
}

/*
 * %p before the kernel's pointer-hashing key exists (a guest without
 * entropy never gets one) prints one placeholder for every timer.
 */
static void check_hashed(unsigned long ln, const struct tok *h)
{
	if (h->len && h->s[0] == '(')
		fail(ln, "timer address printed as %.*s: every timer looks the same; "
		     "record with perf, or boot with no_hash_pointers", (int)h->len, h->s);
}

/* FNV-1a of an hrtimer's printed address: an id, not a pointer. */
static u64 hash_tok(const struct tok *t)
{
	u64 h = 1469598103934665603ULL;
	size_t i;

	for (i = 0; i < t->len; i++) {
		h ^= (unsigned char)t->s[i];
		h *= 1099511628211ULL;
	}
	return h;
}

static struct event *new_event(struct reader *rd, unsigned long ln, u64 t,
				u64 cpu, int type)
{
	struct trace *tr = rd->tr;
	u64 last_t = rd->last_event_t;
	struct event *e;

	if (t > MAX_TIME_NS)
		fail(ln, "timestamp %" PRIu64 " too large", t);
	if (cpu >= MAX_CPUS)
		fail(ln, "cpu %" PRIu64 " out of range (max %d)", cpu, MAX_CPUS - 1);
	if (tr->nev && t < last_t)
		fail(ln, "timestamp %" PRIu64 " goes backwards (previous %" PRIu64 ")",
		     t, last_t);
	if (ln > UINT32_MAX)
		fail(ln, "too many lines");
	rd->last_event_t = t;
	tr->evs = grow(tr->evs, &rd->evcap, tr->nev, sizeof(*tr->evs), 4096);
	e = &tr->evs[tr->nev++];
	memset(e, 0, sizeof(*e));
	e->t = t;
	e->cpu = cpu;
	e->type = type;
	e->ctx = rd->ctx;
	e->resched = rd->resched;
	e->line = ln;
	return e;
}

static void check_irq(unsigned long ln, u64 irq)
{
	if (irq >= MAX_IRQ)
		fail(ln, "irq %" PRIu64 " out of range", irq);
}

/* Native: "T_NS CPU irq N" | "T_NS CPU idle_enter TIMER_NS|-" | "T_NS CPU idle_exit" */
static int parse_native(struct reader *rd, unsigned long ln, struct tok *t, int n)
{
	u64 ts, cpu, x;
	struct event *e;

	if (n < 3 || parse_u64(t[0].s, t[0].len, &ts))
		return -1;
	if (parse_u64(t[1].s, t[1].len, &cpu))
		fail(ln, "bad cpu '%.*s'", (int)t[1].len, t[1].s);
	if (tok_is(&t[2], "irq")) {
		if (n != 4 || parse_u64(t[3].s, t[3].len, &x))
			fail(ln, "expected: T_NS CPU irq N");
		check_irq(ln, x);
		e = new_event(rd, ln, ts, cpu, EV_IRQ);
		e->irq.irq = x;
	} else if (tok_is(&t[2], "idle_enter")) {
		if (n != 4)
			fail(ln, "expected: T_NS CPU idle_enter TIMER_NS|-");
		if (tok_is(&t[3], "-")) {
			x = NO_TIME;
		} else {
			if (parse_u64(t[3].s, t[3].len, &x) || x > MAX_TIME_NS)
				fail(ln, "bad timer '%.*s'", (int)t[3].len, t[3].s);
			rd->tr->have_native_timer = true;
		}
		e = new_event(rd, ln, ts, cpu, EV_ENTER);
		e->enter.timer_ns = x;
		/* no entered state: the governors reflect their own */
		e->enter.state = -1;
	} else if (tok_is(&t[2], "idle_exit")) {
		if (n != 3)
			fail(ln, "expected: T_NS CPU idle_exit");
		new_event(rd, ln, ts, cpu, EV_EXIT);
	} else {
		fail(ln, "unknown event '%.*s'", (int)t[2].len, t[2].s);
	}
	return 0;
}

/*
 * The task an event ran in, from the field before [CPU]: perf script's
 * TID ("swapper 0", "COMM PID/TID") or ftrace's COMM-PID ("<idle>-0"):
 * TID 0 is the CPU's idle task.  CTX_UNKNOWN when that field is neither.
 */
static u8 task_ctx(const struct tok *t)
{
	size_t i = t->len;
	u64 pid;

	while (i && isdigit((unsigned char)t->s[i - 1]))
		i--;
	if (i == t->len || (i && t->s[i - 1] != '-' && t->s[i - 1] != '/') ||
	    parse_u64(t->s + i, t->len - i, &pid))
		return CTX_UNKNOWN;
	return pid ? CTX_TASK : CTX_IDLE;
}

/*
 * ftrace's latency flags ("dN.1."): the second is need-resched, set
 * with TIF_NEED_RESCHED ('N', 'n', 'B', 'b': trace_print_lat_fmt()).
 */
static u8 resched_flag(const struct tok *t)
{
	if (t->len < 4 || !strchr("dDb.", t->s[0]))
		return RESCHED_UNKNOWN;
	return strchr("NnBb", t->s[1]) ? RESCHED_SET : RESCHED_CLEAR;
}

/* One event line, as parse_trace() split it: its time, CPU and arguments. */
struct evline {
	unsigned long ln;
	u64 ts;
	u64 cpu;
	const struct tok *a;	/* the tokens after the event name */
	int na;
};

static void ev_irq_handler_entry(struct reader *rd, const struct evline *l)
{
	u64 irq = arg_u64(l->ln, l->a, l->na, "irq");
	struct tok name;
	struct event *e;

	check_irq(l->ln, irq);
	if (!arg(l->a, l->na, "name", &name))
		fail(l->ln, "truncated line: missing name=");
	/* Timer interrupts (IRQF_TIMER) never enter the kernel's ring. */
	if (!rd->o->keep_timer_irqs && memmem(name.s, name.len, "timer", 5))
		return;
	e = new_event(rd, l->ln, l->ts, l->cpu, EV_IRQ);
	e->irq.irq = irq;
}

static void ev_cpu_idle(struct reader *rd, const struct evline *l)
{
	u64 state = arg_u64(l->ln, l->a, l->na, "state");
	u64 id = arg_u64(l->ln, l->a, l->na, "cpu_id");
	struct event *e;

	if (state == 4294967295ULL || state == U64_MAX) {
		new_event(rd, l->ln, l->ts, id, EV_EXIT);
		return;
	}
	if (state >= CPUIDLE_STATE_MAX)
		fail(l->ln, "idle state %" PRIu64 " out of range", state);
	e = new_event(rd, l->ln, l->ts, id, EV_ENTER);
	e->enter.timer_ns = NO_TIME;
	e->enter.state = state;
}

static void ev_sched_idle_select(struct reader *rd, const struct evline *l)
{
	unsigned long ln = l->ln;
	const struct tok *a = l->a;
	int na = l->na;
	u64 c = arg_u64(ln, a, na, "cpu");
	u64 timer = arg_u64(ln, a, na, "timer_ns");
	s64 irq_ns = arg_s64(ln, a, na, "irq_ns");
	u64 irq = arg_u64(ln, a, na, "irq");
	s64 lat = arg_s64(ln, a, na, "latency_req_ns");
	s64 state = arg_s64(ln, a, na, "state");
	u64 stop = arg_u64(ln, a, na, "stop_tick");
	struct tok dt;
	u64 delta = NO_TIME, restarted = NO_TIME;
	bool restarted_traced = false;
	int stopped = -1;
	s64 learned = -1;
	struct event *e;

	/* delta_tick_ns: traced since the tracepoint's second version */
	if (arg(a, na, "delta_tick_ns", &dt) && parse_u64(dt.s, dt.len, &delta))
		fail(ln, "bad delta_tick_ns=%.*s", (int)dt.len, dt.s);
	/* tick_stopped, learned_ns: since the third */
	if (arg(a, na, "tick_stopped", &dt)) {
		u64 t = arg_u64(ln, a, na, "tick_stopped");

		if (t > 2)
			fail(ln, "tick_stopped=%" PRIu64 " out of range", t);
		stopped = (int)t;
		learned = arg_s64(ln, a, na, "learned_ns");
	}
	/* restarted_ns: since the fourth */
	if (arg(a, na, "restarted_ns", &dt)) {
		s64 r = arg_s64(ln, a, na, "restarted_ns");

		restarted = r < 0 ? NO_TIME : (u64)r;
		restarted_traced = true;
	}
	check_irq(ln, irq);
	if (state < -1000 || state >= CPUIDLE_STATE_MAX)
		fail(ln, "state %" PRId64 " out of range", state);
	e = new_event(rd, ln, l->ts, c, EV_SELECT);
	e->select.timer_ns = timer;
	e->select.irq_ns = irq_ns < 0 ? NO_TIME : (u64)irq_ns;
	e->select.latency_req_ns = lat < 0 ? 0 : (u64)lat;
	e->select.delta_tick_ns = delta;
	e->select.stop_tick = stop != 0;
	e->select.tick_stopped = stopped;
	e->select.restarted_ns = restarted;
	e->select.restarted_traced = restarted_traced;
	e->select.learned_ns = learned < 0 ? NO_TIME : (u64)learned;
	e->select.state = state;
	rd->tr->have_select = true;
}

/* The timer's address (KEY=, hrtimer= or timer=), checked for a hashed %p. */
static void timer_addr(const struct evline *l, const char *key, struct tok *h)
{
	if (!arg(l->a, l->na, key, h))
		fail(l->ln, "truncated line: missing %s=", key);
	check_hashed(l->ln, h);
}

/* A time argument: a fatal error when missing or beyond the trace's range. */
static u64 arg_time(const struct evline *l, const char *key)
{
	u64 t = arg_u64(l->ln, l->a, l->na, key);

	if (t > MAX_TIME_NS)
		fail(l->ln, "%s=%" PRIu64 " too large", key, t);
	return t;
}

/* An hrtimer event of kind @kind, for the timer the line names. */
static struct event *hrt_event(struct reader *rd, const struct evline *l,
			       int kind)
{
	struct tok h;
	struct event *e;

	timer_addr(l, "hrtimer", &h);
	e = new_event(rd, l->ln, l->ts, l->cpu, kind);
	e->hrt.id = hash_tok(&h);
	rd->tr->have_hrt = true;
	return e;
}

static void ev_hrtimer_start(struct reader *rd, const struct evline *l)
{
	struct event *e = hrt_event(rd, l, EV_HRT_START);

	e->hrt.tick = is_tick_timer(l->a, l->na);
	e->hrt.lazy = is_hrtick(l->a, l->na);
	e->hrt.expires = arg_time(l, "expires");
}

static void ev_hrtimer_cancel(struct reader *rd, const struct evline *l)
{
	hrt_event(rd, l, EV_HRT_CANCEL);
}

static void ev_hrtimer_expire_entry(struct reader *rd, const struct evline *l)
{
	struct event *e = hrt_event(rd, l, EV_HRT_EXPIRE);

	e->hrt.tick = is_tick_timer(l->a, l->na);
	e->hrt.now = arg_time(l, "now");
}

/* irq_predict_stamp and irq_predict_restart: a stamp, restarting or not */
static void predict_stamp(struct reader *rd, const struct evline *l, bool restart)
{
	u64 irq = arg_u64(l->ln, l->a, l->na, "irq");
	struct event *e;

	check_irq(l->ln, irq);
	e = new_event(rd, l->ln, l->ts, l->cpu, EV_STAMP);
	e->stamp.irq = irq;
	e->stamp.restart = restart;
	e->stamp.ts_ns = arg_time(l, "ts_ns");
	rd->tr->have_predict = true;
}

static void ev_irq_predict_stamp(struct reader *rd, const struct evline *l)
{
	predict_stamp(rd, l, false);
}

static void ev_irq_predict_restart(struct reader *rd, const struct evline *l)
{
	predict_stamp(rd, l, true);
}

static void ev_irq_predict_forget(struct reader *rd, const struct evline *l)
{
	u64 irq = arg_u64(l->ln, l->a, l->na, "irq");
	struct event *e;

	check_irq(l->ln, irq);
	e = new_event(rd, l->ln, l->ts, l->cpu, EV_FORGET);
	e->forget.irq = irq;
	rd->tr->have_predict = true;
}

/* the ring overflowed before this drain */
static void ev_irq_predict_lost(struct reader *rd, const struct evline *l)
{
	struct tok f;
	struct event *e;

	e = new_event(rd, l->ln, l->ts, l->cpu, EV_RING_LOST);
	e->ring_lost.stamps = arg_u64(l->ln, l->a, l->na, "stamps");
	e->ring_lost.first_ns = arg(l->a, l->na, "first_ns", &f) ?
				arg_u64(l->ln, l->a, l->na, "first_ns") : NO_TIME;
	rd->tr->have_predict = true;
}

/* stamping was turned on again: the table starts over */
static void ev_irq_predict_reset(struct reader *rd, const struct evline *l)
{
	struct tok f;
	struct event *e;

	e = new_event(rd, l->ln, l->ts, l->cpu, EV_RESET);
	e->reset.epoch = arg(l->a, l->na, "epoch", &f) ?
			 arg_u64(l->ln, l->a, l->na, "epoch") :
			 arg_u64(l->ln, l->a, l->na, "forgets");
	rd->tr->have_predict = true;
}

static void ev_irq_predict_next(struct reader *rd, const struct evline *l)
{
	unsigned long ln = l->ln;
	u64 now = arg_u64(ln, l->a, l->na, "now_ns");
	s64 next = arg_s64(ln, l->a, l->na, "next_ns");
	u64 irq = arg_u64(ln, l->a, l->na, "irq");
	s64 rule = arg_s64(ln, l->a, l->na, "rule");
	struct event *e;

	check_irq(ln, irq);
	if (now > MAX_TIME_NS)
		fail(ln, "now_ns=%" PRIu64 " too large", now);
	if (next < -1 || next > (s64)MAX_TIME_NS)
		fail(ln, "next_ns=%" PRId64 " out of range", next);
	if (rule < 0 || rule >= IRQ_PREDICT_NR_RULES)
		fail(ln, "rule=%" PRId64 " out of range", rule);
	e = new_event(rd, ln, l->ts, l->cpu, EV_NEXT);
	e->next.now_ns = now;
	e->next.next_ns = next < 0 ? NO_TIME : (u64)next;
	e->next.irq = irq;
	e->next.rule = rule;
	rd->tr->have_predict = true;
}

/*
 * A timer-wheel timer: its base's CPU, the jiffy its bucket expires at,
 * jiffies now (expires - [timeout=N]), deferrable.
 */
static void ev_timer_start(struct reader *rd, const struct evline *l)
{
	unsigned long ln = l->ln;
	const struct tok *a = l->a;
	int na = l->na;
	struct tok h, fl;
	s64 timeout = 0;
	u64 wcpu = arg_u64(ln, a, na, "cpu");
	struct event *e;
	int k;

	timer_addr(l, "timer", &h);
	for (k = 0; k < na; k++)
		if (a[k].len > 10 && !memcmp(a[k].s, "[timeout=", 9) &&
		    a[k].s[a[k].len - 1] == ']')
			break;
	if (k == na || parse_s64(a[k].s + 9, a[k].len - 10, &timeout))
		fail(ln, "missing or bad [timeout=N]");
	e = new_event(rd, ln, l->ts, wcpu, EV_WT_START);
	/* queued on another CPU's wheel: not that CPU's task */
	if (wcpu != l->cpu)
		e->ctx = CTX_UNKNOWN;
	e->wt.id = hash_tok(&h);
	e->wt.bucket = arg_u64(ln, a, na, "bucket_expiry");
	e->wt.now_j = arg_u64(ln, a, na, "expires") - timeout;
	e->wt.deferrable = arg(a, na, "flags", &fl) && memchr(fl.s, 'D', fl.len);
	rd->tr->have_wheel = true;
}

/* timer_cancel and timer_expire_entry (with the jiffies it ran at) */
static void timer_end(struct reader *rd, const struct evline *l, bool expire)
{
	struct tok h;
	struct event *e;

	timer_addr(l, "timer", &h);
	e = new_event(rd, l->ln, l->ts, l->cpu, expire ? EV_WT_EXPIRE : EV_WT_CANCEL);
	e->wt.id = hash_tok(&h);
	e->wt.now_j = expire ? arg_u64(l->ln, l->a, l->na, "now") : NO_TIME;
}

static void ev_timer_cancel(struct reader *rd, const struct evline *l)
{
	timer_end(rd, l, false);
}

static void ev_timer_expire_entry(struct reader *rd, const struct evline *l)
{
	timer_end(rd, l, true);
}

/*
 * The events read (README.md, "What it reads"), by name without the
 * subsystem; those without a handler are skipped.
 */
static const struct {
	const char *name;
	void (*parse)(struct reader *rd, const struct evline *l);
} events[] = {
	{ "irq_handler_entry",		ev_irq_handler_entry },
	{ "cpu_idle",			ev_cpu_idle },
	{ "sched_idle_select",		ev_sched_idle_select },
	{ "hrtimer_start",		ev_hrtimer_start },
	{ "hrtimer_cancel",		ev_hrtimer_cancel },
	{ "hrtimer_expire_entry",	ev_hrtimer_expire_entry },
	{ "irq_predict_stamp",		ev_irq_predict_stamp },
	{ "irq_predict_restart",	ev_irq_predict_restart },
	{ "irq_predict_forget",		ev_irq_predict_forget },
	{ "irq_predict_lost",		ev_irq_predict_lost },
	{ "irq_predict_reset",		ev_irq_predict_reset },
	{ "irq_predict_next",		ev_irq_predict_next },
	{ "timer_start",		ev_timer_start },
	{ "timer_cancel",		ev_timer_cancel },
	{ "timer_expire_entry",		ev_timer_expire_entry },
	{ "irq_handler_exit",		NULL },
	{ "hrtimer_init",		NULL },
	{ "hrtimer_expire_exit",	NULL },
	{ "timer_init",			NULL },
	{ "timer_expire_exit",		NULL },
};

/*
 * perf script / ftrace / trace-cmd report:
 *   COMM-PID [CPU] [FLAGS] SECONDS.FRACTION: [PERIOD] [SUBSYS:]EVENT: ARGS
 */
static void parse_trace(struct reader *rd, unsigned long ln, struct tok *t, int n)
{
	int i, ci = -1, ti = -1, ei = -1;
	struct evline l = { .ln = ln };
	struct tok ev;
	const char *colon;
	size_t k;

	for (i = 0; i < n; i++) {
		if (t[i].len >= 3 && t[i].s[0] == '[' && t[i].s[t[i].len - 1] == ']' &&
		    !parse_u64(t[i].s + 1, t[i].len - 2, &l.cpu)) {
			ci = i;
			break;
		}
	}
	if (ci < 0)
		fail(ln, "no [CPU] field: not a perf script or ftrace line");
	for (i = ci + 1; i < n && i <= ci + 3; i++) {
		if (t[i].len >= 2 && t[i].s[t[i].len - 1] == ':' &&
		    !parse_stamp(t[i].s, t[i].len - 1, &l.ts)) {
			ti = i;
			break;
		}
	}
	if (ti < 0)
		fail(ln, "no SECONDS.FRACTION: timestamp after the CPU field");
	for (i = ti + 1; i < n && i <= ti + 2; i++) {
		if (t[i].len >= 2 && t[i].s[t[i].len - 1] == ':') {
			ei = i;
			break;
		}
	}
	if (ei < 0)
		fail(ln, "truncated line: no event name");
	ev.s = t[ei].s;
	ev.len = t[ei].len - 1;
	colon = memchr(ev.s, ':', ev.len);
	if (colon) {
		ev.len -= colon + 1 - ev.s;
		ev.s = colon + 1;
	}
	l.a = t + ei + 1;
	l.na = n - ei - 1;
	rd->ctx = ci ? task_ctx(&t[ci - 1]) : CTX_UNKNOWN;
	rd->resched = ti == ci + 2 ? resched_flag(&t[ci + 1]) : RESCHED_UNKNOWN;

	for (k = 0; k < sizeof(events) / sizeof(events[0]); k++) {
		if (tok_is(&ev, events[k].name)) {
			if (events[k].parse)
				events[k].parse(rd, &l);
			return;
		}
	}
	if (!rd->o->ignore_unknown)
		fail(ln, "unknown event '%.*s' (--ignore-unknown skips it)",
		     (int)ev.len, ev.s);
}

/*
 * Read the trace @name from @f into @tr, which starts empty; @name is
 * also what fail() names from now on.
 */
void trace_read(struct trace *tr, FILE *f, const char *name,
		const struct parse_opts *o)
{
	struct reader rd = { .tr = tr, .o = o };
	int native_format = -1;		/* decided by the first event line */
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	unsigned long ln = 0;
	struct tok t[MAX_TOKS];
	int n;

	tr->name = name;
	fail_set_name(name);

	while ((len = getline(&line, &cap, f)) >= 0) {
		ln++;
		if ((size_t)len != strlen(line))
			fail(ln, "NUL byte in line");
		if (len && line[len - 1] != '\n' && !feof(f))
			fail(ln, "line too long");
		n = tokenize(line, t);
		if (n < 0)
			fail(ln, "too many fields");
		if (!n || t[0].s[0] == '#')
			continue;
		if (native_format < 0) {
			u64 x;

			native_format = !parse_u64(t[0].s, t[0].len, &x) &&
					n >= 2 && !parse_u64(t[1].s, t[1].len, &x);
		}
		/* ftrace: "CPU:N [LOST M EVENTS]" */
		if (!native_format && n >= 2 && t[0].len > 4 &&
		    !memcmp(t[0].s, "CPU:", 4) && tok_is(&t[1], "[LOST")) {
			u64 cpu;

			if (parse_u64(t[0].s + 4, t[0].len - 4, &cpu))
				fail(ln, "bad CPU in a LOST EVENTS line");
			new_event(&rd, ln, rd.last_event_t, cpu, EV_LOST);
			continue;
		}
		rd.ctx = CTX_UNKNOWN;
		rd.resched = RESCHED_UNKNOWN;
		if (native_format) {
			if (parse_native(&rd, ln, t, n))
				fail(ln, "expected: T_NS CPU EVENT ...");
		} else {
			parse_trace(&rd, ln, t, n);
		}
	}
	if (ferror(f))
		fail(ln, "read error: %s", strerror(errno));
	free(line);
	tr->native = native_format > 0;
}
