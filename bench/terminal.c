/*-------------------------------------------------------------------------
 *
 * terminal.c
 *		wal_stall_bench: each configuration's runs on the terminal, the
 *		table main.c prints at the end, before the verdict.
 *
 * One line per configuration: the tps of each run in run order, each
 * run's window tps when the verdict pairs those, and the median of what
 * it pairs, wrapped at 100 columns.  The other tables on the terminal belong to what they
 * show: the verdict's to verdict_report.c, the CLOG's to clog_report.c,
 * --validate's to report_validate.c.
 *
 * Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
 *
 *-------------------------------------------------------------------------
 */
#include <stdlib.h>
#include <string.h>

#include "figures.h"

/*
 * Print text wrapped at width on blanks, its lines after the first from
 * column hang on, so that a wrapped line reads as the one before's.
 */
static void
print_wrapped(FILE *f, const char *text, int hang, int width)
{
	const char *p = text;
	int			indent = 0;

	while (*p)
	{
		int			room = width - indent;
		int			len = (int) strlen(p);
		int			cut = len;

		if (len > room)
		{
			cut = room;
			while (cut > 0 && p[cut] != ' ')
				cut--;
			if (cut == 0)
				cut = room;
		}
		fprintf(f, "%*s%.*s\n", indent, "", cut, p);
		p += cut;
		while (*p == ' ')
			p++;
		indent = hang;
	}
}

/*
 * Each configuration's runs on the terminal: the tps of each in run order,
 * then, when the verdict pairs them, each run's window tps; the median is
 * of the tps the verdict judges, so that it reads beside the ratio.
 * Wrapped at 100 columns.  The verdict follows it (wsb_print_paired).
 */
void
wsb_print_runs(FILE *f, const WsbPlan *plan, const WsbRun *runs, int nruns)
{
	const WsbRun **ord = wsb_runs_in_order(runs, nruns);
	double	   *x = wsb_xmalloc(sizeof(double) * (nruns > 0 ? nruns : 1));
	bool		window = wsb_window_judged(runs, nruns);

	if (ord == NULL)
	{
		free(ord);
		free(x);
		return;
	}
	fputs(window ? "tps of each run (run order); over its steady seconds, what the verdict judges, "
		  "and their median\n" : "tps of each run (run order), median\n", f);
	for (int c = 0; c < plan->nconfigs; c++)
	{
		char	   *line = NULL;
		size_t		linelen = 0;
		FILE	   *m = open_memstream(&line, &linelen);
		char		b[32];
		int			nok = 0;

		if (m == NULL)
			break;
		fprintf(m, "%s:", plan->configs[c].label);
		for (int i = 0; i < nruns; i++)
		{
			if (ord[i]->config != c)
				continue;
			wsb_fmt_tps(b, sizeof(b), ord[i]->tps);
			fprintf(m, " %s", ord[i]->ok ? b : "failed");
		}
		if (window)
		{
			fputs("; over the steady seconds:", m);
			for (int i = 0; i < nruns; i++)
			{
				if (ord[i]->config != c || !ord[i]->ok)
					continue;
				wsb_fmt_tps(b, sizeof(b), ord[i]->tps_window);
				fprintf(m, " %s", b);
			}
		}
		nok = wsb_config_judged_tps(runs, nruns, c, x);
		wsb_fmt_tps(b, sizeof(b), wsb_median(x, nok));
		fprintf(m, ", median %s", b);
		if (fclose(m) == 0)
			print_wrapped(f, line, 4, 100);
		free(line);
	}
	free(ord);
	free(x);
}
