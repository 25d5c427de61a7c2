/* The launch lint's rules for the programs a command runs: which program
 * downloads, installs or unpacks at job start, which runs a script that
 * must exist. Two tables, looked up by the program's base name: the
 * programs (first), then, for a program not named by a path, the unpacking
 * tools. A new tool is a row (and a check function when it needs one). */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobprep/git.h"
#include "jobprep/i18n.h"
#include "lint_internal.h"
#include "manifest_internal.h"

/* Words that only ask a tool about itself. */
static bool only_info_options(const struct cmd *c, size_t from)
{
	static const char *const info[] = { "--version", "-V", "--help", "-h", "version", "help",
					    NULL };
	if (from >= c->n)
		return true;
	for (size_t i = from; i < c->n; i++) {
		size_t k;
		for (k = 0; info[k]; k++)
			if (strcmp(c->args[i]->text, info[k]) == 0)
				break;
		if (!info[k])
			return false;
	}
	return true;
}

static bool is_pip(const char *name)
{
	return strcmp(name, "pip") == 0 || strcmp(name, "pip3") == 0 ||
	       (starts_with(name, "pip3.") && isdigit((unsigned char)name[5]));
}

static void download(struct lint *L, const char *word)
{
	jp_lint_add(L, JP_LINT_DOWNLOAD, word, NULL,
	    _("'%s' downloads at job start, while the GPUs wait: fetch it onto shared storage "
	      "before submitting"),
	    word);
}

static void install(struct lint *L, const char *word)
{
	jp_lint_add(L, JP_LINT_INSTALL, word, NULL,
	    _("'%s' installs packages at job start, while the GPUs wait: put them in the image "
	      "(or an environment on shared storage) before submitting"),
	    word);
}

static void unpack(struct lint *L, const char *word)
{
	jp_lint_add(L, JP_LINT_UNPACK, word, NULL,
	    _("'%s' unpacks an archive at job start, while the GPUs wait: unpack it onto shared "
	      "storage before submitting"),
	    word);
}

/* A download the job would make: which `jobprep stage` line makes it first. */
static void download_at(struct lint *L, const char *word, const struct cmd *c, size_t i)
{
	char *line = jp_lint_stage_line(L, c, i, true);

	if (!line) {
		download(L, word);
		return;
	}
	jp_lint_add(L, JP_LINT_DOWNLOAD, word, NULL,
	    _("'%s' downloads at job start, while the GPUs wait: stage it onto shared storage "
	      "before submitting with: %s"),
	    word, line);
	free(line);
}

/* An unpack the job would make: which `jobprep stage` line makes it first. */
static void unpack_at(struct lint *L, const char *word, const struct cmd *c, size_t i)
{
	char *line = jp_lint_stage_line(L, c, i, false);

	if (!line) {
		unpack(L, word);
		return;
	}
	jp_lint_add(L, JP_LINT_UNPACK, word, NULL,
	    _("'%s' unpacks an archive at job start, while the GPUs wait: unpack it onto shared "
	      "storage before submitting with: %s"),
	    word, line);
	free(line);
}

size_t jp_lint_git_subcommand(const struct cmd *c, size_t i)
{
	i++;
	while (i < c->n && is_option(c->args[i]->text)) {
		const char *a = c->args[i]->text;
		i += (strcmp(a, "-C") == 0 || strcmp(a, "-c") == 0) ? 2 : 1;
	}
	return i;
}

size_t jp_lint_clone_url_index(const struct cmd *c, size_t sub)
{
	size_t u = sub + 1;

	/* options of clone that take a value */
	while (u < c->n && is_option(c->args[u]->text)) {
		const char *a = c->args[u]->text;
		bool value = strcmp(a, "-b") == 0 || strcmp(a, "--branch") == 0 ||
			     strcmp(a, "--depth") == 0 || strcmp(a, "-o") == 0 ||
			     strcmp(a, "--origin") == 0 || strcmp(a, "-c") == 0 ||
			     strcmp(a, "--config") == 0 || strcmp(a, "--reference") == 0 ||
			     strcmp(a, "-j") == 0 || strcmp(a, "--filter") == 0 ||
			     strcmp(a, "--revision") == 0;
		u += value ? 2 : 1;
	}
	return u;
}

static void lint_git(struct lint *L, const struct cmd *c, size_t i)
{
	i = jp_lint_git_subcommand(c, i);
	const char *sub = arg(c, i);
	if (!sub)
		return;
	if (strcmp(sub, "clone") == 0) {
		size_t u = jp_lint_clone_url_index(c, i);
		const char *url = arg(c, u);
		char *e = u < c->n ? jp_lint_expand(L, c->args[u]) : NULL;
		bool pinned = jp_url_same_repo(e, L->ctx->code_repo_url);
		free(e);
		if (url && !pinned)
			jp_lint_add(L, JP_LINT_DOWNLOAD, "git clone", NULL,
			    _("'git clone' fetches a repository at job start, while the GPUs wait: clone "
			      "it onto shared storage before submitting (only a light, pinned clone of "
			      "the code belongs in the launch command)"));
	} else if (strcmp(sub, "remote") == 0 && arg(c, i + 1) && strcmp(arg(c, i + 1), "add") == 0) {
		/* the pinned clone's "git remote add origin URL": fetches from it are expected */
		size_t u = first_operand(c, i + 2);
		char *e = u + 1 < c->n ? jp_lint_expand(L, c->args[u + 1]) : NULL;
		if (jp_url_same_repo(e, L->ctx->code_repo_url) &&
		    jp_strv_push(&L->code_remotes, c->args[u]->text) < 0)
			L->oom = 1;
		free(e);
	} else if (strcmp(sub, "pull") == 0 || strcmp(sub, "fetch") == 0) {
		size_t u = i + 1;
		while (u < c->n && is_option(c->args[u]->text)) {
			const char *a = c->args[u]->text;
			bool value = strcmp(a, "--depth") == 0 || strcmp(a, "-j") == 0 ||
				     strcmp(a, "--jobs") == 0 || strcmp(a, "--deepen") == 0;
			u += value ? 2 : 1;
		}
		const char *remote = arg(c, u);
		for (size_t k = 0; remote && k < L->code_remotes.n; k++)
			if (strcmp(L->code_remotes.v[k], remote) == 0)
				return;
		char *e = remote ? jp_lint_expand(L, c->args[u]) : NULL;
		bool pinned = jp_url_same_repo(e, L->ctx->code_repo_url);
		free(e);
		if (pinned)
			return;
		char word[32];
		snprintf(word, sizeof(word), "git %s", sub);
		download(L, word);
	} else if (strcmp(sub, "lfs") == 0 && arg(c, i + 1) &&
		   (strcmp(arg(c, i + 1), "pull") == 0 || strcmp(arg(c, i + 1), "fetch") == 0)) {
		char word[32];
		snprintf(word, sizeof(word), "git lfs %s", arg(c, i + 1));
		download(L, word);
	}
}

static void lint_pip(struct lint *L, const struct cmd *c, size_t sub, const char *tool)
{
	sub = first_operand(c, sub);
	const char *s = arg(c, sub);
	char word[64];

	if (s && (strcmp(s, "install") == 0 || strcmp(s, "download") == 0)) {
		snprintf(word, sizeof(word), "%s %s", tool, s);
		install(L, word);
	}
}

static void lint_python(struct lint *L, const struct cmd *c, size_t i, int nesting)
{
	size_t j = i + 1;

	while (j < c->n && is_option(c->args[j]->text)) {
		const char *a = c->args[j]->text;
		if (strcmp(a, "-c") == 0)
			return; /* Python code, not a script */
		if (strcmp(a, "-m") == 0) {
			const char *mod = arg(c, j + 1);
			if (!mod)
				return;
			if (strcmp(mod, "pip") == 0) {
				lint_pip(L, c, j + 2, "pip");
			} else if (strcmp(mod, "torch.distributed.run") == 0 ||
				   strcmp(mod, "torch.distributed.launch") == 0) {
				for (size_t k = j + 2; k < c->n; k++) {
					const char *t = c->args[k]->text;
					size_t n = strlen(t);
					if (n > 3 && strcmp(t + n - 3, ".py") == 0) {
						jp_lint_check_script(L, c->args[k], 0, nesting);
						jp_lint_operands(L, c, k);
						break;
					}
				}
			} else {
				jp_lint_module(L, c, j + 1);
				jp_lint_operands(L, c, j + 1);
			}
			return;
		}
		j += (strcmp(a, "-W") == 0 || strcmp(a, "-X") == 0) ? 2 : 1;
	}
	if (j < c->n) {
		jp_lint_check_script(L, c->args[j], 0, nesting);
		jp_lint_operands(L, c, j);
	}
}

/* torchrun, deepspeed, accelerate launch: the first .py or .sh operand. */
static void lint_launcher(struct lint *L, const struct cmd *c, size_t i, int nesting)
{
	for (size_t k = i + 1; k < c->n; k++) {
		const char *t = c->args[k]->text;
		size_t n = strlen(t);
		if (t[0] != '-' && ((n > 3 && strcmp(t + n - 3, ".py") == 0) ||
				    (n > 3 && strcmp(t + n - 3, ".sh") == 0))) {
			jp_lint_config_options(L, c, i + 1, k);
			jp_lint_check_script(L, c->args[k], t[n - 2] == 's' ? 's' : 0, nesting);
			jp_lint_operands(L, c, k);
			return;
		}
		/* torchrun -m pkg.train, deepspeed --module pkg.train */
		if ((strcmp(t, "-m") == 0 || strcmp(t, "--module") == 0) && k + 1 < c->n) {
			jp_lint_config_options(L, c, i + 1, k);
			jp_lint_module(L, c, k + 1);
			jp_lint_operands(L, c, k + 1);
			return;
		}
	}
}

static void lint_shell(struct lint *L, const struct cmd *c, size_t i, int nesting)
{
	size_t j = i + 1;

	while (j < c->n && is_option(c->args[j]->text)) {
		const char *a = c->args[j]->text;
		if (strcmp(a, "-c") == 0) {
			if (j + 1 < c->n && nesting < MAX_NESTING)
				jp_lint_line(L, c->args[j + 1]->text, nesting + 1, NULL);
			return;
		}
		j += (strcmp(a, "-o") == 0 || strcmp(a, "+o") == 0) ? 2 : 1;
	}
	if (j < c->n) {
		jp_lint_check_script(L, c->args[j], 's', nesting);
		jp_lint_operands(L, c, j);
	}
}


/* ---- the programs ---- */

/* What one rule looks at: the program at c's word i, named `name`. */
typedef void rule_fn(struct lint *L, const struct cmd *c, size_t i, const char *name,
		     int nesting);

static void rule_download(struct lint *L, const struct cmd *c, size_t i, const char *name,
			  int nesting)
{
	(void)nesting;
	if (!only_info_options(c, i + 1))
		download_at(L, name, c, i);
}

static void rule_git(struct lint *L, const struct cmd *c, size_t i, const char *name, int nesting)
{
	(void)name;
	(void)nesting;
	lint_git(L, c, i);
}

static void rule_pip(struct lint *L, const struct cmd *c, size_t i, const char *name, int nesting)
{
	(void)nesting;
	lint_pip(L, c, i + 1, name);
}

static void rule_uv_pip(struct lint *L, const struct cmd *c, size_t i, const char *name,
			int nesting)
{
	(void)name;
	(void)nesting;
	lint_pip(L, c, i + 2, "uv pip");
}

/* "TOOL SUB" when the first operand (after `skip`, e.g. conda's "env") is
 * one of subs: report it with `report`. */
static void subcommand_finding(struct lint *L, const struct cmd *c, size_t i, const char *name,
			       const char *skip, const char *const *subs,
			       void (*report)(struct lint *L, const char *word))
{
	size_t s = first_operand(c, i + 1);
	const char *sub = arg(c, s);
	char word[64];

	if (sub && skip && strcmp(sub, skip) == 0)
		sub = arg(c, first_operand(c, s + 1));
	for (size_t k = 0; sub && subs[k]; k++) {
		if (strcmp(sub, subs[k]) == 0) {
			snprintf(word, sizeof(word), "%s %s", name, sub);
			report(L, word);
			return;
		}
	}
}

static void rule_conda(struct lint *L, const struct cmd *c, size_t i, const char *name,
		       int nesting)
{
	static const char *const subs[] = { "install", "create", "update", NULL };

	(void)nesting;
	subcommand_finding(L, c, i, name, "env", subs, install);
}

static void rule_system_packages(struct lint *L, const struct cmd *c, size_t i, const char *name,
				 int nesting)
{
	static const char *const subs[] = { "install", "update", "upgrade", "dist-upgrade", "add",
					    NULL };

	(void)nesting;
	subcommand_finding(L, c, i, name, NULL, subs, install);
}

/* `huggingface-cli login`, `hf auth login`, `wandb login`: a prompt for a
 * token unless one is given (--token, wandb's key operand or
 * WANDB_API_KEY): with no terminal the job waits, or stops. */
static void login(struct lint *L, const struct cmd *c, size_t i, const char *name)
{
	size_t s = first_operand(c, i + 1);
	bool wandb = strcmp(name, "wandb") == 0;
	char word[64];

	if (arg(c, s) && strcmp(arg(c, s), "auth") == 0)
		s = first_operand(c, s + 1);
	if (!arg(c, s) || strcmp(arg(c, s), "login") != 0)
		return;
	for (size_t k = s + 1; k < c->n; k++) {
		const char *a = c->args[k]->text;
		if (starts_with(a, "--token") || (wandb && !is_option(a)))
			return;
	}
	if (wandb && jp_lint_job_has(L, "WANDB_API_KEY"))
		return;
	snprintf(word, sizeof(word), "%s login", name);
	jp_lint_fail(L, JP_LINT_PROMPT, word, NULL,
	    _("'%s' asks for a token at the keyboard when the job starts, and nobody will type "
	      "it: the job waits (or stops); leave it out and set %s in job.env (as a secret), "
	      "or log in on the image beforehand"),
	    word, wandb ? "WANDB_API_KEY" : "HF_TOKEN");
}

static void rule_hub_download(struct lint *L, const struct cmd *c, size_t i, const char *name,
			      int nesting)
{
	static const char *const subs[] = { "download", NULL };

	(void)nesting;
	login(L, c, i, name);
	subcommand_finding(L, c, i, name, NULL, subs, download);
}

static void rule_login(struct lint *L, const struct cmd *c, size_t i, const char *name,
		       int nesting)
{
	(void)nesting;
	login(L, c, i, name);
}

static void rule_python(struct lint *L, const struct cmd *c, size_t i, const char *name,
			int nesting)
{
	(void)name;
	lint_python(L, c, i, nesting);
}

static void rule_launcher(struct lint *L, const struct cmd *c, size_t i, const char *name,
			  int nesting)
{
	(void)name;
	lint_launcher(L, c, i, nesting);
}

static void rule_shell(struct lint *L, const struct cmd *c, size_t i, const char *name,
		       int nesting)
{
	(void)name;
	lint_shell(L, c, i, nesting);
}

static void rule_source(struct lint *L, const struct cmd *c, size_t i, const char *name,
			int nesting)
{
	(void)name;
	if (i + 1 < c->n)
		jp_lint_check_script(L, c->args[i + 1], '.', nesting);
}

/* ---- the unpacking tools ---- */

static void rule_tar(struct lint *L, const struct cmd *c, size_t i, const char *name, int nesting)
{
	const char *first = arg(c, i + 1);

	(void)name;
	(void)nesting;
	if (first && first[0] != '-' && strchr(first, 'x')) {
		unpack_at(L, "tar", c, i);
		return;
	}
	for (size_t k = i + 1; k < c->n; k++) {
		const char *a = c->args[k]->text;
		bool letters = a[0] == '-' && a[1] != '-' && strchr(a, 'x');

		if (strcmp(a, "--extract") == 0 || strcmp(a, "--get") == 0) {
			unpack_at(L, "tar", c, i);
			return;
		}
		for (const char *p = a + 1; letters && *p; p++)
			if (!isalpha((unsigned char)*p))
				letters = false;
		if (letters) {
			unpack_at(L, "tar", c, i);
			return;
		}
	}
}

static void rule_unzip(struct lint *L, const struct cmd *c, size_t i, const char *name,
		       int nesting)
{
	static const char *const listing[] = { "-l", "-v", "-Z", "-t", "l", "t", NULL };

	(void)nesting;
	for (size_t k = i + 1; k < c->n; k++)
		for (size_t m = 0; listing[m]; m++)
			if (strcmp(c->args[k]->text, listing[m]) == 0)
				return;
	if (!only_info_options(c, i + 1))
		unpack_at(L, name, c, i);
}

static void rule_7z(struct lint *L, const struct cmd *c, size_t i, const char *name, int nesting)
{
	static const char *const subs[] = { "x", "e", NULL };
	const char *sub = arg(c, i + 1);
	char word[16];

	(void)nesting;
	for (size_t k = 0; sub && subs[k]; k++) {
		if (strcmp(sub, subs[k]) == 0) {
			snprintf(word, sizeof(word), "%s %s", name, sub);
			unpack(L, word);
		}
	}
}

static void rule_decompressor(struct lint *L, const struct cmd *c, size_t i, const char *name,
			      int nesting)
{
	(void)nesting;
	if (!only_info_options(c, i + 1))
		unpack(L, name);
}

/* gzip -d and the like. */
static void rule_compressor(struct lint *L, const struct cmd *c, size_t i, const char *name,
			    int nesting)
{
	(void)nesting;
	for (size_t k = i + 1; k < c->n; k++) {
		const char *a = c->args[k]->text;

		if (strcmp(a, "-d") == 0 || strcmp(a, "--decompress") == 0 ||
		    (a[0] == '-' && a[1] != '-' && strchr(a, 'd'))) {
			unpack(L, name);
			return;
		}
	}
}

/* ---- the tables ---- */

struct rule {
	const char *const *names; /* the programs' base names; NULL: `matches` decides */
	bool (*matches)(const char *name);
	const char *sub;          /* the next word must be this ("uv pip"); NULL: any */
	rule_fn *check;
};

#define NAMES(...) ((const char *const[]){ __VA_ARGS__, NULL })

/* In order: the first row that takes the program decides. */
static const struct rule programs[] = {
	{ .names = NAMES("wget", "curl", "aria2c", "axel"), .check = rule_download },
	{ .names = NAMES("git"), .check = rule_git },
	{ .matches = is_pip, .check = rule_pip },
	{ .names = NAMES("uv"), .sub = "pip", .check = rule_uv_pip },
	{ .names = NAMES("conda", "mamba", "micromamba"), .check = rule_conda },
	{ .names = NAMES("apt-get", "apt", "yum", "dnf", "apk"), .check = rule_system_packages },
	{ .names = NAMES("huggingface-cli", "hf", "modelscope"), .check = rule_hub_download },
	{ .names = NAMES("wandb"), .check = rule_login },
	{ .matches = is_python, .check = rule_python },
	{ .names = NAMES("torchrun", "deepspeed"), .check = rule_launcher },
	{ .names = NAMES("accelerate"), .sub = "launch", .check = rule_launcher },
	{ .matches = is_shell, .check = rule_shell },
	{ .names = NAMES("source", "."), .check = rule_source },
};

/* For a program not named by a path (that one is a script to look at). */
static const struct rule unpackers[] = {
	{ .names = NAMES("tar", "bsdtar"), .check = rule_tar },
	{ .names = NAMES("unzip", "unrar"), .check = rule_unzip },
	{ .names = NAMES("7z", "7za", "7zr"), .check = rule_7z },
	{ .names = NAMES("gunzip", "unxz", "unzstd", "bunzip2", "unlz4"), .check = rule_decompressor },
	{ .names = NAMES("gzip", "xz", "zstd", "bzip2", "pigz", "lz4"), .check = rule_compressor },
};

static bool rule_takes(const struct rule *r, const struct cmd *c, size_t i, const char *name)
{
	bool named = r->matches ? r->matches(name) : false;

	for (size_t k = 0; !named && r->names && r->names[k]; k++)
		named = strcmp(name, r->names[k]) == 0;
	return named && (!r->sub || (arg(c, i + 1) && strcmp(arg(c, i + 1), r->sub) == 0));
}

/* The first rule of table that takes the program, applied; false if none. */
static bool apply_rules(const struct rule *table, size_t n, struct lint *L, const struct cmd *c,
			size_t i, const char *name, int nesting)
{
	for (size_t k = 0; k < n; k++) {
		if (rule_takes(&table[k], c, i, name)) {
			table[k].check(L, c, i, name, nesting);
			return true;
		}
	}
	return false;
}

void jp_lint_program(struct lint *L, const struct cmd *c, size_t i, int nesting)
{
	const struct jp_sh_word *w = c->args[i];
	const char *name = base_name(w->text);

	if (w->has_var && !strchr(w->text, '/'))
		return; /* "$CMD args": unknowable */
	if (apply_rules(programs, sizeof(programs) / sizeof(programs[0]), L, c, i, name, nesting))
		return;
	if (strchr(w->text, '/')) {
		jp_lint_check_script(L, w, 'x', nesting);
		jp_lint_operands(L, c, i);
	} else
		apply_rules(unpackers, sizeof(unpackers) / sizeof(unpackers[0]), L, c, i, name,
			    nesting);
}
