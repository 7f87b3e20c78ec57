/*-------------------------------------------------------------------------
 *
 * pgbench.c
 *		wal_stall_bench: parsing what pgbench writes.
 *
 * The per-second figures come from pgbench's per-transaction log (-l):
 * one line per transaction,
 *		client_id transaction_no latency_us script_no epoch_s epoch_us [lag]
 * where latency_us is "failed" or "skipped" for a transaction that did not
 * complete.  Each line goes to the second it ended in (epoch_s); the run's
 * latency quantiles come from a log-scale histogram (see engine.h for its
 * precision), so a run of any length takes constant memory.
 * The run's tps is pgbench's own summary figure, "tps = N (without initial
 * connection time)"; its window tps (wsb_window_tps) counts the same
 * per-second figures over the steady part of the run only; the live
 * progress line reads its --progress=1 lines,
 * "progress: 5.0 s, 1234.5 tps, lat 3.2 ms stddev 1.1, 0 failed".
 *
 * Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
 *
 *-------------------------------------------------------------------------
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <limits.h>

#include "engine.h"

/*
 * The whole number at *p (blanks before it skipped, as strtoll does) into
 * *v and *p past it: false when there is none or it is outside min..max.
 */
static bool
next_number(const char **p, long long min, long long max, long long *v)
{
	char	   *end;

	*v = strtoll(*p, &end, 10);
	if (end == *p || *v < min || *v > max)
		return false;
	*p = end;
	return true;
}

/* One log line -> out.  false for a line that is not a transaction. */
bool
wsb_pgbench_parse_line(const char *line, WsbLogLine *out)
{
	const char *p = line;
	long long	v;

	memset(out, 0, sizeof(*out));
	errno = 0;
	if (!next_number(&p, 0, LLONG_MAX, &v))
		return false;
	out->client = (int) v;
	if (!next_number(&p, 0, LLONG_MAX, &v))
		return false;
	out->transaction = v;
	while (*p == ' ')
		p++;
	if (strncmp(p, "failed", 6) == 0 || strncmp(p, "skipped", 7) == 0)
	{
		out->latency_us = -1;
		p += (*p == 'f') ? 6 : 7;
	}
	else
	{
		if (!next_number(&p, 0, LLONG_MAX, &v))
			return false;
		out->latency_us = (double) v;
	}
	if (!next_number(&p, 0, LLONG_MAX, &v))
		return false;
	out->script = (int) v;
	if (!next_number(&p, 1, LLONG_MAX, &v))
		return false;
	out->epoch = v;
	if (!next_number(&p, 0, 999999, &v))
		return false;
	out->epoch_us = (int) v;
	while (*p == ' ' || *p == '\t')
		p++;
	/* optional schedule lag and retries follow; nothing else */
	while (*p)
	{
		if (!(*p == ' ' || *p == '\n' || *p == '\r' || (*p >= '0' && *p <= '9')))
			return false;
		p++;
	}
	return true;
}

void
wsb_logstats_init(WsbLogStats *s)
{
	memset(s, 0, sizeof(*s));
	s->first_epoch = -1;
}

static int
hist_bucket(double us)
{
	int			b;

	if (us < 1)
		return 0;
	b = (int) floor(log10(us) * WSB_HIST_PER_DECADE);
	if (b >= WSB_HIST_BUCKETS)
		b = WSB_HIST_BUCKETS - 1;
	return b;
}

static void
grow(WsbLogStats *s, int n)
{
	if (n <= s->capacity)
		return;
	s->capacity = n + 64;
	s->seconds = wsb_xrealloc(s->seconds, s->capacity * sizeof(*s->seconds));
	s->second_latency_sum_ms = wsb_xrealloc(s->second_latency_sum_ms, s->capacity * sizeof(double));
}

/* The bucket of second `epoch`, made (zeroed) if new. */
static WsbPgbenchSecond *
second_of(WsbLogStats *s, int64_t epoch, double **latsum)
{
	int			need;

	if (s->first_epoch < 0)
	{
		s->first_epoch = s->last_epoch = epoch;
		s->nseconds = 0;
	}
	if (epoch < s->first_epoch)
	{
		/* an earlier second, from another thread's file */
		int			shift = (int) (s->first_epoch - epoch);

		grow(s, s->nseconds + shift);
		memmove(s->seconds + shift, s->seconds, s->nseconds * sizeof(*s->seconds));
		memmove(s->second_latency_sum_ms + shift, s->second_latency_sum_ms,
				s->nseconds * sizeof(double));
		memset(s->seconds, 0, shift * sizeof(*s->seconds));
		memset(s->second_latency_sum_ms, 0, shift * sizeof(double));
		s->nseconds += shift;
		s->first_epoch = epoch;
		for (int i = 0; i < shift; i++)
			s->seconds[i].epoch = epoch + i;
	}
	need = (int) (epoch - s->first_epoch + 1);
	if (need > s->nseconds)
	{
		grow(s, need);
		memset(s->seconds + s->nseconds, 0, (need - s->nseconds) * sizeof(*s->seconds));
		memset(s->second_latency_sum_ms + s->nseconds, 0, (need - s->nseconds) * sizeof(double));
		for (int i = s->nseconds; i < need; i++)
			s->seconds[i].epoch = s->first_epoch + i;
		s->nseconds = need;
	}
	if (epoch > s->last_epoch)
		s->last_epoch = epoch;
	*latsum = &s->second_latency_sum_ms[epoch - s->first_epoch];
	return &s->seconds[epoch - s->first_epoch];
}

void
wsb_logstats_add(WsbLogStats *s, const WsbLogLine *l)
{
	WsbPgbenchSecond *sec;
	double	   *latsum;
	double		ms;

	if (l->latency_us < 0)
	{
		s->failed++;
		return;
	}
	sec = second_of(s, l->epoch, &latsum);
	ms = l->latency_us / 1000.0;
	sec->transactions++;
	*latsum += ms;
	sec->latency_avg_ms = *latsum / sec->transactions;
	if (ms > sec->latency_max_ms)
		sec->latency_max_ms = ms;
	s->transactions++;
	s->latency_sum_us += l->latency_us;
	s->hist[hist_bucket(l->latency_us)]++;
}

void
wsb_logstats_add_text(WsbLogStats *s, const char *line)
{
	WsbLogLine	l;

	if (wsb_pgbench_parse_line(line, &l))
		wsb_logstats_add(s, &l);
	else if (line[0] != '\0' && line[0] != '\n')
		s->bad_lines++;
}

/*
 * Stream one log file in.  0 ok, -1 cannot open.  pgbench writes it as the
 * cluster's owner: a link at the name is not followed, and only a regular
 * file is read (a FIFO would block).
 */
int
wsb_logstats_read_file(WsbLogStats *s, const char *path)
{
	int			fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	FILE	   *f;
	char		line[512];

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (f = fdopen(fd, "r")) == NULL)
	{
		close(fd);
		return -1;
	}
	while (fgets(line, sizeof(line), f))
		wsb_logstats_add_text(s, line);
	fclose(f);
	return 0;
}

/* The q-quantile (0..1) of the latencies in ms, NAN when there are none. */
double
wsb_logstats_quantile_ms(const WsbLogStats *s, double q)
{
	int64_t		rank,
				seen = 0;

	if (s->transactions == 0)
		return NAN;
	rank = (int64_t) ceil(q * s->transactions);
	if (rank < 1)
		rank = 1;
	for (int b = 0; b < WSB_HIST_BUCKETS; b++)
	{
		seen += s->hist[b];
		if (seen >= rank)
		{
			if (b == 0 && s->hist[0] > 0)
				return 0.001;
			/* geometric middle of [10^(b/k), 10^((b+1)/k)) us */
			return pow(10.0, (b + 0.5) / WSB_HIST_PER_DECADE) / 1000.0;
		}
	}
	return NAN;
}

void
wsb_logstats_free(WsbLogStats *s)
{
	free(s->seconds);
	free(s->second_latency_sum_ms);
	s->seconds = NULL;
	s->second_latency_sum_ms = NULL;
	s->nseconds = s->capacity = 0;
}

/*
 * The steady part of a run of duration seconds (pgbench -T), as indexes
 * into its per-second figures: the seconds from the first one with a
 * transaction (the run's start falls in it) are counted from skip =
 * duration / 10 (at least 1: the first second is partial) up to duration -
 * 1, the last second wholly inside the run.  What ends later is the tail a
 * stall stretched (pgbench waits for every transaction under way at the
 * end), which the end-inclusive total counts in part, however the end
 * falls.  false when the run has no such second.
 */
bool
wsb_window_bounds(const WsbPgbenchSecond *s, int n, int duration, int *from, int *to)
{
	int			first = 0,
				skip = duration / 10 > 1 ? duration / 10 : 1;

	while (first < n && s[first].transactions == 0)
		first++;
	*from = first + skip;
	*to = first + duration - 1;	/* inclusive */
	return first < n && *to >= *from && *to < n;
}

/* tps over the steady part (wsb_window_bounds); NAN without one.  *seconds,
 * the window's. */
double
wsb_window_tps(const WsbPgbenchSecond *s, int n, int duration, int *seconds)
{
	int64_t		sum = 0;
	int			from,
				to;

	*seconds = 0;
	if (!wsb_window_bounds(s, n, duration, &from, &to))
		return NAN;
	for (int i = from; i <= to; i++)
		sum += s[i].transactions;
	*seconds = to - from + 1;
	return (double) sum / *seconds;
}

/* "tps = 1234.567 (without initial connection time)" anywhere in text */
bool
wsb_pgbench_parse_tps(const char *text, double *tps)
{
	const char *p = text;

	while ((p = strstr(p, "tps = ")) != NULL)
	{
		const char *line_end = strchr(p, '\n');
		const char *tag = strstr(p, "(without initial connection time)");
		char	   *end;
		double		v;

		if (tag && (line_end == NULL || tag < line_end) &&
			(p == text || p[-1] == '\n'))
		{
			v = strtod(p + 6, &end);
			if (end != p + 6 && v >= 0)
			{
				*tps = v;
				return true;
			}
		}
		p += 6;
	}
	return false;
}

/* "progress: 5.0 s, 1234.5 tps, lat 3.210 ms stddev 1.1, 0 failed" */
bool
wsb_pgbench_parse_progress(const char *line, double *elapsed, double *tps, double *lat_ms)
{
	const char *p = strstr(line, "progress: ");
	char	   *end;

	if (p == NULL)
		return false;
	p += 10;
	*elapsed = strtod(p, &end);
	if (end == p || strncmp(end, " s, ", 4) != 0)
		return false;
	p = end + 4;
	*tps = strtod(p, &end);
	if (end == p || strncmp(end, " tps", 4) != 0)
		return false;
	p = strstr(end, "lat ");
	*lat_ms = NAN;
	if (p)
	{
		double		v = strtod(p + 4, &end);

		if (end != p + 4)
			*lat_ms = v;
	}
	return true;
}
