# Resting under load hides no stall.
#
# A statement on CPU that writes no WAL (at nice 19, so that it takes
# little CPU from the others) lets the collector rest under load as long
# as on an idle server (wal_stall.idle_interval, 100 ms): with no WAL
# inserted only the CLOG or a dirty page's eviction could stall it.  Then,
# on a 4-page WAL ring, a holder session commits in a loop with
# commit_delay = 100 ms: XLogFlush() sleeps that long holding WALWriteLock,
# and fsyncs after it.  A writer (a role of its own)
# bulk-inserts 1.9 kB rows: every 32 kB it needs an old page of the ring
# written, which takes WALWriteLock exclusively (AdvanceXLInsertBuffer), so
# it waits out the rest of the holder's delay, again and again.
#
# The truth: the writer's statement sleeps only in those waits (its data
# fits in shared_buffers, its WAL writes go to the page cache), so the time
# it spent off CPU during the statement, its duration less its on-CPU time
# (/proc/PID/schedstat), is its wrap-around time, give or take the time it
# spent runnable but not running (schedstat's run delay): after a wake-up
# its wait event is still set, and sampled, but not after a preemption.  So
# the truth lies between the time off CPU less the run delay and the time
# off CPU.  The stall must be seen, its time as charged to the writer
# (wal_stall_queries) within 5% of that range, and sampled at the full
# rate, not at the rest's.  The adaptive interval is off here
# (wal_stall.max_sample_interval = sample_interval): these waits of up to
# 100 ms are long enough for it to follow them at 8 ms, which would hide
# a rest from the resolution this test reads.
#
# Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use WalStallTest;

my $node = wal_stall_node('rest_under_load', conf => qq{
wal_buffers = 32kB
wal_stall.max_sample_interval = 1ms
autovacuum = off
max_wal_size = 1GB
checkpoint_timeout = 1h
wal_init_zero = off
wal_writer_delay = 10s
fsync = on
}, sql => q{
	CREATE EXTENSION wal_stall;
	CREATE ROLE writer LOGIN;
	CREATE TABLE big (id int, pad text);
	ALTER TABLE big ALTER pad SET STORAGE EXTERNAL;
	GRANT INSERT ON big TO writer;
	CREATE TABLE held (id int);
	CREATE TABLE stop (why text);
	CREATE TABLE truth (ms float8);
	GRANT INSERT ON truth TO writer;
});

# On-CPU time and run delay (runnable, not running) of a process, in ms.
sub schedstat_ms
{
	my ($pid) = @_;
	open my $fh, '<', "/proc/$pid/schedstat" or die "schedstat of $pid: $!";
	my ($cpu_ns, $delay_ns) = split ' ', scalar <$fh>;
	close $fh;
	return ($cpu_ns / 1e6, $delay_ns / 1e6);
}

# A process at work that writes no WAL, until told to stop (or 180 s).
my ($cpu, $cpu_pid) = start_cpu_without_wal($node);
ok(setpriority(0, $cpu_pid, 19), "the statement on CPU at nice 19 (pid $cpu_pid)");

$node->safe_psql('postgres', 'SELECT wal_stall_reset()');
ok( $node->poll_query_until('postgres',
		q{SELECT current_interval_ms = 100 FROM wal_stall_status()}),
	'a statement on CPU that writes no WAL: the collector rests 100 ms, as idle');
my $rest_before = $node->safe_psql('postgres', 'SELECT rest_ms FROM wal_stall_status()');
cmp_ok($rest_before, '>', 0, "and counts it as rest ($rest_before ms)");

# Seconds rested through under load read core's statistics, as every
# second does: every such row has them.
my $t_quiet = $node->safe_psql('postgres', 'SELECT now()');
my $rested_rows = qq{FROM wal_stall_history WHERE sample_time > timestamptz '$t_quiet'
	  AND mean_interval_ms > 5};
ok($node->poll_query_until('postgres', "SELECT count(*) >= 3 $rested_rows"),
	'three seconds rested through under load');
my ($rested, $at_work, $active) = split /\|/, $node->safe_psql('postgres',
	"SELECT count(*), count(*) FILTER (WHERE active_backends >= 0.5),
	   string_agg(round(active_backends::numeric, 2)::text, ' ' ORDER BY sample_time)
	 $rested_rows");
is($at_work, $rested, "the statement on CPU at work in each of them (active_backends $active)");
SKIP:
{
	skip 'the collector reads core statistics from 15', 1 if $pg_major < 15;
	my ($rows, $read) = split /\|/,
	  $node->safe_psql('postgres', "SELECT count(*), count(wal_writes) $rested_rows");
	is($read, $rows, "each of them read core ($read of $rows rows)");
}
is($node->safe_psql('postgres',
		q{SELECT total_ms FROM wal_stall_summary WHERE class = 'wal_buffer_full'}),
	'0', 'no wrap-around time before the stall');

# The holder: commits with a 100 ms commit_delay, until told to stop (or
# 1,000 of them).
my $holder = $node->background_psql('postgres');
$holder->query_until(qr/started/, q{
SET synchronous_commit = on;
SET commit_delay = 100000;
SET commit_siblings = 0;
\echo started
DO $$
BEGIN
	FOR i IN 1..1000 LOOP
		EXIT WHEN EXISTS (SELECT FROM stop WHERE why = 'holder');
		INSERT INTO held VALUES (i);
		COMMIT;
	END LOOP;
END $$;
});

# The writer: rows of 1.9 kB through the 32 kB ring, 190 kB of WAL a
# statement, for 4 s, timed by itself.  The holder delays its flush only while its commit
# record is not flushed yet: a WAL writer flushing the writer's pages would
# often have done it (wal_writer_delay = 10 s keeps it out of the way).
my $writer = $node->background_psql('postgres', extra_params => [ '-U', 'writer' ]);
my $writer_pid = $writer->query_safe('SELECT pg_backend_pid()');
$writer->query_safe('SET synchronous_commit = off');
my $t_start = $node->safe_psql('postgres', 'SELECT now()');
my ($cpu_before, $delay_before) = schedstat_ms($writer_pid);
$writer->query_safe(q{
	DO $$
	DECLARE
		t0 timestamptz := clock_timestamp();
	BEGIN
		WHILE clock_timestamp() < t0 + interval '4 s' LOOP
			INSERT INTO big SELECT g, repeat('x', 1900) FROM generate_series(1, 100) g;
		END LOOP;
		INSERT INTO truth VALUES (1000 * extract(epoch FROM clock_timestamp() - t0));
	END $$;
});
my ($cpu_after, $delay_after) = schedstat_ms($writer_pid);
my $t_end = $node->safe_psql('postgres', 'SELECT now()');
$node->safe_psql('postgres', q{INSERT INTO stop VALUES ('holder')});
$holder->quit;

my $duration = $node->safe_psql('postgres', 'SELECT ms FROM truth');
my $off_cpu = $duration - ($cpu_after - $cpu_before);
my $run_delay = $delay_after - $delay_before;
cmp_ok($off_cpu, '>', 0.5 * $duration,
	sprintf('the writer stalled most of the time (%.0f ms of its %.0f ms off CPU, %.0f ms of it runnable)',
		$off_cpu, $duration, $run_delay));

# Every sample of the writer's stall is in the summary once the collector
# has seen the writer leave its wait (the episode then closes).
ok( $node->poll_query_until('postgres',
		q{SELECT count(*) = 0 FROM wal_stall_current WHERE class = 'wal_buffer_full'}),
	'the stall is over for the collector too');
my ($episodes, $resolution) = split /\|/, $node->safe_psql('postgres',
	q{SELECT episodes, resolution_ms FROM wal_stall_summary WHERE class = 'wal_buffer_full'});
cmp_ok($episodes, '>=', 10, "the wrap-around stall is seen ($episodes episodes)");
my ($writer_episodes, $sampled) = split /\|/, $node->safe_psql('postgres',
	q{SELECT sum(episodes), sum(total_ms) FROM wal_stall_queries
	  WHERE class = 'wal_buffer_full' AND userid = 'writer'::regrole});
cmp_ok($writer_episodes, '>=', 10, "the writer's own episodes ($writer_episodes)");
ok( $sampled >= 0.95 * ($off_cpu - $run_delay) && $sampled <= 1.05 * $off_cpu,
	sprintf("the writer's wal_buffer_full time within 5%% of the truth (%.0f ms sampled, %.0f-%.0f ms true: %.3f-%.3f)",
		$sampled, $off_cpu - $run_delay, $off_cpu, $sampled / $off_cpu,
		$sampled / ($off_cpu - $run_delay)));
cmp_ok($resolution, '<', 1.5, "sampled at the full rate ($resolution ms)");

# The history agrees: during the stall the collector ticked every 1 ms.
my ($rows, $mean_interval) = split /\|/, $node->safe_psql('postgres', qq{
	SELECT count(*), max(mean_interval_ms) FROM wal_stall_history
	WHERE sample_time > timestamptz '$t_start' + interval '1 s'
	  AND sample_time < timestamptz '$t_end'});
cmp_ok($rows, '>=', 1, "history rows inside the stall ($rows)");
cmp_ok($mean_interval, '<', 1.5, "no rest during the stall (mean interval at most $mean_interval ms)");

# The stall over, the statement on CPU lets the collector rest again.
ok( $node->poll_query_until('postgres',
		q{SELECT current_interval_ms = 100 FROM wal_stall_status()}),
	'back to resting under load once the stall is over');

$node->safe_psql('postgres', q{INSERT INTO stop VALUES ('cpu')});
$writer->quit;
$cpu->quit;
$node->stop;
done_testing();
