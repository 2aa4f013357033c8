# fragmentation_over_time.gp - free share of reserved memory over time, 1 - allocated/reserved,
# one line per run (policy). Same inputs as memory_over_time.gp (files, titles, out, ttl).
if (!exists("ttl")) ttl = "fragmentation over time"
# One colour per line, so up to 16 policies are told apart (gnuplot's own line types repeat
# after 8: until 2026-11-27 a 9th policy was drawn in the 1st one's colour). The first 8 are
# gnuplot's defaults; a 17th line and on reuse the palette from its start.
colors = "#9400d3 #009e73 #56b4e9 #e69f00 #f0e442 #0072b2 #e51e10 #000000 #8c564b #e377c2 #7f7f7f #bcbd22 #17becf #1f3a93 #ff7f0e #2ca02c"
color(i) = word(colors, (i - 1) % words(colors) + 1)
# taller than 420 px when the key (one entry per line) needs it, so no entry is cut off
svg_h = 420 > 120 + 1 * 15 * words(files) ? 420 : 120 + 1 * 15 * words(files)
set terminal svg size 820,svg_h dynamic noenhanced font "sans,11" background rgb "white"
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
plot for [i=1:words(files)] word(files, i) using 1:($3 > 0 ? 100*(1 - $4/$3) : 1/0) with steps lw 2 lc rgb color(i) title word(titles, i)
