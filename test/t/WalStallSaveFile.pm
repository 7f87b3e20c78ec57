# The layout of wal_stall's save file, pg_stat/wal_stall.stat (persist.c,
# shared_state.h), for the TAP tests that read or write one by hand: the
# sizes and the figures (WalStallFigures) field by field, asked of the
# server's build (save_layout_load), a packer for statement entries, and
# the CRC-32C the server checks.
#
# Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
package WalStallSaveFile;

use strict;
use warnings;
use Exporter 'import';

our @EXPORT = qw(%save_size %save_figure @save_figure_names save_layout_load
  save_layout_matches save_crc32c save_with_checksum save_statement_entry
  save_with_entries save_figures save_with_figures save_as_format_version
  save_class_episodes save_class_stats read_bytes write_bytes);

# The format version this build writes (WS_STAT_FORMAT_VERSION).
my $format_version = 1;

# Filled by save_layout_load() from the server's own build: the sizes of the
# structures, as the header of a file states them (header, figures, class,
# row, entry: the header, WalStallFigures, WalStallClassStats,
# WalStallSecond, WalStallQueryStats); the fields of WalStallFigures in the
# order shared_state.h declares them; and per field, its offset in the
# figures, its size and its pack template.  Offsets inside the rows and
# entries are in the tests that use them.
our %save_size;
our @save_figure_names;
our %save_figure;

# The pack template of each field of WalStallFigures.  The structs inside
# (baseline, classes) and the per-class arrays are taken as their bytes
# ('a', with the size from the server): unpack 'q7' or 'd7' for the values.
my %figure_template = (
	reset_at => 'q',
	hist_base_ns => 'Q',
	reset_ticks => 'q',
	reset_full_rate_ticks => 'q',
	reset_full_rate_ns => 'Q',
	baseline_valid => 'C',
	timing_off_seen => 'C',
	wrap_writer_asleep_ns => 'Q',
	baseline => 'a',
	classes => 'a',
	wal_path_waits => 'q',
	wal_path_waits_io_first => 'q',
	ring_rule_ns => 'Q',
	query_evictions => 'q',
	interval_weighted => 'a',
	episodes_counted => 'a',
	episodes_var => 'a');

# Ask the server (a node with wal_stall preloaded and the library built with
# WS_TEST_FUNCTIONS=1, test/test_functions.c) for the layout of its save
# file, and fill %save_size, @save_figure_names and %save_figure.  Returns
# what does not match this module, one line each (nothing when all is
# well): a field the server lists and this module has no template for, or
# one this module names and the server lacks.
sub save_layout_load
{
	my ($node) = @_;
	$node->safe_psql('postgres', q{
		CREATE FUNCTION regress_save_layout(OUT part text, OUT name text,
			OUT "offset" int, OUT size int) RETURNS SETOF record
		AS '$libdir/wal_stall', 'wal_stall_save_layout_for_tests' LANGUAGE C});
	my $rows = $node->safe_psql('postgres',
		q{SELECT part, name, "offset", size FROM regress_save_layout()});
	%save_size = ();
	@save_figure_names = ();
	%save_figure = ();
	my @problems;
	foreach my $row (split /\n/, $rows)
	{
		my ($part, $name, $offset, $size) = split /\|/, $row;
		if ($part eq 'struct')
		{
			$save_size{$name} = $size;
			next;
		}
		push @save_figure_names, $name;
		my $template = $figure_template{$name};
		if (!defined $template)
		{
			push @problems, "the server lists figure $name, which WalStallSaveFile.pm has no template for";
			next;
		}
		$template .= $size if $template eq 'a';
		push @problems, "figure $name has $size bytes, its template $template packs "
		  . length(pack($template, 0))
		  if length(pack($template, 0)) != $size;
		$save_figure{$name} = [ $offset, $template, $size ];
	}
	foreach my $name (sort keys %figure_template)
	{
		push @problems, "WalStallSaveFile.pm has a template for figure $name, which the server does not list"
		  unless grep { $_ eq $name } @save_figure_names;
	}
	foreach my $name (qw(header figures class row entry))
	{
		push @problems, "the server states no size of the $name"
		  unless $save_size{$name};
	}
	return @problems;
}

# The figures of a save file, field name => value.
sub save_figures
{
	my ($bytes) = @_;
	my $figures = substr($bytes, $save_size{header}, $save_size{figures});
	my %value;
	foreach my $name (@save_figure_names)
	{
		my ($offset, $template) = @{ $save_figure{$name} };
		$value{$name} = unpack("x$offset $template", $figures);
	}
	return %value;
}

# A save file with some figures replaced (field name => value), checksummed.
sub save_with_figures
{
	my ($bytes, %value) = @_;
	foreach my $name (keys %value)
	{
		die "no figure $name in the save file" unless $save_figure{$name};
		my ($offset, $template) = @{ $save_figure{$name} };
		my $packed = pack($template, $value{$name});
		substr($bytes, $save_size{header} + $offset, length($packed)) = $packed;
	}
	return save_with_checksum($bytes);
}

# The episode counts of the classes in a save file's figures (the first
# field of each WalStallClassStats), in class order.
sub save_class_episodes
{
	my ($bytes) = @_;
	my %figures = save_figures($bytes);
	my $nclasses = $save_figure{classes}[2] / $save_size{class};
	return map { unpack('q', substr($figures{classes}, $_ * $save_size{class}, 8)) }
	  0 .. $nclasses - 1;
}

# The bytes of a class's figures (WalStallClassStats) holding $episodes
# episodes of one sample of 1 ms each, in the first histogram bucket: the
# histogram holds every episode, as the server checks.
sub save_class_stats
{
	my ($episodes) = @_;
	return pack('q q Q Q', $episodes, $episodes, $episodes * 1000000,
		$episodes > 0 ? 1000000 : 0)
	  . pack('q32', $episodes, (0) x 31)
	  . pack('Q32', $episodes * 1000000, (0) x 31);
}

# A save file with another format version in its header, checksummed again.
sub save_as_format_version
{
	my ($bytes, $version) = @_;
	substr($bytes, 4, 4) = pack('L', $version);
	return save_with_checksum($bytes);
}

# True if a file's header states this format version and the sizes the
# server gave save_layout_load(), and the header is the eleven uint32 this
# module reads (else the offsets of the tests are wrong, not the server).
sub save_layout_matches
{
	my ($bytes) = @_;
	my ($header, $version, undef, $figures, $class, undef, undef, $row, undef, $entry) =
	  unpack('L11', $bytes);
	return $version == $format_version
	  && $save_size{header} == length(pack('L11', (0) x 11))
	  && $figures == $save_size{figures}
	  && $class == $save_size{class}
	  && $row == $save_size{row}
	  && $entry == $save_size{entry};
}

sub read_bytes
{
	my ($file) = @_;
	open(my $fh, '<:raw', $file) or die "could not read \"$file\": $!";
	local $/;
	my $bytes = <$fh>;
	close($fh);
	return $bytes;
}

sub write_bytes
{
	my ($file, $bytes) = @_;
	open(my $fh, '>:raw', $file) or die "could not write \"$file\": $!";
	print $fh $bytes;
	close($fh) or die "could not write \"$file\": $!";
}

# CRC-32C (Castagnoli), as the server's pg_crc32c computes it.
my @crc_table;
for my $i (0 .. 255)
{
	my $c = $i;
	$c = ($c & 1) ? (($c >> 1) ^ 0x82F63B78) : ($c >> 1) for 1 .. 8;
	$crc_table[$i] = $c;
}

sub save_crc32c
{
	my ($bytes) = @_;
	my $crc = 0xFFFFFFFF;
	for (my $at = 0; $at < length($bytes); $at += 65536)
	{
		$crc = $crc_table[ ($crc ^ $_) & 0xFF ] ^ ($crc >> 8)
		  for unpack('C*', substr($bytes, $at, 65536));
	}
	return $crc ^ 0xFFFFFFFF;
}

# The file with its last four bytes replaced by the checksum of the rest.
sub save_with_checksum
{
	my ($bytes) = @_;
	my $payload = substr($bytes, 0, length($bytes) - 4);
	return $payload . pack('L', save_crc32c($payload));
}

# A statement entry (WalStallQueryStats) of one episode of 1 ms, in the
# first histogram bucket.
sub save_statement_entry
{
	my ($queryid, $userid, $dbid, $class) = @_;
	return pack('Q L L l x4 Q q q Q Q', $queryid, $userid, $dbid, $class, 1, 1, 1,
		1000000, 1000000)
	  . pack('q32', 1, (0) x 31)
	  . pack('Q32', 1000000, (0) x 31);
}

# A file written by the server with its statement entries replaced by the
# given ones (a string of packed entries, $count of them), checksummed.
sub save_with_entries
{
	my ($bytes, $entries, $count) = @_;
	my $nhistory = (unpack('L11', $bytes))[8];
	my $rows_end = $save_size{header} + $save_size{figures} + $nhistory * $save_size{row};
	my $file = substr($bytes, 0, $rows_end) . $entries . pack('L', 0);
	substr($file, 40, 4) = pack('L', $count);
	return save_with_checksum($file);
}

1;
