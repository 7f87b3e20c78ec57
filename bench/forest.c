/*-------------------------------------------------------------------------
 *
 * forest.c
 *		wal_stall_bench: the verdict's forest plots, drawn by gnuplot.
 *
 * One row per configuration, in the configuration's colour of every other
 * chart: the paired ratio against the baseline (a dot) and its interval (a
 * bar).  forest_tps.svg shows the tps change in percent against the grey
 * +-margin band, its edges dashed, and the line of no change, on an axis
 * of at least 1.5 margins each way so that the band's edges always show;
 * forest_stall.svg the ratio of the share of client time lost in all
 * stall classes, on a log scale (stall figures move tenfold); it is not
 * drawn when the runs have no stall figures (a CSV of tps alone).  The inputs
 * stay in plotdir: forest.dat, forest_tps.gp, forest_stall.gp.
 *
 * Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
 *
 *-------------------------------------------------------------------------
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report_internal.h"
#include "verdict.h"

static void
ytics(FILE *gp, const WsbRoundTable *t)
{
	fputs("set ytics noenhanced (", gp);
	for (int c = 1; c < t->nconfigs; c++)
	{
		char		lab[64];

		snprintf(lab, sizeof(lab), "%.63s", t->labels[c]);
		if (strlen(t->labels[c]) > 60)
			strcpy(lab + 56, "...");
		wsb_gp_string(gp, lab);
		fprintf(gp, " %d%s", t->nconfigs - c, c < t->nconfigs - 1 ? ", " : "");
	}
	fputs(")\n", gp);
	fprintf(gp, "set yrange [0.5:%d.5]\n", t->nconfigs - 1);
}

/* configuration c's colour (#rrggbb) as gnuplot's "rgb variable" reads it */
static long
colour_value(int c)
{
	return strtol(wsb_config_colour(c) + 1, NULL, 16);
}

/*
 * The tps chart's axis, in percent: the margin band and 1.5 margins each
 * way, widened to every interval, and a twentieth of that on each side.
 */
static void
tps_axis(const WsbRoundTable *t, const WsbJudgeSpec *spec, const WsbPaired *v,
		 double *lo, double *hi)
{
	double		pad;

	*lo = -1.5 * spec->margin_pct;
	*hi = 1.5 * spec->margin_pct;
	for (int c = 1; c < t->nconfigs; c++)
	{
		const WsbPaired *p = &v[c * WSB_N_METRICS + WSB_M_TPS];
		double		l = isnan(p->low) ? p->ratio : p->low;
		double		h = isnan(p->high) ? p->ratio : p->high;

		if (isfinite(l))
			*lo = fmin(*lo, 100 * (l - 1));
		if (isfinite(h))
			*hi = fmax(*hi, 100 * (h - 1));
	}
	pad = (*hi - *lo) / 20;
	*lo -= pad;
	*hi += pad;
}

/*
 * Write the data and both scripts, then run gnuplot on them.  0 when both
 * SVG files were drawn; -1 with why otherwise (no gnuplot, a file that
 * could not be written, gnuplot's own error).
 */
int
wsb_draw_forest(const char *plotdir, const WsbRoundTable *t, const WsbJudgeSpec *spec,
				const WsbPaired *v, char *why, size_t whylen)
{
	char	   *path = NULL;
	FILE	   *d,
			   *gp;
	int			h = 120 + 40 * (t->nconfigs - 1);
	bool		stalls = false;

	for (int c = 1; c < t->nconfigs; c++)
		stalls |= isfinite(v[c * WSB_N_METRICS + WSB_M_SHARE_ALL].ratio);

	if (!wsb_find_gnuplot(why, whylen))
		return -1;
	if (mkdir(plotdir, 0755) != 0 && errno != EEXIST)
	{
		snprintf(why, whylen, "could not create directory \"%s\": %s", plotdir, strerror(errno));
		return -1;
	}
	path = wsb_psprintf("%s/forest.dat", plotdir);
	if ((d = fopen(path, "w")) == NULL)
		goto write_error;
	fputs("# row tps_change_pct low_pct high_pct stall_share_ratio low high colour (row 1 at the bottom)\n", d);
	for (int c = 1; c < t->nconfigs; c++)
	{
		const WsbPaired *p = &v[c * WSB_N_METRICS + WSB_M_TPS];
		const WsbPaired *s = &v[c * WSB_N_METRICS + WSB_M_SHARE_ALL];

		fprintf(d, "%d ", t->nconfigs - c);
		wsb_gp_number(d, 100 * (p->ratio - 1));
		fputc(' ', d);
		wsb_gp_number(d, 100 * ((isnan(p->low) ? p->ratio : p->low) - 1));
		fputc(' ', d);
		wsb_gp_number(d, 100 * ((isnan(p->high) ? p->ratio : p->high) - 1));
		fputc(' ', d);
		wsb_gp_number(d, s->ratio);
		fputc(' ', d);
		wsb_gp_number(d, isnan(s->low) ? s->ratio : s->low);
		fputc(' ', d);
		wsb_gp_number(d, isnan(s->high) ? s->ratio : s->high);
		fprintf(d, " %ld\n", colour_value(c));
	}
	fclose(d);

	/* no stall figures (a CSV of tps alone): no stall chart */
	free(path);
	path = wsb_psprintf("%s/forest_stall.svg", plotdir);
	unlink(path);
	for (int which = 0; which < (stalls ? 2 : 1); which++)
	{
		free(path);
		path = wsb_psprintf("%s/forest_%s.gp", plotdir, which ? "stall" : "tps");
		if ((gp = fopen(path, "w")) == NULL)
			goto write_error;
		fprintf(gp, "set terminal svg size 900,%d dynamic enhanced font 'sans,10'\n", h);
		fprintf(gp, "set output 'forest_%s.svg'\n", which ? "stall" : "tps");
		fputs("set datafile missing '?'\nset grid xtics lc rgb '#dddddd'\nset key off\n"
			  "set lmargin 40\n", gp);
		ytics(gp, t);
		if (which == 0)
		{
			double		lo,
						hi;

			tps_axis(t, spec, v, &lo, &hi);
			fprintf(gp, "set xrange [%.4g:%.4g]\n", lo, hi);
			fprintf(gp, "set object 1 rect from %g, graph 0 to %g, graph 1 fc rgb '#e8e8e8' "
					"fs solid noborder behind\n", -spec->margin_pct, spec->margin_pct);
			fputs("set arrow 1 from 0, graph 0 to 0, graph 1 nohead lc rgb '#555555'\n", gp);
			fprintf(gp, "set arrow 2 from %g, graph 0 to %g, graph 1 nohead dt 2 lc rgb '#888888'\n"
					"set arrow 3 from %g, graph 0 to %g, graph 1 nohead dt 2 lc rgb '#888888'\n",
					-spec->margin_pct, -spec->margin_pct, spec->margin_pct, spec->margin_pct);
			fprintf(gp, "set xlabel 'tps change against the baseline of the same round, %%  "
					"(grey: +-%g%% margin)' noenhanced\n", spec->margin_pct);
			fputs("plot 'forest.dat' using 2:1:3:4:8 with xerrorbars pt 7 ps 1 lc rgb variable\n", gp);
		}
		else
		{
			fputs("set logscale x\n"
				  "set arrow 1 from 1, graph 0 to 1, graph 1 nohead lc rgb '#555555'\n"
				  "set xlabel 'ratio of the share of client time in stall classes (log scale)' noenhanced\n"
				  "set offsets graph 0.05, graph 0.05, 0, 0\n"
				  "plot 'forest.dat' using 5:1:6:7:8 with xerrorbars pt 7 ps 1 lc rgb variable\n", gp);
		}
		fputs("set output\n", gp);
		fclose(gp);
	}
	free(path);
	if (wsb_run_gnuplot(plotdir, "forest_tps.gp", why, whylen) != 0 ||
		(stalls && wsb_run_gnuplot(plotdir, "forest_stall.gp", why, whylen) != 0))
		return -1;
	return 0;
write_error:
	snprintf(why, whylen, "could not write \"%s\": %s", path, strerror(errno));
	free(path);
	return -1;
}
