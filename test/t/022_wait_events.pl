# The wait events wal_stall tracks exist on this server, by the names it
# matches.
#
# classify.c lists them (and the WAL writer's sleep, WalWriterMain, looked
# up by name); the collector builds its table at start from the running
# server's names, case-insensitively, scanning each class's numbers below
# WS_MAX_EVENT_ID.  An event renamed in a new major, or numbered beyond the
# scan, would silently never be counted.  From 17 the server lists its own
# events in pg_wait_events: every name the library tracks (asked of the
# library itself, through a function of the test build,
# test/test_functions.c) must be there, in its class; and the collector,
# which logs "wait event ... not found on this server" for each name its
# scan missed, must have logged none.
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

my $node = wal_stall_node('wait_events');
ok(wait_for_collector($node), 'the collector runs');

# What the library tracks, from the library (scripts/test.sh builds the
# test functions in).
$node->safe_psql('postgres', q{
	CREATE FUNCTION regress_tracked_events(OUT type text, OUT name text) RETURNS SETOF record
	AS '$libdir/wal_stall', 'wal_stall_tracked_events_for_tests' LANGUAGE C STRICT});
my @tracked = map { [ split /\|/ ] } split /\n/,
  $node->safe_psql('postgres', 'SELECT type, name FROM regress_tracked_events()');
cmp_ok(scalar @tracked, '>=', 10, 'the library tracks ' . scalar(@tracked) . ' events');
is(scalar(grep { $_->[0] eq 'Activity' && $_->[1] eq 'WalWriterMain' } @tracked), 1,
	'among them the WAL writer\'s sleep, Activity WalWriterMain');

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
