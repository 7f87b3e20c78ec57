/*-------------------------------------------------------------------------
 *
 * gauge.c
 *		wal_stall_bench: the machine's speed, second by second, beside the
 *		runs.
 *
 * A shared virtual machine runs slower and faster on a scale of seconds
 * (a busy neighbour on the host, time the hypervisor takes and does not
 * report as stolen), and every run of an experiment meets it: here that
 * is half of what one run's tps differs from the next by.  The gauge
 * measures it, so that the verdict can take it out (verdict.c,
 * machine_speed_fit): a child process runs one unit of fixed work (a loop
 * of integer arithmetic, about 0.1 ms) every 20 ms and reads the CPU time
 * it took.  CPU time, not elapsed time: waiting for a core while the load
 * holds both is not slowness of the machine, a core that runs slower is.
 * At 50 units a second it takes about 0.5% of one core.
 *
 * The child writes each second's sum and count into a ring of slots in
 * memory shared with the harness, a slot per second of Unix time; the
 * harness reads only seconds that have ended, which the child no longer
 * writes until the ring comes round again (WSB_GAUGE_SLOTS seconds on).
 * The child, wal_stall_gauge in ps, does no I/O, holds no file of the
 * harness's, is in a process group of its own (a Ctrl-C reaches the
 * harness, which stops it), and gets SIGKILL when the harness dies.
 *
 * Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
 *
 *-------------------------------------------------------------------------
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "engine.h"
#include "gauge.h"

/* one unit of work: about 0.1 ms here */
#define WSB_GAUGE_UNIT_ITERATIONS 200000
/* a unit every 20 ms: 50 a second, enough for a second's mean */
#define WSB_GAUGE_PAUSE_NS 20000000L
/* the ring: four and a half hours of seconds, longer than any run */
#define WSB_GAUGE_SLOTS 16384

typedef struct GaugeSecond
{
	int64_t		second;			/* Unix time; written last (release) */
	double		cpu_us;			/* sum over the second's units */
	int64_t		units;
} GaugeSecond;

typedef struct Gauge
{
	pid_t		pid;			/* the child, 0 when not running */
	GaugeSecond *ring;			/* [WSB_GAUGE_SLOTS], shared with it */
} Gauge;

static Gauge gauge;

static double
clock_us(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* The unit of work; volatile, so that the compiler keeps every step. */
static void
run_unit(void)
{
	volatile uint64_t acc = 0;

	for (uint64_t i = 0; i < WSB_GAUGE_UNIT_ITERATIONS; i++)
		acc += i * i;
}

/* Add one unit's CPU time to the slot of second, begun anew if stale. */
static void
record_unit(GaugeSecond *ring, int64_t second, double cpu_us)
{
	GaugeSecond *slot = &ring[second % WSB_GAUGE_SLOTS];

	if (__atomic_load_n(&slot->second, __ATOMIC_RELAXED) != second)
	{
		slot->cpu_us = 0;
		slot->units = 0;
		__atomic_store_n(&slot->second, second, __ATOMIC_RELEASE);
	}
	slot->cpu_us += cpu_us;
	slot->units++;
}

/* In the child: measure until killed. */
static void
gauge_child(GaugeSecond *ring, pid_t parent)
{
	struct timespec pause = {0, WSB_GAUGE_PAUSE_NS};
	int			devnull = open("/dev/null", O_RDWR);

	setpgid(0, 0);
	prctl(PR_SET_NAME, "wal_stall_gauge");	/* what ps and pgrep -x show */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(0);				/* the harness died before the line above */
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_DFL);
	for (int fd = 0; fd < 3 && devnull >= 0; fd++)
		dup2(devnull, fd);
	for (int fd = 3; fd < 1024; fd++)
		close(fd);
	for (;;)
	{
		double		start = clock_us(CLOCK_THREAD_CPUTIME_ID);
		double		took;

		run_unit();
		took = clock_us(CLOCK_THREAD_CPUTIME_ID) - start;
		record_unit(ring, (int64_t) (clock_us(CLOCK_REALTIME) / 1e6), took);
		nanosleep(&pause, NULL);
	}
}

static void
gauge_stop(void *arg)
{
	(void) arg;
	if (gauge.pid > 0)
	{
		kill(gauge.pid, SIGKILL);
		while (waitpid(gauge.pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
	gauge.pid = 0;
	if (gauge.ring)
		munmap(gauge.ring, sizeof(GaugeSecond) * WSB_GAUGE_SLOTS);
	gauge.ring = NULL;
}

int
wsb_gauge_start(char *err, size_t errlen)
{
	pid_t		parent = getpid();
	void	   *ring = mmap(NULL, sizeof(GaugeSecond) * WSB_GAUGE_SLOTS, PROT_READ | PROT_WRITE,
							MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (ring == MAP_FAILED)
	{
		snprintf(err, errlen, "could not start the machine's speed gauge: could not map memory: %s",
				 strerror(errno));
		return -1;
	}
	gauge.ring = ring;
	if (wsb_cleanup_push("stop the machine's speed gauge", gauge_stop, NULL) < 0)
	{
		gauge_stop(NULL);
		snprintf(err, errlen, "could not start the machine's speed gauge: too many things to undo");
		return -1;
	}
	fflush(NULL);
	gauge.pid = fork();
	if (gauge.pid < 0)
	{
		snprintf(err, errlen, "could not start the machine's speed gauge: could not fork: %s",
				 strerror(errno));
		gauge.pid = 0;
		return -1;
	}
	if (gauge.pid == 0)
		gauge_child(gauge.ring, parent);
	setpgid(gauge.pid, gauge.pid);
	return 0;
}

double
wsb_gauge_mean(int64_t first, int64_t last)
{
	int64_t		now = (int64_t) (clock_us(CLOCK_REALTIME) / 1e6);
	double		sum_log = 0;
	int			n = 0;

	if (gauge.ring == NULL || last - first >= WSB_GAUGE_SLOTS)
		return NAN;
	/* the second under way is still being written */
	for (int64_t s = first; s <= last && s < now; s++)
	{
		const GaugeSecond *slot = &gauge.ring[s % WSB_GAUGE_SLOTS];

		if (__atomic_load_n(&slot->second, __ATOMIC_ACQUIRE) != s || slot->units == 0)
			continue;
		sum_log += log(slot->cpu_us / slot->units);
		n++;
	}
	return n > 0 ? exp(sum_log / n) : NAN;
}
