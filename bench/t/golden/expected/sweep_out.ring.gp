set terminal svg size 800,420 dynamic enhanced font 'sans,10'
set output 'ring.svg'
set logscale x 2
set offsets graph 0.05, graph 0.05, 0, 0
set grid xtics ytics lc rgb '#dddddd'
set xlabel 'wal\_buffers (wal\_stall\_status.wal\_buffers\_bytes)'
set ylabel 'wrap-around waits, % of client time'
set y2label 'tps, median run'
set ytics nomirror
set y2tics
set yrange [0:*]
set y2range [0:*]
set key outside bottom center horizontal
plot 'ring.dat' using 1:3:xtic(2) with linespoints lw 2 pt 7 lc rgb '#b2182b' title 'wrap-around, % of client time' axes x1y1, \
     1 with lines dt 2 lc rgb '#b2182b' title 'negligible below 1%' axes x1y1, \
     'ring.dat' using 1:4 with linespoints lw 2 pt 5 lc rgb '#2166ac' title 'tps' axes x1y2
