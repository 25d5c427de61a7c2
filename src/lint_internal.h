/* Inside the launch-command lint (lint.c, lint_rules.c, lint_walk.c,
 * lint_stage.c, lint_findings.c, lint_vars.c): the state of one lint run, a
 * simple command's words, and what the files share. Not for the front ends:
 * they use jobprep/lint.h. */
#ifndef JOBPREP_LINT_INTERNAL_H
#define JOBPREP_LINT_INTERNAL_H

#include <ctype.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <stddef.h>
#include <string.h>

#include "jobprep/lint.h"
#include "mountinfo.h"
#include "jobprep/shellwords.h"
#include "jobprep/strv.h"

#define MAX_NESTING 4                 /* sh -c "sh -c ..." looked into */
#define SYNC_READ_BYTES (1024 * 1024) /* what is read of a script or code file */
#define MAX_SCRIPT_DEPTH 4            /* a script that runs a script that ... */
#define MAX_SCRIPT_BYTES (256 * 1024) /* a larger sh script is not read */
#define MAX_LOOKS 256                 /* stats and reads per lint run */

/* lint_config.c: a config file's simple assignments (a string, a number,
 * true/false), in the order written; a later one wins. */
struct jp_lint_kv {
	char *key;     /* as written: "out_dir", "trainer.default_root_dir" */
	char *value;   /* a string's contents, or the bare word */
	unsigned line; /* from 1; 0: not known (JSON, an override) */
};
struct jp_lint_config {
	struct jp_lint_kv *items;
	size_t n;
};
#define JP_LINT_CONFIG_INIT { NULL, 0 }

/* A config the command names (path NULL: its own key=value overrides). */
struct lint_config_file {
	char *path;
	char *name; /* as the command names it */
	struct jp_lint_config c;
};

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
	bool cwd_moved;   /* a cd ran: with cwd NULL, not the starting directory */
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
	char *resume; /* what says the program resumes (lint_resume.c); NULL: none */
	/* the line being judged surely runs (not inside if/while/case, not
	 * after || or a test's &&): what it misses or loses fails */
	bool certain;
	bool outer_certain; /* the command that runs this line (sh -c, a script) surely runs */
	/* reading the scripts the command runs (lint_script.c) */
	char *where;            /* "scripts/train.sh:3" while judging its lines; NULL: the command */
	struct jp_strv reading; /* the scripts being read, outermost first (no cycles) */
	bool script_launches;   /* the script read names a launcher (torchrun, srun, ...):
				 * its plain python lines are the helpers around it */
	unsigned looks;         /* stats and reads of the user's files so far */
	bool hung;              /* one did not answer: no more looks */
	int project_here;       /* project_dir is a folder here: 1, not: -1, not looked yet: 0 */
	struct jp_strv written; /* paths the command writes before they are read */
	struct jp_pyscan_result *python; /* jp_lint_hub's scan, kept here; NULL: not kept */
	/* the configs the command names, read (lint_config.c), the overrides last */
	struct lint_config_file *configs;
	size_t n_configs;
	struct jp_lint_config overrides; /* key=value and --key=value operands */
	char *config_out_label; /* the first output a config sets: "config/x.py:3:
				 * out_dir = 'out-x'"; NULL none */
	char *config_out_value; /* and its value ("out-x") */
	char *config_out_key;   /* and its key ("out_dir") */
};

struct jp_pyscan_result;

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
 * out); in a script, its message and word start with "script:line: ". */
void jp_lint_add(struct lint *L, enum jp_lint_kind kind, const char *word, const char *path,
		 const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* The same, a failure when the line surely runs (L->certain), else a
 * warning. */
void jp_lint_fail(struct lint *L, enum jp_lint_kind kind, const char *word, const char *path,
		  const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* lint_vars.c: variable name (its first len bytes) is value (NULL: set to
 * something not known) from here on; L->oom when memory ran out. */
void jp_lint_var_set(struct lint *L, const char *name, size_t len, const char *value);
/* lint_vars.c: the word's text with the variables known so far; NULL when it
 * holds one that is not known (or memory ran out). Free it. */
char *jp_lint_expand(const struct lint *L, const struct jp_sh_word *w);
/* lint.c: a script the command runs must exist; `how` it runs: 'x'
 * directly (it must be executable; read when it is sh), 's' by a shell
 * (read), '.' sourced (read, in the command's shell), 0 by another
 * program (python, a launcher: not read). */
void jp_lint_check_script(struct lint *L, const struct jp_sh_word *w, char how, int nesting);
/* lint.c: every command of a line (sh -c's argument, nesting deep; a
 * script's text, `script` naming it for its findings, else NULL). */
void jp_lint_line(struct lint *L, const char *line, int nesting, const char *script);

/* lint_hub.c: the Python files among L->scripts, and the project's modules
 * they import, looked at (bounded in time) for downloads from the Hugging
 * Face Hub at job start (launch.hub_download). */
void jp_lint_hub(struct lint *L, const char *command);

struct jp_pyscan_result;
/* lint_uses.c: what the Python code does at job start (the scan's uses):
 * launch.prompt, launch.download, launch.data for a path it reads that does
 * not exist. */
void jp_lint_uses(struct lint *L, const struct jp_pyscan_result *res);
/* lint_uses.c: the data source ($DATA_DIR) that neither command (its text),
 * the scripts it runs nor their configs name: launch.data, naming where the
 * code reads instead (res: the scan, NULL when none ran). */
void jp_lint_data_unused(struct lint *L, const char *command, const struct jp_pyscan_result *res);
/* lint_uses.c: the job sets variable name (job.env, or the command). */
bool jp_lint_job_has(const struct lint *L, const char *name);
/* lint_stage.c: `jobprep stage 'URL' 'DEST'` for a URL the code fetches
 * (DEST as jp_lint_stage_line chooses it); NULL when there is no shared
 * root to stage onto. Free it. */
char *jp_lint_stage_url(struct lint *L, const char *url);
/* lint_files.c: path is under one the command wrote before. */
bool jp_lint_was_written(const struct lint *L, const char *path);

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

/* lint.c: option opt (its first len bytes) says "write here" (--out,
 * --save_dir, -o, ...). */
bool jp_lint_output_option(const char *opt, size_t len);
/* lint_files.c: where relative files are looked up: the known directory,
 * else the starting one, presumed the project's (the exports start the
 * job there: Slurm's --chdir, the Pod's workingDir); NULL: unknown. */
const char *jp_lint_dir(const struct lint *L);
/* lint_files.c: the project is a folder on this machine (looked at once):
 * else a file "missing" from it says nothing (check on another machine). */
bool jp_lint_project_here(struct lint *L);
/* lint_files.c: stat(2) of a file the command names, bounded in time and
 * in number (L->looks, L->hung): 0 it answered (*errnum 0 or why not), -1
 * no look (too many, a look hung, out of memory). */
int jp_lint_stat(struct lint *L, struct stat *st, int *errnum, const char *path);
/* lint_files.c: the operands of the program at c's word i whose script is
 * word j (c->n: none): configs and path-like words must be in the code. */
void jp_lint_operands(struct lint *L, const struct cmd *c, size_t j);
/* lint_resume.c: does the program at c's word j (its script) resume from
 * its checkpoint folder? What says so (the first) into L->resume. */
void jp_lint_resume(struct lint *L, const struct cmd *c, size_t j);
/* lint_files.c: a launcher's own config options (accelerate launch
 * --config_file X), words from..to-1: their files must be in the code. */
void jp_lint_config_options(struct lint *L, const struct cmd *c, size_t from, size_t to);
/* lint_files.c: `python -m MODULE`, MODULE being word k: in the code when
 * its top package is. */
void jp_lint_module(struct lint *L, const struct cmd *c, size_t k);
/* lint_files.c: a path the command writes (a later read of it is no
 * missing file). */
void jp_lint_written(struct lint *L, const char *path);

/* lint_counts.c: what a launcher's own options say. */
struct jp_lint_counts {
	long long procs;        /* the process count given; -1 none or not a number */
	const char *procs_opt;  /* its option as the rule names it ("--nproc_per_node") */
	bool scope_total;       /* procs counts the whole job's processes (accelerate) */
	bool scope_either;      /* per Worker or the whole job (mpirun -np) */
	long long nodes_min, nodes_max; /* the nodes it waits for; -1 none */
	const char *nodes_opt;
};
/* lint_counts.c: the launcher at raw[i] (torchrun, accelerate launch,
 * deepspeed, mpirun, mpiexec, horovodrun, python -m torch.distributed.run):
 * its rule's name, *from the first of its own words; NULL when none. */
const char *jp_lint_counts_launcher(const char *const *raw, size_t n, size_t i, size_t *from);
/* lint_counts.c: the counts `launcher` (a name jp_lint_counts_launcher gave)
 * reads from its words raw[0..n) (words: the same expanded, NULL when not
 * known), up to its script. */
void jp_lint_read_counts(struct jp_lint_counts *out, const char *launcher,
			 const char *const *words, const char *const *raw, size_t n);
/* lint_counts.c: the program at c's word i, a launcher, against GPUs per
 * Worker and the Workers (launch.processes, launch.nodes). */
void jp_lint_counts(struct lint *L, const struct cmd *c, size_t i);

/* lint_config.c: the simple assignments of a config's text (its kind by
 * path's extension: .py, .yaml/.yml, .json, else key = value) appended to
 * *out; 0 or JP_ENOMEM. Reads nothing: any core file may call it. */
int jp_lint_config_parse(struct jp_lint_config *out, const char *path, const char *text, size_t n);
/* lint_config.c: a `key=value` or `--key=value` word appended (other words:
 * nothing); 0 or JP_ENOMEM. */
int jp_lint_config_override(struct jp_lint_config *out, const char *word);
/* lint_config.c: the last value of key (or of a dotted key ending in it). */
const char *jp_lint_config_get(const struct jp_lint_config *c, const char *key);
void jp_lint_config_dispose(struct jp_lint_config *c);
/* lint_config.c: read the config at path (named `name` by the command),
 * keep it, and judge what it sets: an output on a wiped root fails. */
void jp_lint_read_config(struct lint *L, const char *path, const char *name);
/* lint_config.c: the value the job's configs give key (the overrides, then
 * the configs in reverse order); NULL none. *from: where it is set. */
const char *jp_lint_config_value(const struct lint *L, const char *key, const char **from);
/* lint_script.c: the text of the file at path (up to max bytes, bounded in
 * time, counted in L->looks), NULL when it cannot be read or is binary. */
char *jp_lint_read_text(struct lint *L, const char *path, size_t max);
/* lint.c: the ephemeral root path is under (NULL: none), and the first
 * shared root (for the messages). */
const char *jp_lint_ephemeral_root(const struct lint *L, const char *path);
const char *jp_lint_shared_root(const struct lint *L);

/* lint_script.c: the text names a launcher that knows the other Workers
 * (torchrun, accelerate launch, deepspeed, srun, mpirun, torch.distributed.) */
bool jp_lint_names_launcher(const char *text);

/* lint_script.c: read the sh script at path (found by jp_lint_check_script
 * as word w) and judge its lines like the command's; `source`: run in the
 * command's shell (its cd and variables stay). */
void jp_lint_script(struct lint *L, const char *path, const struct jp_sh_word *w, bool source,
		    int nesting);

/* lint_walk.c: the first SYNC_READ_BYTES of the regular file at path,
 * NUL-terminated (NULL when it cannot be read); *n its length. */
char *jp_lint_read_head(const char *path, size_t *n);

/* ---- of jobprep/lint.h, what no front end calls ---- */

/* Does the code under project_dir appear to synchronise Workers (barrier,
 * torch.distributed, accelerate, deepspeed, init_process_group, horovod in
 * its .py or .sh files)? 1 yes, 0 no, -1 nothing to look at. Reads at most
 * 5000 files (1 MiB each), skipping dot folders, venvs and caches. */
int jp_lint_project_syncs(const char *project_dir);

/* Lint `command`; findings go into *out (caller disposes). Returns 0, or
 * JP_ENOMEM. A syntax problem is a finding, not an error. */
int jp_lint_command(struct jp_lint_report *out, const char *command,
		    const struct jp_lint_context *ctx, struct jp_error *err);

/* jp_lint_manifest_report, then one check per finding appended to m->checks:
 * a warning, or a failure for a finding that fails. For `jobprep check` and
 * the flow's review alike. */
int jp_lint_manifest(struct jp_manifest *m, const struct jp_profile *profile,
		     struct jp_error *err);

/* lint_counts.c: the processes per Worker the first launcher of `command`
 * starts, from its literal options (torchrun --nproc_per_node=2: 2); -1
 * when it says none. For the exports: they ask for what the job uses. */
long long jp_lint_command_gpus(const char *command, long long workers, long long gpus);

#endif
