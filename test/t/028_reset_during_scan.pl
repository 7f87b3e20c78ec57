# A reset that zeroes an episode slot while the collector copies the
# statement out of it, unlocked, must not leave the episodes after it
# charged to no statement.
#
# The collector copies a backend's statement from that backend's episode
# slot when the episode goes on; wal_stall_reset() zeroes the slots under
# the lock the collector does not hold while it scans.  A reset between the
# collector's look at the slot and its copy (forced there by the test
# function wal_stall_reset_at_copy_for_tests, in the test build only) makes
# the copy read zeros: the reset dropped the episode, the next one begins
# with that copy, and without collector.c's reread_torn_statements() its
# time would go to no statement at all.
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

# The statement's query id comes from compute_query_id, 14+.
plan skip_all => 'compute_query_id needs 14+' if $pg_major < 14;

my $node = wal_stall_node('reset_scan',
	conf => q{
compute_query_id = on
autovacuum = off
},
	sql => q{
	CREATE EXTENSION wal_stall;
	-- in the library only when built with WS_TEST_FUNCTIONS=1, as
	-- scripts/test.sh builds it (test/test_functions.c)
	CREATE FUNCTION regress_wal_sync_wait(int) RETURNS void
	AS '$libdir/wal_stall', 'wal_stall_wal_sync_wait_for_tests' LANGUAGE C STRICT;
	CREATE FUNCTION regress_reset_at_copy(int) RETURNS bool
	AS '$libdir/wal_stall', 'wal_stall_reset_at_copy_for_tests' LANGUAGE C STRICT;
	CREATE FUNCTION regress_reset_at_copy_pending() RETURNS bool
	AS '$libdir/wal_stall', 'wal_stall_reset_at_copy_pending_for_tests' LANGUAGE C STRICT;});
ok(wait_for_collector($node), 'collector ticks');

# A session waits in a WAL fsync's wait event for 4 s; the reset is armed
# for its pid before, and happens at the collector's first copy of its
# statement, on the episode's second tick.
my $session = $node->background_psql('postgres');
my $pid = $session->query_safe('SELECT pg_backend_pid()');
is($node->safe_psql('postgres', "SELECT regress_reset_at_copy($pid)"), 'f',
	'the reset at the statement copy is armed');
$session->query_until(qr/started/, q{
	\echo started
	SELECT regress_wal_sync_wait(4000), 'reset probe';
});
my $queryid;
ok( $node->poll_query_until('postgres', qq{
		SELECT query_id IS NOT NULL FROM pg_stat_activity
		WHERE pid = $pid AND query LIKE '%reset probe%'}),
	'the waiting statement has a query id');
$queryid = $node->safe_psql('postgres',
	"SELECT query_id FROM pg_stat_activity WHERE pid = $pid AND query LIKE '%reset probe%'");
ok( $node->poll_query_until('postgres', 'SELECT NOT regress_reset_at_copy_pending()'),
	'the reset happened at the copy');
ok( $node->poll_query_until('postgres', qq{
		SELECT count(*) > 0 FROM wal_stall_current WHERE pid = $pid}),
	'the wait is followed again after the reset');

# The statement ends; its episode closes at the next tick and is charged.
$session->query_safe('SELECT 1');
ok( $node->poll_query_until('postgres', qq{
		SELECT count(*) = 0 FROM wal_stall_current WHERE pid = $pid}),
	'the episode closed');
my ($episodes, $ms) = split /\|/, $node->safe_psql('postgres', qq{
	SELECT coalesce(sum(episodes), 0), coalesce(sum(total_ms), 0)
	FROM wal_stall_queries WHERE queryid = $queryid});
cmp_ok($episodes, '>=', 1,
	'the episode after the reset is charged to the waiting statement');
cmp_ok($ms, '>', 0, "with its time ($ms ms)");
$session->quit;

$node->stop;
done_testing();
