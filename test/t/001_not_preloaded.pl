# wal_stall without shared_preload_libraries: CREATE EXTENSION works, and
# every function that needs the collector explains what to set.
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

my $node = wal_stall_node('not_preloaded', preload => '');
is( $node->safe_psql(
		'postgres', "SELECT count(*) FROM pg_extension WHERE extname = 'wal_stall'"),
	'1', 'CREATE EXTENSION works without preloading');

foreach my $query (
	'SELECT * FROM wal_stall_summary',
	'SELECT * FROM wal_stall_histogram',
	'SELECT * FROM wal_stall_current',
	'SELECT * FROM wal_stall_status()',
	'SELECT * FROM wal_stall_history',
	'SELECT * FROM wal_stall_clog',
	'SELECT wal_stall_reset()')
{
	my ($ret, $stdout, $stderr) = $node->psql('postgres', $query,
		extra_params => [ '-v', 'VERBOSITY=verbose' ]);
	isnt($ret, 0, "$query fails");
	like($stderr,
		qr/ERROR:  55000: wal_stall must be loaded via "shared_preload_libraries"/,
		"$query: object-not-in-prerequisite-state error");
	like($stderr, qr/HINT:  Add wal_stall to the "shared_preload_libraries" setting/,
		"$query: hint says what to set");
}

# The fsync probe needs no shared memory and works all the same.
is( $node->safe_psql('postgres',
		'SELECT count(*) FILTER (WHERE ops_per_sec > 0) FROM wal_stall_test_fsync(0.1)'),
	'16', 'wal_stall_test_fsync works without preloading (16 tests run on Linux)');

# No collector was started: no child of the postmaster bears its title.
my $children = `ps -o args= --ppid $node->{_pid}`;
like($children, qr/checkpointer/, 'postmaster children listed');
unlike($children, qr/wal_stall collector/, 'no collector without preloading');

$node->stop;
done_testing();
