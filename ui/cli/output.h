/* What several commands print the same way: a manifest's checks as text
 * (`jobprep check`, `jobprep init`), a JSON document (their --json, and
 * `jobprep scan --json`) on stdout, and an option getopt refused on stderr. */
#ifndef JOBPREP_UI_CLI_OUTPUT_H
#define JOBPREP_UI_CLI_OUTPUT_H

#include "jobprep/manifest.h"

struct cJSON;

/* s made safe for the terminal (jp_text_quote): s itself when it holds no
 * control character, else an escaped copy that stays valid for the next
 * few calls on this thread. jp_cli_text escapes a whole line of text;
 * jp_cli_name quotes a name ("a\nb"). NULL stays NULL. */
const char *jp_cli_text(const char *s);
const char *jp_cli_name(const char *s);
/* "pass", "warn" or "FAIL", translated; static. */
const char *jp_cli_check_label(enum jp_check_status status);
/* Which checks jp_cli_print_checks shows, each as "[label] id: message". */
enum jp_cli_checks {
	JP_CLI_CHECKS_SUMMARY, /* the line of counts, then the warnings, then the failures */
	JP_CLI_CHECKS_QUIET,   /* only the warnings, then the failures (--quiet) */
	JP_CLI_CHECKS_ALL,     /* every check in order, then the counts (--verbose) */
};
void jp_cli_print_checks(const struct jp_manifest *m, enum jp_cli_checks which);
/* m's checks counted by status (counts[JP_CHECK_PASS] ...). */
void jp_cli_count_checks(size_t counts[3], const struct jp_manifest *m);
/* "N passed, N warnings, N failed" and a newline, the plural right. */
void jp_cli_print_counts(const size_t counts[3]);
/* json, indented, and a newline; json stays the caller's. 0, or -1 when
 * json is NULL (a document that could not be built) or memory runs out:
 * then nothing is printed. */
int jp_cli_print_json(const struct cJSON *json);
/* The usage error for an option getopt_long(3) refused: c is what it
 * returned (':' for a missing argument, with ':' leading the option
 * string; else an unknown option), argv[optind - 1] the option. Returns
 * JP_EXIT_USAGE. */
int jp_cli_option_error(const char *cmd, int c, char *const *argv);

struct jp_manifest;
struct jp_error;
struct jp_cli_cmd;
/* `jobprep CMD MANIFEST` for a command that prints one text made from the
 * manifest (env, preflight): its options (--help) as cmd's table says, the
 * usage error, the manifest read, render, and the write to stdout checked.
 * Returns the exit code. */
int jp_cli_print_rendered(const struct jp_cli_cmd *cmd, int argc, char **argv,
			  int (*render)(char **out, const struct jp_manifest *m, struct jp_error *err));

#endif
