# Figures that stay honest when things around them change: the history
# after a reset, after a core statistics reset, after a gap in sampling;
# a reset inside a transaction; WAL timing that the server did not measure;
# and views read while no collector runs.
#
# Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(usleep);
use FindBin;
use lib $FindBin::RealBin;
use WalStallTest;

# pg_stat_wal and its timing exist from 14
my $wal_timing = $pg_major >= 14 ? 'track_wal_io_timing = on' : '';
my $node = wal_stall_node('hardening', conf => qq{
autovacuum = off
synchronous_commit = off
wal_buffers = 32kB
max_wal_size = 1GB
$wal_timing
});
pgbench_init($node, 2);
ok(wait_for_collector($node), 'collector ticks');

sub pgbench { pgbench_run($node, pgbench_load($_[0])); }

# Wait until a history row closes after the given time; return its time.
sub row_after { return next_history_row($node, $_[0]); }

# --- the history after a reset covers the time from the reset on
my ($lsn0, $xid0) = split /\|/, $node->safe_psql('postgres',
	'SELECT pg_current_wal_insert_lsn(), pg_snapshot_xmax(pg_current_snapshot()) FROM wal_stall_reset()');
pgbench(4);
my ($lsn1, $xid1, $t1) = split /\|/, $node->safe_psql('postgres',
	'SELECT pg_current_wal_insert_lsn(), pg_snapshot_xmax(pg_current_snapshot()), now()');
row_after($t1);
my ($sum_wal, $sum_xids, $first_seconds) = split /\|/, $node->safe_psql('postgres', q{
	SELECT sum(wal_bytes), sum(xids),
	       (SELECT seconds FROM wal_stall_history ORDER BY sample_time LIMIT 1)
	FROM wal_stall_history});
my $wal = $node->safe_psql('postgres', "SELECT pg_wal_lsn_diff('$lsn1', '$lsn0')");
my $xids = $xid1 - $xid0;
cmp_ok($wal, '>', 1_000_000, "the run wrote WAL ($wal bytes)");
cmp_ok($sum_wal, '>=', 0.99 * $wal,
	"history since the reset holds the run's WAL: $sum_wal of $wal bytes");
cmp_ok($sum_wal, '<=', 1.01 * $wal + 100_000, 'and not much more');
cmp_ok($sum_xids, '>=', 0.99 * $xids, "and its XIDs: $sum_xids of $xids");
cmp_ok($first_seconds, '<=', 1.1, "the first row after the reset is at most a second long ($first_seconds)");

# --- a gap in sampling: the row after it says how long it is
my $pid = $node->safe_psql('postgres', 'SELECT collector_pid FROM wal_stall_status()');
my $t_stop = $node->safe_psql('postgres', 'SELECT max(sample_time) FROM wal_stall_history');
kill 'STOP', $pid;
sleep 5;
kill 'CONT', $pid;
row_after($t_stop);
my ($gap_seconds, $others_ok) = split /\|/, $node->safe_psql('postgres', qq{
	SELECT (SELECT seconds FROM wal_stall_history WHERE sample_time > timestamptz '$t_stop'
	        ORDER BY sample_time LIMIT 1),
	       bool_and(seconds BETWEEN 0.9 AND 1.1) FROM wal_stall_history
	WHERE sample_time <= timestamptz '$t_stop' AND seconds > 0.99});
cmp_ok($gap_seconds, '>', 4.5, "the row after a 5 s stop of the collector is $gap_seconds s long");
is($others_ok, 't', 'full rows before it are one second long');

# The exact figures come from core's statistics, which the collector reads
# from 15 (before, pg_stat_wal is missing or in the stats collector's file).
# WAL writes: a column of pg_stat_wal before 18, rows of pg_stat_io from 18.
my $core_wal_writes = $pg_major >= 18
  ? "(SELECT sum(writes) FROM pg_stat_io WHERE object = 'wal' AND context = 'normal')"
  : '(SELECT wal_write FROM pg_stat_wal)';
SKIP:
{
	skip 'core statistics sections need 15+', 9 if $pg_major < 15;
# --- a core statistics reset after ours: exact figures are NULL, not wrong
	$node->safe_psql('postgres', 'SELECT wal_stall_reset()');
	pgbench(2);
	my $t_pre = $node->safe_psql('postgres', 'SELECT now()');
	$node->safe_psql('postgres',
		"SELECT pg_stat_reset_shared('wal'); SELECT pg_stat_reset_slru(NULL)");
	my $t_core = $node->safe_psql('postgres', 'SELECT now()');
	pgbench(2);
	$node->poll_query_until('postgres',
		"SELECT $core_wal_writes > 0") or die 'no WAL writes counted';
	is( $node->safe_psql('postgres', q{
			SELECT string_agg(class || '=' || coalesce(exact_count::text, 'NULL'), ' ' ORDER BY class)
			FROM wal_stall_summary WHERE class IN ('wal_buffer_full', 'wal_write', 'wal_fsync', 'slru_io')}),
		'slru_io=NULL wal_buffer_full=NULL wal_fsync=NULL wal_write=NULL',
		'exact_count is NULL after pg_stat_reset_shared and pg_stat_reset_slru');
	is( $node->safe_psql('postgres', q{
			SELECT num_nulls(exact_total_ms) FROM wal_stall_summary WHERE class = 'wal_fsync'}),
		'1', 'and so is exact_total_ms');
	is( $node->safe_psql('postgres',
			'SELECT num_nulls(hits, reads, hit_ratio) FROM wal_stall_clog'),
		'3', 'CLOG counts are NULL after pg_stat_reset_slru');
	row_after($node->safe_psql('postgres', 'SELECT now() + interval \'1 second\''));
	is( $node->safe_psql('postgres', qq{
			SELECT count(*) FILTER (WHERE wal_writes IS NULL
			                          AND sample_time > timestamptz '$t_pre') >= 1
			   AND count(*) FILTER (WHERE wal_writes IS NOT NULL
			                          AND sample_time <= timestamptz '$t_pre') >= 1
			   AND count(*) FILTER (WHERE wal_writes IS NOT NULL
			                          AND sample_time > timestamptz '$t_core') >= 2
			FROM wal_stall_history}),
		't', 'the history row spanning the core reset has NULL core deltas, rows before and after it have them');
	$node->safe_psql('postgres', 'SELECT wal_stall_reset()');
	is( $node->safe_psql('postgres', q{
			SELECT count(*) FROM wal_stall_summary
			WHERE class IN ('wal_buffer_full', 'wal_write', 'wal_fsync') AND exact_count IS NULL}),
		'0', 'a new reset takes core\'s new origin as baseline');

	# --- wal_stall_reset() in a transaction that has read statistics before
	my $a = $node->background_psql('postgres');
	$a->query_safe('BEGIN');
	$a->query_safe("SELECT $core_wal_writes");
	pgbench(2);
	$node->poll_query_until('postgres', "SELECT $core_wal_writes > 100")
	  or die 'writes not published';
	my $published = $node->safe_psql('postgres', "SELECT $core_wal_writes");
	$a->query_safe('SELECT wal_stall_reset()');
	$a->query_safe('COMMIT');
	$a->quit;
	my $after = $node->safe_psql('postgres',
		q{SELECT exact_count FROM wal_stall_summary WHERE class = 'wal_write'});
	cmp_ok($after, '<', 0.1 * $published,
		"a reset inside a transaction takes a current baseline ($after writes since, $published before)");

	# --- timing the server did not measure is NULL, whatever the session says
	$node->append_conf('postgresql.conf', "track_wal_io_timing = off\n");
	$node->reload;
	$node->poll_query_until('postgres', q{SELECT setting = 'off' FROM pg_settings
		WHERE name = 'track_wal_io_timing'});
	sleep 1;
	$node->safe_psql('postgres', 'SELECT wal_stall_reset()');
	my $t_off = $node->safe_psql('postgres', 'SELECT now()');
	$node->safe_psql('postgres', q{
		SET track_wal_io_timing = on;
		SET synchronous_commit = on;
		CREATE TABLE timing_probe AS SELECT g FROM generate_series(1, 1000) g;
		DO $$ BEGIN FOR i IN 1 .. 200 LOOP INSERT INTO timing_probe VALUES (i); COMMIT; END LOOP; END $$;
		SELECT pg_stat_force_next_flush();});
	row_after($node->safe_psql('postgres', 'SELECT now() + interval \'1 second\''));
	# (the test framework runs with fsync = off: core counts no fsync, but writes)
	my ($writes, $exact_ms) = split /\|/, $node->safe_psql('postgres', q{
		SET track_wal_io_timing = on;
		SELECT exact_count, coalesce(exact_total_ms::text, 'NULL') FROM wal_stall_summary
		WHERE class = 'wal_write'});
	cmp_ok($writes, '>', 0, "WAL writes counted with timing off ($writes)");
	is($exact_ms, 'NULL', 'exact_total_ms is NULL when the server does not time WAL I/O, even if a session does');
	is( $node->safe_psql('postgres', qq{
			SELECT count(*) > 0 AND bool_and(wal_sync_ms IS NULL)
			FROM wal_stall_history WHERE sample_time > timestamptz '$t_off'}),
		't', 'the history\'s wal_sync_ms is NULL, not 0, with timing off');

}

# --- no collector: the views say so
$node->append_conf('postgresql.conf', "max_worker_processes = 0\n");
$node->restart;
my ($ret, $stdout, $stderr) = $node->psql('postgres',
	q{SELECT wal_stall_reset(); SELECT coalesce(episodes::text, 'NULL') || ' ' || coalesce(total_ms::text, 'NULL')
	  FROM wal_stall_summary WHERE class = 'wal_buffer_full'});
is($ret, 0, 'summary readable without a collector');
like($stdout, qr/^NULL NULL$/m, 'sampled figures are NULL, not zero, without a collector');
like($stderr, qr/WARNING:  wal_stall collector is not running/, 'and a warning says why');
($ret, $stdout, $stderr) = $node->psql('postgres', 'SELECT count(*) FROM wal_stall_current');
like($stderr, qr/WARNING:  wal_stall collector is not running/, 'wal_stall_current warns too');
is($node->safe_psql('postgres', 'SELECT collector_pid IS NULL FROM wal_stall_status()'),
	't', 'status shows no collector');

$node->stop;
done_testing();
