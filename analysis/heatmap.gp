# heatmap.gp - a metric over two sweep axes. Inputs: data = file with lines
# 'XI YI VALUE "LABEL"' (XI, YI: 0-based indices of the axis values; VALUE colours the cell;
# LABEL, a double-quoted string, is written in it: the value with its unit, as exact as the
# cells need, e.g. "1604 MiB"), xlab / ylab = arrays of the axis values as written (amsim
# report sets them: a value may hold spaces or quotes; until 2026-11-27 it passed one-word lists,
# a space or quote turned into _), or by hand xlabels / ylabels = the axis values (one word each),
# xname / yname = axis names, zname = metric name, out = "plot.svg", ttl = title; optional
# cblo / cbhi = the colour bar's range (amsim report sets them, widened when every cell is
# equal, which gnuplot would otherwise widen itself with a warning on stderr).
# (Cells used to be labelled sprintf("%.3g", VALUE): 1600 and 1604 MiB both read "1.6e+03".)
if (!exists("ttl")) ttl = "heat map"
set terminal svg size 820,520 dynamic noenhanced font "sans,11" background rgb "white"
set output out
set title ttl
set xlabel xname noenhanced
set ylabel yname noenhanced
set cblabel zname noenhanced
if (exists("xlabels")) { nx = words(xlabels); array xlab[nx]; do for [i=1:nx] { xlab[i] = word(xlabels, i) } } else { nx = |xlab| }
if (exists("ylabels")) { ny = words(ylabels); array ylab[ny]; do for [i=1:ny] { ylab[i] = word(ylabels, i) } } else { ny = |ylab| }
set xrange [-0.5:nx-0.5]
set yrange [-0.5:ny-0.5]
set xtics ()
set ytics ()
do for [i=1:nx] { set xtics add (xlab[i] i-1) }
do for [i=1:ny] { set ytics add (ylab[i] i-1) }
if (exists("cblo") && exists("cbhi")) set cbrange [cblo:cbhi]
set palette rgbformulae 33,13,10
set style fill solid 1.0 noborder
plot data using 1:2:(0.5):(0.5):3 with boxxyerror fc palette notitle, \
     data using 1:2:4 with labels font ",9" notitle
