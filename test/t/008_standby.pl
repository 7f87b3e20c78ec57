# wal_stall on a hot standby: the collector runs during recovery, sees the
# WAL receiver's writes and fsyncs while the primary runs pgbench, leaves the
# ring alone, and carries on across promotion.
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

my $primary = wal_stall_node('primary', init => { allows_streaming => 1 }, conf => qq{
autovacuum = off
});
pgbench_init($primary, 2, 'pgbench -i on the primary');
$primary->backup('backup');

my $standby = PostgreSQL::Test::Cluster->new('standby');
$standby->init_from_backup($primary, 'backup', has_streaming => 1);
# the framework runs with fsync = off: turn it on so the WAL receiver's
# fsyncs are real waits
$standby->append_conf('postgresql.conf', "fsync = on\n");
$standby->start;

ok($standby->poll_query_until('postgres',
		"SELECT $collector_ticking AND in_recovery FROM wal_stall_status()"),
	'the collector runs on the standby and knows it is in recovery');
my $pid = $standby->safe_psql('postgres', 'SELECT collector_pid FROM wal_stall_status()');
$standby->safe_psql('postgres', 'SELECT wal_stall_reset()');
my $t0 = $standby->safe_psql('postgres', 'SELECT now()');

pgbench_run($primary, pgbench_load(6));
$primary->wait_for_catchup($standby);
$standby->poll_query_until('postgres',
	"SELECT max(sample_time) > now() - interval '0.5 s' FROM wal_stall_history");

my ($io_episodes, $io_ms) = split /\|/, $standby->safe_psql('postgres', q{
	SELECT episodes, round(total_ms::numeric, 1) FROM wal_stall_summary
	WHERE class = 'wal_fsync'});
cmp_ok($io_episodes, '>', 0,
	"WAL receiver fsync episodes on the standby ($io_episodes, $io_ms ms)");
like( $standby->safe_psql('postgres', q{
		SELECT string_agg(DISTINCT backend_type, ',') FROM pg_stat_activity
		WHERE backend_type = 'walreceiver'}),
	qr/walreceiver/, 'a WAL receiver is streaming');
my ($rows, $fill_null, $wal_bytes) = split /\|/, $standby->safe_psql('postgres', qq{
	SELECT count(*), bool_and(buffer_fill_max IS NULL AND buffer_fill_avg IS NULL), sum(wal_bytes)
	FROM wal_stall_history WHERE sample_time > timestamptz '$t0'});
cmp_ok($rows, '>=', 5, "history rows on the standby ($rows)");
is($fill_null, 't', 'ring occupancy is NULL during recovery, not a made-up number');
cmp_ok($wal_bytes, '>', 1_000_000, "wal_bytes follows replay ($wal_bytes bytes)");
is( $standby->safe_psql('postgres', q{
		SELECT sum(episodes) FROM wal_stall_summary WHERE class = 'wal_buffer_full'}),
	'0', 'no wrap-around stall is claimed on a standby');

# Promotion: the same collector carries on, now reading the ring.
$standby->promote;
ok($standby->poll_query_until('postgres',
		'SELECT NOT in_recovery FROM wal_stall_status()'),
	'in_recovery turns false after promotion');
is($standby->safe_psql('postgres', 'SELECT collector_pid FROM wal_stall_status()'),
	$pid, 'the collector carried on across promotion');
my $t1 = $standby->safe_psql('postgres', 'SELECT now() + interval \'1 second\'');
$standby->poll_query_until('postgres',
	"SELECT max(sample_time) > timestamptz '$t1' FROM wal_stall_history");
is( $standby->safe_psql('postgres', qq{
		SELECT bool_and(buffer_fill_max IS NOT NULL) FROM wal_stall_history
		WHERE sample_time > timestamptz '$t1'}),
	't', 'ring occupancy is read again once promoted');

$standby->stop;
$primary->stop;
done_testing();
