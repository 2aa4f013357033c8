# memory_over_time.gp - live vs reserved bytes over simulated time, one colour per run (policy).
# Inputs (gnuplot -e): files = "a.dat b.dat" (whitespace-separated columns: time_us live_bytes
# reserved_bytes allocated_bytes, one memory level), titles = "bfc caching" (one word each;
# or title1, title2, ... one string each, which take precedence), out = "plot.svg",
# ttl = "plot title". Solid: reserved; dashed: live.
# From a --timeline CSV:  awk -F, 'NR>1 && $3=="hbm" {print $1/1e6, $4, $6, $5}' timeline.csv > a.dat
if (!exists("ttl")) ttl = "memory over time"
# The palette (colors, color(i)), shared with the other timeline script: timeline_palette.gp
# from this script's folder, analysis_dir (ending in /), which amsim report sets (it runs
# gnuplot in a scratch folder); by hand, the folder of the script as gnuplot was given it (ARG0,
# gnuplot 5.4: `gnuplot -e '...' analysis/memory_over_time.gp`), else the current folder.
if (!exists("analysis_dir")) { analysis_dir = ""; if (exists("ARG0")) { do for [k=1:strlen(ARG0)] { if (ARG0[k:k] eq "/") { analysis_dir = ARG0[1:k] } } } }
load analysis_dir."timeline_palette.gp"
# taller than 420 px when the key (two entries per line) needs it, so no entry is cut off
svg_h = 420 > 120 + 2 * 15 * words(files) ? 420 : 120 + 2 * 15 * words(files)
set terminal svg size 820,svg_h dynamic noenhanced font "sans,11" background rgb "white"
set output out
set title ttl
# optional: xunit / xdiv = the time axis' unit and what a microsecond is divided by for it,
# yunit / ydiv = the byte axis' unit and its bytes (amsim report chooses them from the data's
# range, as its tables choose theirs; by hand, us and MiB)
if (!exists("xunit") || !exists("xdiv")) { xunit = "us"; xdiv = 1 }
if (!exists("yunit") || !exists("ydiv")) { yunit = "MiB"; ydiv = 1048576 }
set xlabel "simulated time (".xunit.")"
set ylabel yunit
set key outside right top
# optional: tlo / thi = the time axis' range (us), ymax = the byte axis' top (in yunit) (amsim report sets them
# when the data span none, e.g. a trace of makespan 0, where gnuplot warns "empty x range")
if (exists("tlo") && exists("thi")) set xrange [tlo/xdiv:thi/xdiv]
if (exists("ymax")) set yrange [0:ymax]
set grid
plot for [i=1:words(files)] word(files, i) using ($1/xdiv):($3/ydiv) with steps lw 2 lc rgb color(i) title tt(i)." reserved", \
     for [i=1:words(files)] word(files, i) using ($1/xdiv):($2/ydiv) with steps lw 1 dt 2 lc rgb color(i) title tt(i)." live"
