# The collector rests while nothing can stall and comes back to its full
# rate at once when something could.
#
# Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(usleep time);
use FindBin;
use lib $FindBin::RealBin;
use WalStallTest;

on_one_major_only();

my $node = wal_stall_node('cadence', conf => qq{
autovacuum = off
synchronous_commit = off
wal_buffers = 32kB
});
pgbench_init($node, 2);

# Tick rate over a few seconds, measured with no session open (a psql
# session is itself a process on CPU while it runs our query).
sub ticks_per_second
{
	my ($seconds) = @_;
	my $t0 = $node->safe_psql('postgres', 'SELECT ticks FROM wal_stall_status()');
	my $s0 = time;
	sleep $seconds;
	my $t1 = $node->safe_psql('postgres', 'SELECT ticks FROM wal_stall_status()');
	return ($t1 - $t0) / (time - $s0);
}

# Reset first, so that the figures since the reset are all of an idle
# server.  After a second with no process at work the rest awaits a
# statement until the next second's close: an idle stretch is one tick a
# second, where a 100 ms rest would give ten.  A row of one tick has a mean
# interval over 600 ms (about 1,000, less by how late the row before it
# closed, up to a rest), one of two ticks 550 ms at most.  The reset's own
# second and the one after it still see work, or rest 100 ms; the rows from
# 4 s on are idle.
my $s0 = time;
$node->safe_psql('postgres', 'SELECT wal_stall_reset()');
usleep(9_000_000);
my ($awaited_rows, $one_tick_rows, $idle_intervals) = split /\|/, $node->safe_psql('postgres', qq{
	SELECT count(*), count(*) FILTER (WHERE mean_interval_ms > 600),
		   string_agg(round(mean_interval_ms::numeric)::text, ' ' ORDER BY sample_time)
	FROM wal_stall_history
	WHERE sample_time > to_timestamp($s0) + interval '4 s'
	  AND sample_time <= to_timestamp($s0) + interval '9 s'});
cmp_ok($awaited_rows, '>=', 4, "idle history rows ($awaited_rows)");
is($one_tick_rows, $awaited_rows,
	"an idle server ticks once a second (mean intervals $idle_intervals ms)");
my $rest = $node->safe_psql('postgres', 'SELECT rest_ms FROM wal_stall_status()');
cmp_ok($rest, '>', 5000, "time spent resting is reported ($rest ms)");

# The rests say nothing of how finely an episode is timed: resolution_ms
# is the mean interval between full-rate samples, not ~100 ms here.
my $resolution = $node->safe_psql('postgres',
	q{SELECT resolution_ms FROM wal_stall_summary WHERE class = 'wal_buffer_full'});
cmp_ok($resolution, '<', 5, "resolution_ms leaves the rests out ($resolution ms)");

# Resting on an idle server, the collector still reads core's statistics
# and the WAL position for every row.
my $t_idle = $node->safe_psql('postgres', 'SELECT now()');
sleep 31;
my ($idle_rows, $read_rows, $wal_rows) = split /\|/, $node->safe_psql('postgres', qq{
	SELECT count(*), count(wal_writes), count(wal_bytes) FROM wal_stall_history
	WHERE sample_time > timestamptz '$t_idle' + interval '1 s'
	  AND sample_time < timestamptz '$t_idle' + interval '30 s'});
cmp_ok($idle_rows, '>=', 27, "idle history rows ($idle_rows)");
is($wal_rows, $idle_rows, 'the WAL position is read every second');
SKIP:
{
	# before 15 the collector leaves core's statistics alone (docs/sampling.md)
	skip 'the collector reads core statistics from 15', 1 if $pg_major < 15;
	is($read_rows, $idle_rows, 'core\'s statistics are read every second, resting too');
}

# A statement that begins while the rest awaits one wakes the collector
# (queries.c's hooks): its work is sampled from its start, and counted as
# long as it was, neither a second late nor stretched back over the sleep
# it ended.  The DO block is on CPU for 400 ms and inserts no WAL, so the
# collector rests up to 100 ms meanwhile: the last tenth of a second or so
# of it may go unseen.  The query before it saw work, so the collector
# awaits a statement only from the end of the second after: the test
# waits 3.5 s, and checks that the last row before the block was one tick.
# The rows are read once they are closed; the queries that wait for that
# come after the window.
usleep(3_500_000);
my $w0 = time;
$node->safe_psql('postgres', q{DO $$
DECLARE
	t timestamptz := clock_timestamp();
BEGIN
	WHILE clock_timestamp() < t + interval '400 ms' LOOP
	END LOOP;
END $$});
my $w1 = time;
usleep(2_500_000);
ok( $node->poll_query_until('postgres', qq{
		SELECT count(*) > 0 FROM wal_stall_history
		WHERE sample_time > to_timestamp($w1) + interval '1.5 s'}),
	'the rows of the statement are closed');
my $before = $node->safe_psql('postgres', qq{
	SELECT round(mean_interval_ms::numeric) FROM wal_stall_history
	WHERE sample_time <= to_timestamp($w0) ORDER BY sample_time DESC LIMIT 1});
cmp_ok($before, '>', 600, "the collector awaited a statement before it (last row: $before ms a tick)");
my $active_time = $node->safe_psql('postgres', qq{
	SELECT round(sum(active_backends * seconds)::numeric, 3) FROM wal_stall_history
	WHERE sample_time > to_timestamp($w0) AND sample_time <= to_timestamp($w1) + interval '1.5 s'});
cmp_ok($active_time, '>=', 0.2, "the statement that woke the collector is counted at work ($active_time s of 0.4)");
cmp_ok($active_time, '<=', 0.55, 'and not for the sleep before it');

# A client asleep in the middle of a statement (pg_sleep()) begins no
# statement when it goes back to work, so no rest awaits one while it is
# there: the rows of its sleep keep ten ticks a second.
my $p0 = time;
my $sleeper = $node->background_psql('postgres');
$sleeper->query_until(qr/started/, "\\echo started\nSELECT pg_sleep(7);\n");
usleep(6_000_000);
my ($sleep_rows, $resting_rows, $sleep_intervals) = split /\|/, $node->safe_psql('postgres', qq{
	SELECT count(*), count(*) FILTER (WHERE mean_interval_ms <= 200),
		   string_agg(round(mean_interval_ms::numeric)::text, ' ' ORDER BY sample_time)
	FROM wal_stall_history
	WHERE sample_time > to_timestamp($p0) + interval '3 s'
	  AND sample_time <= to_timestamp($p0) + interval '6 s'});
ok($sleep_rows >= 2 && $resting_rows == $sleep_rows,
	"a client asleep mid-statement: no await (mean intervals $sleep_intervals ms)");
$sleeper->quit;

# A statement working on CPU that writes no WAL and waits on nothing
# tracked: with no WAL inserted nothing can wait on its flush, so the
# collector rests on as on an idle server (cadence.c, choose_rest()), while
# the history counts the statement at work.  (A backend in pg_sleep() waits
# on a timeout, which cannot stall: it does not count as busy either.)
$node->safe_psql('postgres', 'CREATE TABLE stop (why text)');
my ($worker, $cpu_pid) = start_cpu_without_wal($node);
my $t_read = $node->safe_psql('postgres', 'SELECT now()');
my $read_rate = ticks_per_second(3);
cmp_ok($read_rate, '<=', 20,
	sprintf('the collector rests as idle while it inserts no WAL (%.1f ticks/s)', $read_rate));
is($node->safe_psql('postgres',
		"SELECT state FROM pg_stat_activity WHERE pid = $cpu_pid"),
	'active', 'the backend was at work all along');
my ($rows_read, $at_work, $active) = split /\|/, $node->safe_psql('postgres', qq{
	SELECT count(*), count(*) FILTER (WHERE active_backends >= 0.5),
		   string_agg(round(active_backends::numeric, 2)::text, ' ' ORDER BY sample_time)
	FROM wal_stall_history WHERE sample_time > timestamptz '$t_read' + interval '1 s'});
ok($rows_read >= 1 && $at_work == $rows_read,
	"and the collector saw it at work in every second (active_backends $active)");
$node->safe_psql('postgres', q{INSERT INTO stop VALUES ('cpu')});
$worker->quit;

# The same work inserting a little WAL as it goes (a row every few
# milliseconds, one transaction): the idle rest ends, and the collector
# rests under load instead, 10 ms at most (WS_LOAD_REST_INTERVALS): well
# within what a 32kB ring allows at that rate.
$node->safe_psql('postgres', 'CREATE TABLE trickle (i int)');
$worker = $node->background_psql('postgres');
$worker->query_until(qr/started/, q{
\echo started
DO $$
BEGIN
	FOR i IN 1..3000 LOOP
		PERFORM count(*) FROM generate_series(1, 20000);
		INSERT INTO trickle VALUES (i);
	END LOOP;
END $$;
});
ok( $node->poll_query_until('postgres',
		q{SELECT current_interval_ms <= 10 FROM wal_stall_status()}),
	'a backend on CPU inserting WAL ends the idle rest: at most 10 ms');
my $busy_rate = ticks_per_second(1);
cmp_ok($busy_rate, '>=', 60, sprintf('and the tick rate back up (%.0f ticks/s)', $busy_rate));
cmp_ok($busy_rate, '<=', 300,
	sprintf('though it rests under load (%.0f ticks/s)', $busy_rate));
$worker->quit;

# Under write load on a 32kB ring, the collector does not rest: the
# history's mean interval stays at the sample interval in every second of a
# pgbench run.
my $t_start = $node->safe_psql('postgres', 'SELECT now()');
my $rest_before = $node->safe_psql('postgres', 'SELECT rest_ms FROM wal_stall_status()');
pgbench_run($node, pgbench_load(4));
my $t_end = $node->safe_psql('postgres', 'SELECT now()');
my $rest_after = $node->safe_psql('postgres', 'SELECT rest_ms FROM wal_stall_status()');
my ($rows, $with_interval) = split /\|/, $node->safe_psql('postgres', qq{
	SELECT count(*), count(*) FILTER (WHERE mean_interval_ms > 0.5) FROM wal_stall_history
	WHERE sample_time > timestamptz '$t_start' + interval '1 s'
	  AND sample_time < timestamptz '$t_end'});
cmp_ok($rows, '>=', 2, "history rows inside the run ($rows)");
is($with_interval, $rows, 'every row gives its mean interval');
cmp_ok($rest_after - $rest_before, '<', 4000 * 0.05 + 1000,
	'little resting during a 4 s run (only around its edges)');
# A 4 s run need not bring a wrap-around wait that lasts until a tick (one
# run in dozens brought none): up to three more runs until one does.
my $episodes;
for my $run (1 .. 4)
{
	$episodes = $node->safe_psql('postgres',
		q{SELECT episodes FROM wal_stall_summary WHERE class = 'wal_buffer_full'});
	last if $episodes > 0 || $run == 4;
	pgbench_run($node, pgbench_load(4));
}
cmp_ok($episodes, '>', 0, "wrap-around episodes still seen ($episodes)");

# Resting off: idle_interval = sample_interval keeps the full rate.
$node->append_conf('postgresql.conf', "wal_stall.idle_interval = 1\n");
$node->reload;
$node->poll_query_until('postgres', q{SELECT current_setting('wal_stall.idle_interval') = '1ms'});
sleep 2;
my $flat_rate = ticks_per_second(2);
cmp_ok($flat_rate, '>=', 300, sprintf('resting off: %.0f ticks/s on an idle server', $flat_rate));

# Rests shorter than a millisecond (sample_interval 0.1 ms, idle_interval
# 0.4 ms) sleep as intervals do: WaitLatch's whole milliseconds would make
# nearly every such tick more than a whole sleep late, an overrun.
$node->append_conf('postgresql.conf',
	"wal_stall.sample_interval = 0.1\nwal_stall.idle_interval = 0.4\n");
$node->reload;
$node->poll_query_until('postgres',
	q{SELECT sample_interval_ms = 0.1 FROM wal_stall_status()});
sleep 1;
my ($ticks0, $over0) = split /\|/,
  $node->safe_psql('postgres', 'SELECT ticks, overruns FROM wal_stall_status()');
sleep 3;
my ($ticks1, $over1) = split /\|/,
  $node->safe_psql('postgres', 'SELECT ticks, overruns FROM wal_stall_status()');
cmp_ok(($over1 - $over0), '<', ($ticks1 - $ticks0) / 2,
	sprintf('rests under 1 ms: %d overruns in %d ticks', $over1 - $over0, $ticks1 - $ticks0));

$node->stop;
done_testing();
