# The history ring is copied in batches: wal_stall_history() (with and
# without "since") and wal_stall_advice() take the lock for at most 1024
# rows at a time, and the rows they return are still every row of the
# ring, oldest first, none twice.  The ring is filled with thousands of
# rows by a function only the tests have (test/test_functions.c), which
# also reports how the backend's last copy took the lock.  How long each
# hold lasts is measured by bench/history_copy_hold.sh, not asserted here.
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

my $batch = 1024;				# HISTORY_BATCH in views.c
my $filled = 5000;

my $node = wal_stall_node('history_copy',
	conf => "wal_stall.history_seconds = 8000\n",
	sql => q{
	CREATE EXTENSION wal_stall;
	-- scripts/test.sh builds them (test/test_functions.c)
	CREATE FUNCTION regress_fill_history(int) RETURNS void
	AS '$libdir/wal_stall', 'wal_stall_fill_history_for_tests' LANGUAGE C STRICT;
	CREATE FUNCTION regress_history_copy(OUT holds int, OUT rows int,
		OUT max_rows_per_hold int, OUT max_hold_ms float8, OUT total_hold_ms float8)
	AS '$libdir/wal_stall', 'wal_stall_history_copy_for_tests' LANGUAGE C;
});
ok($node->poll_query_until('postgres', 'SELECT count(*) >= 1 FROM wal_stall_history'),
	'the collector wrote a history row');
$node->safe_psql('postgres', "SELECT regress_fill_history($filled)");

# One session: the copy's figures are the backend's own.  The rows come
# oldest first, each after the one before (the filled ones a microsecond
# apart), none twice: the batches join up.
sub copy_of
{
	my ($query) = @_;
	my $out = $node->safe_psql('postgres', qq{
		$query;
		SELECT holds || ' ' || rows || ' ' || max_rows_per_hold FROM regress_history_copy();
	});
	my @lines = split /\n/, $out;
	return ($lines[0], split(/ /, $lines[1]));
}

my ($result, $holds, $rows, $max_rows) = copy_of(q{
	SELECT count(*) || ' ' || count(*) FILTER (WHERE sample_time <= previous)
	FROM (SELECT sample_time, lag(sample_time) OVER (ORDER BY ordinality) AS previous
	      FROM wal_stall_history() WITH ORDINALITY) AS ordered});
my ($returned, $out_of_order) = split / /, $result;
cmp_ok($returned, '>', $filled, "wal_stall_history() returns the filled rows and the collector's ($returned)");
is($rows, $returned, 'the copy holds the rows returned');
is($out_of_order, 0, 'oldest first, none twice');
cmp_ok($holds, '>=', int(($rows + $batch - 1) / $batch),
	"the lock was taken a batch at a time ($holds times for $rows rows)");
ok($max_rows > 0 && $max_rows <= $batch, "no hold copied more than $batch rows ($max_rows)");

# With "since": only the rows after it, in batches too.
my $since = $node->safe_psql('postgres', 'SELECT min(sample_time) FROM wal_stall_history');
($result, $holds, $rows, $max_rows) = copy_of(
	"SELECT count(*) FROM wal_stall_history('$since')");
cmp_ok($result, '>=', $returned - 1, "since the oldest row, all rows but that one ($result)");
ok($holds >= 2 && $max_rows <= $batch,
	"and a batch at a time ($holds holds, at most $max_rows rows)");

# The advice reads the whole ring the same way.
($result, $holds, $rows, $max_rows) = copy_of('SELECT count(*) FROM wal_stall_advice()');
cmp_ok($rows, '>', $filled, "wal_stall_advice() copies every row ($rows)");
ok($holds >= int(($rows + $batch - 1) / $batch) && $max_rows <= $batch,
	"a batch at a time ($holds holds, at most $max_rows rows)");

$node->stop;
done_testing();
