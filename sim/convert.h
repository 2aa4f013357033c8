/* convert.h - `amsim convert`: any supported trace to the native format or a lifetime CSV. */
#ifndef AM_CONVERT_H
#define AM_CONVERT_H

/* argv without the command name; returns the exit status. */
int cmd_convert(int argc, char **argv);

#endif
