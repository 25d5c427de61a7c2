/* The option tables read by getopt_long(3): what each option sets. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "jobprep/i18n.h"
#include "jobprep/suggest.h"
#include "cli.h"
#include "options.h"
#include "output.h"

/* getopt_long's value for table entry i: past every byte a short option
 * can be, so a long-only option cannot be mistaken for one. */
#define OPT_VAL(i) (256 + (int)(i))

static int parse_uint(const struct jp_cli_opt *o, unsigned *field, const char *arg,
		      const char *cmd)
{
	unsigned long n;
	char *end;

	errno = 0;
	n = strtoul(arg, &end, 10);
	if (errno || end == arg || *end || arg[0] == '-' || n < o->min || n > o->max)
		return jp_cli_usage_error(cmd, _(o->range), arg);
	*field = (unsigned)n;
	return 0;
}

/* Apply option o with argument arg (NULL when it takes none). -1 to go on,
 * else the exit code. */
static int apply(const struct jp_cli_cmd *cmd, const struct jp_cli_opt *o, const char *arg,
		 void *args)
{
	void *field = (char *)args + o->at;
	int rc;

	switch (o->kind) {
	case JP_OPT_TRUE:
		*(bool *)field = true;
		return -1;
	case JP_OPT_STRING:
		*(const char **)field = arg;
		return -1;
	case JP_OPT_SET:
		*(int *)field = o->value;
		return -1;
	case JP_OPT_UINT:
		rc = parse_uint(o, field, arg, cmd->name);
		return rc ? rc : -1;
	case JP_OPT_CALL:
		rc = o->parse(field, arg, cmd->name);
		return rc ? rc : -1;
	case JP_OPT_HELP:
		if (cmd->name)
			jp_cli_print_help(cmd, stdout);
		else
			jp_cli_print_usage(stdout);
		return JP_EXIT_OK;
	case JP_OPT_VERSION:
		jp_cli_print_version(stdout);
		return JP_EXIT_OK;
	}
	return -1;
}

/* The long option of cmd nearest to an unknown "--name[=value]", or NULL. */
static const char *near_option(const struct jp_cli_cmd *cmd, const char *given)
{
	char name[64];
	struct jp_suggest near;

	if (strncmp(given, "--", 2) != 0)
		return NULL;
	snprintf(name, sizeof(name), "%.*s", (int)strcspn(given + 2, "="), given + 2);
	jp_suggest_init(&near, name);
	for (size_t i = 0; i < cmd->n_opts; i++)
		jp_suggest_add(&near, cmd->opts[i].name);
	return jp_suggest_best(&near);
}

/* What getopt_long refused: c is ':' (a missing argument) or '?'. */
static int refused(const struct jp_cli_cmd *cmd, int c, char **argv)
{
	const char *best = c == '?' ? near_option(cmd, argv[optind - 1]) : NULL;

	if (best)
		return jp_cli_usage_error(cmd->name, _("unknown option '%s'; did you mean '--%s'?"),
					  argv[optind - 1], best);
	if (c == '?' && !cmd->name)
		return jp_cli_usage_error(NULL, _("unknown option '%s' for the wizard"),
					  argv[optind - 1]);
	return jp_cli_option_error(cmd->name, c, argv);
}

int jp_cli_parse_options(const struct jp_cli_cmd *cmd, int argc, char **argv, void *args)
{
	struct option *longopts = calloc(cmd->n_opts + 1, sizeof(*longopts));
	/* "+": stop at the first operand (a URL, a path); ":": report a missing
	 * argument as such; then each short option, ':' when it takes one. */
	char *shorts = malloc(2 + 2 * cmd->n_opts + 1), *p;
	int c, rc = -1;

	if (!longopts || !shorts) {
		free(longopts);
		free(shorts);
		return jp_cli_report_oom(cmd->name);
	}
	p = shorts;
	*p++ = '+';
	*p++ = ':';
	for (size_t i = 0; i < cmd->n_opts; i++) {
		const struct jp_cli_opt *o = &cmd->opts[i];

		longopts[i] = (struct option){ o->name, o->arg ? required_argument : no_argument,
					       NULL, OPT_VAL(i) };
		if (o->short_name) {
			*p++ = (char)o->short_name;
			if (o->arg)
				*p++ = ':';
		}
	}
	*p = '\0';

	optind = 0; /* GNU: start over on this argv */
	opterr = 0;
	while (rc < 0 && (c = getopt_long(argc, argv, shorts, longopts, NULL)) != -1) {
		const struct jp_cli_opt *o = NULL;

		if (c >= OPT_VAL(0) && c < OPT_VAL(cmd->n_opts))
			o = &cmd->opts[c - OPT_VAL(0)];
		for (size_t i = 0; !o && c > 0 && c < 256 && i < cmd->n_opts; i++)
			if (cmd->opts[i].short_name == c)
				o = &cmd->opts[i];
		rc = o ? apply(cmd, o, optarg, args) : refused(cmd, c, argv);
	}
	free(longopts);
	free(shorts);
	return rc;
}
