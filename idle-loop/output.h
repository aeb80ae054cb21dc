/* SPDX-License-Identifier: GPL-2.0 */
/*
 * output.h: what the replay prints (output.c).
 */
#ifndef _IDLE_LOOP_OUTPUT_H
#define _IDLE_LOOP_OUTPUT_H

#include <stdio.h>

#include "trace.h"
#include "replay.h"
#include "exact.h"

void print_exact(FILE *f, const struct exact *xs, const struct trace *tr);
void print_text(struct replay *rp, const struct trace *tr);
void print_csv(struct replay *rp, const struct trace *tr);

#endif
