# fragmentation_over_time.gp - free share of reserved memory over time, 1 - allocated/reserved,
# one line per run (policy). Same inputs as memory_over_time.gp (files, titles or title1..,
# out, ttl).
if (!exists("ttl")) ttl = "fragmentation over time"
# The palette (colors, color(i)), shared with the other timeline script: timeline_palette.gp
# from this script's folder, analysis_dir (ending in /), which amsim report sets (it runs
# gnuplot in a scratch folder); by hand, the folder of the script as gnuplot was given it (ARG0,
# gnuplot 5.4: `gnuplot -e '...' analysis/memory_over_time.gp`), else the current folder.
if (!exists("analysis_dir")) { analysis_dir = ""; if (exists("ARG0")) { do for [k=1:strlen(ARG0)] { if (ARG0[k:k] eq "/") { analysis_dir = ARG0[1:k] } } } }
load analysis_dir."timeline_palette.gp"
# taller than 420 px when the key (one entry per line) needs it, so no entry is cut off
svg_h = 420 > 120 + 1 * 15 * words(files) ? 420 : 120 + 1 * 15 * words(files)
set terminal svg size 820,svg_h dynamic noenhanced font "sans,11" background rgb "white"
set output out
set title ttl
# optional: xunit / xdiv = the time axis' unit and what a microsecond is divided by for it
# (amsim report chooses them from the data's range; by hand, us)
if (!exists("xunit") || !exists("xdiv")) { xunit = "us"; xdiv = 1 }
set xlabel "simulated time (".xunit.")"
set ylabel "1 - allocated / reserved (%)"
set yrange [0:100]
set key outside right top
# optional: tlo / thi = the time axis' range (us) (amsim report sets them
# when the data span none, e.g. a trace of makespan 0, where gnuplot warns "empty x range")
if (exists("tlo") && exists("thi")) set xrange [tlo/xdiv:thi/xdiv]
set grid
plot for [i=1:words(files)] word(files, i) using ($1/xdiv):($3 > 0 ? 100*(1 - $4/$3) : 1/0) with steps lw 2 lc rgb color(i) title tt(i)
