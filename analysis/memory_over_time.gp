# memory_over_time.gp - live vs reserved bytes over simulated time, one colour per run (policy).
# Inputs (gnuplot -e): files = "a.dat b.dat" (whitespace-separated columns: time_us live_bytes
# reserved_bytes allocated_bytes, one memory level), titles = "bfc caching" (one word each),
# out = "plot.svg", ttl = "plot title". Solid: reserved; dashed: live.
# From a --timeline CSV:  awk -F, 'NR>1 && $3=="hbm" {print $1/1e6, $4, $6, $5}' timeline.csv > a.dat
if (!exists("ttl")) ttl = "memory over time"
# One colour per line, so up to 16 policies are told apart (gnuplot's own line types repeat
# after 8: until 2026-11-27 a 9th policy was drawn in the 1st one's colour). The first 8 are
# gnuplot's defaults; a 17th line and on reuse the palette from its start.
colors = "#9400d3 #009e73 #56b4e9 #e69f00 #f0e442 #0072b2 #e51e10 #000000 #8c564b #e377c2 #7f7f7f #bcbd22 #17becf #1f3a93 #ff7f0e #2ca02c"
color(i) = word(colors, (i - 1) % words(colors) + 1)
# taller than 420 px when the key (two entries per line) needs it, so no entry is cut off
svg_h = 420 > 120 + 2 * 15 * words(files) ? 420 : 120 + 2 * 15 * words(files)
set terminal svg size 820,svg_h dynamic noenhanced font "sans,11" background rgb "white"
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
plot for [i=1:words(files)] word(files, i) using 1:($3/1048576) with steps lw 2 lc rgb color(i) title word(titles, i)." reserved", \
     for [i=1:words(files)] word(files, i) using 1:($2/1048576) with steps lw 1 dt 2 lc rgb color(i) title word(titles, i)." live"
