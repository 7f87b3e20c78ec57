/*
 * wakeup_floor.c
 *		What sleeping and waking N times a second costs on this machine,
 *		with nothing done in between: the floor under the wal_stall
 *		collector's CPU share, which wakes just as often.
 *
 *	wakeup_floor [INTERVAL_US] [SECONDS]
 *
 * Sleeps like the collector (absolute clock_nanosleep on CLOCK_MONOTONIC)
 * and prints its own on-CPU time from /proc/self/schedstat as a percentage
 * of one core.
 *
 * Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

static uint64_t
on_cpu_ns(void)
{
	unsigned long long ns = 0;
	FILE	   *f = fopen("/proc/self/schedstat", "r");

	if (f == NULL || fscanf(f, "%llu", &ns) != 1)
	{
		fprintf(stderr, "wakeup_floor: could not read /proc/self/schedstat\n");
		exit(1);
	}
	fclose(f);
	return ns;
}

int
main(int argc, char **argv)
{
	uint64_t	interval = (argc > 1 ? strtoull(argv[1], NULL, 10) : 1000) * 1000;
	double		seconds = argc > 2 ? atof(argv[2]) : 10;
	uint64_t	start = now_ns();
	uint64_t	cpu0 = on_cpu_ns();
	uint64_t	deadline = start;
	uint64_t	end = start + (uint64_t) (seconds * 1e9);
	long		wakeups = 0;

	if (interval == 0)
	{
		fprintf(stderr, "wakeup_floor: interval must be positive\n");
		return 1;
	}
	while (deadline < end)
	{
		struct timespec ts;

		deadline += interval;
		ts.tv_sec = deadline / 1000000000u;
		ts.tv_nsec = deadline % 1000000000u;
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		wakeups++;
	}
	printf("%.3f %.2f\n",
		   (double) (on_cpu_ns() - cpu0) / (double) (now_ns() - start) * 100.0,
		   (double) (on_cpu_ns() - cpu0) / wakeups / 1000.0);
	return 0;
}
