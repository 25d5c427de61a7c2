/* Inside the launch-command lint (lint.c, lint_rules.c, lint_walk.c,
 * lint_stage.c, lint_findings.c, lint_vars.c): the state of one lint run, a
 * simple command's words, and what the files share. Not for the front ends:
 * they use jobprep/lint.h. */
#ifndef JOBPREP_LINT_INTERNAL_H
#define JOBPREP_LINT_INTERNAL_H

#include <ctype.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "jobprep/lint.h"
#include "mountinfo.h"
#include "jobprep/shellwords.h"
#include "jobprep/strv.h"

#define MAX_NESTING 4                 /* sh -c "sh -c ..." looked into */
#define SYNC_READ_BYTES (1024 * 1024) /* what is read of a script or code file */

struct var {
	char *name;
	char *value;
};

struct lint {
	struct jp_lint_report *out;
	const struct jp_lint_context *ctx;
	struct var *vars; /* assignments seen so far, and the job's variables */
	size_t n_vars;
	char *cwd;        /* NULL: unknown (the job's starting directory) */
	int oom;
	int warned_relative;
	struct jp_strv code_remotes; /* `git remote add NAME URL` of the code */
	struct jp_mount_table mounts; /* read once, when a path needs it */
	int mounts_state;             /* 0 not read, 1 read, -1 unreadable */
	/* launch_clone: how far the command got with the pinned clone */
	enum { CLONE_NONE, CLONE_SOURCE, CLONE_PINNED } clone_state;
	bool fetched_commit; /* a `git fetch` of the commit: FETCH_HEAD is it */
	char *ran_first;     /* the first program run before the pin; NULL: none */
	/* the scripts the command runs that could be looked at, and whether
	 * one could not (in an image, relative, missing) */
	struct jp_strv scripts;
	bool script_unseen;
};

/* A simple command's words, redirections left out. */
struct cmd {
	const struct jp_sh_word **args; /* non-redirection words */
	size_t n;
	const struct jp_sh_command *sh;
};

static inline const char *base_name(const char *s)
{
	const char *slash = strrchr(s, '/');
	return slash ? slash + 1 : s;
}

static inline bool starts_with(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

static inline const char *arg(const struct cmd *c, size_t i)
{
	return i < c->n ? c->args[i]->text : NULL;
}

static inline bool is_option(const char *s)
{
	return s && s[0] == '-' && s[1] != '\0';
}

/* The first word that is not an option, from `i` on; c->n if none. */
static inline size_t first_operand(const struct cmd *c, size_t i)
{
	while (i < c->n && is_option(c->args[i]->text))
		i++;
	return i;
}

static inline bool is_python(const char *name)
{
	if (!starts_with(name, "python"))
		return false;
	for (const char *p = name + 6; *p; p++)
		if (!isdigit((unsigned char)*p) && *p != '.')
			return false;
	return true;
}

static inline bool is_shell(const char *name)
{
	return strcmp(name, "bash") == 0 || strcmp(name, "sh") == 0 || strcmp(name, "zsh") == 0 ||
	       strcmp(name, "dash") == 0 || strcmp(name, "ksh") == 0;
}

/* lint_findings.c: a finding (one per kind and word; L->oom when memory ran
 * out). */
void jp_lint_add(struct lint *L, enum jp_lint_kind kind, const char *word, const char *path,
		 const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* lint_vars.c: variable name (its first len bytes) is value (NULL: set to
 * something not known) from here on; L->oom when memory ran out. */
void jp_lint_var_set(struct lint *L, const char *name, size_t len, const char *value);
/* lint_vars.c: the word's text with the variables known so far; NULL when it
 * holds one that is not known (or memory ran out). Free it. */
char *jp_lint_expand(const struct lint *L, const struct jp_sh_word *w);
/* lint.c: a script the command runs must exist (and be executable when run
 * directly). */
void jp_lint_check_script(struct lint *L, const struct jp_sh_word *w, bool need_exec);
/* lint.c: every command of a line (sh -c's argument, nesting deep). */
void jp_lint_line(struct lint *L, const char *line, int nesting);

/* lint_hub.c: the Python files among L->scripts, and the project's modules
 * they import, looked at (bounded in time) for downloads from the Hugging
 * Face Hub at job start (launch.hub_download). */
void jp_lint_hub(struct lint *L);

/* lint_stage.c: `jobprep stage 'SOURCE' 'DEST'` for what the command at
 * c's word i fetches (url: its first http(s) operand) or unpacks (its first
 * archive operand): into the folder it names itself, else the first data
 * source, else {shared}/datasets/{name}. NULL when it names no such source
 * (or memory ran out). Free it. */
char *jp_lint_stage_line(struct lint *L, const struct cmd *c, size_t i, bool url);
/* lint_rules.c: what the program at c's word i does (downloads, installs,
 * unpacking, scripts it runs), by the rules tables. */
void jp_lint_program(struct lint *L, const struct cmd *c, size_t i, int nesting);
/* lint_rules.c: the index of git's subcommand, `git` being at i (global
 * options skipped); of `git clone`'s repository operand, `clone` at sub. */
size_t jp_lint_git_subcommand(const struct cmd *c, size_t i);
size_t jp_lint_clone_url_index(const struct cmd *c, size_t sub);

/* lint_walk.c: the first SYNC_READ_BYTES of the regular file at path,
 * NUL-terminated (NULL when it cannot be read); *n its length. */
char *jp_lint_read_head(const char *path, size_t *n);

#endif
