/*-------------------------------------------------------------------------
 *
 * list_quote_settings.c
 *		Print the settings wal_stall_bench restores one literal per list
 *		element (autoconf.c, wsb_list_quote_settings), one a line: the
 *		probe bench/t/list_quote.sh compares with what the server under
 *		test quotes.
 *
 * Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
 *
 *-------------------------------------------------------------------------
 */
#include <stdio.h>

#include "engine.h"

int
main(void)
{
	for (int i = 0; wsb_list_quote_settings[i]; i++)
		printf("%s\n", wsb_list_quote_settings[i]);
	return 0;
}
