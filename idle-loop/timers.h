/* SPDX-License-Identifier: GPL-2.0 */
/*
 * timers.h: the timers and the tick the nohz code knew at each idle
 * entry, reconstructed from the trace's timer events (timers.c).
 */
#ifndef _IDLE_LOOP_TIMERS_H
#define _IDLE_LOOP_TIMERS_H

#include <stdbool.h>
#include <stddef.h>

#include <linux/types.h>
#include "trace.h"

/*
 * The idle path takes a few us from an idle exit to the next select()
 * (reflect(), need_resched(), select()) and from select() to the entry
 * (the tick stopped); a CPU with no event for longer ran a task.
 */
#define IDLE_PATH_NS	20000

void timers_setup(const struct trace *tr);
u64 timers_lost(void);
void timers_event(const struct trace *tr, size_t i);
u64 hrt_next(u32 cpu, u64 now);
u64 clockevent_next(u32 cpu, u64 now, u64 from);
u64 hrt_next_ex(u32 cpu, u64 now, int no_tick);
u64 wheel_sleep(u32 cpu, u64 now, u64 from, bool stopped, u64 sleep_hrt, u64 next);
bool tick_stopped_at_select(u32 cpu, u64 exit_t);
bool tick_kept_at_select(u32 cpu, u64 exit_t);
bool tick_is_hrt(u32 cpu, u64 id);
size_t tick_expired_after(const struct trace *tr, size_t i);
bool tick_stop_event(const struct trace *tr, size_t i);
int woken_by_irq(const struct trace *tr, size_t i);
u64 timer_by_lookahead(const struct trace *tr, const struct event *e);

#endif
