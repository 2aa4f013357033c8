/* cli.h - what every command's option parser shares (run, compare, mincap, batch, stats,
 * convert, gen, check, report, policies).
 *
 * Each command lists its options in a table and reads them with cli_next, which takes the
 * command line as getopt_long does (GNU conventions), so every command reads it alike:
 *   --name VALUE, --name=VALUE     a long option's value, split at the first '='
 *                                  (--set=a.b=1GiB is --set with a.b=1GiB)
 *   -x VALUE, -xVALUE              a short option's value, following or attached
 *   -qj2, -qc FILE                 short flags grouped, the last letter may take a value
 *   --                             ends the options: every later argument is an operand
 *   -                              an operand (standard input or output where a command says so)
 * Options and operands may come in any order. A value is the next argument whatever it looks
 * like (`--json --quiet` names a file "--quiet"), as getopt takes it.
 * Deliberate differences from getopt_long: an empty attached value (`--json=`) is refused like
 * a missing one; an empty separate value of an option that names a file or folder (CLI_PATH:
 * `--json ''`, `-o ''`) and an empty operand (every command's operands are files or folders)
 * are refused before the command does anything (until 2026-11-25 they were passed on, and
 * `batch SWEEP -o ''` wrote /runs, /results.csv and /matrix.tsv); another option's empty
 * value (`--policies ''`) is passed on and the command says what is wrong with it; long names
 * are never abbreviated (`--pol` is unknown: an abbreviation would change meaning when an
 * option is added).
 *
 * Conventions: an option that takes one value takes it once; a second one is refused
 * (cli_once), since it would silently replace the first (`--policies a --policies b` ran b
 * alone). Repeatable options say so in their help (`--set`); flags (`-q`, `--check`) may repeat.
 * Messages go through am_msg, and a word they echo (an unknown option, a value, an operand)
 * through am_escape_name: its control bytes, tab and newline too, show as \xHH. */
#ifndef AM_CLI_H
#define AM_CLI_H

/* The buffer size (bytes) for an argument as a message quotes it (am_escape_name): the
 * escaped form up to this many bytes, in cli.c's messages and the commands' alike. */
#define CLI_SHOWN 4096

/* One option of a command; a table of them ends with a NULL name. */
typedef struct cli_opt {
    const char *name; /* long name without the dashes: "jobs" for --jobs */
    char letter;      /* short name: 'j' for -j; 0 for none */
    int takes_value;  /* CLI_FLAG, CLI_VALUE, CLI_PATH or CLI_IN */
} cli_opt;

/* cli_opt.takes_value */
#define CLI_FLAG 0  /* no value */
#define CLI_VALUE 1 /* one value */
#define CLI_PATH 2  /* one value naming a file or folder: an empty one is refused */
#define CLI_IN 3    /* a CLI_PATH the command reads, '-' standard input: see cli_next */

/* The state of one pass over a command's arguments (cli_init). */
typedef struct cli {
    const char *prog;  /* "amsim batch": every message starts with it */
    int argc;
    char **argv;
    int next;          /* argv index of the next argument */
    const char *group; /* the argument "-qj2" while its letters are read, else NULL */
    const char *rest;  /* its letters not read yet ("j2") */
    int operands_only; /* after "--" */
    char given[64];    /* the option just read as given, without its value: "-j", "--jobs" */
    /* what an operand '-' reads, as messages name it ("FILE", "IN"), set after cli_init by a
     * command whose operands are inputs; NULL: an operand is no input cli_next tracks */
    const char *operand_in;
    char stdin_by[64]; /* the input that took standard input first ("-c", "FILE"), or "" */
    int stdin_k;       /* its option's index (CLI_OPERAND for an operand), when stdin_by is set */
    const char *stdin_as; /* how it named standard input: "-", "/dev/stdin", ... */
} cli;

/* cli_next's answers besides an option's index in its table. */
#define CLI_END (-1)     /* no more arguments */
#define CLI_OPERAND (-2) /* *val is an operand (not an option, "-", or after "--") */
#define CLI_ERROR (-3)   /* a message is on stderr: a usage error (status 1) */

/* Start reading argv[0..argc-1] (the arguments after the command name) for prog. */
void cli_init(cli *c, const char *prog, int argc, char **argv);

/* The next argument: an option's index in opts, with *opt its spelling as given ("-j" or
 * "--jobs", valid until the next call) and *val its value (NULL for a flag); CLI_OPERAND with
 * *val the argument; CLI_END; or CLI_ERROR after one of these on stderr:
 *   PROG: unknown option '--x' (see PROG --help)      [also '-x' in '-qx']
 *   PROG: --json needs a value                         [last argument, or --json=]
 *   PROG: --json '': an empty path names no file       [CLI_PATH given '']
 *   PROG: an empty argument '' names no file           [an empty operand]
 *   PROG: --quiet takes no value ('--quiet=x')
 *   PROG: -c and -t both read '-' (standard input): give one of them a file
 *                                                      [a second input '-': a CLI_IN option's
 *                                                       value, or an operand with operand_in]
 * Standard input can be read once: until 2026-11-28 `run -c - -t - < c.yaml` read it for both,
 * and the second input's reader blamed the content ("-: unrecognised trace format"). An
 * option given '-' twice (`-c - -c -`) is left to cli_once, which says it is given twice. */
int cli_next(cli *c, const cli_opt *opts, const char **opt, const char **val);

/* For an operand the command does not take: "PROG: unexpected argument 'A' (see PROG --help)"
 * on stderr. Returns CLI_ERROR. */
int cli_unexpected(const cli *c, const char *arg);

/* Store v in *slot, an option that takes one value; 0, or -1 after a message on stderr
 * ("PROG: OPT given twice ('A', then 'B'): it takes one value[; HINT]") when *slot holds one
 * already. hint may be NULL. */
int cli_once(const char *prog, const char *opt, const char **slot, const char *v,
             const char *hint);

/* -q leaves out the text a command prints on standard output; when the command writes nothing
 * else (writes 0: no --json, nothing whose exit status is the answer) it would do nothing
 * visible, so it is a usage error: "PROG: -q leaves out the table and nothing else would be
 * written: give WANT, or drop -q" on stderr and -1; else 0. */
int cli_quiet_needs_output(const char *prog, int quiet, int writes, const char *want);

/* --device N of run, compare, mincap and check (a PyTorch snapshot's device; default 0): 0 and
 * N in *device, or -1 after "PROG: --device takes a device number 0..1024, not 'V'" on stderr. */
int cli_device(const char *prog, const char *v, int *device);

#endif
