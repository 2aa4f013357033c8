# peak_reserved.gp - bar chart of peak reserved bytes per policy (mean over the runs of each).
# Inputs: data = file with lines "LABEL BYTES [PEAK_LIVE_BYTES]" (a LABEL with spaces in double
# quotes), out = "plot.svg", ttl = title. Optional: labels = an array of the bars' labels, one per
# data line, shown instead of the first column: amsim report sets it, as a label in the data
# file cannot hold a '#' (a comment), a newline or a double quote (until 2026-11-27 it could not
# be set, and a policy '#bfc' lost its bar).
if (!exists("ttl")) ttl = "peak reserved per policy"
set terminal svg size 820,420 dynamic noenhanced font "sans,11" background rgb "white"
set output out
set title ttl
# optional: yunit / ydiv = the byte axis' unit and its bytes (amsim report chooses them from the
# bars' heights, as its tables choose theirs; by hand, MiB)
if (!exists("yunit") || !exists("ydiv")) { yunit = "MiB"; ydiv = 1048576 }
set ylabel yunit
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set boxwidth 0.9
# optional: ymax = the byte axis' top (in yunit) (amsim report sets it when every bar is 0, where gnuplot
# would warn "empty y range" on stderr)
if (exists("ymax")) set yrange [0:ymax]; else set yrange [0:*]
set grid ytics
set key outside right top
plot data using ($2/ydiv):xtic(exists("labels") ? labels[int($0) + 1] : strcol(1)) title "peak reserved", \
     data using ($3/ydiv) title "peak live"
