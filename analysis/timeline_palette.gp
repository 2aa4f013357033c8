# timeline_palette.gp - the line colours and titles of the timeline plots, loaded by
# memory_over_time.gp and fragmentation_over_time.gp so the two plots of an input draw and name
# each policy alike (until 2026-11-27 each script held its own copy of these lines).
# One colour per line, so up to 16 policies are told apart (gnuplot's own line types repeat
# after 8: until 2026-11-27 a 9th policy was drawn in the 1st one's colour). The first 8 are
# gnuplot's defaults; a 17th line and on reuse the palette from its start.
colors = "#9400d3 #009e73 #56b4e9 #e69f00 #f0e442 #0072b2 #e51e10 #000000 #8c564b #e377c2 #7f7f7f #bcbd22 #17becf #1f3a93 #ff7f0e #2ca02c"
color(i) = word(colors, (i - 1) % words(colors) + 1)
# Line i's title: title1, title2, ... as written when set (amsim report sets them: a policy name
# may hold blanks or quotes), else word i of titles.
tt(i) = exists(sprintf("title%d", i)) ? value(sprintf("title%d", i)) : word(titles, i)
