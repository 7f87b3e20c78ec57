# A wal_stall_queries call takes the same memory whatever
# wal_stall.max_queries is: at the maximum with an almost empty table, and
# with a full table (filled from a save file), the backend's peak resident
# memory grows by far less than the table's size; every entry is shown
# once.
#
# Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use WalStallSaveFile;
use WalStallTest;

# The peak is Linux's VmHWM, reset through clear_refs.
plan skip_all => 'needs /proc/PID/status and /proc/PID/clear_refs (Linux)'
  unless -e '/proc/self/clear_refs';

# A call may take this much beyond what it took before: the tuplestore is
# kept under work_mem (64kB below), and a batch of entries is about 150 kB.
my $bound_kb = 4096;

my $node = wal_stall_node('queries_memory', conf => qq{
autovacuum = off
wal_stall.max_queries = 1000000
});
my $dbid = $node->safe_psql('postgres',
	"SELECT oid FROM pg_database WHERE datname = 'postgres'");
is(join("\n", save_layout_load($node)), '',
	'WalStallSaveFile.pm knows every figure the server saves')
  or BAIL_OUT('WalStallFigures changed: update WalStallSaveFile.pm');

sub peak_kb
{
	my ($pid) = @_;
	slurp_file("/proc/$pid/status") =~ /^VmHWM:\s+(\d+) kB/m
	  or die "no VmHWM for process $pid";
	return $1;
}

# How much one call raises the backend's peak, after a first call has
# mapped the table's pages (shared memory counts in the resident set once
# touched, and stays there) and the peak is reset to the resident set.
sub call_growth_kb
{
	my ($session, $pid, $query) = @_;
	$session->query_safe($query);
	open(my $fh, '>', "/proc/$pid/clear_refs") or die "clear_refs: $!";
	print $fh "5\n";
	close($fh);
	my $before = peak_kb($pid);
	my $result = $session->query_safe($query);
	return (peak_kb($pid) - $before, $result);
}

# --- at the maximum, with (almost) nothing in the table
my $session = $node->background_psql('postgres');
my $pid = $session->query_safe('SELECT pg_backend_pid()');
$session->query_safe('SET work_mem = 64');
my ($growth, $rows) = call_growth_kb($session, $pid,
	'SELECT count(*) FROM wal_stall_queries');
diag("wal_stall.max_queries = 1000000, $rows entries: the call's peak grew by $growth kB");
cmp_ok($growth, '<', $bound_kb,
	"at the maximum setting, a call on an almost empty table takes less than $bound_kb kB");
$session->quit;

# --- a full table: 20000 entries of ours, loaded from a save file
my $entries = 20000;
my $stat_file = $node->data_dir . '/pg_stat/wal_stall.stat';
$node->append_conf('postgresql.conf', "wal_stall.max_queries = $entries");
$node->stop;
my $saved = read_bytes($stat_file);
ok(save_layout_matches($saved), 'the save file has the layout this test knows')
  or BAIL_OUT('the save file has another layout: update WalStallSaveFile.pm');
write_bytes($stat_file,
	save_with_entries($saved,
		join('', map { save_statement_entry($_, 10, $dbid, 0) } 1 .. $entries),
		$entries));
my $offset = -s $node->logfile;
$node->start;
ok($node->log_contains(qr/loaded wal_stall figures saved at clean shutdown/, $offset),
	"the save file with $entries entries loads");

$session = $node->background_psql('postgres');
$pid = $session->query_safe('SELECT pg_backend_pid()');
$session->query_safe('SET work_mem = 64');
($growth, $rows) = call_growth_kb($session, $pid, qq{
	SELECT count(*) FILTER (WHERE queryid BETWEEN 1 AND $entries) || '|' ||
	       count(*) || '|' ||
	       count(DISTINCT (userid, dbid, queryid, class))
	FROM wal_stall_queries});
my ($ours, $all, $distinct) = split /\|/, $rows;
diag("wal_stall.max_queries = $entries, a full table: the call's peak grew by $growth kB");
cmp_ok($growth, '<', $bound_kb,
	"with $entries entries (about 11 MB), a call takes less than $bound_kb kB");
is($distinct, $all, "no entry is shown twice ($all rows)");
my $evictions = $session->query_safe('SELECT query_evictions FROM wal_stall_status()');
cmp_ok($ours + $evictions, '>=', $entries,
	"every entry of ours is shown unless evicted since ($ours shown, $evictions evictions)");
$session->quit;

$node->stop;
done_testing();
