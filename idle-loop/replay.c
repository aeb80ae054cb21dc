// SPDX-License-Identifier: GPL-2.0
/*
 * replay: run the kernel's interrupt predictor (kernel/irq/predict.c) and
 * idle state choice (kernel/sched/idle_select.c), compiled unchanged from
 * the tree, over a recorded interrupt and idle trace, once per prediction
 * rule, and the cpuidle governors (drivers/cpuidle/governors/menu.c,
 * teo.c, also unchanged) as the cpuidle core calls them, and compare each
 * choice with an oracle that knew the actual idle period.  See README.md
 * for the input formats and the output.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/types.h>
#include <linux/limits.h>
#include <linux/cpuidle.h>
#include <linux/minmax.h>
#include <linux/time.h>
#include <linux/jiffies.h>
#include <linux/irq_predict.h>
#include "idle_select.h"
#include "govshim.h"

#define MAX_CPUS	4096
#define MAX_IRQ		(1U << 24)
/* Stamps past 2^62 ns (146 years) are refused as garbage. */
#define MAX_TIME_NS	(1ULL << 62)
/* kernel/irq/internals.h: IRQ_TIMINGS_SIZE, the per-CPU ring drained at idle entry. */
#define RING_SIZE	32
#define MAX_PENDING_HRT	65536
/* An interrupt this close after an idle exit is the one that woke the CPU. */
#define WAKE_SLACK_NS	20000
#define NO_TIME		U64_MAX
/* drivers/cpuidle/cpuidle.c: cpuidle_poll_time()'s bounds. */
#define POLL_MIN_NS	10000

/*
 * Rows of the variant table: the prediction rules, then the governors
 * (in link order), then "kernel": the states the traced kernel entered.
 */
#define ROW_GOV		IRQ_PREDICT_NR_RULES
#define ROW_KERNEL	(ROW_GOV + GOV_MAX)
#define NR_ROWS		(ROW_KERNEL + 1)

/* ------------------------------------------------------------------ */
/* State tables: the emulated-idle driver's (drivers/cpuidle/cpuidle-emu.c). */

struct power_state {
	const char *name;
	u32 exit_us, residency_us, power_mw, entry_uj;
};

struct power_table {
	const char *name;
	u32 active_mw;
	int count;			/* halting states, after POLL */
	struct power_state states[3];
};

static const struct power_table tables[] = {
	{ "skx", 2000, 3, {
		{ "C1", 2, 2, 1000, 0 },
		{ "C1E", 10, 20, 600, 0 },
		{ "C6", 133, 600, 50, 20 } } },
	{ "arm", 1000, 3, {
		{ "WFI", 1, 1, 800, 0 },
		{ "CPUOFF", 1500, 2000, 100, 100 },
		{ "CLUOFF", 1600, 2500, 20, 150 } } },
};

static const struct power_table *ptab;
static struct cpuidle_driver drv;
static struct cpuidle_device dev;
static u32 state_power_mw[CPUIDLE_STATE_MAX];
static u32 state_entry_uj[CPUIDLE_STATE_MAX];
static u64 poll_limit_ns;
/* a --states table: no power model (the energy columns read 0) */
static struct power_table user_table = { "states", 0, 0, { { 0 } } };
static char user_names[CPUIDLE_STATE_MAX][CPUIDLE_NAME_LEN];
static u64 gov_warmup = 100;
static int learn = 1;	/* --no-learn: 0, the rules do not learn (sched_idle_learn=0) */

static int parse_u64(const char *s, size_t len, u64 *out);

/* drivers/cpuidle/cpuidle.c: cpuidle_poll_time(), no state disabled. */
static void setup_poll_limit(void)
{
	int i;

	poll_limit_ns = TICK_NSEC / 16;
	for (i = 1; i < drv.state_count; i++) {
		if (dev.states_usage[i].disable ||
		    drv.states[i].target_residency_ns < POLL_MIN_NS)
			continue;
		poll_limit_ns = min(drv.states[i].target_residency_ns, poll_limit_ns);
		break;
	}
}

static void setup_driver(const struct power_table *t)
{
	int i;

	ptab = t;
	memset(&drv, 0, sizeof(drv));
	memset(&dev, 0, sizeof(dev));
	/* cpuidle_poll_state_init(): state 0 polls, at active power. */
	snprintf(drv.states[0].name, CPUIDLE_NAME_LEN, "POLL");
	drv.states[0].flags = CPUIDLE_FLAG_POLLING;
	state_power_mw[0] = t->active_mw;
	for (i = 0; i < t->count; i++) {
		struct cpuidle_state *s = &drv.states[i + 1];

		snprintf(s->name, CPUIDLE_NAME_LEN, "%s", t->states[i].name);
		s->exit_latency_ns = (u64)t->states[i].exit_us * 1000;
		s->target_residency_ns = (u64)t->states[i].residency_us * 1000;
		state_power_mw[i + 1] = t->states[i].power_mw;
		state_entry_uj[i + 1] = t->states[i].entry_uj;
	}
	drv.state_count = t->count + 1;
	setup_poll_limit();
}

/*
 * --states FILE (perf-scripts/record.sh writes it from sysfs):
 *   hz N                  the kernel's HZ: TICK_NSEC (optional)
 *   governor NAME         driver NAME     (informative)
 *   state NAME EXIT_LATENCY_US TARGET_RESIDENCY_US DISABLE
 * one state line per state, shallowest first; a state named POLL polls
 * (cpuidle_poll_state_init()).  Any other line, a bad number, more than
 * CPUIDLE_STATE_MAX states or a target residency below the previous
 * one's stops with FILE:LINE: reason.
 */
static void states_fail(const char *path, unsigned long ln, const char *why)
{
	fprintf(stderr, "replay: %s:%lu: bad state table: %s\n", path, ln, why);
	exit(1);
}

static void read_states(const char *path)
{
	FILE *f = fopen(path, "r");
	char line[512], *tok[8], *save;
	unsigned long ln = 0;
	int n, i, nstates = 0;
	u64 v[3], hz = 0;

	if (!f) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		exit(1);
	}
	memset(&drv, 0, sizeof(drv));
	memset(&dev, 0, sizeof(dev));
	memset(state_power_mw, 0, sizeof(state_power_mw));
	memset(state_entry_uj, 0, sizeof(state_entry_uj));
	while (fgets(line, sizeof(line), f)) {
		ln++;
		if (!strchr(line, '\n') && !feof(f))
			states_fail(path, ln, "line too long");
		n = 0;
		for (tok[n] = strtok_r(line, " \t\r\n", &save); tok[n] && n < 7;
		     tok[++n] = strtok_r(NULL, " \t\r\n", &save))
			;
		if (!n || tok[0][0] == '#')
			continue;
		if (!strcmp(tok[0], "hz")) {
			if (n != 2 || parse_u64(tok[1], strlen(tok[1]), &hz) || !hz || hz > 100000)
				states_fail(path, ln, "expected: hz N (1..100000)");
		} else if (!strcmp(tok[0], "governor") || !strcmp(tok[0], "driver")) {
			if (n != 2)
				states_fail(path, ln, "expected: governor|driver NAME");
		} else if (!strcmp(tok[0], "state")) {
			struct cpuidle_state *st = &drv.states[nstates];

			if (n != 5)
				states_fail(path, ln, "expected: state NAME EXIT_LATENCY_US TARGET_RESIDENCY_US DISABLE");
			if (nstates == CPUIDLE_STATE_MAX)
				states_fail(path, ln, "more than 10 states");
			if (strlen(tok[1]) >= CPUIDLE_NAME_LEN)
				states_fail(path, ln, "state name longer than 15 characters");
			for (i = 0; i < 3; i++)
				if (parse_u64(tok[i + 2], strlen(tok[i + 2]), &v[i]) ||
				    v[i] > 10000000)
					states_fail(path, ln, "latency and residency must be whole us up to 10 s, disable a number");
			snprintf(st->name, CPUIDLE_NAME_LEN, "%s", tok[1]);
			snprintf(user_names[nstates], CPUIDLE_NAME_LEN, "%s", tok[1]);
			if (!strcmp(tok[1], "POLL"))
				st->flags = CPUIDLE_FLAG_POLLING;
			st->exit_latency_ns = v[0] * 1000;
			st->target_residency_ns = v[1] * 1000;
			if (nstates && st->target_residency_ns < drv.states[nstates - 1].target_residency_ns)
				states_fail(path, ln, "target residency below the previous state's");
			dev.states_usage[nstates].disable = v[2] != 0;
			nstates++;
		} else {
			states_fail(path, ln, "unknown line (expected hz, governor, driver or state)");
		}
	}
	if (ferror(f))
		states_fail(path, ln, "read error");
	fclose(f);
	if (!nstates)
		states_fail(path, ln, "no state line");
	drv.state_count = nstates;
	user_table.name = path;
	ptab = &user_table;
	if (hz)
		shim_tick_nsec = (NSEC_PER_SEC + hz / 2) / hz;
	setup_poll_limit();
}

/* emu_idle_entry_energy_pj() / emu_idle_active_energy_pj(), in pJ. */
static double energy_pj(int index, u64 idle_ns)
{
	const struct cpuidle_state *s = &drv.states[index];

	if (s->flags & CPUIDLE_FLAG_POLLING)
		return (double)idle_ns * ptab->active_mw;
	return (double)idle_ns * state_power_mw[index] +
	       (double)s->exit_latency_ns * ptab->active_mw +
	       (double)state_entry_uj[index] * 1e6;
}

/* ------------------------------------------------------------------ */
/* Events. */

enum ev_type {
	EV_IRQ, EV_ENTER, EV_EXIT, EV_SELECT,
	EV_HRT_START, EV_HRT_CANCEL, EV_HRT_EXPIRE,
	EV_STAMP, EV_FORGET, EV_NEXT, EV_LOST, EV_RING_LOST, EV_RESET,
	EV_WT_START, EV_WT_CANCEL, EV_WT_EXPIRE,
};

struct event {
	u64 t;
	u64 a;		/* irq (irq, stamp, forget); timer_ns (enter, select);
			 * hrtimer id; next: now_ns */
	u64 b;		/* select: irq_ns; hrtimer start: expires; expire: now;
			 * stamp: ts_ns; next: next_ns (NO_TIME for -1) */
	u64 c;		/* select: latency_req_ns; next: irq; hrtimer: 1 if the tick */
	u64 d;		/* select: delta_tick_ns, NO_TIME when not traced */
	int stop_tick;	/* select: the kernel's tick decision */
	int tick_stopped;	/* select: tick stopped before, -1 not traced */
	u64 learned;	/* select: residency learned from, NO_TIME for none */
	u32 cpu;
	u32 line;
	int state;	/* enter: entered state; select: chosen state; next: rule */
	u8 type;
};

static struct event *evs;
static size_t nev, evcap;
static int native_format = -1;		/* decided by the first event line */
static int ignore_unknown, keep_timer_irqs;
static int have_select, have_hrt, have_native_timer, have_predict, have_wheel;
static u64 last_event_t;
static const char *input_name = "-";

static void fail(unsigned long line, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "replay: %s:%lu: ", input_name, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

/* Strict unsigned decimal; rejects empty, signs, junk and overflow. */
static int parse_u64(const char *s, size_t len, u64 *out)
{
	u64 v = 0;
	size_t i;

	if (!len || len > 20)
		return -1;
	for (i = 0; i < len; i++) {
		if (!isdigit((unsigned char)s[i]))
			return -1;
		if (v > (U64_MAX - (s[i] - '0')) / 10)
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	*out = v;
	return 0;
}

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

static u64 arg_u64(unsigned long ln, const struct tok *t, int n, const char *key)
{
	struct tok v;
	u64 x;

	if (!arg(t, n, key, &v))
		fail(ln, "missing %s=", key);
	if (parse_u64(v.s, v.len, &x))
		fail(ln, "bad %s=%.*s", key, (int)v.len, v.s);
	return x;
}

static s64 arg_s64(unsigned long ln, const struct tok *t, int n, const char *key)
{
	struct tok v;
	s64 x;

	if (!arg(t, n, key, &v))
		fail(ln, "missing %s=", key);
	if (parse_s64(v.s, v.len, &x))
		fail(ln, "bad %s=%.*s", key, (int)v.len, v.s);
	return x;
}

/* function= of an hrtimer event names the tick's (tick_sched_timer before 6.10). */
static int is_tick_timer(const struct tok *a, int na)
{
	struct tok fn;

	return arg(a, na, "function", &fn) &&
	       (tok_is(&fn, "tick_nohz_handler") || tok_is(&fn, "tick_sched_timer"));
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

static struct event *new_event(unsigned long ln, u64 t, u64 cpu, int type)
{
	u64 last_t = last_event_t;
	struct event *e;

	if (t > MAX_TIME_NS)
		fail(ln, "timestamp %" PRIu64 " too large", t);
	if (cpu >= MAX_CPUS)
		fail(ln, "cpu %" PRIu64 " out of range (max %d)", cpu, MAX_CPUS - 1);
	if (nev && t < last_t)
		fail(ln, "timestamp %" PRIu64 " goes backwards (previous %" PRIu64 ")",
		     t, last_t);
	if (ln > UINT32_MAX)
		fail(ln, "too many lines");
	last_event_t = t;
	if (nev == evcap) {
		evcap = evcap ? evcap * 2 : 4096;
		evs = realloc(evs, evcap * sizeof(*evs));
		if (!evs)
			fail(ln, "out of memory");
	}
	e = &evs[nev++];
	memset(e, 0, sizeof(*e));
	e->t = t;
	e->cpu = cpu;
	e->type = type;
	e->line = ln;
	return e;
}

static void check_irq(unsigned long ln, u64 irq)
{
	if (irq >= MAX_IRQ)
		fail(ln, "irq %" PRIu64 " out of range", irq);
}

/* Native: "T_NS CPU irq N" | "T_NS CPU idle_enter TIMER_NS|-" | "T_NS CPU idle_exit" */
static int parse_native(unsigned long ln, struct tok *t, int n)
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
		e = new_event(ln, ts, cpu, EV_IRQ);
		e->a = x;
	} else if (tok_is(&t[2], "idle_enter")) {
		if (n != 4)
			fail(ln, "expected: T_NS CPU idle_enter TIMER_NS|-");
		if (tok_is(&t[3], "-")) {
			x = NO_TIME;
		} else {
			if (parse_u64(t[3].s, t[3].len, &x) || x > MAX_TIME_NS)
				fail(ln, "bad timer '%.*s'", (int)t[3].len, t[3].s);
			have_native_timer = 1;
		}
		e = new_event(ln, ts, cpu, EV_ENTER);
		e->a = x;
		e->state = -1;		/* no entered state: governors reflect their own */
	} else if (tok_is(&t[2], "idle_exit")) {
		if (n != 3)
			fail(ln, "expected: T_NS CPU idle_exit");
		new_event(ln, ts, cpu, EV_EXIT);
	} else {
		fail(ln, "unknown event '%.*s'", (int)t[2].len, t[2].s);
	}
	return 0;
}

/*
 * perf script / ftrace / trace-cmd report:
 *   COMM-PID [CPU] [FLAGS] SECONDS.FRACTION: [PERIOD] [SUBSYS:]EVENT: ARGS
 */
static void parse_trace(unsigned long ln, struct tok *t, int n)
{
	int i, ci = -1, ti = -1, ei = -1;
	u64 cpu, ts;
	struct tok ev, *a;
	struct event *e;
	const char *colon;
	int na;

	for (i = 0; i < n; i++) {
		if (t[i].len >= 3 && t[i].s[0] == '[' && t[i].s[t[i].len - 1] == ']' &&
		    !parse_u64(t[i].s + 1, t[i].len - 2, &cpu)) {
			ci = i;
			break;
		}
	}
	if (ci < 0)
		fail(ln, "no [CPU] field: not a perf script or ftrace line");
	for (i = ci + 1; i < n && i <= ci + 3; i++) {
		if (t[i].len >= 2 && t[i].s[t[i].len - 1] == ':' &&
		    !parse_stamp(t[i].s, t[i].len - 1, &ts)) {
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
	a = t + ei + 1;
	na = n - ei - 1;

	if (tok_is(&ev, "irq_handler_entry")) {
		u64 irq = arg_u64(ln, a, na, "irq");
		struct tok name;

		check_irq(ln, irq);
		if (!arg(a, na, "name", &name))
			fail(ln, "truncated line: missing name=");
		/* Timer interrupts (IRQF_TIMER) never enter the kernel's ring. */
		if (!keep_timer_irqs && memmem(name.s, name.len, "timer", 5))
			return;
		e = new_event(ln, ts, cpu, EV_IRQ);
		e->a = irq;
	} else if (tok_is(&ev, "cpu_idle")) {
		u64 state = arg_u64(ln, a, na, "state");
		u64 id = arg_u64(ln, a, na, "cpu_id");

		if (state == 4294967295ULL || state == U64_MAX) {
			new_event(ln, ts, id, EV_EXIT);
		} else {
			if (state >= CPUIDLE_STATE_MAX)
				fail(ln, "idle state %" PRIu64 " out of range", state);
			e = new_event(ln, ts, id, EV_ENTER);
			e->a = NO_TIME;
			e->state = state;
		}
	} else if (tok_is(&ev, "sched_idle_select")) {
		u64 c = arg_u64(ln, a, na, "cpu");
		u64 timer = arg_u64(ln, a, na, "timer_ns");
		s64 irq_ns = arg_s64(ln, a, na, "irq_ns");
		u64 irq = arg_u64(ln, a, na, "irq");
		s64 lat = arg_s64(ln, a, na, "latency_req_ns");
		s64 state = arg_s64(ln, a, na, "state");

		u64 stop = arg_u64(ln, a, na, "stop_tick");
		struct tok dt;
		u64 delta = NO_TIME;
		int stopped = -1;
		s64 learned = -1;

		/* delta_tick_ns: traced since the tracepoint's second version */
		if (arg(a, na, "delta_tick_ns", &dt) && parse_u64(dt.s, dt.len, &delta))
			fail(ln, "bad delta_tick_ns=%.*s", (int)dt.len, dt.s);
		/* tick_stopped, learned_ns: since the third */
		if (arg(a, na, "tick_stopped", &dt)) {
			stopped = arg_u64(ln, a, na, "tick_stopped") != 0;
			learned = arg_s64(ln, a, na, "learned_ns");
		}
		check_irq(ln, irq);
		if (state < -1000 || state >= CPUIDLE_STATE_MAX)
			fail(ln, "state %" PRId64 " out of range", state);
		e = new_event(ln, ts, c, EV_SELECT);
		e->a = timer;
		e->b = irq_ns < 0 ? NO_TIME : (u64)irq_ns;
		e->c = lat < 0 ? 0 : (u64)lat;
		e->d = delta;
		e->stop_tick = stop != 0;
		e->tick_stopped = stopped;
		e->learned = learned < 0 ? NO_TIME : (u64)learned;
		e->state = state;
		have_select = 1;
	} else if (tok_is(&ev, "hrtimer_start")) {
		struct tok h;

		if (!arg(a, na, "hrtimer", &h))
			fail(ln, "truncated line: missing hrtimer=");
		check_hashed(ln, &h);
		e = new_event(ln, ts, cpu, EV_HRT_START);
		e->a = hash_tok(&h);
		e->c = is_tick_timer(a, na);
		e->b = arg_u64(ln, a, na, "expires");
		if (e->b > MAX_TIME_NS)
			fail(ln, "expires=%" PRIu64 " too large", e->b);
		have_hrt = 1;
	} else if (tok_is(&ev, "hrtimer_cancel") ||
		   tok_is(&ev, "hrtimer_expire_entry")) {
		struct tok h;
		int expire = tok_is(&ev, "hrtimer_expire_entry");

		if (!arg(a, na, "hrtimer", &h))
			fail(ln, "truncated line: missing hrtimer=");
		check_hashed(ln, &h);
		e = new_event(ln, ts, cpu, expire ? EV_HRT_EXPIRE : EV_HRT_CANCEL);
		e->a = hash_tok(&h);
		e->c = expire && is_tick_timer(a, na);
		e->b = expire ? arg_u64(ln, a, na, "now") : 0;
		if (e->b > MAX_TIME_NS)
			fail(ln, "now=%" PRIu64 " too large", e->b);
		have_hrt = 1;
	} else if (tok_is(&ev, "irq_predict_stamp")) {
		u64 irq = arg_u64(ln, a, na, "irq");

		check_irq(ln, irq);
		e = new_event(ln, ts, cpu, EV_STAMP);
		e->a = irq;
		e->b = arg_u64(ln, a, na, "ts_ns");
		if (e->b > MAX_TIME_NS)
			fail(ln, "ts_ns=%" PRIu64 " too large", e->b);
		have_predict = 1;
	} else if (tok_is(&ev, "irq_predict_forget")) {
		u64 irq = arg_u64(ln, a, na, "irq");

		check_irq(ln, irq);
		e = new_event(ln, ts, cpu, EV_FORGET);
		e->a = irq;
		have_predict = 1;
	} else if (tok_is(&ev, "irq_predict_lost")) {
		/* patch 5: the ring overflowed before this drain */
		e = new_event(ln, ts, cpu, EV_RING_LOST);
		e->a = arg_u64(ln, a, na, "stamps");
		have_predict = 1;
	} else if (tok_is(&ev, "irq_predict_reset")) {
		/* patch 5: too many forgets missed, the table starts over */
		e = new_event(ln, ts, cpu, EV_RESET);
		e->a = arg_u64(ln, a, na, "forgets");
		have_predict = 1;
	} else if (tok_is(&ev, "irq_predict_next")) {
		u64 now = arg_u64(ln, a, na, "now_ns");
		s64 next = arg_s64(ln, a, na, "next_ns");
		u64 irq = arg_u64(ln, a, na, "irq");
		s64 rule = arg_s64(ln, a, na, "rule");

		check_irq(ln, irq);
		if (now > MAX_TIME_NS)
			fail(ln, "now_ns=%" PRIu64 " too large", now);
		if (next < -1 || next > (s64)MAX_TIME_NS)
			fail(ln, "next_ns=%" PRId64 " out of range", next);
		if (rule < 0 || rule >= IRQ_PREDICT_NR_RULES)
			fail(ln, "rule=%" PRId64 " out of range", rule);
		e = new_event(ln, ts, cpu, EV_NEXT);
		e->a = now;
		e->b = next < 0 ? NO_TIME : (u64)next;
		e->c = irq;
		e->state = rule;
		have_predict = 1;
	} else if (tok_is(&ev, "timer_start")) {
		/*
		 * A timer-wheel timer: its base's CPU, the jiffy its bucket
		 * expires at, jiffies now (expires - [timeout=N]), deferrable.
		 */
		struct tok h, fl;
		s64 timeout = 0;
		u64 wcpu = arg_u64(ln, a, na, "cpu");
		int k;

		if (!arg(a, na, "timer", &h))
			fail(ln, "truncated line: missing timer=");
		check_hashed(ln, &h);
		for (k = 0; k < na; k++)
			if (a[k].len > 10 && !memcmp(a[k].s, "[timeout=", 9) &&
			    a[k].s[a[k].len - 1] == ']')
				break;
		if (k == na || parse_s64(a[k].s + 9, a[k].len - 10, &timeout))
			fail(ln, "missing or bad [timeout=N]");
		e = new_event(ln, ts, wcpu, EV_WT_START);
		e->a = hash_tok(&h);
		e->b = arg_u64(ln, a, na, "bucket_expiry");
		e->d = arg_u64(ln, a, na, "expires") - timeout;
		e->c = arg(a, na, "flags", &fl) && memchr(fl.s, 'D', fl.len);
		have_wheel = 1;
	} else if (tok_is(&ev, "timer_cancel") || tok_is(&ev, "timer_expire_entry")) {
		struct tok h;
		int expire = tok_is(&ev, "timer_expire_entry");

		if (!arg(a, na, "timer", &h))
			fail(ln, "truncated line: missing timer=");
		check_hashed(ln, &h);
		e = new_event(ln, ts, cpu, expire ? EV_WT_EXPIRE : EV_WT_CANCEL);
		e->a = hash_tok(&h);
		e->d = expire ? arg_u64(ln, a, na, "now") : NO_TIME;
	} else if (tok_is(&ev, "irq_handler_exit") || tok_is(&ev, "hrtimer_init") ||
		   tok_is(&ev, "timer_init") || tok_is(&ev, "timer_expire_exit") ||
		   tok_is(&ev, "hrtimer_expire_exit")) {
		return;
	} else if (!ignore_unknown) {
		fail(ln, "unknown event '%.*s' (--ignore-unknown skips it)",
		     (int)ev.len, ev.s);
	}
}

static void read_input(FILE *f)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	unsigned long ln = 0;
	struct tok t[MAX_TOKS];
	int n;

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
			new_event(ln, last_event_t, cpu, EV_LOST);
			continue;
		}
		if (native_format) {
			if (parse_native(ln, t, n))
				fail(ln, "expected: T_NS CPU EVENT ...");
		} else {
			parse_trace(ln, t, n);
		}
	}
	if (ferror(f))
		fail(ln, "read error: %s", strerror(errno));
	free(line);
}

/* ------------------------------------------------------------------ */
/* Replay. */

struct pending_hrt {
	u64 id, expires;
	u32 cpu;
	int tick;		/* the CPU's tick (sched_timer) */
};

static struct pending_hrt *hrt;
static size_t nhrt;
static s64 hrt_offset;		/* hrtimer clock minus trace clock */

struct period {
	u64 predicted;		/* combined expected duration */
	u64 actual;
	u64 timer_ns, irq_ns;
	int chosen, oracle;
};

struct rule_stats {
	u64 periods, nopred, kernel_seen, kernel_match;
	u64 confusion[CPUIDLE_STATE_MAX][CPUIDLE_STATE_MAX];
	double energy, oracle_energy;
	double *err;		/* predicted - actual, ns */
	size_t nerr, errcap;
};

struct cpu_state {
	struct irq_predict_cpu pc[IRQ_PREDICT_NR_RULES];
	u64 ring_t[RING_SIZE];
	u32 ring_irq[RING_SIZE];
	unsigned int ring_n, ring_head;
	/* the open idle period */
	int open;
	u64 enter_t, timer_ns, latency_req;
	u64 delta_tick_ns;	/* traced, or NO_TIME: model it from --tick-ns */
	int stop_tick;		/* traced tick decision, or -1 */
	int sel_tick_stopped;	/* traced tick state at selection, or -1 */
	u64 irq_ns[IRQ_PREDICT_NR_RULES];
	struct sched_idle_history hist[IRQ_PREDICT_NR_RULES];
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
	 * The tick, from its sched_timer's hrtimer events: stopped when
	 * cancelled or armed more than a tick period ahead (a running tick
	 * is re-armed to the next tick).  tick_stopped_before is the state
	 * before the last such event, at tick_ev_t.
	 */
	u64 tick_id, tick_ev_t;
	int tick_seen, tick_stopped, tick_stopped_before, tick_ev_stop;
	int tick_fired;		/* the tick expired in the open period */
	bool tick_stopped_sel;	/* tick_stopped_at_select() at the entry */
	u64 gsleep, gnext;	/* the governors' sleep length and next event */
	bool got_tick_unread[GOV_MAX];	/* set, not yet read by reflect() */
	struct row_cpu {
		u64 periods, deep, shallow, seen, match;
		double energy, oracle_energy;
	} rc[NR_ROWS];
};

static struct cpu_state *cpus[MAX_CPUS];
static struct rule_stats stats[NR_ROWS];
static int rule_on[NR_ROWS];
static u64 tick_ns;
static u64 unmatched_enter, unmatched_exit;
static FILE *dump;

static const char *row_name(int r)
{
	if (r < ROW_GOV)
		return irq_predict_rule_name(r);
	if (r < ROW_KERNEL)
		return shim_governors[r - ROW_GOV]->name;
	return "kernel";
}

static int row_exists(int r)
{
	if (r >= ROW_GOV && r < ROW_KERNEL)
		return r - ROW_GOV < shim_nr_governors;
	if (r == ROW_KERNEL)
		return !native_format;
	return 1;
}

static struct cpu_state *cpu_get(u32 cpu)
{
	if (!cpus[cpu]) {
		cpus[cpu] = calloc(1, sizeof(*cpus[cpu]));
		if (!cpus[cpu]) {
			fprintf(stderr, "replay: out of memory\n");
			exit(1);
		}
	}
	return cpus[cpu];
}

static void hrt_remove(u64 id)
{
	size_t i;

	for (i = 0; i < nhrt; i++) {
		if (hrt[i].id == id) {
			hrt[i] = hrt[--nhrt];
			return;
		}
	}
}

static void hrt_start(const struct event *e)
{
	hrt_remove(e->a);
	if (nhrt == MAX_PENDING_HRT)
		fail(e->line, "more than %d hrtimers pending", MAX_PENDING_HRT);
	if (!hrt) {
		hrt = calloc(MAX_PENDING_HRT, sizeof(*hrt));
		if (!hrt)
			fail(e->line, "out of memory");
	}
	hrt[nhrt].id = e->a;
	hrt[nhrt].expires = e->b;
	hrt[nhrt].cpu = e->cpu;
	hrt[nhrt].tick = e->c != 0;
	nhrt++;
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
	if (e->d != NO_TIME)
		jiffy_seen(e->t, e->d);
	wt_remove(e->a);
	/* deferrable timers do not end an idle period */
	if (e->type != EV_WT_START || e->c)
		return;
	if (nwt == MAX_PENDING_HRT)
		fail(e->line, "more than %d wheel timers pending", MAX_PENDING_HRT);
	if (nwt == wtcap) {
		wtcap = wtcap ? wtcap * 2 : 1024;
		wt = realloc(wt, wtcap * sizeof(*wt));
		if (!wt)
			fail(e->line, "out of memory");
	}
	wt[nwt].id = e->a;
	wt[nwt].bucket = e->b;
	wt[nwt].cpu = e->cpu;
	nwt++;
}

/*
 * tick_nohz_get_sleep_length() with the wheel: from the jiffy of @now,
 * the next wheel event on @cpu; within a tick with the tick running, the
 * nohz code keeps the tick and answers @next (the next tick or timer);
 * otherwise the earlier of the wheel event and @sleep_hrt (the next
 * hrtimer but the tick).
 */
static u64 wheel_sleep(u32 cpu, u64 now, bool stopped, u64 sleep_hrt, u64 next)
{
	s64 tick = TICK_NSEC, since = (s64)now - jiffy_c;
	s64 basej = since >= 0 ? since / tick : -((-since + tick - 1) / tick);
	s64 basemono = jiffy_c + basej * tick, best = S64_MAX, next_tick;
	size_t i;

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
	if (next_tick <= (s64)now)
		return 0;
	return min((u64)(next_tick - (s64)now), sleep_hrt);
}

static void tick_event(struct cpu_state *c, u64 t, int stopped)
{
	c->tick_stopped_before = c->tick_stopped;
	c->tick_stopped = stopped;
	c->tick_ev_stop = stopped;
	c->tick_ev_t = t;
}

/* The tick's sched_timer armed or cancelled on its CPU. */
static void tick_hrt(const struct event *e)
{
	struct cpu_state *c = cpu_get(e->cpu);
	s64 exp;

	if (e->type == EV_HRT_START && e->c) {
		c->tick_seen = 1;
		c->tick_id = e->a;
		exp = (s64)e->b - hrt_offset;
		tick_event(c, e->t, exp > (s64)e->t && (u64)exp - e->t > (u64)TICK_NSEC);
	} else if (e->type == EV_HRT_CANCEL && c->tick_seen && e->a == c->tick_id) {
		tick_event(c, e->t, 1);
	} else if (e->type == EV_HRT_EXPIRE && e->c && c->open) {
		c->tick_fired = 1;
	}
}

/* tick_nohz_tick_stopped() when the governor chose the state entered at @t. */
static bool tick_stopped_at_select(const struct cpu_state *c)
{
	if (!c->tick_seen)
		return false;
	/* a stop since the last exit was this entry's own, after select() */
	if (c->tick_ev_t > c->exit_t && c->tick_ev_stop)
		return c->tick_stopped_before;
	return c->tick_stopped;
}

/*
 * tick_nohz_idle_got_tick() at the exit event @i: the tick expired on its
 * CPU during the period or in the interrupt handling right after it.
 */
static bool tick_got(const struct cpu_state *c, size_t i)
{
	const struct event *x = &evs[i];
	size_t j;

	if (c->tick_fired)
		return true;
	for (j = i + 1; j < nev && evs[j].t <= x->t + WAKE_SLACK_NS; j++) {
		if (evs[j].cpu != x->cpu)
			continue;
		if (evs[j].type == EV_HRT_EXPIRE && evs[j].c)
			return true;
		if (evs[j].type == EV_ENTER)
			break;
	}
	return false;
}

/*
 * Time from @now (trace clock) to the earliest hrtimer pending on @cpu,
 * the tick's left out with @no_tick.
 */
static u64 hrt_next_ex(u32 cpu, u64 now, int no_tick)
{
	u64 best = NO_TIME;
	size_t i;

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

static u64 hrt_next(u32 cpu, u64 now)
{
	return hrt_next_ex(cpu, now, 0);
}

/* Was the idle period ending at event @i ended by an interrupt of its CPU? */
static int woken_by_irq(size_t i)
{
	const struct event *x = &evs[i];
	size_t j;

	for (j = i + 1; j < nev && evs[j].t <= x->t + WAKE_SLACK_NS; j++) {
		if (evs[j].cpu != x->cpu)
			continue;
		if (evs[j].type == EV_IRQ)
			return 1;
		if (evs[j].type == EV_ENTER)
			break;
	}
	return 0;
}

static ktime_t to_ktime(u64 ns)
{
	return ns > (u64)KTIME_MAX ? KTIME_MAX : (ktime_t)ns;
}

/*
 * No timer input in the trace: an idle period that no interrupt of its
 * CPU ended (none during it, none just after) is taken to have been ended
 * by its timer, as the rules' approximation does (idle_exit()); looked up
 * ahead here because the governors ask at entry.
 */
static u64 timer_by_lookahead(const struct event *e)
{
	size_t i;

	for (i = e - evs + 1; i < nev; i++) {
		if (evs[i].cpu != e->cpu)
			continue;
		if (evs[i].type == EV_IRQ || evs[i].type == EV_ENTER)
			return NO_TIME;
		if (evs[i].type == EV_EXIT)
			return woken_by_irq(i) ? NO_TIME : evs[i].t - e->t;
	}
	return NO_TIME;
}

/*
 * cpuidle_select() for every governor, with what the nohz code would have
 * answered at entry event @e (prediction time @now): the sleep length is
 * the next timer other than the tick, the next event the tick's or an
 * earlier timer's (tick_nohz_get_sleep_length()).
 */
static void gov_select(struct cpu_state *c, const struct event *e, u64 now)
{
	struct cpuidle_device gsave_dev;
	u64 sleep, next;
	bool stopped = false, kept = false;
	int g;

	if (c->kernel_state >= 0 || native_format) {
		/* sched_idle_select's timer_ns, or the native trace's */
		sleep = c->timer_ns;
		next = c->delta_tick_ns != NO_TIME ? c->delta_tick_ns :
		       tick_ns ? min(sleep, tick_ns - e->t % tick_ns) : sleep;
	} else if (have_hrt) {
		sleep = hrt_next_ex(e->cpu, now, 1);
		next = hrt_next(e->cpu, now);
		stopped = tick_stopped_at_select(c);
		if (have_wheel && jiffy_known)
			sleep = wheel_sleep(e->cpu, now, stopped, sleep, next);
		/* the tick ran at the selection and was not stopped after it */
		kept = c->tick_seen && !stopped &&
		       !(c->tick_ev_t > c->exit_t && c->tick_ev_stop);
	} else {
		sleep = timer_by_lookahead(e);
		next = tick_ns ? min(sleep, tick_ns - e->t % tick_ns) : sleep;
	}
	c->traced_state = e->state;
	c->gentries++;
	c->tick_stopped_sel = stopped;
	c->gsleep = sleep;
	c->gnext = next;
	for (g = 0; g < shim_nr_governors; g++) {
		struct cpuidle_device *d = &c->gdev[g];
		bool stop_tick = true;

		if (!rule_on[ROW_GOV + g])
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

static void idle_enter(const struct event *e)
{
	struct cpu_state *c = cpu_get(e->cpu);
	u64 now = e->t;
	unsigned int i, k;
	int r;

	if (c->open) {
		if (native_format)
			fail(e->line, "idle_enter on cpu %u already idle", e->cpu);
		unmatched_enter++;
	}
	if (e->state >= drv.state_count)
		fail(e->line, "idle state %d is not in the %s table (%d states): give the machine's own with --states",
		     e->state, ptab->name, drv.state_count);
	c->kernel_state = -1;
	c->latency_req = U64_MAX;
	c->timer_ns = e->a;
	c->delta_tick_ns = NO_TIME;
	c->stop_tick = -1;
	c->sel_tick_stopped = -1;
	if (c->sel_valid) {
		/* The kernel predicted at the tracepoint, just before entry. */
		now = c->sel.t;
		c->timer_ns = c->sel.a;
		c->latency_req = c->sel.c;
		c->kernel_state = c->sel.state;
		c->delta_tick_ns = c->sel.d;
		c->stop_tick = c->sel.stop_tick;
		c->sel_tick_stopped = c->sel.tick_stopped;
		c->sel_valid = 0;
	} else if (!have_native_timer && have_hrt) {
		c->timer_ns = hrt_next(e->cpu, now);
	}

	gov_select(c, e, now);
	if (c->sel_tick_stopped >= 0)
		c->tick_stopped_sel = c->sel_tick_stopped;

	/* irq_predict_next_event(): drain the ring, then predict. */
	for (r = 0; r < IRQ_PREDICT_NR_RULES; r++) {
		unsigned int irq = 0;
		u64 next;

		if (!rule_on[r])
			continue;
		for (i = 0; i < c->ring_n; i++) {
			k = (c->ring_head + RING_SIZE - c->ring_n + i) % RING_SIZE;
			irq_predict_record(&c->pc[r], c->ring_irq[k], c->ring_t[k]);
		}
		next = irq_predict_next(&c->pc[r], now, r, &irq);
		c->irq_ns[r] = next == U64_MAX ? U64_MAX : next - now;
	}
	c->ring_n = 0;
	c->open = 1;
	c->enter_t = e->t;
	c->irq_during = 0;
	c->tick_fired = 0;
}

static void record_err(struct rule_stats *s, double err)
{
	if (s->nerr == s->errcap) {
		s->errcap = s->errcap ? s->errcap * 2 : 4096;
		s->err = realloc(s->err, s->errcap * sizeof(*s->err));
		if (!s->err) {
			fprintf(stderr, "replay: out of memory\n");
			exit(1);
		}
	}
	s->err[s->nerr++] = err;
}

static void count_row(struct cpu_state *c, int r, int index, int oracle, u64 actual)
{
	struct rule_stats *s = &stats[r];
	struct row_cpu *p = &c->rc[r];

	s->periods++;
	s->confusion[index][oracle]++;
	s->energy += energy_pj(index, actual);
	s->oracle_energy += energy_pj(oracle, actual);
	p->periods++;
	p->deep += index > oracle;
	p->shallow += index < oracle;
	p->energy += energy_pj(index, actual);
	p->oracle_energy += energy_pj(oracle, actual);
}

static void count_kernel(struct cpu_state *c, int r, int index)
{
	stats[r].kernel_seen++;
	stats[r].kernel_match += index == c->traced_state;
	c->rc[r].seen++;
	c->rc[r].match += index == c->traced_state;
}

/*
 * cpuidle_reflect() for every governor at the exit event @idx, after
 * cpuidle_enter_state() measured the residency; the state entered is the
 * traced kernel's (the residency is that state's), or the governor's own
 * choice when the trace has none.  Then the governors' and the traced
 * kernel's choices are counted against the oracle.
 */
static void gov_exit(struct cpu_state *c, size_t idx, u64 actual, int oracle)
{
	const struct event *e = &evs[idx];
	bool got = tick_got(c, idx);
	int g;

	for (g = 0; g < shim_nr_governors; g++) {
		struct cpuidle_device *d = &c->gdev[g];
		int entered = c->traced_state >= 0 ? c->traced_state : c->gchoice[g];

		if (!rule_on[ROW_GOV + g] || !c->gov_ready)
			continue;
		d->last_residency_ns = (s64)min(actual, (u64)S64_MAX);
		/* poll_idle(): polling ends at cpuidle_poll_time() */
		if (drv.states[entered].flags & CPUIDLE_FLAG_POLLING)
			d->poll_time_limit = actual > poll_limit_ns;
		shim_cpu = e->cpu;
		shim_answers.now_ns = e->t;
		shim_answers.got_tick = got || c->got_tick_unread[g];
		shim_governors[g]->reflect(d, entered);
		c->got_tick_unread[g] = shim_answers.got_tick;
		if (oracle < 0 || c->gchoice[g] < 0)
			continue;
		count_row(c, ROW_GOV + g, c->gchoice[g], oracle, actual);
		if (c->traced_state >= 0 && c->gentries > gov_warmup)
			count_kernel(c, ROW_GOV + g, c->gchoice[g]);
		if (dump)
			fprintf(dump, "%s %u %" PRIu64 " -1 %" PRIu64 " %" PRId64 " %" PRId64
				" %d %d\n", row_name(ROW_GOV + g), e->cpu, c->enter_t, actual,
				c->gsleep == NO_TIME ? -1 : (s64)c->gsleep,
				c->gnext == NO_TIME ? -1 : (s64)c->gnext,
				c->gchoice[g], oracle);
	}
	if (!rule_on[ROW_KERNEL] || c->traced_state < 0 || oracle < 0)
		return;
	count_row(c, ROW_KERNEL, c->traced_state, oracle, actual);
	if (dump)
		fprintf(dump, "kernel %u %" PRIu64 " -1 %" PRIu64 " -1 %d %d %d\n",
			e->cpu, c->enter_t, actual, c->tick_stopped_sel,
			c->traced_state, oracle);
}

static void idle_exit(size_t idx)
{
	const struct event *e = &evs[idx];
	struct cpu_state *c = cpu_get(e->cpu);
	struct sched_idle_choice ch;
	u64 actual, timer_ns;
	int r, oracle;

	if (!c->open) {
		if (native_format)
			fail(e->line, "idle_exit on cpu %u not idle", e->cpu);
		unmatched_exit++;
		return;
	}
	c->open = 0;
	c->exit_t = e->t;
	actual = e->t - c->enter_t;
	timer_ns = c->timer_ns;
	/* No timer input at all: a wakeup by no interrupt was the timer. */
	if (timer_ns == NO_TIME && !have_select && !have_hrt && !have_native_timer &&
	    !c->irq_during && !woken_by_irq(idx))
		timer_ns = actual;

	oracle = sched_idle_select_state(&drv, &dev, actual, c->latency_req);
	gov_exit(c, idx, actual, oracle);
	for (r = 0; r < IRQ_PREDICT_NR_RULES; r++) {
		struct rule_stats *s = &stats[r];
		struct sched_idle_wakeup w = { 0 };
		int index;

		if (!rule_on[r])
			continue;
		w.timer_ns = timer_ns;
		w.irq_ns = c->irq_ns[r];
		if (c->delta_tick_ns != NO_TIME)
			w.delta_tick_ns = c->delta_tick_ns;
		else
			w.delta_tick_ns = tick_ns ? tick_ns - c->enter_t % tick_ns : U64_MAX;
		/*
		 * kernel/sched/idle.c: sched_idle(); whether the tick was
		 * stopped already is traced, or known from its hrtimer
		 * events, else it is taken to run.  The tick decision needs
		 * the tick period even when the tick's phase is not modelled
		 * (with 0, every duration would stop the tick).
		 */
		sched_idle_wakeup_combine(&w);
		sched_idle_choose(&drv, &dev, &w, learn ? &c->hist[r] : NULL,
				  c->latency_req, tick_ns ? tick_ns : (u64)TICK_NSEC,
				  c->tick_stopped_sel, &ch);
		index = ch.index;
		/* sched_idle_learn_from(), with the traced idle duration */
		if (learn && index >= 0)
			sched_idle_reflect(&drv, &c->hist[r], ch.expected_ns,
					   sched_idle_learned_ns(&drv, index, actual,
								 actual > poll_limit_ns,
								 ch.expected_ns));
		if (index < 0 || oracle < 0)
			continue;
		count_row(c, r, index, oracle, actual);
		if (w.duration_ns == U64_MAX)
			s->nopred++;
		else
			record_err(s, (double)w.duration_ns - (double)actual);
		if (c->kernel_state >= 0) {
			s->kernel_seen++;
			s->kernel_match += index == c->kernel_state;
			c->rc[r].seen++;
			c->rc[r].match += index == c->kernel_state;
		}
		if (dump)
			fprintf(dump, "%s %u %" PRIu64 " %" PRId64 " %" PRIu64
				" %" PRId64 " %" PRId64 " %d %d\n",
				irq_predict_rule_name(r), e->cpu, c->enter_t,
				w.duration_ns == U64_MAX ? -1 : (s64)w.duration_ns,
				actual,
				timer_ns == NO_TIME ? -1 : (s64)timer_ns,
				w.irq_ns == U64_MAX ? -1 : (s64)w.irq_ns,
				index, oracle);
	}
}

static void replay(void)
{
	size_t i;

	for (i = 0; i < nev; i++) {
		const struct event *e = &evs[i];
		struct cpu_state *c;

		switch (e->type) {
		case EV_IRQ:
			c = cpu_get(e->cpu);
			c->ring_t[c->ring_head] = e->t;
			c->ring_irq[c->ring_head] = e->a;
			c->ring_head = (c->ring_head + 1) % RING_SIZE;
			if (c->ring_n < RING_SIZE)
				c->ring_n++;
			if (c->open)
				c->irq_during = 1;
			break;
		case EV_ENTER:
			idle_enter(e);
			break;
		case EV_EXIT:
			idle_exit(i);
			break;
		case EV_SELECT:
			c = cpu_get(e->cpu);
			c->sel = *e;
			c->sel_valid = 1;
			break;
		case EV_HRT_START:
			hrt_start(e);
			tick_hrt(e);
			break;
		case EV_HRT_EXPIRE:
			/* now= is on the hrtimer clock: learn the offset. */
			hrt_offset = (s64)e->b - (s64)e->t;
			hrt_remove(e->a);
			tick_hrt(e);
			break;
		case EV_HRT_CANCEL:
			hrt_remove(e->a);
			tick_hrt(e);
			break;
		case EV_WT_START:
		case EV_WT_CANCEL:
		case EV_WT_EXPIRE:
			wt_event(e);
			break;
		}
	}
}

/* ------------------------------------------------------------------ */
/*
 * Exact replay (patch 7's irq_predict events): the stamps the kernel's
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

struct exact_stats {
	u64 records, warm, pred_match, states, state_match, unpaired, intercepted;
	u64 first_line;
	char first_why[200];
};

static struct exact_cpu *ecpus[MAX_CPUS];
static struct exact_stats xs;
static int from_boot, check_exact;
/* TICK_NSEC: --tick-period-ns, the --states file's hz, or HZ=250 */
#define tick_period_ns	((u64)TICK_NSEC)

static struct exact_cpu *ecpu_get(u32 cpu)
{
	if (!ecpus[cpu]) {
		ecpus[cpu] = calloc(1, sizeof(*ecpus[cpu]));
		if (!ecpus[cpu]) {
			fprintf(stderr, "replay: out of memory\n");
			exit(1);
		}
		ecpus[cpu]->boot = from_boot;
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
	if (x->nsi == x->capsi) {
		x->capsi = x->capsi ? x->capsi * 2 : 16;
		x->si = realloc(x->si, x->capsi * sizeof(*x->si));
		if (!x->si) {
			fprintf(stderr, "replay: out of memory\n");
			exit(1);
		}
	}
	memset(&x->si[x->nsi], 0, sizeof(*x->si));
	x->si[x->nsi].irq = irq;
	return &x->si[x->nsi++];
}

static void exact_mismatch(const struct event *e, const char *fmt, ...)
{
	va_list ap;

	if (xs.first_line)
		return;
	xs.first_line = e->line;
	va_start(ap, fmt);
	vsnprintf(xs.first_why, sizeof(xs.first_why), fmt, ap);
	va_end(ap);
}

static void exact_stamp(struct exact_cpu *x, const struct event *e)
{
	struct irq_source *src = src_find(&x->pc, e->a);
	struct src_info *si = info_get(x, e->a);
	int full = x->pc.nr_sources == IRQ_PREDICT_SOURCES;
	u64 last = src ? src->last_ns : 0;

	irq_predict_record(&x->pc, e->a, e->b);
	if (!src) {
		/* irq_source_start() */
		if (full && !x->boot)
			x->unsound = 1;
		si->known = x->boot || x->past_reset;
		si->post = x->past_reset;
		return;
	}
	if (e->b < last)
		return;			/* out of order: ignored by both */
	if (e->b - last > IRQ_PREDICT_RESET_NS)
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

static void exact_next(struct exact_cpu *x, const struct event *e)
{
	u64 now = e->a, next;
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
	next = irq_predict_next(&x->pc, now, e->state, &irq);
	warm = x->boot || (x->past_reset && !x->unsound && exact_all_known(x));
	ok = next == e->b;
	if (ok && next != U64_MAX && irq != e->c) {
		/* a tie: another source may come first in the kernel's table */
		struct irq_source *s = x->boot ? NULL : src_find(&x->pc, e->c);

		ok = s && irq_source_predict(s, max(now, s->last_ns), e->state) == next;
	}
	xs.records++;
	if (warm) {
		xs.warm++;
		xs.pred_match += ok;
		if (!ok)
			exact_mismatch(e, "cpu %u now_ns=%" PRIu64 " rule=%d: replayed next_ns=%" PRId64
				       " irq=%u, traced next_ns=%" PRId64 " irq=%" PRIu64,
				       e->cpu, now, e->state,
				       next == U64_MAX ? -1 : (s64)next, irq,
				       e->b == NO_TIME ? -1 : (s64)e->b, e->c);
	}
	x->pend = 1;
	x->pend_warm = warm;
	x->pend_irq_ns = next == U64_MAX ? U64_MAX : next - now;
}

/* kernel/sched/idle.c: sched_idle(), from the replayed prediction. */
static void exact_select(struct exact_cpu *x, const struct event *e)
{
	struct sched_idle_history *h = learn ? &x->hist : NULL;
	struct sched_idle_wakeup w = { 0 };
	struct sched_idle_choice c0, c1, *c = &c0;
	u64 lat = e->c;
	int index, stop, ok, hist_pend = x->hist_pend;

	x->hist_pend = 0;
	if (e->learned != NO_TIME) {
		if (hist_pend) {
			sched_idle_reflect(&drv, &x->hist, x->hist_expected, e->learned);
			x->hist_learned++;
		} else {
			/* learned from a choice this trace did not replay */
			x->hist_learned = 0;
			x->hist_lost = 1;
		}
	}
	if (!x->pend) {
		xs.unpaired++;
		return;
	}
	x->pend = 0;
	if (e->d == NO_TIME)
		fail(e->line, "sched_idle_select without delta_tick_ns: too old for exact replay");
	w.timer_ns = e->a;
	w.delta_tick_ns = e->d;
	w.irq_ns = x->pend_irq_ns;
	sched_idle_wakeup_combine(&w);
	stop = e->stop_tick;
	if (e->tick_stopped >= 0) {
		sched_idle_choose(&drv, &dev, &w, h, lat, tick_period_ns,
				  e->tick_stopped, &c0);
		ok = c0.index >= 0 && stop == c0.stop_tick && c0.index == e->state;
		index = c0.index;
	} else {
		/* tick_nohz_tick_stopped() is not traced: either is possible */
		sched_idle_choose(&drv, &dev, &w, h, lat, tick_period_ns, false, &c0);
		sched_idle_choose(&drv, &dev, &w, h, lat, tick_period_ns, true, &c1);
		ok = c0.index >= 0 && stop == c0.stop_tick && c0.index == e->state;
		index = c0.index;
		if (!ok && c1.index >= 0 && stop == c1.stop_tick && c1.index == e->state) {
			ok = 1;
			index = c1.index;
			c = &c1;
		}
	}
	if (c->index >= 0) {
		x->hist_expected = c->expected_ns;
		x->hist_pend = 1;
	}
	ok = ok && w.irq_ns == e->b;
	if (!x->pend_warm ||
	    ((!from_boot || x->hist_lost) && x->hist_learned < HIST_WARM))
		return;
	xs.states++;
	xs.state_match += ok;
	xs.intercepted += ok && c->intercepted;
	if (!ok)
		exact_mismatch(e, "cpu %u: replayed irq_ns=%" PRId64 " state=%d (stop_tick %s), traced irq_ns=%" PRId64
			       " state=%d stop_tick=%d",
			       e->cpu, w.irq_ns == U64_MAX ? -1 : (s64)w.irq_ns, index,
			       index < 0 ? "-" : "checked",
			       e->b == NO_TIME ? -1 : (s64)e->b, e->state, stop);
}

static void exact_lost(struct exact_cpu *x)
{
	struct src_info *si = x->si;
	size_t capsi = x->capsi;

	memset(x, 0, sizeof(*x));
	x->si = si;
	x->capsi = capsi;
}

static void replay_exact(void)
{
	size_t i;

	for (i = 0; i < nev; i++) {
		const struct event *e = &evs[i];

		switch (e->type) {
		case EV_STAMP:
			exact_stamp(ecpu_get(e->cpu), e);
			break;
		case EV_FORGET:
			irq_predict_forget(&ecpu_get(e->cpu)->pc, e->a);
			break;
		case EV_NEXT:
			exact_next(ecpu_get(e->cpu), e);
			break;
		case EV_SELECT:
			exact_select(ecpu_get(e->cpu), e);
			break;
		case EV_LOST:
			exact_lost(ecpu_get(e->cpu));
			break;
		case EV_RING_LOST:
			irq_predict_lost(&ecpu_get(e->cpu)->pc);
			break;
		case EV_RESET: {
			struct exact_cpu *x = ecpu_get(e->cpu);

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

static double pct(u64 a, u64 b)
{
	return b ? 100.0 * a / b : 0;
}

static void print_exact(FILE *f)
{
	fprintf(f, "exact replay%s: records %" PRIu64 ", warm %" PRIu64
		", predictions matched %" PRIu64 "/%" PRIu64 " (%.2f%%)"
		", states matched %" PRIu64 "/%" PRIu64 " (%.2f%%)"
		", intercepted %" PRIu64 "\n",
		from_boot ? " (from boot)" : "", xs.records, xs.warm,
		xs.pred_match, xs.warm, pct(xs.pred_match, xs.warm),
		xs.state_match, xs.states, pct(xs.state_match, xs.states),
		xs.intercepted);
	if (xs.first_line)
		fprintf(f, "first mismatch: %s:%" PRIu64 ": %s\n", input_name,
			xs.first_line, xs.first_why);
}

/* ------------------------------------------------------------------ */
/* Output. */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double quantile(double *v, size_t n, double q)
{
	size_t k;

	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), cmp_double);
	k = (size_t)(q * (n - 1) + 0.5);
	return v[k];
}

struct summary {
	double err_med_us, abs_p90_us, deep_pct, shallow_pct, e_mj, oe_mj;
	u64 deep, shallow;
};

static void summarize(struct rule_stats *s, struct summary *m)
{
	size_t i;
	int a, b;

	memset(m, 0, sizeof(*m));
	m->err_med_us = quantile(s->err, s->nerr, 0.5) / 1000;
	for (i = 0; i < s->nerr; i++)
		s->err[i] = s->err[i] < 0 ? -s->err[i] : s->err[i];
	m->abs_p90_us = quantile(s->err, s->nerr, 0.9) / 1000;
	for (a = 0; a < drv.state_count; a++)
		for (b = 0; b < drv.state_count; b++) {
			if (a > b)
				m->deep += s->confusion[a][b];
			if (a < b)
				m->shallow += s->confusion[a][b];
		}
	if (s->periods) {
		m->deep_pct = 100.0 * m->deep / s->periods;
		m->shallow_pct = 100.0 * m->shallow / s->periods;
	}
	m->e_mj = s->energy / 1e9;
	m->oe_mj = s->oracle_energy / 1e9;
}

static void print_govmatch(void)
{
	int r;

	for (r = ROW_GOV; r < ROW_KERNEL; r++) {
		struct rule_stats *s = &stats[r];

		if (!row_exists(r) || !rule_on[r] || !s->kernel_seen)
			continue;
		printf("governor %s: %" PRIu64 " of %" PRIu64 " states as the traced kernel's (%.2f%%), "
		       "the first %" PRIu64 " entries of each CPU not compared\n",
		       row_name(r), s->kernel_match, s->kernel_seen,
		       100.0 * s->kernel_match / s->kernel_seen, gov_warmup);
	}
}

static void print_per_cpu(void)
{
	u32 cpu;
	int r;

	printf("\nper CPU: %-9s %5s %8s %8s %8s %7s %9s\n", "row", "cpu", "periods",
	       "deep_%", "shallow_%", "ratio", "kernel_%");
	for (r = 0; r < NR_ROWS; r++) {
		if (!row_exists(r) || !rule_on[r])
			continue;
		for (cpu = 0; cpu < MAX_CPUS; cpu++) {
			const struct row_cpu *p;

			if (!cpus[cpu] || !cpus[cpu]->rc[r].periods)
				continue;
			p = &cpus[cpu]->rc[r];
			printf("per CPU: %-9s %5u %8" PRIu64 " %8.2f %8.2f ", row_name(r), cpu,
			       p->periods, 100.0 * p->deep / p->periods,
			       100.0 * p->shallow / p->periods);
			if (ptab->active_mw)
				printf("%7.3f ", p->oracle_energy > 0 ?
				       p->energy / p->oracle_energy : 0);
			else
				printf("%7s ", "-");
			if (p->seen)
				printf("%9.2f\n", 100.0 * p->match / p->seen);
			else
				printf("%9s\n", "-");
		}
	}
}

static void print_text(void)
{
	struct summary m;
	int r, a, b;
	int km = have_select || !native_format;

	printf("trace %s: table %s, %zu events, timer input from %s%s\n",
	       input_name, ptab->name, nev,
	       have_select ? "sched_idle_select" :
	       have_native_timer ? "the trace" :
	       have_hrt ? "hrtimer events" : "idle ends with no interrupt (approximation)",
	       tick_ns ? ", kept tick modelled" : "");
	if (unmatched_enter || unmatched_exit)
		printf("unmatched idle entries %" PRIu64 ", exits %" PRIu64 " (skipped)\n",
		       unmatched_enter, unmatched_exit);
	print_govmatch();
	printf("\n%-9s %8s %7s %10s %10s %8s %8s %11s %11s %7s%s\n", "rule", "periods",
	       "nopred", "err_med_us", "err_p90_us", "deep_%", "shallow_%",
	       "energy_mJ", "oracle_mJ", "ratio", km ? "  kernel_match_%" : "");
	for (r = 0; r < NR_ROWS; r++) {
		struct rule_stats *s = &stats[r];

		if (!row_exists(r) || !rule_on[r])
			continue;
		summarize(s, &m);
		if (r < ROW_GOV)
			printf("%-9s %8" PRIu64 " %7" PRIu64 " %10.1f %10.1f", row_name(r),
			       s->periods, s->nopred, m.err_med_us, m.abs_p90_us);
		else	/* a governor's predicted duration is not exposed */
			printf("%-9s %8" PRIu64 " %7s %10s %10s", row_name(r), s->periods,
			       "-", "-", "-");
		printf(" %8.2f %8.2f", m.deep_pct, m.shallow_pct);
		if (ptab->active_mw)
			printf(" %11.3f %11.3f %7.3f", m.e_mj, m.oe_mj,
			       m.oe_mj > 0 ? m.e_mj / m.oe_mj : 0);
		else	/* a --states table has no power model */
			printf(" %11s %11s %7s", "-", "-", "-");
		if (km && s->kernel_seen)
			printf("  %14.2f", 100.0 * s->kernel_match / s->kernel_seen);
		else if (km)
			printf("  %14s", "-");
		printf("\n");
	}
	print_per_cpu();
	for (r = 0; r < NR_ROWS; r++) {
		if (!row_exists(r) || !rule_on[r])
			continue;
		printf("\n%s: chosen (rows) vs oracle (columns)\n%-8s", row_name(r), "");
		for (b = 0; b < drv.state_count; b++)
			printf(" %9s", drv.states[b].name);
		printf("\n");
		for (a = 0; a < drv.state_count; a++) {
			printf("%-8s", drv.states[a].name);
			for (b = 0; b < drv.state_count; b++)
				printf(" %9" PRIu64, stats[r].confusion[a][b]);
			printf("\n");
		}
	}
}

static void print_csv(void)
{
	struct summary m;
	int r, a, b;

	printf("trace,table,rule,periods,nopred,err_med_us,err_abs_p90_us,too_deep_pct,"
	       "too_shallow_pct,energy_mj,oracle_energy_mj,energy_ratio,kernel_match_pct");
	for (a = 0; a < drv.state_count; a++)
		for (b = 0; b < drv.state_count; b++)
			printf(",conf_%s_%s", drv.states[a].name, drv.states[b].name);
	printf("\n");
	for (r = 0; r < NR_ROWS; r++) {
		struct rule_stats *s = &stats[r];

		if (!row_exists(r) || !rule_on[r])
			continue;
		summarize(s, &m);
		printf("%s,%s,%s,%" PRIu64 ",%" PRIu64 ",%.3f,%.3f,%.4f,%.4f,%.6f,%.6f,%.5f,",
		       input_name, ptab->name, row_name(r), s->periods,
		       s->nopred, m.err_med_us, m.abs_p90_us, m.deep_pct, m.shallow_pct,
		       m.e_mj, m.oe_mj, m.oe_mj > 0 ? m.e_mj / m.oe_mj : 0);
		if (s->kernel_seen)
			printf("%.3f", 100.0 * s->kernel_match / s->kernel_seen);
		for (a = 0; a < drv.state_count; a++)
			for (b = 0; b < drv.state_count; b++)
				printf(",%" PRIu64, s->confusion[a][b]);
		printf("\n");
	}
}

static void usage(int status)
{
	fprintf(status ? stderr : stdout,
		"usage: replay [--csv] [--table skx|arm | --states FILE] [--rules r1,r2,...]\n"
		"              [--tick-ns N] [--dump FILE] [--ignore-unknown] [--keep-timer-irqs]\n"
		"              [--from-boot] [--check-exact] [--tick-period-ns N]\n"
		"              [--gov-warmup N] [--no-learn] [TRACE|-]\n"
		"rows: timer, last, rfc, adaptive, menu, teo, kernel (default: all)\n"
		"--states FILE: the recorded machine's idle states (perf-scripts/record.sh)\n"
		"--gov-warmup N: governor entries per CPU not compared with the kernel (100)\n"
		"--from-boot: the trace starts at each CPU's first idle entry (exact mode)\n"
		"--check-exact: exit 1 unless irq_predict events replay with no warm mismatch\n"
		"--no-learn: the rules do not learn from the idle periods that happened,\n"
		"  as the kernel with sched_idle_learn=0\n");
	exit(status);
}

int main(int argc, char **argv)
{
	const char *path = NULL, *states_path = NULL;
	int csv = 0, i, r, any;
	FILE *f = stdin;

	setup_driver(&tables[0]);
	for (r = 0; r < NR_ROWS; r++)
		rule_on[r] = 1;
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--csv")) {
			csv = 1;
		} else if (!strcmp(argv[i], "--table") && i + 1 < argc) {
			i++;
			if (!strcmp(argv[i], "skx"))
				setup_driver(&tables[0]);
			else if (!strcmp(argv[i], "arm"))
				setup_driver(&tables[1]);
			else
				usage(2);
		} else if (!strcmp(argv[i], "--rules") && i + 1 < argc) {
			char *list = strdup(argv[++i]), *tok, *save = NULL;

			memset(rule_on, 0, sizeof(rule_on));
			for (tok = strtok_r(list, ",", &save); tok;
			     tok = strtok_r(NULL, ",", &save)) {
				for (r = 0; r < NR_ROWS; r++)
					if ((r < ROW_GOV || r == ROW_KERNEL ||
					     r - ROW_GOV < shim_nr_governors) &&
					    !strcmp(tok, row_name(r)))
						break;
				if (r == NR_ROWS) {
					fprintf(stderr, "replay: unknown rule %s\n", tok);
					exit(2);
				}
				rule_on[r] = 1;
			}
			free(list);
		} else if (!strcmp(argv[i], "--tick-ns") && i + 1 < argc) {
			u64 x;

			i++;
			if (parse_u64(argv[i], strlen(argv[i]), &x) || x > MAX_TIME_NS)
				usage(2);
			tick_ns = x;
		} else if (!strcmp(argv[i], "--dump") && i + 1 < argc) {
			dump = fopen(argv[++i], "w");
			if (!dump) {
				perror(argv[i]);
				exit(2);
			}
		} else if (!strcmp(argv[i], "--tick-period-ns") && i + 1 < argc) {
			u64 x;

			i++;
			if (parse_u64(argv[i], strlen(argv[i]), &x) || !x || x > MAX_TIME_NS)
				usage(2);
			shim_tick_nsec = (long)x;
		} else if (!strcmp(argv[i], "--states") && i + 1 < argc) {
			states_path = argv[++i];
		} else if (!strcmp(argv[i], "--gov-warmup") && i + 1 < argc) {
			i++;
			if (parse_u64(argv[i], strlen(argv[i]), &gov_warmup))
				usage(2);
		} else if (!strcmp(argv[i], "--no-learn")) {
			learn = 0;
		} else if (!strcmp(argv[i], "--from-boot")) {
			from_boot = 1;
		} else if (!strcmp(argv[i], "--check-exact")) {
			check_exact = 1;
		} else if (!strcmp(argv[i], "--ignore-unknown")) {
			ignore_unknown = 1;
		} else if (!strcmp(argv[i], "--keep-timer-irqs")) {
			keep_timer_irqs = 1;
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(0);
		} else if (argv[i][0] == '-' && argv[i][1]) {
			usage(2);
		} else if (!path) {
			path = argv[i];
		} else {
			usage(2);
		}
	}
	for (any = 0, r = 0; r < NR_ROWS; r++)
		any |= rule_on[r];
	if (!any)
		usage(2);
	/* after the options: the table's hz wins over --tick-period-ns */
	if (states_path)
		read_states(states_path);
	else
		setup_poll_limit();
	if (path && strcmp(path, "-")) {
		f = fopen(path, "r");
		if (!f) {
			perror(path);
			exit(2);
		}
		input_name = path;
	}
	read_input(f);
	if (f != stdin)
		fclose(f);
	if (native_format < 0)
		native_format = 0;
	replay();
	if (have_predict)
		replay_exact();
	if (dump)
		fclose(dump);
	if (have_predict && !csv)
		print_exact(stdout);
	if (csv)
		print_csv();
	else
		print_text();
	if (check_exact) {
		if (!have_predict) {
			fprintf(stderr, "replay: %s: no irq_predict events: no exact replay\n", input_name);
			return 1;
		}
		if (!xs.warm) {
			fprintf(stderr, "replay: %s: no warm record to check\n", input_name);
			return 1;
		}
		if (xs.first_line) {
			fprintf(stderr, "replay: %s:%" PRIu64 ": exact replay: %s\n",
				input_name, xs.first_line, xs.first_why);
			return 1;
		}
	}
	return 0;
}
