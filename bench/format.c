/*-------------------------------------------------------------------------
 *
 * format.c
 *		wal_stall_bench: how a value is written into an output file: a CSV
 *		field (RFC 4180), text and a number in HTML, a time in ISO 8601.
 *
 * Every CSV file and every HTML page the harness writes (csv.c, judge.c,
 * report.c, report_validate.c, experiment.c) quotes and escapes through
 * these, so that a name or an error message holding a comma, a quote or
 * a '<' reads back as it was.
 *
 * Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
 *
 *-------------------------------------------------------------------------
 */
#include <math.h>
#include <string.h>
#include <time.h>

#include "wsb.h"

/*
 * Write one CSV field per RFC 4180: quoted when it holds a comma, a double
 * quote, CR or LF, or starts or ends with a blank (which some readers
 * trim), with quotes doubled inside.  NULL is the empty field.
 */
void
wsb_csv_field(FILE *f, const char *s)
{
	size_t		len;
	bool		quote;

	if (s == NULL)
		return;
	len = strlen(s);
	quote = strpbrk(s, ",\"\r\n") != NULL ||
		(len > 0 && (s[0] == ' ' || s[0] == '\t' ||
					 s[len - 1] == ' ' || s[len - 1] == '\t'));
	if (!quote)
	{
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++)
	{
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

/* Text for HTML: the five characters that mean something there, escaped. */
void
wsb_html_escape(FILE *f, const char *s)
{
	if (s == NULL)
		return;
	for (; *s; s++)
	{
		switch (*s)
		{
			case '&':
				fputs("&amp;", f);
				break;
			case '<':
				fputs("&lt;", f);
				break;
			case '>':
				fputs("&gt;", f);
				break;
			case '"':
				fputs("&quot;", f);
				break;
			case '\'':
				fputs("&#39;", f);
				break;
			default:
				fputc(*s, f);
		}
	}
}

/* A number in an HTML table cell, right-aligned; an en dash when unknown. */
void
wsb_html_number_cell(FILE *f, const char *fmt, double v)
{
	fputs("<td class=\"n\">", f);
	if (isnan(v))
		fputs("&ndash;", f);
	else
		fprintf(f, fmt, v);
	fputs("</td>", f);
}

void
wsb_iso8601_utc(time_t t, char *buf, size_t len)
{
	struct tm	tm;

	if (t <= 0 || gmtime_r(&t, &tm) == NULL)
	{
		buf[0] = '\0';
		return;
	}
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}
