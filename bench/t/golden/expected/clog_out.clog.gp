set terminal svg size 800,420 dynamic enhanced font 'sans,10'
set output 'clog.svg'
set logscale x 2
set offsets graph 0.05, graph 0.05, 0, 0
set grid xtics ytics lc rgb '#dddddd'
set xlabel 'CLOG buffers (wal\_stall\_clog.buffers)'
set ylabel 'CLOG misses per 1,000 transactions (pg\_stat\_slru)'
set y2label 'tps, median run'
set ytics nomirror
set y2tics
set yrange [0:*]
set y2range [0:*]
set key outside bottom center horizontal
plot 'clog.dat' using 1:2:xtic(1) with linespoints lw 2 pt 7 lc rgb '#b2182b' title 'misses per 1,000 transactions' axes x1y1, \
     'clog.dat' using 1:3 with linespoints lw 2 pt 5 lc rgb '#2166ac' title 'tps' axes x1y2
