/* The command line front end: one function per sub-command.
 *
 * Each takes the sub-command's own argv (argv[0] is the command name) and
 * returns the process exit code (JP_ERRORS in jobprep/error.h): 0 ok, 1 a check or the
 * work failed, 2 usage, 3 unreadable/invalid file, 130 interrupted. */
#ifndef JOBPREP_UI_CLI_H
#define JOBPREP_UI_CLI_H

#include <stdio.h>

#include "jobprep/error.h"

#define JP_EXIT_OK 0
#define JP_EXIT_FAIL 1
#define JP_EXIT_USAGE 2
#define JP_EXIT_INVALID 3
#define JP_EXIT_INTERRUPTED 130

/* Dispatch `jobprep COMMAND ...` (argv[0] is the program). */
int jp_cli_main(int argc, char **argv);
/* Print every message in err to stderr, one line each after "jobprep CMD: "
 * ("jobprep: " when cmd is NULL); returns the exit code for err->code. */
int jp_cli_report(const char *cmd, const struct jp_error *err);
/* Print "jobprep: out of memory" ("jobprep CMD: ..." when cmd is not
 * NULL) for a failure before any struct jp_error exists; returns its exit
 * code (the words of JP_ENOMEM in error.h, as jp_error_oom records). */
int jp_cli_report_oom(const char *cmd);
/* Print "jobprep: " + message + usage hint to stderr; returns JP_EXIT_USAGE. */
int jp_cli_usage_error(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void jp_cli_print_version(FILE *out);

/* Sub-commands: the functions, and their entries (options.h) for the list
 * in cli.c. */
struct jp_cli_cmd;
extern const struct jp_cli_cmd jp_cli_cmd_schema, jp_cli_cmd_check, jp_cli_cmd_env,
	jp_cli_cmd_preflight, jp_cli_cmd_export, jp_cli_cmd_init, jp_cli_cmd_scan,
	jp_cli_cmd_clone, jp_cli_cmd_repo, jp_cli_cmd_show, jp_cli_cmd_runs, jp_cli_cmd_stage,
	jp_cli_cmd_cache;
int jp_cmd_schema(int argc, char **argv);
int jp_cmd_check(int argc, char **argv);
int jp_cmd_env(int argc, char **argv);
int jp_cmd_preflight(int argc, char **argv);
int jp_cmd_export(int argc, char **argv);
int jp_cmd_init(int argc, char **argv);
int jp_cmd_scan(int argc, char **argv);
int jp_cmd_clone(int argc, char **argv);
int jp_cmd_repo(int argc, char **argv);
int jp_cmd_show(int argc, char **argv);
int jp_cmd_runs(int argc, char **argv);
int jp_cmd_cache(int argc, char **argv);
int jp_cmd_stage(int argc, char **argv);

#endif
