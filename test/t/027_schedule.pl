# test/t/testrules.yml, the order the tests run in: every name it lists is
# a test of test/t, each listed once, and the tests marked load-sensitive
# (on_one_major_only) are among those that run one at a time, before the
# others run two at a time.  A renamed test would otherwise leave the list
# silently, and run beside another.
#
# Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
use strict;
use warnings;
use CPAN::Meta::YAML;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;

my $dir = $FindBin::RealBin;
my $rules = CPAN::Meta::YAML->read_string(slurp_file("$dir/testrules.yml"))->[0];

# seq: [ { seq: [one at a time] }, { par: [two at a time, then the rest] } ]
my ($alone, $others) = @{ $rules->{seq} // [] };
ok(ref $alone eq 'HASH' && ref $alone->{seq} eq 'ARRAY', 'the rules begin with the tests run one at a time')
  or BAIL_OUT('test/t/testrules.yml: seq: [ { seq: [...] }, { par: [...] } ] expected');
ok(ref $others eq 'HASH' && ref $others->{par} eq 'ARRAY', 'then the tests run two at a time');
is($others->{par}[-1], 'test/t/**', 'every other test among them');

my @listed = (@{ $alone->{seq} }, @{ $others->{par} }[ 0 .. $#{ $others->{par} } - 1 ]);
my %times;
$times{$_}++ foreach @listed;
is(join(' ', grep { $times{$_} > 1 } sort keys %times), '', 'no test listed twice');
is( join(' ', grep { !-f "$dir/../../$_" } @listed),
	'', 'every test listed is a file of test/t (' . scalar(@listed) . ' listed)');

# the tests that skip in the roots for being load-sensitive
my @marked;
foreach my $test (sort glob("$dir/*.pl"))
{
	push @marked, "test/t/" . ($test =~ s{.*/}{}r)
	  if slurp_file($test) =~ /^on_one_major_only\(\);/m;
}
cmp_ok(scalar @marked, '>=', 3, 'tests marked load-sensitive: ' . join(' ', @marked));
my %alone = map { $_ => 1 } @{ $alone->{seq} };
is(join(' ', grep { !$alone{$_} } @marked), '', 'each of them runs one at a time');

done_testing();
