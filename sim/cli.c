/* cli.c - the command line as getopt_long reads it, one table of options per command (see
 * cli.h for the conventions and the deliberate differences). */
#include "cli.h"
#include "common.h"
#include "config.h"
#include "units.h"
#include <errno.h>
#include <stdlib.h>

#include <stdio.h>
#include <string.h>

/* An argument as its messages quote it: every message here goes through am_msg, and the
 * argument a user typed (an unknown option, a value, an operand) through am_escape_name, so an
 * escape sequence or a newline in it shows as \xHH and cannot redraw the terminal or forge a
 * line (until 2026-11-27 they were echoed raw). Up to CLI_SHOWN bytes (cli.h) of the escaped
 * form. */

void cli_init(cli *c, const char *prog, int argc, char **argv)
{
    memset(c, 0, sizeof *c);
    c->prog = prog;
    c->argc = argc;
    c->argv = argv;
}

static int cli_fail_value(cli *c)
{
    am_msg("%s: %s needs a value\n", c->prog, c->given);
    return CLI_ERROR;
}

/* k's value v, or CLI_ERROR for an empty one of an option that names a file (CLI_PATH): ""
 * names no file, and joined with a name ("%s/runs") it would name one under "/". */
static int cli_value(cli *c, const cli_opt *o, int k, const char *v)
{
    if (o->takes_value == CLI_VALUE || *v)
        return k;
    am_msg("%s: %s '': an empty path names no file\n", c->prog, c->given);
    return CLI_ERROR;
}

/* The next letter of a group of short options ("-qj2"). */
static int cli_letter(cli *c, const cli_opt *opts, const char **val)
{
    char l = *c->rest++;
    const char *group = c->group;
    int k = 0;
    while (opts[k].name && opts[k].letter != l)
        k++;
    if (!*c->rest || !opts[k].name || opts[k].takes_value)
        c->group = NULL; /* this letter ends the group */
    if (!opts[k].name) {
        char letter[2] = {l, 0}, ql[8], qg[CLI_SHOWN];
        am_escape_name(ql, sizeof ql, letter);
        am_escape_name(qg, sizeof qg, group);
        if (group[2])
            am_msg("%s: unknown option '-%s' in '%s' (see %s --help)\n", c->prog, ql, qg,
                   c->prog);
        else
            am_msg("%s: unknown option '%s' (see %s --help)\n", c->prog, qg, c->prog);
        return CLI_ERROR;
    }
    snprintf(c->given, sizeof c->given, "-%c", l);
    if (!opts[k].takes_value)
        return k;
    if (*c->rest) { /* -j2: the rest of the argument is the value */
        *val = c->rest;
        return k;
    }
    if (c->next >= c->argc)
        return cli_fail_value(c);
    *val = c->argv[c->next++];
    return cli_value(c, &opts[k], k, *val);
}

/* An input given standard input (as: "-c", "--expect", "FILE"; v as written): k, or CLI_ERROR
 * when another input has taken it already. The same option twice (-c and --config are one) is
 * cli_once's to refuse, but two operands are two inputs. Until 2026-11-28 (later) /dev/stdin,
 * /dev/fd/0 and /proc/self/fd/0 were not taken for standard input here, so `-c /dev/stdin
 * --expect -` read it twice, and -c and --config counted as two inputs. */
static int cli_stdin(cli *c, int k, const char *as, const char *v)
{
    if (!c->stdin_by[0]) {
        snprintf(c->stdin_by, sizeof c->stdin_by, "%s", as);
        c->stdin_k = k;
        c->stdin_as = v;
        return k;
    }
    int dashes = !strcmp(v, "-") && !strcmp(c->stdin_as, "-");
    if (k == CLI_OPERAND && c->stdin_k == CLI_OPERAND && dashes)
        am_msg("%s: two %s operands read '-' (standard input): give one of them a file\n",
               c->prog, as);
    else if (k == CLI_OPERAND && c->stdin_k == CLI_OPERAND)
        am_msg("%s: two %s operands read standard input ('%s' and '%s'): give one of them a "
               "file\n", c->prog, as, c->stdin_as, v);
    else if (k != c->stdin_k && dashes)
        am_msg("%s: %s and %s both read '-' (standard input): give one of them a file\n",
               c->prog, c->stdin_by, as);
    else if (k != c->stdin_k)
        am_msg("%s: %s and %s both read standard input ('%s' and '%s'): give one of them a "
               "file\n", c->prog, c->stdin_by, as, c->stdin_as, v);
    else
        return k;
    return CLI_ERROR;
}

static int cli_read(cli *c, const cli_opt *opts, const char **opt, const char **val);

int cli_next(cli *c, const cli_opt *opts, const char **opt, const char **val)
{
    int k = cli_read(c, opts, opt, val);
    if (!*val) /* only an input's value is looked at (am_names_stdin may stat it) */
        return k;
    if (k >= 0 && opts[k].takes_value == CLI_IN && am_names_stdin(*val))
        return cli_stdin(c, k, c->given, *val);
    if (k == CLI_OPERAND && c->operand_in && am_names_stdin(*val))
        return cli_stdin(c, k, c->operand_in, *val);
    return k;
}

/* cli_next without its check of standard input. */
static int cli_read(cli *c, const cli_opt *opts, const char **opt, const char **val)
{
    *opt = c->given;
    *val = NULL;
    c->given[0] = 0;
    if (c->group)
        return cli_letter(c, opts, val);
    if (c->next >= c->argc)
        return CLI_END;
    const char *a = c->argv[c->next++];
    if (!*a) { /* every command's operands are files or folders */
        am_msg("%s: an empty argument '' names no file\n", c->prog);
        return CLI_ERROR;
    }
    if (c->operands_only || a[0] != '-' || a[1] == 0) {
        *val = a;
        return CLI_OPERAND;
    }
    if (a[1] != '-') { /* -x, -xVALUE, -qx... */
        c->group = a;
        c->rest = a + 1;
        return cli_letter(c, opts, val);
    }
    if (a[2] == 0) { /* "--": the rest are operands */
        c->operands_only = 1;
        return cli_read(c, opts, opt, val);
    }
    const char *name = a + 2, *eq = strchr(name, '=');
    size_t len = eq ? (size_t)(eq - name) : strlen(name);
    int k = 0;
    while (opts[k].name && (strlen(opts[k].name) != len || strncmp(opts[k].name, name, len)))
        k++;
    char shown[CLI_SHOWN];
    if (!opts[k].name) {
        am_msg("%s: unknown option '%s' (see %s --help)\n", c->prog,
               am_escape_name(shown, sizeof shown, a), c->prog);
        return CLI_ERROR;
    }
    snprintf(c->given, sizeof c->given, "--%s", opts[k].name);
    if (!opts[k].takes_value) {
        if (!eq)
            return k;
        am_msg("%s: %s takes no value ('%s')\n", c->prog, c->given,
               am_escape_name(shown, sizeof shown, a));
        return CLI_ERROR;
    }
    if (eq) { /* --name=VALUE: split at the first '='; "--name=" has none */
        if (!eq[1])
            return cli_fail_value(c);
        *val = eq + 1;
        return k;
    }
    if (c->next >= c->argc)
        return cli_fail_value(c);
    *val = c->argv[c->next++];
    return cli_value(c, &opts[k], k, *val);
}

int cli_unexpected(const cli *c, const char *arg)
{
    char shown[CLI_SHOWN];
    am_msg("%s: unexpected argument '%s' (see %s --help)\n", c->prog,
           am_escape_name(shown, sizeof shown, arg), c->prog);
    return CLI_ERROR;
}

int cli_once(const char *prog, const char *opt, const char **slot, const char *v,
             const char *hint)
{
    if (!*slot) {
        *slot = v;
        return 0;
    }
    char first[CLI_SHOWN], second[CLI_SHOWN];
    am_msg("%s: %s given twice ('%s', then '%s'): it takes one value%s%s\n", prog, opt,
           am_escape_name(first, sizeof first, *slot), am_escape_name(second, sizeof second, v),
           hint ? "; " : "", hint ? hint : "");
    return -1;
}

/* The number rule of every other number amsim reads (a sweep's device:, seeds:, --set): no
 * '+' sign, no blank before or after, no leading zero (cfg_number_form), then decimal digits
 * only (units_u64). Until 2026-11-27 strtol read it, which took '+1', '01' and ' 1' (but not
 * '1 ') as device 1. */
int cli_device(const char *prog, const char *v, int *device)
{
    const char *form = cfg_number_form(v);
    uint64_t d = 0;
    if (form || units_u64(v, strlen(v), &d) != 0 || d > AM_MAX_DEVICE) {
        char shown[CLI_SHOWN];
        am_msg("%s: --device takes a device number 0..%d, not '%s'%s%s\n", prog, AM_MAX_DEVICE,
               am_escape_name(shown, sizeof shown, v), form ? ": " : "", form ? form : "");
        return -1;
    }
    *device = (int)d;
    return 0;
}

int cli_quiet_needs_output(const char *prog, int quiet, int writes, const char *want)
{
    if (!quiet || writes)
        return 0;
    am_msg("%s: -q leaves out the table and nothing else would be written: give %s, "
           "or drop -q\n", prog, want);
    return -1;
}
