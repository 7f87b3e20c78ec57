# What wal_stall's TAP tests share: a node with wal_stall preloaded and
# created, pgbench against it, and the polls the tests wait with.  A test
# finds this module next to itself:
#
#   use FindBin;
#   use lib $FindBin::RealBin;
#   use WalStallTest;
#
# Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
package WalStallTest;

use strict;
use warnings;
use Exporter 'import';
use IPC::Run;
use PostgreSQL::Test::Cluster;

our @EXPORT = qw($pg_major $collector_ticking wal_stall_node pgbench_init pgbench_start
  start_cpu_without_wal
  pgbench_wait pgbench_run pgbench_load wait_for_collector wait_for_connections
  next_history_row on_one_major_only);

# The server's major version (the framework's pg_version is 15+ only).
our ($pg_major) = `pg_config --version` =~ /(\d+)/;

# A load-sensitive test of code that no major version changes (the
# collector's cadence, the advice's rules, the burst estimates) runs on one
# major, 15, the host's: scripts/test.sh sets WS_TEST_OTHER_MAJOR in the
# roots of 17, 18 and 19, where it skips with this reason.  Each such test
# calls it first.
sub on_one_major_only
{
	Test::More::plan(skip_all =>
		  'load-sensitive and the same on every major: scripts/test.sh runs it on 15')
	  if $ENV{WS_TEST_OTHER_MAJOR};
	return;
}

# A new node, initialised, with wal_stall preloaded, started, and the
# extension created.  Options:
#   init => { ... }     options of init (e.g. allows_streaming => 1)
#   preload => '...'    shared_preload_libraries (default 'wal_stall';
#                       '' for none)
#   conf => '...'       more lines for postgresql.conf
#   sql => '...'        what runs once started (default CREATE EXTENSION
#                       wal_stall)
sub wal_stall_node
{
	my ($name, %opt) = @_;
	my $node = PostgreSQL::Test::Cluster->new($name);
	my $preload = $opt{preload} // 'wal_stall';

	$node->init(%{ $opt{init} // {} });
	$node->append_conf('postgresql.conf', "shared_preload_libraries = '$preload'\n")
	  if $preload ne '';
	$node->append_conf('postgresql.conf', $opt{conf}) if defined $opt{conf};
	$node->start;
	$node->safe_psql('postgres', $opt{sql} // 'CREATE EXTENSION wal_stall');
	return $node;
}

# pgbench -i -q -s SCALE, as a test named DESCRIPTION (default "pgbench -i").
sub pgbench_init
{
	my ($node, $scale, $description) = @_;
	$node->command_ok(
		[ 'pgbench', '-i', '-q', '-s', $scale, '-h', $node->host, '-p', $node->port, 'postgres' ],
		$description // 'pgbench -i');
}

# The options of the tests' usual load: 4 clients on 2 threads for
# SECONDS.
sub pgbench_load
{
	my ($seconds) = @_;
	return ('-c', '4', '-j', '2', '-T', $seconds);
}

# pgbench -n OPTIONS... against the node, started in the background: the
# IPC::Run harness (->finish waits, pgbench_wait waits and dies if pgbench
# failed).  A first argument that is a hash holds more options of
# IPC::Run::start (e.g. init => sub { $ENV{PGOPTIONS} = ... }).
my %stderr_of;

sub pgbench_start
{
	my ($node, @options) = @_;
	my %run = ref $options[0] eq 'HASH' ? %{ shift @options } : ();
	my ($out, $err) = ('', '');
	my $h = IPC::Run::start(
		[ 'pgbench', '-n', @options, '-h', $node->host, '-p', $node->port, 'postgres' ],
		'>', \$out, '2>', \$err, %run);
	$stderr_of{$h} = \$err;
	return $h;
}

sub pgbench_wait
{
	my ($h) = @_;
	my $err = delete $stderr_of{$h};
	$h->finish or die "pgbench failed: $$err";
}

# pgbench -n OPTIONS... against the node, to its end; dies if it failed.
sub pgbench_run
{
	my ($node, @options) = @_;
	pgbench_wait(pgbench_start($node, @options));
}

# A condition on wal_stall_status(): the collector has started and sampled
# past the ticks it takes at the full rate before its first rest
# (WS_QUIET_TICKS_BEFORE_REST in cadence.c), some 15 ms after its start.
# Not more: on an idle server it then ticks every 100 ms, and once a second
# after a second with no process at work, so a hundred ticks could take
# a minute.
our $collector_ticking = 'ticks > 10';

# A session at work on CPU that writes no WAL and waits on nothing
# tracked, until a row ('cpu') goes into the table stop, which the test
# made, or for 180 s.  Returns the session and its backend's pid once the
# collector has seen it at work: a backend that takes an unused slot and
# stays on CPU is seen at the next recheck of unused slots, up to ten
# ticks (a second, resting) late.
sub start_cpu_without_wal
{
	my ($node) = @_;
	my $session = $node->background_psql('postgres');
	my $which = q{FROM pg_stat_activity WHERE query LIKE 'DO%stop%cpu%'
		AND state = 'active' AND pid <> pg_backend_pid()};

	$session->query_until(qr/started/, q{
\echo started
DO $$
BEGIN
	WHILE NOT EXISTS (SELECT FROM stop WHERE why = 'cpu')
		AND clock_timestamp() < now() + interval '180 s'
	LOOP
		PERFORM count(*) FROM generate_series(1, 20000);
	END LOOP;
END $$;
});
	$node->poll_query_until('postgres', "SELECT count(*) = 1 $which")
	  or die 'the statement on CPU did not start';
	$node->poll_query_until('postgres',
		q{SELECT active_backends >= 0.5 FROM wal_stall_history
		  ORDER BY sample_time DESC LIMIT 1})
	  or die 'the collector did not see the statement on CPU at work';
	return ($session, $node->safe_psql('postgres', "SELECT pid $which"));
}

# Wait until the collector has started and sampled (true), or time out
# (false).
sub wait_for_collector
{
	my ($node) = @_;
	return $node->poll_query_until('postgres',
		"SELECT $collector_ticking FROM wal_stall_status()");
}

# Wait until the server accepts connections again, after a crash of one of
# its processes (true), or time out after 180 s (false).  poll_query_until
# would do, but it feeds its query to psql's standard input, and a psql
# refused during crash recovery can exit before reading it: IPC::Run then
# dies of the broken pipe.  Here psql gets the query as an argument.
sub wait_for_connections
{
	my ($node) = @_;

	for (my $i = 0; $i < 1800; $i++)
	{
		my ($out, $err) = ('', '');
		IPC::Run::run([ 'psql', '-XAtq', '-d', $node->connstr('postgres'), '-c', 'SELECT 1' ],
			'>', \$out, '2>', \$err);
		return 1 if $out =~ /^1$/m;
		select(undef, undef, undef, 0.1);
	}
	return 0;
}

# Wait until a history row closes after time AFTER (default: the newest
# row's, or now if there is none); return the newest row's sample_time.
sub next_history_row
{
	my ($node, $after) = @_;
	$after //= $node->safe_psql('postgres',
		'SELECT coalesce(max(sample_time), now()) FROM wal_stall_history');
	$node->poll_query_until('postgres',
		"SELECT max(sample_time) > timestamptz '$after' FROM wal_stall_history")
	  or die 'no history row closed';
	return $node->safe_psql('postgres', 'SELECT max(sample_time) FROM wal_stall_history');
}

1;
