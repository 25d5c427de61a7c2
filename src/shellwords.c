/* Splitting a sh command line into simple commands and words (no expansion). */
#include "config.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "jobprep/i18n.h"
#include "jobprep/shellwords.h"
#include "shellwords_internal.h"

#define MAX_DEPTH 32

#define MAX_HEREDOCS 8

struct parser {
	const char *s;
	size_t i, len;
	struct jp_sh_line *out;
	int oom;
	size_t line_at; /* line_no is the line of s[line_at] */
	int line_no;
	int compound;   /* if/while/... opened and not closed yet */
	/* here-documents whose bodies start after the next newline */
	struct {
		char *delim;
		bool strip_tabs; /* <<- */
	} heredocs[MAX_HEREDOCS];
	int n_heredocs;
	int heredoc; /* the last << was: 1 a here-document, 2 one with <<-, 0 not */
};

/* The line s[at] is on (at never goes back). */
static int line_of(struct parser *p, size_t at)
{
	for (; p->line_at < at && p->line_at < p->len; p->line_at++)
		if (p->s[p->line_at] == '\n')
			p->line_no++;
	return p->line_no;
}

static void word_dispose(struct jp_sh_word *w)
{
	free(w->text);
	free(w->raw);
}

static void command_dispose(struct jp_sh_command *c)
{
	for (size_t i = 0; i < c->n_assigns; i++)
		word_dispose(&c->assigns[i]);
	for (size_t i = 0; i < c->n_words; i++)
		word_dispose(&c->words[i]);
	free(c->assigns);
	free(c->words);
	memset(c, 0, sizeof(*c));
}

void jp_sh_line_dispose(struct jp_sh_line *line)
{
	if (!line)
		return;
	for (size_t i = 0; i < line->n; i++)
		command_dispose(&line->cmds[i]);
	free(line->cmds);
	line->cmds = NULL;
	line->n = 0;
	line->unbalanced = false;
}

static int word_push(struct jp_sh_word **v, size_t *n, struct jp_sh_word *w)
{
	struct jp_sh_word *g = realloc(*v, (*n + 1) * sizeof(**v));
	if (!g)
		return -1;
	*v = g;
	g[(*n)++] = *w;
	memset(w, 0, sizeof(*w));
	return 0;
}

static int peek(const struct parser *p, size_t off)
{
	return p->i + off < p->len ? (unsigned char)p->s[p->i + off] : -1;
}

/* Finish a command: keep it when it has anything in it. */
static void command_end(struct parser *p, struct jp_sh_command *c, char sep)
{
	if (c->n_words == 0 && c->n_assigns == 0) {
		command_dispose(c);
		return;
	}
	c->sep = sep;
	struct jp_sh_command *g = realloc(p->out->cmds, (p->out->n + 1) * sizeof(*g));
	if (!g) {
		p->oom = 1;
		command_dispose(c);
		return;
	}
	p->out->cmds = g;
	g[p->out->n++] = *c;
	memset(c, 0, sizeof(*c));
}

static void parse_list(struct parser *p, int depth, int closer);

static bool is_blank(int c)
{
	return c == ' ' || c == '\t';
}

/* Characters that end an unquoted word. */
static bool is_meta(int c)
{
	return c == -1 || is_blank(c) || c == '\n' || c == ';' || c == '&' || c == '|' ||
	       c == '<' || c == '>' || c == '(' || c == ')';
}

/* A $( ) or `...` substitution starting at p->i (at "$(" or "`"): its
 * commands are parsed at depth+1, its raw text goes into the word. */
static void substitution(struct parser *p, struct jp_buf *text, int depth, bool backtick)
{
	size_t start = p->i;

	p->i += backtick ? 1 : 2;
	if (depth + 1 >= MAX_DEPTH) {
		p->out->unbalanced = true;
		p->i = p->len;
	} else {
		parse_list(p, depth + 1, backtick ? '`' : ')');
	}
	if (jp_buf_addn(text, p->s + start, p->i - start) < 0)
		p->oom = 1;
}

/* $(( ... )): arithmetic, copied as it is. */
static void arithmetic(struct parser *p, struct jp_buf *text)
{
	size_t start = p->i;
	int parens = 0;

	p->i += 1; /* at the first '(' */
	while (p->i < p->len) {
		char c = p->s[p->i++];
		if (c == '(')
			parens++;
		else if (c == ')' && --parens == 0)
			break;
	}
	if (parens != 0)
		p->out->unbalanced = true;
	if (jp_buf_addn(text, p->s + start, p->i - start) < 0)
		p->oom = 1;
}

/* A $ expansion outside single quotes. */
static void dollar(struct parser *p, struct jp_buf *text, struct jp_sh_word *w, int depth)
{
	w->has_var = true;
	if (peek(p, 1) == '(' && peek(p, 2) == '(') {
		arithmetic(p, text);
	} else if (peek(p, 1) == '(') {
		substitution(p, text, depth, false);
	} else if (peek(p, 1) == '{') {
		size_t start = p->i;
		while (p->i < p->len && p->s[p->i] != '}')
			p->i++;
		if (p->i < p->len)
			p->i++;
		else
			p->out->unbalanced = true;
		if (jp_buf_addn(text, p->s + start, p->i - start) < 0)
			p->oom = 1;
	} else {
		size_t start = p->i++;
		if (p->i < p->len && strchr("@*#?$!-0123456789", p->s[p->i])) {
			p->i++;
		} else {
			while (p->i < p->len &&
			       (isalnum((unsigned char)p->s[p->i]) || p->s[p->i] == '_'))
				p->i++;
		}
		if (p->i == start + 1)
			w->has_var = false; /* a lone '$' is literal */
		if (jp_buf_addn(text, p->s + start, p->i - start) < 0)
			p->oom = 1;
	}
}

static void double_quoted(struct parser *p, struct jp_buf *text, struct jp_sh_word *w, int depth)
{
	p->i++; /* the opening quote */
	for (;;) {
		int c = peek(p, 0);
		if (c == -1) {
			p->out->unbalanced = true;
			return;
		}
		if (c == '"') {
			p->i++;
			return;
		}
		if (c == '\\' && peek(p, 1) != -1 && strchr("$`\"\\\n", peek(p, 1))) {
			if (peek(p, 1) != '\n' && jp_buf_addc(text, (char)peek(p, 1)) < 0)
				p->oom = 1;
			p->i += 2;
		} else if (c == '$') {
			dollar(p, text, w, depth);
		} else if (c == '`') {
			w->has_var = true;
			substitution(p, text, depth, true);
		} else {
			if (jp_buf_addc(text, (char)c) < 0)
				p->oom = 1;
			p->i++;
		}
	}
}

/* One word; p->i is at its first character, which is not a meta character. */
static void parse_word(struct parser *p, struct jp_sh_word *w, int depth, int closer)
{
	struct jp_buf text = JP_BUF_INIT;
	size_t start = p->i;

	memset(w, 0, sizeof(*w));
	for (;;) {
		int c = peek(p, 0);
		if (is_meta(c) || (closer == '`' && c == '`'))
			break;
		if (c == '\'') {
			w->quoted = true;
			size_t q = ++p->i;
			while (p->i < p->len && p->s[p->i] != '\'')
				p->i++;
			if (jp_buf_addn(&text, p->s + q, p->i - q) < 0)
				p->oom = 1;
			if (p->i < p->len)
				p->i++;
			else
				p->out->unbalanced = true;
		} else if (c == '"') {
			w->quoted = true;
			double_quoted(p, &text, w, depth);
		} else if (c == '\\') {
			if (peek(p, 1) == -1) {
				p->i++;
			} else if (peek(p, 1) == '\n') {
				p->i += 2;
			} else {
				w->quoted = true;
				if (jp_buf_addc(&text, (char)peek(p, 1)) < 0)
					p->oom = 1;
				p->i += 2;
			}
		} else if (c == '$') {
			dollar(p, &text, w, depth);
		} else if (c == '`') {
			w->has_var = true;
			substitution(p, &text, depth, true);
		} else {
			if (jp_buf_addc(&text, (char)c) < 0)
				p->oom = 1;
			p->i++;
		}
	}
	if (!text.s && jp_buf_addn(&text, "", 0) < 0)
		p->oom = 1;
	w->text = text.s;
	w->raw = strndup(p->s + start, p->i - start);
	if (!w->raw)
		p->oom = 1;
}

static bool is_assignment(const struct jp_sh_word *w)
{
	const char *r = w->raw;

	if (!r || !(isalpha((unsigned char)*r) || *r == '_'))
		return false;
	while (isalnum((unsigned char)*r) || *r == '_')
		r++;
	return *r == '=';
}

static bool is_reserved(const struct jp_sh_word *w)
{
	static const char *const words[] = { "!", "{", "}", "if", "then", "else", "elif",
					     "fi", "do", "done", "while", "until", "time",
					     "esac", NULL };
	if (w->quoted || w->has_var)
		return false;
	for (size_t i = 0; words[i]; i++)
		if (strcmp(w->text, words[i]) == 0)
			return true;
	return false;
}

/* A redirection operator at p->i: digits then < or >, or &>. Returns the
 * kind of its target ('>' '<' 'h' or 'd' for a descriptor dup), 0 if not. */
static char redirection(struct parser *p)
{
	size_t j = p->i;
	char kind;

	while (j < p->len && isdigit((unsigned char)p->s[j]))
		j++;
	if (j < p->len && p->s[j] == '&' && j == p->i && j + 1 < p->len && p->s[j + 1] == '>') {
		j += 2;
		if (j < p->len && p->s[j] == '>')
			j++;
		p->i = j;
		return '>';
	}
	if (j >= p->len || (p->s[j] != '<' && p->s[j] != '>'))
		return 0;
	kind = p->s[j++];
	if (kind == '<' && j < p->len && p->s[j] == '<') {
		j++;
		p->heredoc = 1;
		if (j < p->len && (p->s[j] == '-' || p->s[j] == '<'))
			p->heredoc = p->s[j++] == '-' ? 2 : 0; /* <<- strips tabs; <<< is a string */
		kind = 'h';
	} else if (j < p->len && (p->s[j] == '>' || p->s[j] == '|' || p->s[j] == '&')) {
		if (p->s[j] == '&')
			kind = 'd';
		j++;
	} else if (kind == '<' && j < p->len && p->s[j] == '>') {
		j++;
	}
	p->i = j;
	return kind;
}

/* A here-document's delimiter word: its body starts after the next newline. */
static void heredoc_push(struct parser *p, const struct jp_sh_word *w)
{
	if (p->n_heredocs >= MAX_HEREDOCS || !p->heredoc)
		return;
	if (!(p->heredocs[p->n_heredocs].delim = strdup(w->text))) {
		p->oom = 1;
		return;
	}
	p->heredocs[p->n_heredocs++].strip_tabs = p->heredoc == 2;
}

/* At the start of a line after here-document redirections: skip each body
 * up to the line that is its delimiter. */
static void heredoc_skip(struct parser *p)
{
	for (int k = 0; k < p->n_heredocs; k++) {
		const char *delim = p->heredocs[k].delim;
		size_t n = strlen(delim);

		while (p->i < p->len) {
			size_t start = p->i, end = p->i;
			while (end < p->len && p->s[end] != '\n')
				end++;
			if (p->heredocs[k].strip_tabs)
				while (start < end && p->s[start] == '\t')
					start++;
			p->i = end < p->len ? end + 1 : end;
			if (end - start == n && memcmp(p->s + start, delim, n) == 0)
				break;
		}
		free(p->heredocs[k].delim);
		p->heredocs[k].delim = NULL;
	}
	p->n_heredocs = 0;
}

/* Reserved words that open and close compound commands. */
static void compound_word(struct parser *p, const struct jp_sh_word *w, bool reserved)
{
	static const char *const opens[] = { "if", "while", "until", "{", NULL };
	static const char *const opens_cmd[] = { "for", "case", "select", "function", NULL };
	static const char *const closes[] = { "fi", "done", "}", "esac", NULL };
	const char *const *o = reserved ? opens : opens_cmd;

	if (w->quoted || w->has_var)
		return;
	for (size_t k = 0; o[k]; k++)
		if (strcmp(w->text, o[k]) == 0)
			p->compound++;
	for (size_t k = 0; reserved && closes[k]; k++)
		if (strcmp(w->text, closes[k]) == 0 && p->compound > 0)
			p->compound--;
}

/* The command's first word (or redirection) starts on line `line`. */
static void command_mark(const struct parser *p, struct jp_sh_command *c, int line)
{
	if (c->n_words == 0 && c->n_assigns == 0) {
		c->line = line;
		c->compound = p->compound;
	}
}

/* A command separator c (; & | newline, && || |& ;;) at p->i: the command
 * ends; after a newline, the here-documents it opened are skipped. */
static void separator(struct parser *p, struct jp_sh_command *cmd, int c)
{
	char sep = (char)c;

	p->i++;
	if (c == '&' && peek(p, 0) == '&') {
		sep = 'A';
		p->i++;
	} else if (c == '|' && peek(p, 0) == '|') {
		sep = 'O';
		p->i++;
	} else if ((c == '|' && peek(p, 0) == '&') || (c == ';' && peek(p, 0) == ';')) {
		p->i++;
	}
	command_end(p, cmd, sep);
	if (c == '\n' && p->n_heredocs > 0)
		heredoc_skip(p);
}

/* A word of the command: an assignment before its first word, a reserved
 * word there (dropped), or one of its words. */
static void command_word(struct parser *p, struct jp_sh_command *cmd, struct jp_sh_word *w)
{
	int rc;

	if (cmd->n_words == 0 && is_assignment(w)) {
		rc = word_push(&cmd->assigns, &cmd->n_assigns, w);
	} else if (cmd->n_words == 0 && is_reserved(w)) {
		compound_word(p, w, true);
		word_dispose(w);
		rc = 0;
	} else {
		if (cmd->n_words == 0)
			compound_word(p, w, false);
		rc = word_push(&cmd->words, &cmd->n_words, w);
	}
	if (rc < 0) {
		word_dispose(w);
		p->oom = 1;
	}
}

static void parse_list(struct parser *p, int depth, int closer)
{
	struct jp_sh_command cmd;
	int subshells = 0;

	memset(&cmd, 0, sizeof(cmd));
	cmd.depth = depth;
	while (!p->oom) {
		int c = peek(p, 0);

		if (is_blank(c)) {
			p->i++;
			continue;
		}
		if (c == '\\' && peek(p, 1) == '\n') {
			p->i += 2;
			continue;
		}
		if (c == -1) {
			if (closer)
				p->out->unbalanced = true;
			command_end(p, &cmd, 0);
			return;
		}
		if (closer && c == closer && (closer == '`' || subshells == 0)) {
			p->i++;
			command_end(p, &cmd, (char)closer);
			return;
		}
		if (c == '#') {
			while (p->i < p->len && p->s[p->i] != '\n')
				p->i++;
			continue;
		}
		size_t before = p->i;
		int line = line_of(p, before);
		char kind = redirection(p);
		if (kind) {
			while (is_blank(peek(p, 0)))
				p->i++;
			if (is_meta(peek(p, 0)))
				continue; /* "2>&1" style or a dangling operator */
			struct jp_sh_word w;
			command_mark(p, &cmd, line);
			parse_word(p, &w, depth, closer);
			if (kind == 'd') {
				word_dispose(&w);
				continue;
			}
			if (kind == 'h')
				heredoc_push(p, &w);
			w.redir = kind;
			if (word_push(&cmd.words, &cmd.n_words, &w) < 0) {
				word_dispose(&w);
				p->oom = 1;
			}
			continue;
		}
		p->i = before;
		if (c == '(') {
			p->i++;
			subshells++;
			command_end(p, &cmd, '(');
			cmd.depth = depth;
			continue;
		}
		if (c == ')') {
			p->i++;
			if (subshells > 0)
				subshells--;
			command_end(p, &cmd, ')');
			cmd.depth = depth;
			continue;
		}
		if (c == '\n' || c == ';' || c == '&' || c == '|') {
			separator(p, &cmd, c);
			cmd.depth = depth;
			continue;
		}

		struct jp_sh_word w;
		command_mark(p, &cmd, line);
		parse_word(p, &w, depth, closer);
		if (p->i == before) {
			/* a character we do not know how to read: skip it */
			word_dispose(&w);
			p->i++;
			continue;
		}
		command_word(p, &cmd, &w);
	}
	command_dispose(&cmd);
}

int jp_sh_split(struct jp_sh_line *out, const char *line, struct jp_error *err)
{
	struct parser p;

	memset(&p, 0, sizeof(p));
	p.s = line ? line : "";
	p.len = strlen(p.s);
	p.out = out;
	p.line_no = 1;
	out->cmds = NULL;
	out->n = 0;
	out->unbalanced = false;
	parse_list(&p, 0, 0);
	for (int k = 0; k < p.n_heredocs; k++)
		free(p.heredocs[k].delim);
	if (p.oom) {
		jp_sh_line_dispose(out);
		return jp_error_oom(err);
	}
	return 0;
}

int jp_sh_quote(char **out, const char *s)
{
	size_t n = 2, o = 0;
	char *q;

	for (const char *p = s; *p; p++)
		n += *p == '\'' ? 4 : 1;
	q = malloc(n + 1);
	*out = q;
	if (!q)
		return JP_ENOMEM;
	q[o++] = '\'';
	for (const char *p = s; *p; p++) {
		if (*p == '\'') {
			/* close the quote, an escaped quote, reopen */
			memcpy(q + o, "'\\''", 4);
			o += 4;
		} else {
			q[o++] = *p;
		}
	}
	q[o++] = '\'';
	q[o] = '\0';
	return 0;
}
