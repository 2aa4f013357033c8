# fragmentation_over_time.gp - free share of reserved memory over time, 1 - allocated/reserved,
# one line per run (policy). Same inputs as memory_over_time.gp (files, titles, out, ttl).
if (!exists("ttl")) ttl = "fragmentation over time"
set terminal svg size 820,420 dynamic noenhanced font "sans,11" background rgb "white"
set output out
set title ttl
set xlabel "simulated time (us)"
set ylabel "1 - allocated / reserved (%)"
set yrange [0:100]
set key outside right top
# optional: tlo / thi = the time axis' range, ymax = the MiB axis' top (amsim report sets them
# when the data span none, e.g. a trace of makespan 0, where gnuplot warns "empty x range")
if (exists("tlo") && exists("thi")) set xrange [tlo:thi]
set grid
plot for [i=1:words(files)] word(files, i) using 1:($3 > 0 ? 100*(1 - $4/$3) : 1/0) with steps lw 2 lc i title word(titles, i)
