set terminal svg size 900,200 dynamic enhanced font 'sans,10'
set output 'forest_tps.svg'
set datafile missing '?'
set grid xtics lc rgb '#dddddd'
set key off
set lmargin 40
set ytics noenhanced ("transaction_buffers=16" 2, "transaction_buffers=32" 1)
set yrange [0.5:2.5]
set xrange [-8.25:8.25]
set object 1 rect from -5, graph 0 to 5, graph 1 fc rgb '#e8e8e8' fs solid noborder behind
set arrow 1 from 0, graph 0 to 0, graph 1 nohead lc rgb '#555555'
set arrow 2 from -5, graph 0 to -5, graph 1 nohead dt 2 lc rgb '#888888'
set arrow 3 from 5, graph 0 to 5, graph 1 nohead dt 2 lc rgb '#888888'
set xlabel 'tps change against the baseline of the same round, %  (grey: +-5% margin)' noenhanced
plot 'forest.dat' using 2:1:3:4:8 with xerrorbars pt 7 ps 1 lc rgb variable
set output
