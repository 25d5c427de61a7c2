/* What the option tables say to a person: `jobprep CMD --help`, the
 * synopses in `jobprep --help`, the man page's SYNOPSIS and OPTIONS, and
 * the list `jobprep --dump-options` gives the tests. */
#include "config.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "jobprep/i18n.h"
#include "cli.h"
#include "options.h"

#define WIDTH 79      /* the lines of --help end before this column */
#define SUMMARY_AT 8  /* `jobprep --help`: where a command's summary starts */
#define LEFT_MAX 24   /* a wider option column puts its help on the next line */

static bool shown_in_synopsis(const struct jp_cli_opt *o)
{
	return o->kind != JP_OPT_HELP && o->kind != JP_OPT_VERSION;
}

static bool in_form(const struct jp_cli_opt *o, unsigned form)
{
	return shown_in_synopsis(o) && (o->forms == 0 || (o->forms & (1u << form)));
}

static bool form_used(const struct jp_cli_cmd *cmd, unsigned form)
{
	if (form == 0 || cmd->operands[form])
		return true;
	for (size_t i = 0; i < cmd->n_opts; i++)
		if (cmd->opts[i].forms & (1u << form))
			return true;
	return false;
}

/* s appended to buf (size BUFSIZE), cut when it does not fit. */
#define TOKEN_SIZE 256
static void append(char *buf, const char *s)
{
	size_t n = strlen(buf);

	snprintf(buf + n, TOKEN_SIZE - n, "%s", s);
}

/* One option as the synopsis names it: "--profile FILE", "-o MANIFEST". */
static void append_option(char *tok, const struct jp_cli_opt *o)
{
	char name[64];

	if ((o->flags & JP_OPT_SYN_SHORT) && o->short_name)
		snprintf(name, sizeof(name), "-%c", o->short_name);
	else
		snprintf(name, sizeof(name), "--%s", o->name);
	append(tok, name);
	if (o->arg) {
		append(tok, " ");
		append(tok, o->arg);
	}
}

typedef void (*token_fn)(const char *tok, void *payload);

/* The words of one synopsis form after "jobprep CMD": each option or group
 * of options ("[--json | --quiet]"), then the operands. */
static void synopsis_tokens(const struct jp_cli_cmd *cmd, unsigned form, token_fn fn,
			    void *payload)
{
	char tok[TOKEN_SIZE];

	for (size_t i = 0; i < cmd->n_opts;) {
		const struct jp_cli_opt *o = &cmd->opts[i];
		bool required = o->flags & JP_OPT_REQUIRED, first = true;
		size_t j = i;

		if (!in_form(o, form)) {
			i++;
			continue;
		}
		tok[0] = '\0';
		if (!required)
			append(tok, "[");
		do {
			if (in_form(&cmd->opts[j], form)) {
				if (!first)
					append(tok, " | ");
				append_option(tok, &cmd->opts[j]);
				first = false;
			}
			j++;
		} while (o->group && j < cmd->n_opts && cmd->opts[j].group == o->group);
		if (!required)
			append(tok, "]");
		fn(tok, payload);
		i = j;
	}
	if (cmd->operands[form]) {
		const char *s = cmd->operands[form];

		while (*s) {
			size_t n = strcspn(s, " ");

			snprintf(tok, sizeof(tok), "%.*s", (int)n, s);
			fn(tok, payload);
			s += n + strspn(s + n, " ");
		}
	}
}

/* ---- plain text, wrapped ---- */

struct wrap {
	FILE *out;
	size_t col, indent;
};

static void wrap_word(const char *word, void *payload)
{
	struct wrap *w = payload;
	size_t len = strlen(word);

	if (w->col > w->indent && w->col + 1 + len > WIDTH) {
		fprintf(w->out, "\n%*s", (int)w->indent, "");
		w->col = w->indent;
	} else {
		fputc(' ', w->out);
		w->col++;
	}
	fputs(word, w->out);
	w->col += len;
}

/* The display width of s (wide characters count two), its length in bytes
 * when it cannot be told. */
static size_t text_width(const char *s)
{
	size_t n = mbstowcs(NULL, s, 0);
	wchar_t *ws;
	int width = -1;

	if (n != (size_t)-1 && (ws = calloc(n + 1, sizeof(*ws))) != NULL) {
		mbstowcs(ws, s, n + 1);
		width = wcswidth(ws, n);
		free(ws);
	}
	return width < 0 ? strlen(s) : (size_t)width;
}

/* "jobprep CMD OPTIONS... OPERANDS" after `lead` (already printed, `col`
 * columns wide), wrapped with continuation lines at `indent`. */
static void print_synopsis(FILE *out, const struct jp_cli_cmd *cmd, unsigned form, size_t col,
			   size_t indent)
{
	struct wrap w = { out, col, indent };

	fputs("jobprep", out);
	w.col += strlen("jobprep");
	if (cmd->name)
		wrap_word(cmd->name, &w);
	synopsis_tokens(cmd, form, wrap_word, &w);
	fputc('\n', out);
}

/* Wide punctuation (、，。；：） and the like) stays with what is before it. */
static bool wide_punct(wchar_t c)
{
	return (c >= 0x3000 && c <= 0x303f) || (c >= 0xff00 && c <= 0xff0f) ||
	       (c >= 0xff1a && c <= 0xff20) || (c >= 0xff3b && c <= 0xff40) ||
	       (c >= 0xff5b && c <= 0xff65);
}

/* The character at s: its length in bytes (1 for a byte that is none),
 * its width and whether it is wide. */
static size_t char_at(const char *s, wchar_t *c, int *width)
{
	mbstate_t st;
	size_t n;

	memset(&st, 0, sizeof(st));
	n = mbrtowc(c, s, MB_CUR_MAX, &st);
	if (n == 0 || n == (size_t)-1 || n == (size_t)-2) {
		*c = (unsigned char)*s;
		*width = 1;
		return 1;
	}
	*width = wcwidth(*c);
	if (*width < 0)
		*width = 1;
	return n;
}

/* Where the piece of text that starts at s ends, and its width: a word up
 * to a space (or a wide character), or one wide character; either with the
 * punctuation that follows it. */
static const char *piece_end(const char *s, size_t *width)
{
	bool wide_piece = false;
	const char *p = s;
	wchar_t c;
	int w;

	*width = 0;
	while (*p && *p != ' ' && *p != '\n') {
		size_t n = char_at(p, &c, &w);

		if (p != s && w == 2 && !wide_punct(c))
			break; /* a line may break before a wide character */
		if (p != s && wide_piece && w < 2 && !ispunct((unsigned char)*p))
			break; /* and after one */
		if (p == s)
			wide_piece = w == 2;
		*width += (size_t)w;
		p += n;
	}
	return p;
}

/* text (translated) from column col on, wrapped before WIDTH at spaces
 * and between wide characters, each further line at indent; a '\n' in it
 * starts a line too. */
static void print_wrapped(FILE *out, const char *text, size_t col, size_t indent)
{
	bool space = false;

	for (const char *s = text; *s;) {
		size_t width;
		const char *e;

		if (*s == ' ' || *s == '\n') {
			if (*s == '\n') {
				fprintf(out, "\n%*s", (int)indent, "");
				col = indent;
			}
			space = *s == ' ' && col > indent;
			s++;
			continue;
		}
		e = piece_end(s, &width);
		if (col > indent && col + space + width > WIDTH) {
			fprintf(out, "\n%*s", (int)indent, "");
			col = indent;
			space = false;
		}
		if (space)
			fputc(' ', out);
		fwrite(s, 1, (size_t)(e - s), out);
		col += space + width;
		space = false;
		s = e;
	}
	fputc('\n', out);
}

static void option_left(char *left, size_t size, const struct jp_cli_opt *o)
{
	char shortopt[8] = "";

	if (o->short_name)
		snprintf(shortopt, sizeof(shortopt), "-%c, ", o->short_name);
	snprintf(left, size, "%s--%s%s%s", shortopt, o->name, o->arg ? " " : "",
		 o->arg ? o->arg : "");
}

/* The options' lines: "  -o, --output MANIFEST  help", the help's further
 * lines under its first. Only the options `want` takes. */
static void print_options(FILE *out, const struct jp_cli_cmd *cmd,
			  bool (*want)(const struct jp_cli_opt *o))
{
	char left[96];
	size_t column = 0;

	for (size_t i = 0; i < cmd->n_opts; i++) {
		option_left(left, sizeof(left), &cmd->opts[i]);
		if (want(&cmd->opts[i]) && strlen(left) <= LEFT_MAX && strlen(left) > column)
			column = strlen(left);
	}
	column += 4; /* two before, two after */
	for (size_t i = 0; i < cmd->n_opts; i++) {
		if (!want(&cmd->opts[i]))
			continue;
		option_left(left, sizeof(left), &cmd->opts[i]);
		if (strlen(left) + 4 > column)
			fprintf(out, "  %s\n%*s", left, (int)column, "");
		else
			fprintf(out, "  %-*s", (int)column - 2, left);
		print_wrapped(out, _(cmd->opts[i].help), column, column);
	}
}

static bool any_option(const struct jp_cli_opt *o)
{
	(void)o;
	return true;
}

/* "Usage: " as translated, and how wide it shows. */
static size_t usage_lead(char *lead, size_t size)
{
	snprintf(lead, size, _("Usage: %s"), "");
	return text_width(lead);
}

void jp_cli_print_help(const struct jp_cli_cmd *cmd, FILE *out)
{
	char lead[64];
	size_t width = usage_lead(lead, sizeof(lead));

	for (unsigned f = 0; f < JP_CLI_FORMS; f++) {
		if (!form_used(cmd, f))
			continue;
		if (f == 0)
			fputs(lead, out);
		else
			fprintf(out, "%*s", (int)width, "");
		print_synopsis(out, cmd, f, width, width + strlen("jobprep "));
	}
	if (cmd->description)
		fprintf(out, "%s\n", _(cmd->description));
	print_options(out, cmd, any_option);
	if (cmd->footer)
		fprintf(out, "%s\n", _(cmd->footer));
}

static bool wizard_option(const struct jp_cli_opt *o)
{
	return shown_in_synopsis(o);
}

static bool program_option(const struct jp_cli_opt *o)
{
	return !shown_in_synopsis(o);
}

void jp_cli_print_usage(FILE *out)
{
	char lead[64];
	size_t width = usage_lead(lead, sizeof(lead));

	fputs(lead, out);
	print_synopsis(out, &jp_cli_wizard, 0, width, width + strlen("jobprep "));
	fprintf(out, "%s\n", _("       jobprep COMMAND [OPTIONS] [ARGS]"));
	fprintf(out, "\n%s\n\n",
		_("Get a GPU training job ready to submit: code, data and outputs on storage\n"
		  "every Worker can reach, checked, and written down in a JSON job manifest."));
	fprintf(out, "%s\n", _("Without a command, jobprep runs the interactive wizard (needs a terminal)."));
	print_options(out, &jp_cli_wizard, wizard_option);
	fprintf(out, "\n%s\n", _("Commands:"));
	for (size_t i = 0; i < jp_cli_n_commands; i++) {
		const struct jp_cli_cmd *cmd = jp_cli_commands[i];

		for (unsigned f = 0; f < JP_CLI_FORMS; f++) {
			if (!form_used(cmd, f))
				continue;
			/* "  init ...": the command without "jobprep " */
			struct wrap w = { out, 2, SUMMARY_AT };

			fprintf(out, "  %s", cmd->name);
			w.col += strlen(cmd->name);
			synopsis_tokens(cmd, f, wrap_word, &w);
			fputc('\n', out);
		}
		fprintf(out, "%*s%s\n", SUMMARY_AT, "", _(cmd->summary));
	}
	fprintf(out, "\n%s\n", _("Exit status: 0 ok (warnings allowed), 1 a check or the work failed,\n"
				 "2 usage error, 3 the manifest, answers or profile file is unreadable\n"
				 "or invalid, 130 interrupted."));
	fputc('\n', out);
	print_options(out, &jp_cli_wizard, program_option);
}

static void dump_command(FILE *out, const struct jp_cli_cmd *cmd)
{
	for (size_t i = 0; i < cmd->n_opts; i++) {
		const struct jp_cli_opt *o = &cmd->opts[i];

		fprintf(out, "%s\t--%s\t", cmd->name ? cmd->name : "-", o->name);
		if (o->short_name)
			fprintf(out, "-%c", o->short_name);
		else
			fputc('-', out);
		fprintf(out, "\t%s\n", o->arg ? o->arg : "-");
	}
}

void jp_cli_dump_options(FILE *out)
{
	dump_command(out, &jp_cli_wizard);
	for (size_t i = 0; i < jp_cli_n_commands; i++)
		dump_command(out, jp_cli_commands[i]);
}

/* ---- one line per synopsis form, unwrapped ---- */

static void plain_token(const char *tok, void *payload)
{
	fprintf(payload, " %s", tok);
}

static void dump_forms(FILE *out, const struct jp_cli_cmd *cmd)
{
	for (unsigned f = 0; f < JP_CLI_FORMS; f++) {
		if (!form_used(cmd, f))
			continue;
		fputs("jobprep", out);
		if (cmd->name)
			fprintf(out, " %s", cmd->name);
		synopsis_tokens(cmd, f, plain_token, out);
		fputc('\n', out);
	}
}

void jp_cli_dump_synopsis(FILE *out)
{
	dump_forms(out, &jp_cli_wizard);
	for (size_t i = 0; i < jp_cli_n_commands; i++)
		dump_forms(out, jp_cli_commands[i]);
}

/* ---- the man page ---- */

static bool word_char(int c)
{
	return isalnum(c) || c == '-' || c == '_';
}

/* s in bold or italic, each '-' a minus sign. */
static void roff_chars(FILE *out, const char *font, const char *s)
{
	fputs(font, out);
	for (; *s; s++)
		if (*s == '-')
			fputs("\\-", out);
		else if (*s == '\\')
			fputs("\\e", out);
		else
			fputc(*s, out);
	fputs("\\fR", out);
}

/* The same, never hyphenated: "\\%" first in a word forbids it (inside
 * one, after a '[', it would mark a place to break). */
static void roff_word(FILE *out, const char *font, const char *s)
{
	fputs(font, out);
	fputs("\\%", out);
	roff_chars(out, "", s);
}

/* A synopsis token in roff: options and command names bold, argument
 * names (upper case) italic, brackets and bars roman; its spaces do not
 * break the line. */
static void roff_token(const char *tok, void *payload)
{
	FILE *out = payload;
	char word[TOKEN_SIZE];

	fputs(" \\%", out); /* the whole token one word, never hyphenated */
	for (const char *s = tok; *s;) {
		size_t n = 0;

		while (word_char((unsigned char)s[n]))
			n++;
		if (n == 0) {
			if (*s == '\\')
				fputs("\\e", out);
			else if (*s == ' ')
				fputs("\\ ", out); /* a token is not broken across lines */
			else
				fputc(*s, out);
			s++;
			continue;
		}
		snprintf(word, sizeof(word), "%.*s", (int)n, s);
		roff_chars(out, isupper((unsigned char)s[0]) ? "\\fI" : "\\fB", word);
		s += n;
	}
}

static void man_synopsis(FILE *out, const struct jp_cli_cmd *cmd)
{
	for (unsigned f = 0; f < JP_CLI_FORMS; f++) {
		if (!form_used(cmd, f))
			continue;
		fputs("\\fBjobprep\\fR", out);
		if (cmd->name)
			roff_token(cmd->name, out);
		synopsis_tokens(cmd, f, roff_token, out);
		fputs("\n.br\n", out);
	}
}

/* Help text as roff: each line a line (the formatter fills them), a
 * leading control character defused, backslashes escaped, and a '-' that
 * starts an option ("--force", "-o") a minus sign. */
static void roff_text(FILE *out, const char *text)
{
	bool line_start = true;
	int prev = ' ';

	for (const char *s = text; *s; s++) {
		if (line_start && (*s == '.' || *s == '\''))
			fputs("\\&", out);
		line_start = *s == '\n';
		if (*s == '\\')
			fputs("\\e", out);
		else if (*s == '-' && (prev == '-' || isspace(prev) || prev == '(' || prev == '['))
			fputs("\\-", out);
		else
			fputc(*s, out);
		prev = (unsigned char)*s;
	}
	fputc('\n', out);
}

static void man_options(FILE *out, const struct jp_cli_cmd *cmd)
{
	char name[64];

	if (cmd->name)
		fprintf(out, ".SS \"jobprep %s\"\n", cmd->name);
	else
		fputs(".SS \"jobprep (the wizard, and the program)\"\n", out);
	for (size_t i = 0; i < cmd->n_opts; i++) {
		const struct jp_cli_opt *o = &cmd->opts[i];

		fputs(".TP\n", out);
		if (o->short_name) {
			snprintf(name, sizeof(name), "-%c", o->short_name);
			roff_word(out, "\\fB", name);
			fputs(", ", out);
		}
		snprintf(name, sizeof(name), "--%s", o->name);
		roff_word(out, "\\fB", name);
		if (o->arg) {
			fputc(' ', out);
			roff_word(out, "\\fI", o->arg);
		}
		fputc('\n', out);
		roff_text(out, o->help); /* the man page is English */
	}
}

int jp_cli_print_man(FILE *out, FILE *template)
{
	char line[4096];

	while (fgets(line, sizeof(line), template)) {
		/* Option lines are neither hyphenated nor stretched to the
		 * margin: "[\-" at a line's end is not an option a reader can
		 * type. The text after them is filled as usual again. */
		if (strcmp(line, "@SYNOPSIS@\n") == 0) {
			fputs(".nh\n.ad l\n", out);
			man_synopsis(out, &jp_cli_wizard);
			for (size_t i = 0; i < jp_cli_n_commands; i++)
				man_synopsis(out, jp_cli_commands[i]);
			fputs(".ad b\n.hy\n", out);
		} else if (strcmp(line, "@OPTIONS@\n") == 0) {
			fputs(".nh\n.ad l\n", out);
			man_options(out, &jp_cli_wizard);
			for (size_t i = 0; i < jp_cli_n_commands; i++)
				man_options(out, jp_cli_commands[i]);
			fputs(".ad b\n.hy\n", out);
		} else {
			fputs(line, out);
		}
	}
	return ferror(template) ? -1 : 0;
}
