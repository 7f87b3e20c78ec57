set terminal svg size 900,160 dynamic enhanced font 'sans,10'
set output 'forest_stall.svg'
set datafile missing '?'
set grid xtics lc rgb '#dddddd'
set key off
set lmargin 40
set ytics noenhanced ("16MB" 1)
set yrange [0.5:1.5]
set logscale x
set arrow 1 from 1, graph 0 to 1, graph 1 nohead lc rgb '#555555'
set xlabel 'ratio of the share of client time in stall classes (log scale)' noenhanced
set offsets graph 0.05, graph 0.05, 0, 0
plot 'forest.dat' using 5:1:6:7:8 with xerrorbars pt 7 ps 1 lc rgb variable
set output
