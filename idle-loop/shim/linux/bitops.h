/* SPDX-License-Identifier: GPL-2.0 */
/* User-space shim: the bit counts kernel/irq/predict.c uses. */
#ifndef _SHIM_LINUX_BITOPS_H
#define _SHIM_LINUX_BITOPS_H

#define hweight8(w)	((unsigned int)__builtin_popcount((unsigned char)(w)))

#endif
