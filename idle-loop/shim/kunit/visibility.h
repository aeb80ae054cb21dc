/* SPDX-License-Identifier: GPL-2.0 */
/* User-space shim of <kunit/visibility.h>: no KUnit here. */
#ifndef _SHIM_KUNIT_VISIBILITY_H
#define _SHIM_KUNIT_VISIBILITY_H

#define VISIBLE_IF_KUNIT static
#define EXPORT_SYMBOL_IF_KUNIT(symbol)

#endif
