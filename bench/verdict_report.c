/*-------------------------------------------------------------------------
 *
 * verdict_report.c
 *		wal_stall_bench: an experiment's verdicts, start to end: its rounds
 *		read (round_table.c), judged (verdict.c), and written out: verdicts.csv (one
 *		row per configuration and metric), the terminal table and the
 *		report's "Verdict by rounds" section, whose forest plots forest.c
 *		draws.  Nothing here judges.
 *
 * Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
 *
 *-------------------------------------------------------------------------
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine.h"
#include "expbuffer.h"
#include "report_internal.h"
#include "verdict.h"

/* ---------------------------------------------------------------------
 * Writing
 * --------------------------------------------------------------------- */

/* How the interval of metric m was made, for verdicts.csv and the report. */
void
wsb_method_text(const WsbJudgeSpec *spec, WsbMetric m, const WsbPaired *p, PQExpBuffer buf)
{
	appendPQExpBuffer(buf, "paired t on per-round log ratios of %s, %s%s%g df, %.4g%% interval "
					  "(Holm over configurations), TOST at %.4g%% (Holm over configurations)",
					  m == WSB_M_TPS ? "tps" : m == WSB_M_P99 ? "p99 latency" :
					  m == WSB_M_LONGEST ? "the longest stall (floor 1 ms)" :
					  m == WSB_M_IMPLIED ? "(1 - stall share)" :
					  (m >= WSB_M_EPISODES ? "episodes (floor 1)" : "stall share (floor 1 ms)"),
					  p->speed_adjusted ? "tps moved for the machine's speed (speed.c), " : "",
					  p->place_adjusted ? "the run's place in its round a covariate, " : "",
					  p->df > 0 ? p->df : 0,
					  isnan(p->level) ? 95.0 : 100 * p->level,
					  100 * (isnan(p->level90) ? 1 - 2 * p->alpha_used : p->level90));
	if (spec->nlooks > 0)
		appendPQExpBuffer(buf, "; look %d of at most %d, alpha %.4g at this look (O'Brien-Fleming "
						  "spending, Lan-DeMets, %.4g spent by it)", spec->look, spec->nlooks,
						  p->alpha_used, wsb_spent_at_look(0.05, spec->look, spec->nlooks));
	if (!isnan(p->rank_p))
		appendPQExpBuffer(buf, p->rounds > WSB_RANK_EXACT_MAX ?
						  "; signed-rank p %.3g (normal approximation: more than %d rounds)" :
						  "; signed-rank p %.3g (exact)", p->rank_p, WSB_RANK_EXACT_MAX);
}

static void
csv_num(FILE *f, const char *fmt, double v)
{
	fputc(',', f);
	if (!isnan(v) && !isinf(v))
		fprintf(f, fmt, v);
}

/*
 * verdicts.csv: one row per configuration (not the baseline) and metric:
 * ratio, its interval, the 90% interval, p values, the words, the rounds
 * used and the method.  0, or -1 when the file could not be written.
 */
int
wsb_write_verdicts_csv(const char *path, const WsbRoundTable *t, const WsbJudgeSpec *spec,
					   const WsbPaired *v)
{
	FILE	   *f = fopen(path, "w");

	if (f == NULL)
		return -1;
	fputs("configuration,baseline,metric,ratio,low,high,level,low90,high90,p,p_holm,"
		  "signed_rank_p,verdict,decided,rounds,margin_pct,method\n", f);
	for (int c = 1; c < t->nconfigs; c++)
		for (int m = 0; m < WSB_N_METRICS; m++)
		{
			const WsbPaired *p = &v[c * WSB_N_METRICS + m];
			PQExpBufferData method;

			wsb_csv_field(f, t->labels[c]);
			fputc(',', f);
			wsb_csv_field(f, t->labels[0]);
			fprintf(f, ",%s", wsb_metric_name(m));
			csv_num(f, "%.6f", p->ratio);
			csv_num(f, "%.6f", p->low);
			csv_num(f, "%.6f", p->high);
			csv_num(f, "%.6f", p->level);
			csv_num(f, "%.6f", p->low90);
			csv_num(f, "%.6f", p->high90);
			csv_num(f, "%.6g", p->p);
			csv_num(f, "%.6g", p->p_holm);
			csv_num(f, "%.6g", p->rank_p);
			fputc(',', f);
			wsb_csv_field(f, p->words);
			fprintf(f, ",%s,%d,%g,", p->decided ? "true" : "false", p->rounds, spec->margin_pct);
			initPQExpBuffer(&method);
			wsb_method_text(spec, m, p, &method);
			wsb_csv_field(f, wsb_buffer_text(&method));
			termPQExpBuffer(&method);
			fputc('\n', f);
		}
	if (ferror(f))
	{
		fclose(f);
		return -1;
	}
	return fclose(f) == 0 ? 0 : -1;
}

/* a ratio: three decimals, or two significant digits below 0.1 (stall
 * shares fall a thousandfold) */
static const char *
num(char *buf, double v)
{
	snprintf(buf, 32, fabs(v) >= 0.1 ? "%.3f" : "%.2g", v);
	return buf;
}

static void
fmt_ratio(char *buf, size_t len, const WsbPaired *p)
{
	char		a[32],
				b[32],
				c[32];

	if (isnan(p->ratio))
		snprintf(buf, len, "-");
	else if (isnan(p->low))
		snprintf(buf, len, "%s", num(a, p->ratio));
	else
		snprintf(buf, len, "%s [%s, %s]", num(a, p->ratio), num(b, p->low), num(c, p->high));
}

/* a stall metric worth a line: measured, and not at the floor in every round */
static bool
stall_line_shown(const WsbPaired *p)
{
	return !isnan(p->ratio) && !(p->ratio == 1 && p->low == 1 && p->high == 1);
}

/* a latency verdict's line under tps, when the runs measured it */
static void
print_latency_line(FILE *f, const char *name, const WsbPaired *p)
{
	char		r[128];

	if (!stall_line_shown(p))
		return;
	fmt_ratio(r, sizeof(r), p);
	fprintf(f, "    %-16s %s  %s\n", name, r, p->words);
}

static int
complete_rounds(const WsbRoundTable *t)
{
	WsbRoundState *states;
	int			n = wsb_round_states(t->runs, t->nruns, t->nconfigs, &states),
				complete = 0;

	for (int k = 0; k < n; k++)
		complete += states[k].complete;
	free(states);
	return complete;
}

/*
 * The per-round noise the rounds showed: per configuration, the standard
 * deviation of its per-round log tps ratios, as +-% (exp(sd) - 1), and the
 * half-width of the 95% interval that many rounds give at that noise: a
 * change smaller than it cannot be told from none in these rounds.
 */
static void
noise_line(char *buf, size_t len, const char *label, const WsbPaired *p)
{
	double		half = wsb_t_quantile(0.975, p->df) * p->se;

	snprintf(buf, len, "%s: per-round noise +-%.1f%% (sd of the log ratio over %d rounds%s); "
			 "%d rounds tell changes beyond +-%.1f%% from none",
			 label, 100 * (exp(p->sd) - 1), p->rounds,
			 p->place_adjusted ? ", each at its place in the round" : "",
			 p->rounds, 100 * (exp(half) - 1));
	if (p->place_adjusted)
		snprintf(buf + strlen(buf), len - strlen(buf),
				 "; running a place later than the baseline moved the ratio %+.1f%% (drift, carryover)",
				 100 * (exp(p->place_slope) - 1));
	if (p->speed_adjusted && !isnan(p->sd_measured))
		snprintf(buf + strlen(buf), len - strlen(buf),
				 "; +-%.1f%% before the machine's speed was taken out, the gauge reading %.3f "
				 "[%.3f, %.3f] of the baseline's%s", 100 * (exp(p->sd_measured) - 1), p->machine_ratio,
				 p->machine_low, p->machine_high,
				 p->machine_low > 1 || p->machine_high < 1 ?
				 " (not 1: this configuration may move the gauge itself, which the fit assumes none does)" : "");
}

/*
 * How the machine's speed was taken out of tps (speed.c), from any
 * configuration's tps entry (the fit is the experiment's): "" when it
 * was not.
 */
static void
speed_line(char *buf, size_t len, const WsbPaired *p)
{
	buf[0] = '\0';
	if (!p->speed_adjusted)
		return;
	snprintf(buf, len, "the machine's speed: tps fitted on the gauge beside each run (the CPU time "
			 "of a fixed unit of work) within rounds and configurations, ln tps %+.2f per ln reading, "
			 "%.0f%% of the variance within rounds; every run's tps moved to the mean reading",
			 p->speed_slope, 100 * p->speed_r2);
}

/*
 * The carryover of configuration label into the next run (fit_carryover
 * in verdict.c), once the places are known: "" when they are not.
 */
static void
carryover_line(char *buf, size_t len, const char *label, const WsbPaired *p, int nconfigs)
{
	buf[0] = '\0';
	if (!p->place_adjusted)
		return;
	if (nconfigs == 2)
		snprintf(buf, len, "carryover: with two configurations it cannot be told from the place "
				 "(the place's slope holds both)");
	else if (isnan(p->carryover))
		snprintf(buf, len, "%s: carryover not estimable from these rounds", label);
	else
		snprintf(buf, len, "%s: carryover: a run right after it %+.1f%% [%+.1f%%, %+.1f%%] "
				 "against one right after the baseline", label, 100 * (p->carryover - 1),
				 100 * (p->carryover_low - 1), 100 * (p->carryover_high - 1));
}

/*
 * The terminal table: per configuration the tps ratio with its interval
 * and the words, then the stall share of all classes, the tps change the
 * stalls imply, and each class whose share or episodes moved.
 */
void
wsb_print_paired(FILE *f, const WsbRoundTable *t, const WsbJudgeSpec *spec,
				 const WsbPaired *v, long long seed)
{
	PQExpBufferData left;
	int			traced = 0,
				complete = complete_rounds(t);

	for (int i = 0; i < t->nruns; i++)
		traced += t->runs[i].traced;
	fprintf(f, "\nverdict by rounds: each configuration against the baseline of the same round\n");
	fprintf(f, "margin +-%g%%, %d complete round%s", spec->margin_pct, complete,
			complete == 1 ? "" : "s");
	if (seed >= 0)
		fprintf(f, ", seed %lld", seed);
	if (spec->nlooks > 0)
		fprintf(f, ", look %d of at most %d (alpha %.4g at this look, O'Brien-Fleming spending)",
				spec->look, spec->nlooks, spec->alpha);
	if (t->tps_column[0])
		fprintf(f, ", tps over each run's steady seconds (%s)", t->tps_column);
	fputc('\n', f);
	initPQExpBuffer(&left);
	wsb_left_out_rounds(t, &left);
	if (wsb_buffer_text(&left)[0])
		fprintf(f, "left out: %s\n", left.data);
	termPQExpBuffer(&left);
	if (traced)
		fprintf(f, "%d traced run%s (--validate) left out of the pairs: the tracer moves tps\n",
				traced, traced == 1 ? "" : "s");
	fprintf(f, "%-40s  %-26s  %s\n", "configuration", "tps ratio [95% CI, Holm]", "verdict");
	for (int i = 0; i < 100; i++)
		fputc('-', f);
	fputc('\n', f);
	fprintf(f, "%-40.40s  %-26s  baseline\n", t->labels[0], "1");
	for (int c = 1; c < t->nconfigs; c++)
	{
		const WsbPaired *p = &v[c * WSB_N_METRICS];
		char		r[128],
					all[128] = "";

		fmt_ratio(r, sizeof(r), &p[WSB_M_TPS]);
		if (strlen(t->labels[c]) > 40)
			fprintf(f, "%s\n%-40s", t->labels[c], "");
		else
			fprintf(f, "%-40s", t->labels[c]);
		fprintf(f, "  %-26s  %s\n", r, p[WSB_M_TPS].words);
		if (p[WSB_M_TPS].limit[0])
			fprintf(f, "    limit: %s\n", p[WSB_M_TPS].limit);
		print_latency_line(f, "latency p99", &p[WSB_M_P99]);
		print_latency_line(f, "longest stall", &p[WSB_M_LONGEST]);
		if (p[WSB_M_SHARE_ALL].word == WSB_W_NEGLIGIBLE)
			fprintf(f, "    stall share of client time  negligible in both (under %g%%)\n",
					100 * WSB_NEGLIGIBLE_SHARE);
		else if (stall_line_shown(&p[WSB_M_SHARE_ALL]))
		{
			fmt_ratio(all, sizeof(all), &p[WSB_M_SHARE_ALL]);
			fprintf(f, "    stall share of client time  %s  %s\n", all, p[WSB_M_SHARE_ALL].words);
		}
		for (int k = 0; k < WSB_N_STALL; k++)
		{
			const WsbPaired *s = &p[WSB_M_SHARE + k];
			const WsbPaired *e = &p[WSB_M_EPISODES + k];
			char		a[128],
						b[128];

			if (!stall_line_shown(s) && !stall_line_shown(e))
				continue;
			if (s->word == WSB_W_NEGLIGIBLE)
			{
				fprintf(f, "    %-16s negligible in both (share under %g%% of client time)\n",
						wsb_stall_classes[k], 100 * WSB_NEGLIGIBLE_SHARE);
				continue;
			}
			fmt_ratio(a, sizeof(a), s);
			fmt_ratio(b, sizeof(b), e);
			/* one class holding all the stall time: its share is the line above */
			if (strcmp(a, all) == 0)
				fprintf(f, "    %-16s all of that share; episodes %s %s\n", wsb_stall_classes[k], b,
						e->words);
			else
			{
				fprintf(f, "    %-16s share %s %s\n", wsb_stall_classes[k], a, s->words);
				fprintf(f, "    %-16s episodes %s %s\n", "", b, e->words);
			}
		}
	}
	for (int c = 1; c < t->nconfigs; c++)
	{
		const WsbPaired *p = &v[c * WSB_N_METRICS + WSB_M_TPS];
		char		line[1400];

		if (p->rounds >= 2 && !isnan(p->sd))
		{
			noise_line(line, sizeof(line), t->labels[c], p);
			fprintf(f, "%s\n", line);
		}
	}
	if (t->nconfigs > 1)
	{
		char		line[512];

		speed_line(line, sizeof(line), &v[WSB_N_METRICS + WSB_M_TPS]);
		if (line[0])
			fprintf(f, "%s\n", line);
	}
	for (int c = 1; c < t->nconfigs; c++)
	{
		char		line[1400];

		carryover_line(line, sizeof(line), t->labels[c], &v[c * WSB_N_METRICS + WSB_M_TPS],
					   t->nconfigs);
		if (line[0])
			fprintf(f, "%s\n", line);
		if (line[0] && t->nconfigs == 2)
			break;
	}
}

static void
html_ratio_cells(FILE *f, const WsbPaired *p)
{
	char		a[32],
				b[32],
				c[32];

	if (isnan(p->ratio))
		fputs("<td class=\"n\">&ndash;</td><td>&ndash;</td>", f);
	else if (isnan(p->low))
		fprintf(f, "<td class=\"n\">%s</td><td>&ndash;</td>", num(a, p->ratio));
	else
		fprintf(f, "<td class=\"n\">%s</td><td class=\"n\">[%s, %s]</td>", num(a, p->ratio),
				num(b, p->low), num(c, p->high));
}

static const char *
word_class(WsbWord w)
{
	switch (w)
	{
		case WSB_W_FASTER_BY:
		case WSB_W_FASTER:
		case WSB_W_FEWER:
		case WSB_W_FELL_BY:
		case WSB_W_FELL:
			return "faster";
		case WSB_W_SLOWER_BY:
		case WSB_W_SLOWER:
		case WSB_W_MORE:
		case WSB_W_ROSE_BY:
		case WSB_W_ROSE:
			return "slower";
		case WSB_W_TOO_FEW:
			return "few";
		default:
			return "noise";
	}
}

/* a forest plot, as an <img> holding the SVG (self-contained) */
static void
paste_forest_plot(FILE *f, const char *path, const char *alt)
{
	if (wsb_paste_svg_image(f, path, alt) != 0)
	{
		fputs("<p class=\"missing\">", f);
		wsb_html_escape(f, path);
		fputs(" could not be read</p>\n", f);
	}
}

/*
 * How the section's figures were made: the rounds, the interval, Holm, the
 * margin's words, the signed-rank p, the stall shares; with --budget the
 * looks and their spending.  Below the table: the answer and the table
 * come first.
 */
static void
method_html(FILE *f, const WsbJudgeSpec *spec, long long seed)
{
	fprintf(f, "<p>Rounds are the unit: a round runs every configuration once, in a balanced "
			"order drawn from the seed (<strong>%s%lld</strong>: every second round the one before "
			"reversed, a Williams design over more than two configurations), and each "
			"configuration is compared with the baseline run of the same round. Per round the log "
			"of the ratio; the <strong>ratio</strong> is their geometric mean, its interval a "
			"paired t interval with rounds &minus; 1 degrees of freedom at 95%%, or, from %d rounds "
			"with the runs' places known, the log ratios fitted on the difference of the two runs' "
			"places in their round (rounds &minus; 2 degrees of freedom: a drift inside rounds "
			"and the carryover of one run into the next then read as neither effect nor noise), "
			"Holm-adjusted over the configurations "
			"(the one with the i-th smallest p, counting from 1, at 5%% / (k &minus; i + 1)). "
			"The margin, declared before "
			"the runs, is <strong>&plusmn;%g%%</strong>: <em>faster/slower by &ge; %g%%</em> when "
			"the whole interval lies beyond it; <em>equivalent within &plusmn;%g%%</em> when the "
			"90%% interval (two one-sided tests, Holm-adjusted over the configurations like the "
			"directions: at 1 &minus; 10%% / (k &minus; i + 1)) lies inside it, followed by the "
			"direction and the interval when that also excludes no change "
			"(<em>equivalent within &plusmn;%g%%, 2.9%% faster [+1.4%%, +4.5%%]</em>); "
			"<em>faster/slower</em> when the "
			"interval excludes no change but reaches into the margin; otherwise "
			"<em>inconclusive</em>, with the rounds still needed at the spread seen. From %d "
			"rounds, Wilcoxon's signed-rank p over every round stands beside it (verdicts.csv; "
			"exact up to %d rounds, the normal approximation above). Stall "
			"shares (stall ms / (clients &times; run ms), floored at 1 ms) and episode counts "
			"(floored at 1) are paired the same way; <em>implied</em> is the tps ratio the "
			"stalls alone would give, (1 &minus; s<sub>config</sub>) / (1 &minus; "
			"s<sub>baseline</sub>): a client waiting a share s of its time has 1 &minus; s left "
			"to commit in.</p>\n",
			seed >= 0 ? "" : "unknown", seed >= 0 ? seed : 0LL, WSB_PLACE_MIN_ROUNDS,
			spec->margin_pct, spec->margin_pct, spec->margin_pct, spec->margin_pct, WSB_RANK_MIN_ROUNDS,
			WSB_RANK_EXACT_MAX);
	if (spec->nlooks > 0)
		fprintf(f, "<p>--budget: the verdict was taken after every round from the third, at "
				"most %d times (fixed from the budget before the first run, and kept by --resume); "
				"this is look %d, after round %d of %d. Error control over the looks: "
				"<strong>O'Brien-Fleming spending</strong> (Lan-DeMets, rounds as the information): "
				"by round r of R the looks may have spent 2 &minus; 2&Phi;(1.96 / &radic;(r / R)) "
				"of the 5%%, almost nothing early and most of it at the end; each look tests at the "
				"nominal level of the boundary that spending implies, this one at &alpha; = %.4g "
				"(%.4g spent by it), so the chance of any false faster/slower over all looks stays "
				"under 5%%.</p>\n",
				spec->nlooks, spec->look, spec->look + 2, spec->nlooks + 2, spec->alpha,
				wsb_spent_at_look(0.05, spec->look, spec->nlooks));
}

/*
 * The report's "Verdict by rounds" section: the rounds left out, the
 * table, what limits each configuration, the noise, the forest plots
 * (drawn beforehand into plotdir by wsb_draw_forest; NULL: none), then
 * the method and the seed.
 */
void
wsb_paired_html(FILE *f, const WsbRoundTable *t, const WsbJudgeSpec *spec,
				const WsbPaired *v, long long seed, const char *plotdir)
{
	PQExpBufferData left;
	int			traced = 0;

	for (int i = 0; i < t->nruns; i++)
		traced += t->runs[i].traced;
	initPQExpBuffer(&left);
	wsb_left_out_rounds(t, &left);
	fprintf(f, "<p>%d complete rounds.", complete_rounds(t));
	if (wsb_buffer_text(&left)[0])
	{
		fputs(" Left out of the paired figures: ", f);
		wsb_html_escape(f, left.data);
		fputc('.', f);
	}
	termPQExpBuffer(&left);
	if (traced)
		fprintf(f, " %d traced run%s (--validate) %s left out of the pairs: the tracer moves tps.",
				traced, traced == 1 ? "" : "s", traced == 1 ? "is" : "are");
	fputs("</p>\n", f);
	fputs("<table><tr><th>configuration</th><th>metric</th><th>rounds</th><th>ratio</th>"
		  "<th>interval</th><th>verdict</th></tr>\n", f);
	for (int c = 1; c < t->nconfigs; c++)
		for (int m = 0; m < WSB_N_METRICS; m++)
		{
			const WsbPaired *p = &v[c * WSB_N_METRICS + m];

			if (m != WSB_M_TPS && !stall_line_shown(p))
				continue;
			fputs("<tr><td>", f);
			wsb_html_escape(f, t->labels[c]);
			fprintf(f, "</td><td>%s</td><td class=\"n\">%d</td>", wsb_metric_name(m), p->rounds);
			html_ratio_cells(f, p);
			fprintf(f, "<td class=\"%s\">", word_class(p->word));
			wsb_html_escape(f, m == WSB_M_IMPLIED ? "(implied by the stalls)" : p->words);
			fputs("</td></tr>\n", f);
		}
	fputs("</table>\n", f);
	fprintf(f, "<p>A stall class whose share stays under %g%% of the clients' time in every paired "
			"round, on both sides, reads <em>negligible in both</em>: its waits can move tps by "
			"less than that. Under each decided configuration, what limits it, from the class "
			"with the largest share:</p>\n<ul>\n", 100 * WSB_NEGLIGIBLE_SHARE);
	for (int c = 1; c < t->nconfigs; c++)
	{
		const WsbPaired *p = &v[c * WSB_N_METRICS + WSB_M_TPS];

		fputs("<li>", f);
		wsb_html_escape(f, t->labels[c]);
		fputs(": ", f);
		wsb_html_escape(f, p->limit[0] ? p->limit : "not decided");
		fputs("</li>\n", f);
	}
	fputs("</ul>\n<p>The noise these rounds showed:</p>\n<ul>\n", f);
	for (int c = 1; c < t->nconfigs; c++)
	{
		const WsbPaired *p = &v[c * WSB_N_METRICS + WSB_M_TPS];
		char		line[1400];

		if (p->rounds < 2 || isnan(p->sd))
			continue;
		noise_line(line, sizeof(line), t->labels[c], p);
		fputs("<li>", f);
		wsb_html_escape(f, line);
		fputs("</li>\n", f);
	}
	if (t->nconfigs > 1)
	{
		char		line[512];

		speed_line(line, sizeof(line), &v[WSB_N_METRICS + WSB_M_TPS]);
		if (line[0])
		{
			fputs("<li>", f);
			wsb_html_escape(f, line);
			fputs("</li>\n", f);
		}
	}
	for (int c = 1; c < t->nconfigs; c++)
	{
		char		line[1400];

		carryover_line(line, sizeof(line), t->labels[c], &v[c * WSB_N_METRICS + WSB_M_TPS],
					   t->nconfigs);
		if (!line[0])
			continue;
		fputs("<li>", f);
		wsb_html_escape(f, line);
		fputs("</li>\n", f);
	}
	fputs("</ul>\n", f);
	if (plotdir)
	{
		char	   *path = wsb_psprintf("%s/forest_tps.svg", plotdir);

		fputs("<figure>\n", f);
		paste_forest_plot(f, path, "forest plot of the tps ratios");
		free(path);
		path = wsb_psprintf("%s/forest_stall.svg", plotdir);
		if (access(path, R_OK) == 0)
			paste_forest_plot(f, path, "forest plot of the stall share ratios");
		else
			fputs("<p>No stall share chart: the runs have no stall figures.</p>\n", f);
		free(path);
		fprintf(f, "<figcaption>Forest plots: one row per configuration, the ratio against the "
				"baseline of the same round (dot) and its interval (bar, as in the table). Top: "
				"tps, against the grey &plusmn;%g%% margin band; beneath: the share of client "
				"time in all stall classes, log scale. Data and scripts: "
				"<code>plots/forest.dat</code>, <code>plots/forest_*.gp</code>.</figcaption>\n"
				"</figure>\n", spec->margin_pct);
	}
	method_html(f, spec, seed);
}

/* ---------------------------------------------------------------------
 * An experiment's verdicts, start to end
 * --------------------------------------------------------------------- */

/*
 * Read a CSV of runs and judge it.  margin_pct: NAN for the file's own
 * margin_pct column, else 5; look/nlooks as for --budget (0, 0 without).
 * The live harness judges its own results.csv this way too, so that
 * --judge on a results directory gives the same verdicts to the digit; a
 * budgeted experiment's results.csv says how many looks it allowed
 * (budget_looks), so --judge spends alpha the same way, at its last look.
 */
int
wsb_verdicts_from_csv(const char *path, const char *baseline, double margin_pct,
					  int look, int nlooks, WsbVerdicts *out, char *err, size_t errlen)
{
	return wsb_verdicts_from_csv_ordered(path, baseline, NULL, 0, margin_pct, look, nlooks,
										 out, err, errlen);
}

/* The same, with the configurations shown in the order of labels (the
 * plan's, for the harness's own results.csv). */
int
wsb_verdicts_from_csv_ordered(const char *path, const char *baseline, const char *const *labels,
							  int nlabels, double margin_pct, int look, int nlooks,
							  WsbVerdicts *out, char *err, size_t errlen)
{
	memset(out, 0, sizeof(*out));
	if (wsb_round_table_read_csv(path, baseline, labels, nlabels, &out->table, err, errlen) != 0)
		return -1;
	if (isnan(margin_pct))
		margin_pct = isnan(out->table.margin_pct) ? 5 : out->table.margin_pct;
	if (nlooks == 0 && out->table.budget_looks > 0)
	{
		/*
		 * a budgeted experiment: its looks came after rounds 3, 4, ...; judge
		 * it at its last look, with the alpha each look spent
		 */
		int			maxround = 0;

		for (int i = 0; i < out->table.nruns; i++)
			if (out->table.runs[i].round > maxround)
				maxround = out->table.runs[i].round;
		nlooks = out->table.budget_looks;
		look = maxround - 2 < 0 ? 0 : (maxround - 2 > nlooks ? nlooks : maxround - 2);
	}
	out->spec.margin_pct = margin_pct;
	out->spec.look = look;
	out->spec.nlooks = nlooks;
	out->spec.alpha = wsb_look_alpha(0.05, look, nlooks);
	out->v = calloc(out->table.nconfigs * WSB_N_METRICS, sizeof(WsbPaired));
	if (out->v == NULL)
	{
		snprintf(err, errlen, "out of memory");
		wsb_round_table_free(&out->table);
		return -1;
	}
	wsb_judge_rounds(out->table.runs, out->table.nruns, out->table.nconfigs, &out->spec, out->v);
	/* the limit lines again, each figure with its configuration's name */
	wsb_limit_lines(out->table.runs, out->table.nruns, out->table.nconfigs,
					(const char (*)[1024]) out->table.labels, out->v);
	return 0;
}

/* Every configuration decided on tps: by the margin, or equivalent. */
bool
wsb_verdicts_all_decided(const WsbVerdicts *vs)
{
	for (int c = 1; c < vs->table.nconfigs; c++)
		if (!vs->v[c * WSB_N_METRICS + WSB_M_TPS].decided)
			return false;
	return true;
}

/* verdicts.csv and the forest plots (dir/plots) in dir.  0, -1 when
 * verdicts.csv could not be written; a forest plot that could not be drawn
 * is said in forest_why (the report says so too). */
int
wsb_verdicts_write(const char *dir, WsbVerdicts *vs)
{
	char	   *path = wsb_psprintf("%s/plots", dir);
	int			rc;

	vs->forest = wsb_draw_forest(path, &vs->table, &vs->spec, vs->v,
								 vs->forest_why, sizeof(vs->forest_why)) == 0;
	free(path);
	path = wsb_psprintf("%s/verdicts.csv", dir);
	rc = wsb_write_verdicts_csv(path, &vs->table, &vs->spec, vs->v);
	free(path);
	return rc;
}

void
wsb_verdicts_free(WsbVerdicts *vs)
{
	wsb_round_table_free(&vs->table);
	free(vs->v);
	vs->v = NULL;
}
