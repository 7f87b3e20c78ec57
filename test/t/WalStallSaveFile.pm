# The layout of wal_stall's save file, pg_stat/wal_stall.stat (persist.c,
# shared_state.h), for the TAP tests that read or write one by hand: offsets,
# the figures (WalStallFigures) field by field, a packer for statement
# entries, and the CRC-32C the server checks.
#
# Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
package WalStallSaveFile;

use strict;
use warnings;
use Exporter 'import';

our @EXPORT = qw(%save_size %save_figure @save_figure_names save_layout_matches
  save_crc32c save_with_checksum save_statement_entry save_with_entries
  save_figures save_with_figures save_as_version save_class_episodes
  save_class_stats header_figure_names read_bytes write_bytes);

# Sizes of the structures, as the header of a file states them: a header of
# eleven uint32, WalStallFigures, WalStallClassStats, WalStallSecond,
# WalStallQueryStats.  Offsets inside the rows and entries are in the tests
# that use them.  figures_v4 and figures_v3 are the figures of a format
# version 4 and 3 file: the fields of WalStallFigures up to and with
# period_weighted, and up to and with classes.
our %save_size = (
	header => 44,
	figures => 4232,
	figures_v4 => 4120,
	figures_v3 => 4032,
	class => 544,
	row => 184,
	entry => 576);

# The fields of WalStallFigures in the order shared_state.h declares them: the
# offset in the figures and the pack template (the structs inside, baseline
# and classes, and the per-class arrays, as their bytes: unpack 'q7' or
# 'd7' for the values).
our @save_figure_names = qw(reset_at hist_base_ns reset_ticks
  reset_full_rate_ticks reset_full_rate_ns baseline_valid timing_off_seen
  wrap_writer_asleep_ns baseline classes wal_path_waits
  wal_path_waits_io_first ring_rule_ns query_evictions period_weighted
  episodes_counted episodes_var);
our %save_figure = (
	reset_at => [ 0, 'q' ],
	hist_base_ns => [ 8, 'Q' ],
	reset_ticks => [ 16, 'q' ],
	reset_full_rate_ticks => [ 24, 'q' ],
	reset_full_rate_ns => [ 32, 'Q' ],
	baseline_valid => [ 40, 'C' ],
	timing_off_seen => [ 41, 'C' ],
	wrap_writer_asleep_ns => [ 48, 'Q' ],
	baseline => [ 56, 'a168' ],
	classes => [ 224, 'a' . 7 * $save_size{class} ],
	wal_path_waits => [ 4032, 'q' ],
	wal_path_waits_io_first => [ 4040, 'q' ],
	ring_rule_ns => [ 4048, 'Q' ],
	query_evictions => [ 4056, 'q' ],
	period_weighted => [ 4064, 'a56' ],
	episodes_counted => [ 4120, 'a56' ],
	episodes_var => [ 4176, 'a56' ]);

# The field names of WalStallFigures as the header file declares them, in
# order: what the table above must list.
sub header_figure_names
{
	my ($header) = @_;
	my ($body) = read_bytes($header) =~
	  /typedef struct WalStallFigures\s*\{(.*?)\}\s*WalStallFigures;/s
	  or die "no WalStallFigures in \"$header\"";
	$body =~ s{/\*.*?\*/}{}gs;
	return map { /(\w+)\s*(?:\[[^\]]*\])?\s*$/ ? $1 : () } split /;/, $body;
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
	return map { unpack('q', substr($figures{classes}, $_ * $save_size{class}, 8)) }
	  0 .. 6;
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

# A save file of this format as format version 4 or 3 wrote it: that
# version in the header, the figures it lacks cut off, checksummed again.
sub save_as_version
{
	my ($bytes, $version) = @_;
	my $size = $save_size{"figures_v$version"}
	  or die "no format version $version in WalStallSaveFile.pm";
	my $old = substr($bytes, 0, $save_size{header} + $size)
	  . substr($bytes, $save_size{header} + $save_size{figures});
	substr($old, 4, 4) = pack('L', $version);
	substr($old, 12, 4) = pack('L', $size);
	return save_with_checksum($old);
}

# True if a file's header states this format version, 5, and the sizes
# above (else the offsets of the tests are wrong, not the server).
sub save_layout_matches
{
	my ($bytes) = @_;
	my (undef, $version, undef, $figures, $class, undef, undef, $row, undef, $entry) =
	  unpack('L11', $bytes);
	return $version == 5
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
