# The wait events wal_stall tracks exist on this server, by the names it
# matches.
#
# classify.c lists them (tracked_names, and the WAL writer's sleep,
# WalWriterMain, looked up by name); the collector builds its table at start
# from the running server's names, case-insensitively, scanning each class's
# numbers below WS_MAX_EVENT_ID.  An event renamed in a new major, or
# numbered beyond the scan, would silently never be counted.  From 17 the
# server lists its own events in pg_wait_events: every name classify.c
# tracks must be there, in its class; and the collector, which logs
# "wait event ... not found on this server" for each name its scan missed,
# must have logged none.
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

plan skip_all => 'pg_wait_events arrived in PostgreSQL 17' if $pg_major < 17;

# The (class, name) pairs of classify.c, as pg_wait_events names the classes.
my %class_type = (LWLOCK => 'LWLock', IO => 'IO', IPC => 'IPC');
my $source = slurp_file("$FindBin::RealBin/../../classify.c");
my ($table) = $source =~ /tracked_names\[\] = \{(.*?)\n\};/s;
ok(defined $table, 'classify.c has its tracked_names table');
my @rows = grep { /\S/ } split /\n/, $table // '';
my @tracked;
for my $row (@rows)
{
	if ($row =~ /^\s*\{PG_WAIT_(LWLOCK|IO|IPC), "(\w+)", WS_EVENT_\w+\},\s*$/)
	{
		push @tracked, [ $class_type{$1}, $2 ];
	}
	else
	{
		fail("a tracked_names row read as {class, name, event}: $row");
	}
}
cmp_ok(scalar @tracked, '>=', 10, 'tracked_names read: ' . scalar @tracked . ' events');
my @by_name = $source =~ /pg_strcasecmp\(name, "(\w+)"\)/g;
is_deeply(\@by_name, ['WalWriterMain'], 'one event looked up by name alone: WalWriterMain');
push @tracked, [ 'Activity', $_ ] for @by_name;

my $node = wal_stall_node('wait_events');
ok(wait_for_collector($node), 'the collector runs');

# The server's list is not empty: a missing view or an empty one must not
# read as "every name present".
cmp_ok($node->safe_psql('postgres', 'SELECT count(*) FROM pg_wait_events'),
	'>', 100, 'pg_wait_events lists the server\'s events');

for my $t (@tracked)
{
	my ($type, $name) = @$t;
	my $found = $node->safe_psql('postgres', qq{
		SELECT string_agg(name, ',') FROM pg_wait_events
		WHERE type = '$type' AND lower(name) = lower('$name')});
	isnt($found, '', "$type $name is in pg_wait_events" . ($found ne '' && $found ne $name ? " (as $found)" : ''));
}

ok(!$node->log_contains(qr/wait event "\w+" not found on this server/),
	'the collector found every tracked name at a number it scans');

$node->stop;
done_testing();
