/* cli.h - what every command's option parser shares (run, compare, mincap, batch, stats,
 * convert, gen, check).
 *
 * Conventions: an option that takes one value takes it once; a second one is refused
 * (cli_once), since it would silently replace the first (`--policies a --policies b` ran b
 * alone). Repeatable options say so in their help (`--set`); flags (`-q`, `--check`) may repeat.
 * A short option's value may follow it as the next argument or be attached to it (cli_split:
 * `-j 2` and `-j2`, `-o DIR` and `-oDIR`), as getopt takes them; long options take the next
 * argument. */
#ifndef AM_CLI_H
#define AM_CLI_H

/* When *arg is a short option named in `shorts` (their letters, e.g. "cto") with text after
 * its letter ("-j2"): point *arg at opt, filled with the option alone ("-j"), and return the
 * attached value ("2"). Otherwise leave *arg and return NULL. */
const char *cli_split(const char **arg, char opt[3], const char *shorts);

/* Store v in *slot, an option that takes one value; 0, or -1 after a message on stderr
 * ("PROG: OPT given twice ('A', then 'B'): it takes one value[; HINT]") when *slot holds one
 * already. hint may be NULL. */
int cli_once(const char *prog, const char *opt, const char **slot, const char *v,
             const char *hint);

#endif
