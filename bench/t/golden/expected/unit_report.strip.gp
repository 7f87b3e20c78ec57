set terminal svg size 900,540 dynamic enhanced font 'sans,10'
set output 'strip.svg'
set datafile missing '?'
set grid ytics lc rgb '#dddddd'
set key outside right top noenhanced
set yrange [0:*]
set ylabel 'transactions/s of the run' noenhanced
set xrange [0.5:5.5]
set bmargin 16
set xtics rotate by -25 left noenhanced ("wal_buffers=-1 <script>alert(1)</script>" 1, "wal_buffers=16MB" 2, "wal_buffers=32kB" 3, "wal_buffers=256kB" 4, "wal_buffers=1MB" 5)
set arrow 1 from graph 0, first 1000 to graph 1, first 1000 nohead dt 2 lc rgb '#555555'
plot \
  'strip.dat' index 0 using 1:2 with points pt 7 ps 0.7 lc rgb '#1f77b4' notitle, \
  'strip.dat' index 1 using 1:2 with points pt 7 ps 0.7 lc rgb '#d62728' notitle, \
  'strip.dat' index 2 using 1:2 with points pt 7 ps 0.7 lc rgb '#2ca02c' notitle, \
  'strip.dat' index 3 using 1:2 with points pt 7 ps 0.7 lc rgb '#ff7f0e' notitle, \
  'strip.dat' index 4 using 1:2 with points pt 7 ps 0.7 lc rgb '#9467bd' notitle, \
  'medians.dat' using ($1+0.25):2 with points pt 5 ps 0.9 lc rgb '#000000' title 'median'
set output
