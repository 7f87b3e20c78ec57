/*-------------------------------------------------------------------------
 *
 * expbuffer.h
 *		wal_stall_bench: libpq's PQExpBuffer, the string that grows as
 *		needed, for the SQL texts, command lines and messages the harness
 *		builds.
 *
 * pqexpbuffer.h (libpq-dev's internal headers) takes pg_attribute_printf
 * from PostgreSQL's c.h, which a libpq client does not include: defined
 * here as c.h defines it for GCC and Clang.
 *
 * Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
 *
 *-------------------------------------------------------------------------
 */
#ifndef WSB_EXPBUFFER_H
#define WSB_EXPBUFFER_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#ifndef pg_attribute_printf
#define pg_attribute_printf(f, a) __attribute__((format(gnu_printf, f, a)))
#endif
#include <pqexpbuffer.h>

#endif							/* WSB_EXPBUFFER_H */
