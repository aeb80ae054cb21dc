/* SPDX-License-Identifier: GPL-2.0 */
/*
 * trace.h: a trace as parse.c reads it and the replays walk it: the
 * tagged struct event (a type and a union of per-type structs) and what
 * the reader learned of the whole trace (struct trace).
 */
#ifndef _IDLE_LOOP_TRACE_H
#define _IDLE_LOOP_TRACE_H

#include <stdbool.h>
#include <stddef.h>

#include <linux/types.h>
#include <linux/limits.h>

#define MAX_CPUS	4096
#define MAX_IRQ		(1U << 24)
/* Stamps past 2^62 ns (146 years) are refused as garbage. */
#define MAX_TIME_NS	(1ULL << 62)
#define NO_TIME		U64_MAX

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
	int tick_stopped;	/* enum sched_idle_tick, -1 not traced */
	u64 restarted_ns;	/* first expiry of a restarted tick, or NO_TIME */
	bool restarted_traced;	/* restarted_ns= was traced (-1: not restarted) */
};

/* EV_HRT_START, EV_HRT_CANCEL, EV_HRT_EXPIRE: timer:hrtimer_* */
struct ev_hrt {
	u64 id;			/* hash of the printed address */
	u64 expires;		/* start: expires=, hrtimer clock */
	u64 now;		/* expire: now=, hrtimer clock */
	bool tick;		/* start, expire: the tick's sched_timer */
	bool lazy;		/* start: the scheduler's hrtick (function=hrtick) */
};

/*
 * EV_STAMP: irq_predict_stamp, or irq_predict_restart (@restart: earlier
 * stamps of the interrupt were lost, its timeline restarts here)
 */
struct ev_stamp {
	u32 irq;
	u64 ts_ns;
	bool restart;
};

/* EV_NEXT: irq_predict_next */
struct ev_next {
	u64 now_ns;
	u64 next_ns;		/* NO_TIME for none (-1) */
	u32 irq;
	int rule;
};

/* EV_RING_LOST: irq_predict_lost (the ring overflowed) */
struct ev_ring_lost {
	u64 stamps;
	u64 first_ns;		/* the first stamp kept, NO_TIME when not traced */
};

/* EV_RESET: irq_predict_reset (the table starts over) */
struct ev_reset {
	u64 epoch;		/* forgets= in traces of older kernels */
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

/* The task an event ran in (perf script's TID, ftrace's PID). */
enum ev_ctx {
	CTX_UNKNOWN,		/* not traced (native format), or another CPU's */
	CTX_IDLE,		/* the CPU's idle task (PID 0) */
	CTX_TASK,		/* any other task */
};

/* Whether TIF_NEED_RESCHED was set at the event (ftrace's flags). */
enum ev_resched {
	RESCHED_UNKNOWN,	/* not traced (perf script, native format) */
	RESCHED_CLEAR,
	RESCHED_SET,
};

/* One trace event: the type says which member of the union is set. */
struct event {
	u64 t;
	u32 cpu;
	u32 line;
	u8 type;		/* enum ev_type */
	u8 ctx;			/* enum ev_ctx */
	u8 resched;		/* enum ev_resched */
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

/*
 * The events in trace order, and which kinds the trace holds: the input
 * each replay takes its timer from depends on them (README.md, "What it
 * reads").
 */
struct trace {
	const char *name;	/* the file, "-" for standard input */
	struct event *evs;
	size_t nev;
	bool native;		/* the native synthetic format (tests) */
	bool have_select;	/* sched_idle_select */
	bool have_hrt;		/* timer:hrtimer_* */
	bool have_native_timer;	/* native idle_enter with a TIMER_NS */
	bool have_predict;	/* irq_predict_*: the exact replay */
	bool have_wheel;	/* timer:timer_start */
};

#endif
