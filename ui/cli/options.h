/* The command line's option tables: one per command, the only place a
 * command's options are written down (like tmux's cmd_entry and git's
 * parse-options). Each entry names the option (long, short, its argument),
 * says what it does (the --help text) and what it sets in the command's own
 * arguments struct. The same table drives getopt_long(3)
 * (jp_cli_parse_options), `jobprep CMD --help`, the synopsis in `jobprep
 * --help`, the man page's SYNOPSIS and OPTIONS (jp_cli_print_man, at build
 * time) and `jobprep --dump-options` (for the tests and the completion
 * scripts' drift check): none of them can list an option the parser does
 * not take, or miss one it does. */
#ifndef JOBPREP_UI_CLI_OPTIONS_H
#define JOBPREP_UI_CLI_OPTIONS_H

#include <stddef.h>
#include <stdio.h>

/* What an option does to the command's arguments struct, at `at`. */
enum jp_cli_opt_kind {
	JP_OPT_TRUE,    /* bool = true */
	JP_OPT_STRING,  /* const char * = the argument */
	JP_OPT_SET,     /* int (or an enum) = value */
	JP_OPT_UINT,    /* unsigned = the argument, a number from min to max */
	JP_OPT_CALL,    /* parse(field, argument) */
	JP_OPT_HELP,    /* print the command's --help, exit 0 */
	JP_OPT_VERSION, /* print the version, exit 0 */
};

/* flags */
#define JP_OPT_REQUIRED 1u    /* the synopsis shows it without [ ] */
#define JP_OPT_SYN_SHORT 2u   /* the synopsis names it by its short form */

struct jp_cli_opt {
	const char *name;     /* long name, without "--" */
	int short_name;       /* 'o' for -o, or 0 */
	const char *arg;      /* the argument's name ("FILE"), NULL: takes none */
	const char *help;     /* N_(); a '\n' starts another line of it */
	enum jp_cli_opt_kind kind;
	size_t at;            /* offsetof the field it sets */
	int value;            /* JP_OPT_SET */
	unsigned min, max;    /* JP_OPT_UINT */
	const char *range;    /* JP_OPT_UINT: N_() usage error, %s the argument */
	/* JP_OPT_CALL: store arg in field; 0, or the exit code after a usage
	 * error (jp_cli_usage_error(cmd, ...)). */
	int (*parse)(void *field, const char *arg, const char *cmd);
	unsigned forms;       /* the synopsis forms it appears in (bits); 0: every one */
	int group;            /* neighbours of one non-zero group: [--a | --b] */
	unsigned flags;       /* JP_OPT_REQUIRED, JP_OPT_SYN_SHORT */
};

/* The --help entry every command has. */
#define JP_OPT_HELP_ENTRY                                                              \
	{ .name = "help", .short_name = 'h', .help = N_("show this help"), .kind = JP_OPT_HELP }

#define JP_CLI_FORMS 2

struct jp_cli_cmd {
	const char *name; /* NULL: the wizard (`jobprep [OPTIONS]`) */
	int (*run)(int argc, char **argv);
	const char *summary;     /* N_(): its line in `jobprep --help` */
	/* Each synopsis form's operands after the options ("MANIFEST"); a
	 * form is used when it has operands or an option of its own. */
	const char *operands[JP_CLI_FORMS];
	const char *description; /* N_(): `CMD --help` after the usage */
	const char *footer;      /* N_() after the options, or NULL */
	const struct jp_cli_opt *opts;
	size_t n_opts;
};

#define JP_CLI_N(table) (sizeof(table) / sizeof((table)[0]))

/* Read argv's options (argv[0] is the command's name) into args as cmd's
 * table says; stops at the first operand or "--". Returns -1 with optind
 * at the first operand, or the exit code to return now: 0 after --help or
 * --version, JP_EXIT_USAGE after a usage error on stderr (an unknown
 * option, a missing or a bad argument). */
int jp_cli_parse_options(const struct jp_cli_cmd *cmd, int argc, char **argv, void *args);

/* The commands `jobprep --help` lists, in its order; the wizard's entry. */
extern const struct jp_cli_cmd *const jp_cli_commands[];
extern const size_t jp_cli_n_commands;
extern const struct jp_cli_cmd jp_cli_wizard;

/* `jobprep CMD --help`: the usage lines, the description, the options. */
void jp_cli_print_help(const struct jp_cli_cmd *cmd, FILE *out);
/* `jobprep --help`. */
void jp_cli_print_usage(FILE *out);
/* `jobprep --dump-options`: one line per option of every command,
 * "COMMAND<TAB>--long<TAB>-s<TAB>ARG" (COMMAND "-" for the wizard, "-" for
 * no short or no argument). */
void jp_cli_dump_options(FILE *out);
/* `jobprep --dump-synopsis`: each synopsis form on one line, "jobprep CMD
 * ..." as `jobprep --help` shows it unwrapped (docs/reference.md's list is this). */
void jp_cli_dump_synopsis(FILE *out);
/* Copy template to out, "@SYNOPSIS@" and "@OPTIONS@" lines replaced by the
 * man page's (roff) synopsis and options of every command. 0, or -1 when
 * the template cannot be read. */
int jp_cli_print_man(FILE *out, FILE *template);

#endif
