# Every query of exporter/queries.yaml runs on this major, as a role with
# only pg_monitor, and returns exactly the columns its metrics name.
#
# test/exporter.sh runs the real postgres_exporter against these queries,
# on the machine's own PostgreSQL only (its package is Debian 12's).  The
# views the queries read change between majors (pg_stat_wal, pg_stat_io,
# the SLRU views), so this test asks each major's own server: a query that
# fails, or a column a metric names that the query does not return (or the
# reverse), would make the exporter log an error or drop a metric there.
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

# The file's namespaces: "key:" at the start of a line, its "query: |"
# block (the lines indented deeper than "query:"), and the names under
# "metrics:" ("    - name:", with its _bucket, _sum and _count columns for
# usage HISTOGRAM).
my @namespaces;
my ($current, $in_query, $query_indent);
for my $line (split /\n/, slurp_file("$FindBin::RealBin/../../exporter/queries.yaml"))
{
	if ($in_query)
	{
		if ($line =~ /^(\s*)\S/ && length($1) > $query_indent)
		{
			$current->{query} .= "$line\n";
			next;
		}
		next if $line =~ /^\s*$/;
		$in_query = 0;
	}
	if ($line =~ /^(\w+):\s*$/)
	{
		$current = { name => $1, query => '', metrics => [] };
		push @namespaces, $current;
	}
	elsif ($current && $line =~ /^(\s+)query: \|\s*$/)
	{
		($in_query, $query_indent) = (1, length($1));
	}
	elsif ($current && $line =~ /^\s+- (\w+):\s*$/)
	{
		push @{ $current->{metrics} }, $1;
	}
	elsif ($current && $line =~ /^\s+usage: "HISTOGRAM"/)
	{
		# a histogram is four columns: x (the bounds), x_bucket, x_sum, x_count
		my $x = $current->{metrics}[-1];
		push @{ $current->{metrics} }, map { "${x}_$_" } qw(bucket sum count);
	}
}
cmp_ok(scalar @namespaces, '>=', 5, 'exporter/queries.yaml read: ' . scalar(@namespaces) . ' namespaces');

my $node = wal_stall_node('exporter_queries', sql => q{
	CREATE EXTENSION wal_stall;
	CREATE ROLE regress_exporter LOGIN IN ROLE pg_monitor;
});
ok(wait_for_collector($node), 'the collector runs');
# Some WAL and some waits, so the views have rows to give.
pgbench_init($node, 1);
$node->command_ok([ 'pgbench', '-n', '-c', '2', '-T', '3', '-p', $node->port, '-h', $node->host, 'postgres' ],
	'pgbench ran');

for my $ns (@namespaces)
{
	my $name = $ns->{name};
	ok($ns->{query} =~ /\S/ && @{ $ns->{metrics} }, "$name: a query and its metrics")
	  or next;
	# The query runs, then psql's \gdesc gives its columns, one
	# "name|type" line each.
	my ($rc, $out, $err) = $node->psql('postgres',
		"$ns->{query}\\g /dev/null\n$ns->{query}\\gdesc\n",
		extra_params => [ '-U', 'regress_exporter' ]);
	is($err, '', "$name: runs as a pg_monitor role, no error") or next;
	my @columns = map { (split /\|/)[0] } grep { /\|/ } split /\n/, $out;
	is(join(',', sort @columns), join(',', sort @{ $ns->{metrics} }),
		"$name: returns the columns its metrics name");
}

$node->stop;
done_testing();
