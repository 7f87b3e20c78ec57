set object 1 rect from 2.5, graph 0 to 5.5, graph 1 behind fillcolor rgb '#808080' fillstyle transparent solid 0.12 noborder
set object 2 rect from 2.5, graph 0 to 5.5, graph 1 behind fillcolor rgb '#808080' fillstyle transparent solid 0.12 noborder
set object 3 rect from 2.5, graph 0 to 5.5, graph 1 behind fillcolor rgb '#808080' fillstyle transparent solid 0.12 noborder
set object 4 rect from 2.5, graph 0 to 5.5, graph 1 behind fillcolor rgb '#808080' fillstyle transparent solid 0.12 noborder
set object 5 rect from 2.5, graph 0 to 5.5, graph 1 behind fillcolor rgb '#808080' fillstyle transparent solid 0.12 noborder
set object 6 rect from 2.5, graph 0 to 5.5, graph 1 behind fillcolor rgb '#808080' fillstyle transparent solid 0.12 noborder
set object 7 rect from 2.5, graph 0 to 5.5, graph 1 behind fillcolor rgb '#808080' fillstyle transparent solid 0.12 noborder
set object 8 rect from 2.5, graph 0 to 5.5, graph 1 behind fillcolor rgb '#808080' fillstyle transparent solid 0.12 noborder
set object 9 rect from 2.5, graph 0 to 5.5, graph 1 behind fillcolor rgb '#808080' fillstyle transparent solid 0.12 noborder
set object 10 rect from 2.5, graph 0 to 5.5, graph 1 behind fillcolor rgb '#808080' fillstyle transparent solid 0.12 noborder
set object 11 rect from 2.5, graph 0 to 5.5, graph 1 behind fillcolor rgb '#808080' fillstyle transparent solid 0.12 noborder
set object 12 rect from 2.5, graph 0 to 5.5, graph 1 behind fillcolor rgb '#808080' fillstyle transparent solid 0.12 noborder
set object 13 rect from 2.5, graph 0 to 5.5, graph 1 behind fillcolor rgb '#808080' fillstyle transparent solid 0.12 noborder
set terminal svg size 1000,1220 dynamic enhanced font 'sans,10'
set output 'timeline.svg'
set datafile missing '?'
set grid ytics lc rgb '#dddddd'
set xrange [0:16]
set multiplot layout 6,1 margins screen 0.08,0.70,0.045,0.98 spacing screen 0,0.025
set key at screen 0.71, screen 0.99 left top Left reverse noenhanced
set format x ''
set ylabel "transactions/s" noenhanced
set yrange [0:*]
plot \
  'run_1.dat' using 1:2 with lines lw 1.2 lc rgb '#1f77b4' title "wal_buffers=-1 <script>alert(1)</script>", \
  'run_2.dat' using 1:2 with lines lw 1.2 lc rgb '#d62728' title "wal_buffers=16MB", \
  'run_3.dat' using 1:2 with lines lw 1.2 lc rgb '#2ca02c' title "wal_buffers=32kB", \
  'run_4.dat' using 1:2 with lines lw 1.2 lc rgb '#ff7f0e' title "wal_buffers=256kB", \
  'run_5.dat' using 1:2 with lines lw 1.2 lc rgb '#9467bd' title "wal_buffers=1MB", \
  'run_6.dat' using 1:2 with lines lw 1.2 lc rgb '#1f77b4' notitle, \
  'run_7.dat' using 1:2 with lines lw 1.2 lc rgb '#d62728' notitle, \
  'run_8.dat' using 1:2 with lines lw 1.2 lc rgb '#2ca02c' notitle, \
  'run_9.dat' using 1:2 with lines lw 1.2 lc rgb '#ff7f0e' notitle, \
  'run_11.dat' using 1:2 with lines lw 1.2 lc rgb '#1f77b4' notitle, \
  'run_12.dat' using 1:2 with lines lw 1.2 lc rgb '#d62728' notitle, \
  'run_13.dat' using 1:2 with lines lw 1.2 lc rgb '#2ca02c' notitle, \
  'run_14.dat' using 1:2 with lines lw 1.2 lc rgb '#ff7f0e' notitle
unset key
set ylabel "wal_buffer_full: client wait, ms/s" noenhanced
plot \
  'run_1.dat' using 1:3 with lines lw 1.2 lc rgb '#1f77b4' notitle, \
  'run_2.dat' using 1:3 with lines lw 1.2 lc rgb '#d62728' notitle, \
  'run_3.dat' using 1:3 with lines lw 1.2 lc rgb '#2ca02c' notitle, \
  'run_4.dat' using 1:3 with lines lw 1.2 lc rgb '#ff7f0e' notitle, \
  'run_5.dat' using 1:3 with lines lw 1.2 lc rgb '#9467bd' notitle, \
  'run_6.dat' using 1:3 with lines lw 1.2 lc rgb '#1f77b4' notitle, \
  'run_7.dat' using 1:3 with lines lw 1.2 lc rgb '#d62728' notitle, \
  'run_8.dat' using 1:3 with lines lw 1.2 lc rgb '#2ca02c' notitle, \
  'run_9.dat' using 1:3 with lines lw 1.2 lc rgb '#ff7f0e' notitle, \
  'run_11.dat' using 1:3 with lines lw 1.2 lc rgb '#1f77b4' notitle, \
  'run_12.dat' using 1:3 with lines lw 1.2 lc rgb '#d62728' notitle, \
  'run_13.dat' using 1:3 with lines lw 1.2 lc rgb '#2ca02c' notitle, \
  'run_14.dat' using 1:3 with lines lw 1.2 lc rgb '#ff7f0e' notitle
set ylabel "wal_flush: client wait, ms/s" noenhanced
plot \
  'run_1.dat' using 1:4 with lines lw 1.2 lc rgb '#1f77b4' notitle, \
  'run_2.dat' using 1:4 with lines lw 1.2 lc rgb '#d62728' notitle, \
  'run_3.dat' using 1:4 with lines lw 1.2 lc rgb '#2ca02c' notitle, \
  'run_4.dat' using 1:4 with lines lw 1.2 lc rgb '#ff7f0e' notitle, \
  'run_5.dat' using 1:4 with lines lw 1.2 lc rgb '#9467bd' notitle, \
  'run_6.dat' using 1:4 with lines lw 1.2 lc rgb '#1f77b4' notitle, \
  'run_7.dat' using 1:4 with lines lw 1.2 lc rgb '#d62728' notitle, \
  'run_8.dat' using 1:4 with lines lw 1.2 lc rgb '#2ca02c' notitle, \
  'run_9.dat' using 1:4 with lines lw 1.2 lc rgb '#ff7f0e' notitle, \
  'run_11.dat' using 1:4 with lines lw 1.2 lc rgb '#1f77b4' notitle, \
  'run_12.dat' using 1:4 with lines lw 1.2 lc rgb '#d62728' notitle, \
  'run_13.dat' using 1:4 with lines lw 1.2 lc rgb '#2ca02c' notitle, \
  'run_14.dat' using 1:4 with lines lw 1.2 lc rgb '#ff7f0e' notitle
set ylabel "WAL not yet written, x wal_buffers (peak)" noenhanced
set arrow 1 from graph 0, first 1 to graph 1, first 1 nohead dt 2 lc rgb '#555555'
plot \
  'run_1.dat' using 1:7 with lines lw 1.2 lc rgb '#1f77b4' notitle, \
  'run_2.dat' using 1:7 with lines lw 1.2 lc rgb '#d62728' notitle, \
  'run_3.dat' using 1:7 with lines lw 1.2 lc rgb '#2ca02c' notitle, \
  'run_4.dat' using 1:7 with lines lw 1.2 lc rgb '#ff7f0e' notitle, \
  'run_5.dat' using 1:7 with lines lw 1.2 lc rgb '#9467bd' notitle, \
  'run_6.dat' using 1:7 with lines lw 1.2 lc rgb '#1f77b4' notitle, \
  'run_7.dat' using 1:7 with lines lw 1.2 lc rgb '#d62728' notitle, \
  'run_8.dat' using 1:7 with lines lw 1.2 lc rgb '#2ca02c' notitle, \
  'run_9.dat' using 1:7 with lines lw 1.2 lc rgb '#ff7f0e' notitle, \
  'run_11.dat' using 1:7 with lines lw 1.2 lc rgb '#1f77b4' notitle, \
  'run_12.dat' using 1:7 with lines lw 1.2 lc rgb '#d62728' notitle, \
  'run_13.dat' using 1:7 with lines lw 1.2 lc rgb '#2ca02c' notitle, \
  'run_14.dat' using 1:7 with lines lw 1.2 lc rgb '#ff7f0e' notitle
unset arrow 1
set ylabel "WAL written, MB/s" noenhanced
set key at graph 1.02, graph 1 left top Left reverse noenhanced
plot \
  'run_1.dat' using 1:8 with lines lw 1.2 lc rgb '#1f77b4' notitle, \
  'run_2.dat' using 1:8 with lines lw 1.2 lc rgb '#d62728' notitle, \
  'run_3.dat' using 1:8 with lines lw 1.2 lc rgb '#2ca02c' notitle, \
  'run_4.dat' using 1:8 with lines lw 1.2 lc rgb '#ff7f0e' notitle, \
  'run_5.dat' using 1:8 with lines lw 1.2 lc rgb '#9467bd' notitle, \
  'run_6.dat' using 1:8 with lines lw 1.2 lc rgb '#1f77b4' notitle, \
  'run_7.dat' using 1:8 with lines lw 1.2 lc rgb '#d62728' notitle, \
  'run_8.dat' using 1:8 with lines lw 1.2 lc rgb '#2ca02c' notitle, \
  'run_9.dat' using 1:8 with lines lw 1.2 lc rgb '#ff7f0e' notitle, \
  'run_11.dat' using 1:8 with lines lw 1.2 lc rgb '#1f77b4' notitle, \
  'run_12.dat' using 1:8 with lines lw 1.2 lc rgb '#d62728' notitle, \
  'run_13.dat' using 1:8 with lines lw 1.2 lc rgb '#2ca02c' notitle, \
  'run_14.dat' using 1:8 with lines lw 1.2 lc rgb '#ff7f0e' notitle, \
  4 with lines dt 2 lw 1.2 lc rgb '#555555' title "cap 4 MB/s"
unset key
unset label 1
unset label 2
set format x '%g'
set xlabel 'seconds since the run started' noenhanced
set ylabel "longest WAL fsync, ms" noenhanced
set key at graph 1.02, graph 1 left top Left reverse noenhanced
plot \
  'run_1.dat' using 1:9 with lines lw 1.2 lc rgb '#1f77b4' notitle, \
  'run_2.dat' using 1:9 with lines lw 1.2 lc rgb '#d62728' notitle, \
  'run_3.dat' using 1:9 with lines lw 1.2 lc rgb '#2ca02c' notitle, \
  'run_4.dat' using 1:9 with lines lw 1.2 lc rgb '#ff7f0e' notitle, \
  'run_5.dat' using 1:9 with lines lw 1.2 lc rgb '#9467bd' notitle, \
  'run_6.dat' using 1:9 with lines lw 1.2 lc rgb '#1f77b4' notitle, \
  'run_7.dat' using 1:9 with lines lw 1.2 lc rgb '#d62728' notitle, \
  'run_8.dat' using 1:9 with lines lw 1.2 lc rgb '#2ca02c' notitle, \
  'run_9.dat' using 1:9 with lines lw 1.2 lc rgb '#ff7f0e' notitle, \
  'run_11.dat' using 1:9 with lines lw 1.2 lc rgb '#1f77b4' notitle, \
  'run_12.dat' using 1:9 with lines lw 1.2 lc rgb '#d62728' notitle, \
  'run_13.dat' using 1:9 with lines lw 1.2 lc rgb '#2ca02c' notitle, \
  'run_14.dat' using 1:9 with lines lw 1.2 lc rgb '#ff7f0e' notitle, \
  21.277 with lines dt 3 lw 1.2 lc rgb '#555555' title "probe: one fdatasync 21.3 ms"
unset key
unset label 1
unset label 2
unset multiplot
set output
