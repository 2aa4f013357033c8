# memory_over_time.gp - live vs reserved bytes over simulated time, one colour per run (policy).
# Inputs (gnuplot -e): files = "a.dat b.dat" (whitespace-separated columns: time_us live_bytes
# reserved_bytes allocated_bytes, one memory level), titles = "bfc caching" (one word each),
# out = "plot.svg", ttl = "plot title". Solid: reserved; dashed: live.
# From a --timeline CSV:  awk -F, 'NR>1 && $3=="hbm" {print $1/1e6, $4, $6, $5}' timeline.csv > a.dat
if (!exists("ttl")) ttl = "memory over time"
set terminal svg size 820,420 dynamic noenhanced font "sans,11" background rgb "white"
set output out
set title ttl
set xlabel "simulated time (us)"
set ylabel "MiB"
set key outside right top
# optional: tlo / thi = the time axis' range, ymax = the MiB axis' top (amsim report sets them
# when the data span none, e.g. a trace of makespan 0, where gnuplot warns "empty x range")
if (exists("tlo") && exists("thi")) set xrange [tlo:thi]
if (exists("ymax")) set yrange [0:ymax]
set grid
plot for [i=1:words(files)] word(files, i) using 1:($3/1048576) with steps lw 2 lc i title word(titles, i)." reserved", \
     for [i=1:words(files)] word(files, i) using 1:($2/1048576) with steps lw 1 dt 2 lc i title word(titles, i)." live"
