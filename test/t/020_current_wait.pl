# wal_stall_current shows a backend that is really waiting.
#
# One session commits in a loop (fsync on: it holds WALWriteLock through
# each flush), another bulk-inserts through a 4-page WAL ring and so keeps
# needing that lock.  Stopping the first (SIGSTOP) while it holds
# WALWriteLock (or a WAL insertion lock) leaves the second blocked on that
# LWLock for as long as we like; stopped anywhere else, the second runs on,
# and we let go and try again.  (wal_init_zero = off: a new segment costs no
# 16MB write.)  The blocked backend's row must then be in wal_stall_current,
# with a tracked class, a waiting time that grows, and visible to pg_monitor.
#
# While the first is stopped, any session that needs to write WAL blocks too
# -- our observers included, should a query of theirs prune a catalog page or
# log a hint bit (checksums).  So no stop may outlast a watchdog process that
# sends SIGCONT after a few seconds, whatever this script is doing: at worst
# an observation comes late and its assertion fails; the test never hangs.
#
# Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(usleep);
use POSIX ();
use FindBin;
use lib $FindBin::RealBin;
use WalStallTest;

my $node = wal_stall_node('current_wait', conf => qq{
wal_buffers = 32kB
autovacuum = off
max_wal_size = 1GB
wal_init_zero = off
fsync = on
},
	sql => q{
	CREATE EXTENSION wal_stall;
	CREATE ROLE regress_monitor LOGIN IN ROLE pg_monitor;
	CREATE TABLE bulk (id int, filler text);
	GRANT ALL ON bulk TO PUBLIC;
});
ok(wait_for_collector($node), 'collector runs');

# Nothing waits at rest.
is($node->safe_psql('postgres',
		"SELECT count(*) FROM wal_stall_current WHERE backend_type = 'client backend'"),
	'0', 'no client backend waits at rest');

# The first session commits tiny transactions one after the other: with
# fsync on, it spends most of its time in XLogFlush() holding WALWriteLock.
# The second bulk-inserts through the 4-page ring, and so keeps needing that
# lock to write pages out.  Its rows come from generate_series in the select
# list, one at a time: in FROM, a function's rows are all gathered first (a
# tuplestore, here gigabytes spilled to a temporary file), and for that
# long the inserter writes no WAL and waits on nothing of ours.
my @work = (
	q{DO $$ BEGIN FOR i IN 1 .. 100000000 LOOP
		INSERT INTO bulk VALUES (i, 'x'); COMMIT; END LOOP; END $$;},
	q{INSERT INTO bulk SELECT g, repeat('x', 200) FROM (SELECT generate_series(1, 200000000) AS g) s;});
my (@sessions, @pids);
for my $sql (@work)
{
	my $s = $node->background_psql('postgres', on_error_stop => 0);
	push @pids, $s->query_safe('SELECT pg_backend_pid()');
	$s->query_until(qr/started/, "\\echo started\n$sql\n");
	push @sessions, $s;
}
my ($stopped, $waiter) = @pids;

# Observers connected before any stop, their catalog caches warm: a new
# connection's start-up is one more thing that could need WAL.
my $observer = $node->background_psql('postgres', on_error_stop => 0);
my $monitor = $node->background_psql('postgres', on_error_stop => 0,
	extra_params => [ '-U', 'regress_monitor' ]);
my $blocked_sql = qq{
	SELECT class || '|' || wait_event_type || '|' || wait_event || '|' || waiting_ms
	FROM wal_stall_current
	WHERE pid = $waiter AND backend_type = 'client backend'
	  AND wait_event_type = 'LWLock' AND waiting_ms > 50
	ORDER BY waiting_ms DESC LIMIT 1};
my $longest_sql = "SELECT max(waiting_ms) FROM wal_stall_current
	WHERE pid = $waiter AND wait_event_type = 'LWLock'";
my $monitor_sql = "SELECT count(*) > 0 FROM wal_stall_current
	WHERE pid = $waiter AND wait_event_type = 'LWLock'";
$observer->query_safe($_) for ($blocked_sql, $longest_sql);
$monitor->query_safe($monitor_sql);

# SIGSTOP $pid, and fork a watchdog that sends SIGCONT after $secs seconds.
sub stop_with_watchdog
{
	my ($pid, $secs) = @_;
	kill 'STOP', $pid;
	my $watchdog = fork();
	die "fork: $!" unless defined $watchdog;
	if ($watchdog == 0)
	{
		sleep $secs;
		kill 'CONT', $pid;
		POSIX::_exit(0);
	}
	return $watchdog;
}

sub resume
{
	my ($pid, $watchdog) = @_;
	kill 'CONT', $pid;
	kill 'KILL', $watchdog;
	waitpid($watchdog, 0);
}

# Stop the first inserter at a random moment until the second is seen
# blocked behind it: on a WAL lock for most of the 100 ms the first has been
# stopped (short waits on the WAL writer's hold of WALWriteLock do not count).
my ($row, $later, $seen_by_monitor) = ('', '', '');
my $tries = 0;
while ($tries++ < 300)
{
	my $watchdog = stop_with_watchdog($stopped, 3);
	usleep(100_000);
	$row = $observer->query_safe($blocked_sql);
	if ($row ne '')
	{
		usleep(200_000);
		$later = $observer->query_safe($longest_sql);
		$seen_by_monitor = $monitor->query_safe($monitor_sql);
	}
	resume($stopped, $watchdog);
	last if $row ne '';
	usleep(20_000);
}
my ($class, $type, $event, $ms) = split /\|/, $row;
ok($row ne '', "a backend blocked behind a stopped one is listed (try $tries)")
  or diag('never caught the second inserter waiting');
SKIP:
{
	skip 'no waiting row', 6 if $row eq '';
	like($class, qr/^(wal_insert|wal_buffer_full|wal_flush)$/,
		"its class is a WAL class ($class)");
	is($type, 'LWLock', "it waits on an LWLock ($event)");
	like($event, qr/^(WALInsert|WALBufMapping|WALWrite)$/i,
		'one of the WAL locks the stopped backend can hold');
	cmp_ok($ms, '>', 50, "waiting_ms counts from the start of the wait ($ms)");
	cmp_ok($later, '>', $ms, "and grows while it waits ($later)");
	is($seen_by_monitor, 't', 'pg_monitor sees the same row');
}
$observer->quit;
$monitor->quit;

$node->safe_psql('postgres', 'SELECT pg_cancel_backend(pid) FROM unnest(ARRAY['
	  . join(',', @pids) . ']) pid');
$_->quit for @sessions;

ok($node->poll_query_until('postgres',
		"SELECT count(*) = 0 FROM wal_stall_current WHERE pid IN ($stopped, $waiter)"),
	'the rows go when the waits end');

$node->stop;
done_testing();
