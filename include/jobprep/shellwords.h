/* Splitting a POSIX sh command line into simple commands and words, the way
 * the shell would before expansion: quotes and backslashes removed, command
 * separators (; & && || | newline) and $( ) / `...` substitutions opening
 * new commands, leading NAME=value words kept apart as assignments.
 * Reserved words (if then do ! { ...) are dropped; `( )` subshells split
 * commands. Commands inside a substitution precede the one holding it.
 * Here-document bodies are skipped (they are text, not commands). */
#ifndef JOBPREP_SHELLWORDS_H
#define JOBPREP_SHELLWORDS_H

#include <stdbool.h>
#include <stddef.h>

#include "jobprep/error.h"

struct jp_sh_word {
	char *text;   /* unquoted text, owned */
	char *raw;    /* as written in the command, owned */
	bool quoted;  /* some part of it was quoted */
	bool has_var; /* contains an unquoted or double-quoted $ expansion */
	char redir;   /* a redirection target: '>' written, '<' read,
		       * 'h' a here-document delimiter; 0 a plain word */
};

struct jp_sh_command {
	struct jp_sh_word *assigns; /* NAME=value prefixes */
	size_t n_assigns;
	struct jp_sh_word *words;   /* the command and its arguments, then
				     * redirection targets (redir != 0) */
	size_t n_words;
	int depth;                  /* 0: top level; >0: inside $( ) or `...` */
	int line;                   /* the line it starts on, from 1 */
	int compound;               /* if/while/until/for/case/{ }/function bodies
				     * open around it: 0 when it runs unless the
				     * commands before it on its list say otherwise */
	char sep;                   /* what ended it: ';' '&' 'A' (&&) 'O' (||) '|' '\n';
				     * '(' a subshell opening, ')' or '`' a subshell or
				     * substitution closing; or 0 */
};

struct jp_sh_line {
	struct jp_sh_command *cmds; /* in order of appearance */
	size_t n;
	bool unbalanced; /* an unterminated quote or substitution */
};

#define JP_SH_LINE_INIT { NULL, 0, false }

/* The text `s` single-quoted for POSIX sh, every ' written as '\'':
 * 'it'\''s'. *out is the caller's, free with free(). Returns 0 or JP_ENOMEM. */
int jp_sh_quote(char **out, const char *s);

#endif
