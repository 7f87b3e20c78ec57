/*-------------------------------------------------------------------------
 *
 * format.c
 *		wal_stall_bench: how a value is written into an output file: a CSV
 *		field (RFC 4180), text and a number in HTML, a time in ISO 8601,
 *		a tps figure.
 *
 * Every CSV file and every HTML page the harness writes (csv.c, verdict_report.c,
 * report.c, report_validate.c, experiment.c) quotes and escapes through
 * these, so that a name or an error message holding a comma, a quote or
 * a '<' reads back as it was.
 *
 * Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
 *
 *-------------------------------------------------------------------------
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
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

/* A tps figure as text: "-" when unknown, whole from 100 up, one decimal
 * below (the runs' tables, on the terminal and in report.html). */
void
wsb_fmt_tps(char *buf, size_t len, double v)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else if (fabs(v) >= 100)
		snprintf(buf, len, "%.0f", v);
	else
		snprintf(buf, len, "%.1f", v);
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


bool
wsb_csv_reader_init(WsbCsvReader *r, const char *text, size_t len)
{
	memset(r, 0, sizeof(*r));
	r->p = text;
	r->end = text + len;
	r->next_line = 1;
	r->buf = malloc(WSB_CSV_MAX_ROW + 1);
	return r->buf != NULL;
}

void
wsb_csv_reader_free(WsbCsvReader *r)
{
	free(r->buf);
	free(r->starts);
	r->buf = NULL;
	r->starts = NULL;
}

/* cell i of the current row, NULL past its end */
const char *
wsb_csv_cell(const WsbCsvReader *r, int i)
{
	return i >= 0 && i < r->ncells ? r->buf + r->starts[i] : NULL;
}

/* cell i of the current row, "" past its end (a short row's missing cells) */
const char *
wsb_csv_text(const WsbCsvReader *r, int i)
{
	const char *c = wsb_csv_cell(r, i);

	return c ? c : "";
}

/*
 * A number cell of a file the harness wrote, read back as untrusted input:
 * NAN for an empty cell or "nan" (what a run writes for a figure it
 * lacks); false when the cell is not a number in [lo, hi].
 */
bool
wsb_csv_number(const char *cell, double lo, double hi, double *value)
{
	char	   *end;

	*value = NAN;
	if (cell[0] == '\0' || strcmp(cell, "nan") == 0)
		return true;
	errno = 0;
	*value = strtod(cell, &end);
	return errno == 0 && end != cell && *end == '\0' && *value >= lo && *value <= hi;
}

/* wsb_csv_number for a count: also false when the number is not whole */
bool
wsb_csv_count(const char *cell, double lo, double hi, double *value)
{
	return wsb_csv_number(cell, lo, hi, value) && (isnan(*value) || *value == floor(*value));
}

/*
 * v as a CSV file keeps it when written with format ("%.3f"): what reading
 * the file back gives, so that a section printed from the runs in memory
 * is the one printed again from the file.  NAN stays NAN.
 */
double
wsb_as_written(const char *format, double v)
{
	char		buf[64];

	if (isnan(v))
		return v;
	snprintf(buf, sizeof(buf), format, v);
	return strtod(buf, NULL);
}

/*
 * The error for a cell wsb_csv_number refused.  The cell is quoted only
 * when short and printable ASCII: the message goes to root's terminal,
 * which no escape sequence of another account's file may move.
 */
void
wsb_csv_bad_number(char *err, size_t errlen, const char *path, int line, const char *column,
				   const char *cell)
{
	bool		shown = strlen(cell) <= 40;

	for (const char *s = cell; shown && *s; s++)
		if ((unsigned char) *s < 0x20 || (unsigned char) *s > 0x7e)
			shown = false;
	snprintf(err, errlen, "\"%s\" line %d: %s is not a number in its range%s%s%s", path, line,
			 column, shown ? ": \"" : "", shown ? cell : "", shown ? "\"" : "");
}

/* the first cell of the current row (the header) that is name, or -1 */
int
wsb_csv_column(const WsbCsvReader *r, const char *name)
{
	for (int i = 0; i < r->ncells; i++)
		if (strcmp(wsb_csv_cell(r, i), name) == 0)
			return i;
	return -1;
}

/* one byte of a cell, or false when the row is too long */
static bool
csv_put(WsbCsvReader *r, char c)
{
	if (r->used >= WSB_CSV_MAX_ROW)
		return false;
	r->buf[r->used++] = c;
	return true;
}

/*
 * The next row into r: 1, 0 at the end of the text, -1 with err (a NUL
 * byte, an unterminated quote, a row past WSB_CSV_MAX_ROW, out of memory),
 * which names the line.  Blank lines are skipped.
 */
int
wsb_csv_next_row(WsbCsvReader *r, char *err, size_t errlen)
{
	for (;;)
	{
		bool		quoted = false;

		if (r->p >= r->end)
			return 0;
		r->line = r->next_line;
		r->used = 0;
		r->ncells = 0;
		for (;;)
		{
			/* a cell */
			if (r->ncells == r->cellcap)
			{
				int			cap = r->cellcap ? r->cellcap * 2 : 64;
				int		   *s = realloc(r->starts, sizeof(int) * cap);

				if (s == NULL)
				{
					snprintf(err, errlen, "line %d: out of memory", r->line);
					return -1;
				}
				r->starts = s;
				r->cellcap = cap;
			}
			r->starts[r->ncells++] = (int) r->used;
			if (r->p < r->end && *r->p == '"')
			{
				quoted = true;
				r->p++;
				for (;;)
				{
					if (r->p >= r->end)
					{
						snprintf(err, errlen, "line %d: unterminated quoted field", r->line);
						return -1;
					}
					if (*r->p == '"' && r->p + 1 < r->end && r->p[1] == '"')
						r->p++;		/* "" is one quote */
					else if (*r->p == '"')
					{
						r->p++;
						break;
					}
					if (*r->p == '\0')
						goto nul;
					if (*r->p == '\n')
						r->next_line++;
					if (!csv_put(r, *r->p++))
						goto too_long;
				}
			}
			while (r->p < r->end && *r->p != ',' && *r->p != '\n' && *r->p != '\r')
			{
				if (*r->p == '\0')
					goto nul;
				if (!csv_put(r, *r->p++))
					goto too_long;
			}
			if (!csv_put(r, '\0'))
				goto too_long;
			if (r->p < r->end && *r->p == ',')
			{
				r->p++;
				continue;
			}
			break;
		}
		/* the row ends: CRLF, LF, a lone CR or the end of the text */
		if (r->p < r->end && *r->p == '\r')
			r->p++;
		if (r->p < r->end && *r->p == '\n')
			r->p++;
		r->next_line++;
		if (r->ncells == 1 && r->buf[0] == '\0' && !quoted)
			continue;			/* a blank line */
		return 1;
	}
nul:
	snprintf(err, errlen, "line %d: a NUL byte (not a text file)", r->next_line);
	return -1;
too_long:
	snprintf(err, errlen, "line %d: a row longer than %d bytes", r->line, WSB_CSV_MAX_ROW);
	return -1;
}
