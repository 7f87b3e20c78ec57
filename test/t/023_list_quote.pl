# The settings whose list elements the server quotes (GUC_LIST_QUOTE) are
# all in wal_stall_bench's list, on every major the tests run on.
#
# The harness restores a list setting one literal per element
# (bench/autoconf.c, wsb_list_quote_settings): a list-quoted setting it did
# not know would come back as one element holding the whole list, and a
# server whose unix_socket_directories came back that way would not start.
# pg_settings does not expose the flag, so the server is asked: ALTER SYSTEM
# SET name = 'a b', 'c' writes the element "a b" as a quoted identifier in
# postgresql.auto.conf only for a list-quoted setting; one that takes a
# single value refuses the list.  bench/t/restore.sh asks the same of a
# Debian cluster, on 15 only; this test asks each major's own server.
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

# The harness's list, read from its source.
my $source = slurp_file("$FindBin::RealBin/../../bench/autoconf.c");
my ($table) = $source =~ /wsb_list_quote_settings\[\] = \{(.*?)NULL/s;
ok(defined $table, 'bench/autoconf.c has its wsb_list_quote_settings table');
my %ours = map { $_ => 1 } ($table // '') =~ /"(\w+)"/g;
cmp_ok(scalar keys %ours, '>=', 6, 'the list read: ' . scalar(keys %ours) . ' names');

my $node = wal_stall_node('list_quote');

my @strings = split /\n/, $node->safe_psql('postgres',
	"SELECT name FROM pg_catalog.pg_settings WHERE vartype = 'string' AND context <> 'internal' ORDER BY 1");
cmp_ok(scalar @strings, '>', 20, 'the server has ' . scalar(@strings) . ' string settings to ask about');

# One statement each (ALTER SYSTEM cannot run in a transaction block): the
# settings that take one value refuse the list, as they should.
$node->psql('postgres', join('', map { "ALTER SYSTEM SET $_ = 'a b', 'c';\n" } @strings),
	on_error_stop => 0);
my $auto = slurp_file($node->data_dir . '/postgresql.auto.conf');
my @quoted = sort $auto =~ /^(\w+) = '"a b", c'$/mg;
ok((grep { $_ eq 'search_path' } @quoted) && (grep { $_ eq 'unix_socket_directories' } @quoted),
	'the probe finds search_path and unix_socket_directories quoted (it works): ' . join(', ', @quoted));

my @missing = grep { !$ours{$_} } @quoted;
is(join(', ', @missing), '', "every list-quoted setting of PostgreSQL $pg_major is in the harness's list");

$node->psql('postgres', join('', map { "ALTER SYSTEM RESET $_;\n" } @strings), on_error_stop => 0);
$node->stop;
done_testing();
