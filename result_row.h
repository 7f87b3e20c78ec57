/*-------------------------------------------------------------------------
 *
 * result_row.h
 *		The builder of the rows the SQL functions return (views.c,
 *		queries.c).
 *
 * A result row is built by appending its columns in order with put_*() and
 * nothing else, so that whether a column is NULL is decided in one way
 * everywhere: by put_datum()'s isnull.  The shorthands apply the
 * conventions of the structs the figures come from: a negative number is
 * unknown (-1), a NULL string is absent.  Every function ends its row with
 * Assert(row.ncols == <its column count>): a column added or dropped in
 * one place only would otherwise shift every later column silently.
 *
 * Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
 *
 *-------------------------------------------------------------------------
 */
#ifndef WS_RESULT_ROW_H
#define WS_RESULT_ROW_H

#include "utils/builtins.h"

/* The widest row: wal_stall_history's of SQL API 1.2. */
#define WS_ROW_MAX_COLS		24

typedef struct ResultRow
{
	Datum		values[WS_ROW_MAX_COLS];
	bool		nulls[WS_ROW_MAX_COLS];
	int			ncols;
} ResultRow;

static inline void
put_datum(ResultRow *row, Datum value, bool isnull)
{
	Assert(row->ncols < (int) lengthof(row->values));
	row->values[row->ncols] = isnull ? (Datum) 0 : value;
	row->nulls[row->ncols] = isnull;
	row->ncols++;
}

static inline void
put_null(ResultRow *row)
{
	put_datum(row, (Datum) 0, true);
}

/* A figure: NULL when unknown (negative). */
static inline void
put_int64(ResultRow *row, int64 value)
{
	put_datum(row, Int64GetDatum(value), value < 0);
}

static inline void
put_float8(ResultRow *row, double value)
{
	put_datum(row, Float8GetDatum(value), value < 0);
}

/* A string: NULL when there is none. */
static inline void
put_text(ResultRow *row, const char *value)
{
	put_datum(row, value ? CStringGetTextDatum(value) : (Datum) 0, value == NULL);
}

#endif							/* WS_RESULT_ROW_H */
