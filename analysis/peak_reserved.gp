# peak_reserved.gp - bar chart of peak reserved bytes per policy (mean over the runs of each).
# Inputs: data = file with lines "LABEL BYTES [PEAK_LIVE_BYTES]", out = "plot.svg", ttl = title.
if (!exists("ttl")) ttl = "peak reserved per policy"
set terminal svg size 820,420 dynamic noenhanced font "sans,11" background rgb "white"
set output out
set title ttl
set ylabel "MiB"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set boxwidth 0.9
# optional: ymax = the MiB axis' top (amsim report sets it when every bar is 0, where gnuplot
# would warn "empty y range" on stderr)
if (exists("ymax")) set yrange [0:ymax]; else set yrange [0:*]
set grid ytics
set key outside right top
plot data using ($2/1048576):xtic(1) title "peak reserved", \
     data using ($3/1048576) title "peak live"
