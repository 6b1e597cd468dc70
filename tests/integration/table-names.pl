#!/usr/bin/env perl
# A table's names in string literals of harness/ sources: prints each as
# FILE:LINE, exits 1 when any. Code asks the table's descriptor, never
# branches on a name (issue 33).
#   gen: the traffic generators (traffic/generators.c tgen_all[]); allowed
#        in their harness descriptors, harness/scenario/scngen.c.
#   nic: the NIC models and their drivers (guest/nicmodel.c nic_models[]);
#        allowed in harness/vm/topo.c, where the shipped topologies' default
#        models are data ("loop: A e1000e, B virtio-net").
# Comments are not looked at: they may name one to explain. A name counts
# as a word of the literal, not next to a letter, digit, '_', '.', '-' or
# '=': "rr.tps" is a metric of rr's, not its name, and "rr=%s,rrfile=" is
# QEMU's record/replay option.
# Usage: table-names.pl gen|nic TABLE.c FILE...
use strict;
use warnings;

my ($kind, $table) = (shift, shift);
die "usage: $0 gen|nic TABLE.c FILE...\n" unless $table && $kind =~ /^(gen|nic)$/;
open(my $t, '<', $table) or die "$table: $!\n";
my $src = do { local $/; <$t> };
my (@names, $allowed);
if ($kind eq 'gen') {
	$src =~ /^const struct tgen tgen_all\[\] = \{(.*?)^\};/ms or die "$table: no tgen_all[]\n";
	@names = $1 =~ /\{ \.name = "([^"]+)"/g;
	$allowed = qr{(^|/)harness/scenario/scngen\.c$};
} else {
	my %seen;
	@names = grep { !$seen{$_}++ } ($src =~ /\.name = "([^"]+)"/g, $src =~ /\.driver = "([^"]+)"/g);
	$allowed = qr{(^|/)harness/vm/topo\.c$};
}
@names or die "$table: no names found\n";
print(($kind eq 'gen' ? "generators" : "models") . ": @names\n");

my $bad = 0;
for my $f (@ARGV) {
	next if $f =~ $allowed;
	open(my $fh, '<', $f) or die "$f: $!\n";
	my $s = do { local $/; <$fh> };
	# Comments out, their newlines kept so that line numbers stay right.
	$s =~ s{/\*.*?\*/}{ (my $c = $&) =~ s/[^\n]//g; $c }gse;
	$s =~ s{//[^\n]*}{}g;
	my $line = 0;
	for my $l (split /\n/, $s) {
		$line++;
		while ($l =~ /"((?:[^"\\]|\\.)*)"/g) {
			my $lit = $1;
			for my $n (@names) {
				next unless $lit =~ /(?<![\w.=-])\Q$n\E(?![\w.=-])/;
				print "$f:$line: \"$lit\" names $n\n";
				$bad = 1;
			}
		}
	}
}
exit $bad;
