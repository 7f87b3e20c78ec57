# The collector survives a restart, a crash of a client backend (crash
# recovery re-creates shared memory) and a crash of the collector itself.
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

# the test framework turns crash restarts off; this test is about them
my $node = wal_stall_node('crash', conf => "restart_after_crash = on\n");

sub collector_pid
{
	return $node->safe_psql('postgres',
		'SELECT collector_pid FROM wal_stall_status()');
}

# Wait until a collector other than $old_pid runs and its tick counter moves.
sub collector_is_back
{
	my ($old_pid, $what) = @_;
	ok( $node->poll_query_until('postgres',
			"SELECT collector_pid IS NOT NULL AND collector_pid <> $old_pid
			   AND $collector_ticking FROM wal_stall_status()"),
		"$what: a new collector is running");
	my $t1 = $node->safe_psql('postgres', 'SELECT ticks FROM wal_stall_status()');
	usleep(200_000);
	my $t2 = $node->safe_psql('postgres', 'SELECT ticks FROM wal_stall_status()');
	cmp_ok($t2, '>', $t1, "$what: and it is sampling");
}

ok(wait_for_collector($node), 'collector ticks after start');
my $pid = collector_pid();
like($pid, qr/^\d+$/, 'collector pid reported');
like(`ps -o args= -p $pid`, qr/wal_stall collector/,
	'the pid is the collector process');

# Restart.
$node->restart;
collector_is_back($pid, 'after restart');
$pid = collector_pid();

# kill -9 of a client backend: the postmaster resets shared memory and
# restarts every process, the collector included.
my $victim = $node->background_psql('postgres');
my $victim_pid = $victim->query_safe('SELECT pg_backend_pid()');
kill 'KILL', $victim_pid;
eval { $victim->quit; };
ok(wait_for_connections($node),
	'server accepts connections after crash recovery');
collector_is_back($pid, 'after a client backend crash');
$pid = collector_pid();
like($node->safe_psql('postgres', 'SELECT count(*) FROM wal_stall_summary'),
	qr/^7$/, 'summary readable after crash recovery');

# kill -9 of the collector itself.
kill 'KILL', $pid;
ok(wait_for_connections($node),
	'server accepts connections after the collector crashed');
collector_is_back($pid, 'after the collector crashed');
$pid = collector_pid();

# SIGTERM of the collector: it exits cleanly and the postmaster starts it
# again a second later, without a crash cycle.
kill 'TERM', $pid;
collector_is_back($pid, 'after the collector was terminated');

# A reload with a new interval reaches the collector.
$node->append_conf('postgresql.conf', "wal_stall.sample_interval = 5\n");
$node->reload;
ok($node->poll_query_until('postgres',
		'SELECT sample_interval_ms = 5 FROM wal_stall_status()'),
	'reload changes the sample interval');
# On an idle server the collector rests, so the figures since a reset
# stand on the few full-rate ticks it took before resting: one late tick
# on a busy machine can carry their mean out of the range for good.  So
# each attempt starts from a reset of its own; weights still at 1 ms (or
# at a rest's length) fail every attempt.
my $follows = 0;
for my $attempt (1 .. 10)
{
	$node->safe_psql('postgres', 'SELECT wal_stall_reset()');
	sleep 2;
	my $res = $node->safe_psql('postgres',
		'SELECT string_agg(DISTINCT resolution_ms::text, \' \') FROM wal_stall_summary');
	note("attempt $attempt: resolution_ms $res");
	$follows = $node->safe_psql('postgres',
		'SELECT bool_and(resolution_ms > 4 AND resolution_ms < 10) FROM wal_stall_summary') eq 't';
	last if $follows;
}
ok($follows, 'sample weights follow the new interval');

$node->stop;
done_testing();
