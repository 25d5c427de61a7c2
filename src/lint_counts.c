/* The launch lint's counts: the processes a launcher starts (torchrun
 * --nproc_per_node, deepspeed --num_gpus, accelerate launch --num_processes
 * for the whole job, mpirun -np) against the GPUs each Worker has, and the
 * nodes it waits for (--nnodes, --num_machines, --num_nodes) against the
 * Workers: launch.processes and launch.nodes, failures when the line surely
 * runs (GPUs left idle, or ranks that never meet). The count alone, for the
 * exports: jp_lint_command_gpus. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobprep/i18n.h"
#include "jobprep/shellwords.h"
#include "shellwords_internal.h"
#include "lint_internal.h"

enum scope { PER_WORKER, WHOLE_JOB, EITHER };

static const struct count_rule {
	const char *name;        /* the program's base name */
	const char *sub;         /* its sub-command, or NULL */
	const char *procs[4];    /* the options that give the process count */
	enum scope scope;        /* what that count counts */
	const char *nodes[3];    /* the options that give the nodes */
} count_rules[] = {
	{ "torchrun", NULL, { "--nproc_per_node", "--nproc-per-node", NULL }, PER_WORKER,
	  { "--nnodes", NULL } },
	{ "accelerate", "launch", { "--num_processes", "--num-processes", NULL }, WHOLE_JOB,
	  { "--num_machines", "--num-machines", NULL } },
	{ "deepspeed", NULL, { "--num_gpus", "--num-gpus", NULL }, PER_WORKER,
	  { "--num_nodes", "--num-nodes", NULL } },
	{ "mpirun", NULL, { "-np", "-n", "--np", NULL }, EITHER, { NULL } },
	{ "mpiexec", NULL, { "-np", "-n", "--np", NULL }, EITHER, { NULL } },
	{ "horovodrun", NULL, { "-np", NULL }, WHOLE_JOB, { NULL } },
};

/* A positive whole number, all of s; -1 otherwise ("auto", "gpu", ""). */
static long long count_of(const char *s)
{
	char *end = NULL;
	long long v;

	if (!s || !*s || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoll(s, &end, 10);
	return errno || *end || v <= 0 ? -1 : v;
}

/* The value of option opt at words[k] ("--opt=V" or "--opt V"): *v (NULL
 * when not known) and true; false when words[k] is not opt. */
static bool value_of(const char *const *words, const char *const *raw, size_t n, size_t k,
		     const char *opt, const char **v)
{
	const char *t = raw[k];
	size_t len = strlen(opt);

	if (strncmp(t, opt, len) != 0 || (t[len] != '=' && t[len] != '\0'))
		return false;
	if (t[len] == '=')
		*v = words[k] ? words[k] + len + 1 : NULL;
	else
		*v = k + 1 < n ? words[k + 1] : NULL;
	return true;
}

/* The words the launcher reads itself: up to its script, module or program. */
static bool ends_options(const char *t)
{
	size_t n = strlen(t);

	return (n > 3 && (strcmp(t + n - 3, ".py") == 0 || strcmp(t + n - 3, ".sh") == 0)) ||
	       strcmp(t, "-m") == 0 || strcmp(t, "--module") == 0 || is_python(base_name(t)) ||
	       strcmp(base_name(t), "bash") == 0 || strcmp(base_name(t), "sh") == 0;
}

void jp_lint_read_counts(struct jp_lint_counts *out, const char *launcher,
			 const char *const *words, const char *const *raw, size_t n)
{
	const struct count_rule *r = NULL;

	memset(out, 0, sizeof(*out));
	out->procs = out->nodes_min = out->nodes_max = -1;
	for (size_t k = 0; k < sizeof(count_rules) / sizeof(count_rules[0]); k++)
		if (strcmp(count_rules[k].name, launcher) == 0)
			r = &count_rules[k];
	if (!r)
		return;
	out->scope_total = r->scope == WHOLE_JOB;
	out->scope_either = r->scope == EITHER;
	bool standalone = false; /* torchrun's own one-node rendezvous */
	for (size_t k = 0; k < n && !ends_options(raw[k]); k++) {
		const char *v = NULL;

		standalone |= strcmp(raw[k], "--standalone") == 0;
		for (size_t o = 0; r->procs[o]; o++)
			if (value_of(words, raw, n, k, r->procs[o], &v)) {
				out->procs = count_of(v);
				out->procs_opt = r->procs[o];
			}
		for (size_t o = 0; r->nodes[o]; o++) {
			if (!value_of(words, raw, n, k, r->nodes[o], &v))
				continue;
			out->nodes_opt = r->nodes[o];
			out->nodes_min = out->nodes_max = -1;
			if (v && strchr(v, ':')) {
				char *lo = strndup(v, strcspn(v, ":"));
				out->nodes_min = count_of(lo);
				out->nodes_max = count_of(strchr(v, ':') + 1);
				free(lo);
			} else {
				out->nodes_min = out->nodes_max = count_of(v);
			}
		}
	}
	if (standalone) {
		out->nodes_min = out->nodes_max = -1;
		out->nodes_opt = NULL;
	}
}

/* The launcher at words[i] (its base name, or python -m torch.distributed.run):
 * the rule's name and where its own options start; NULL when none. */
const char *jp_lint_counts_launcher(const char *const *raw, size_t n, size_t i, size_t *from)
{
	const char *name = base_name(raw[i]);

	if (is_python(name)) {
		for (size_t k = i + 1; k + 1 < n && raw[k][0] == '-'; k++)
			if (strcmp(raw[k], "-m") == 0) {
				if (strcmp(raw[k + 1], "torch.distributed.run") != 0 &&
				    strcmp(raw[k + 1], "torch.distributed.launch") != 0)
					return NULL;
				*from = k + 2;
				return "torchrun";
			}
		return NULL;
	}
	for (size_t k = 0; k < sizeof(count_rules) / sizeof(count_rules[0]); k++) {
		const struct count_rule *r = &count_rules[k];

		if (strcmp(r->name, name) != 0)
			continue;
		if (r->sub && (i + 1 >= n || strcmp(raw[i + 1], r->sub) != 0))
			return NULL;
		*from = i + 1 + (r->sub != NULL);
		return r->name;
	}
	return NULL;
}

/* The processes on each Worker the counts say, for the exports; -1 unknown. */
static long long per_worker(const struct jp_lint_counts *k, long long workers, long long gpus)
{
	if (k->procs <= 0)
		return -1;
	if (k->scope_either && gpus > 0 && (k->procs == gpus || k->procs == gpus * workers))
		return gpus;
	if ((k->scope_total || k->scope_either) && workers > 0)
		return k->procs % workers == 0 ? k->procs / workers : -1;
	return k->procs;
}

static void procs_verdict(struct lint *L, const struct jp_lint_counts *k, const char *launcher)
{
	long long gpus = L->ctx->gpus_per_worker, workers = L->ctx->workers > 0 ? L->ctx->workers : 1;
	long long want = k->scope_total ? gpus * workers : gpus;
	char word[96];

	if (k->procs <= 0 || gpus <= 0)
		return;
	if (k->procs == want || (k->scope_either && k->procs == gpus * workers))
		return;
	snprintf(word, sizeof(word), "%s %s%s%lld", launcher, k->procs_opt,
		 k->procs_opt[0] != '-' ? ": " : k->procs_opt[1] == '-' ? "=" : " ", k->procs);
	if (k->scope_total)
		jp_lint_fail(L, JP_LINT_PROCESSES, word, NULL,
		    _("'%s' starts %lld processes for the whole job, but its %lld Workers have %lld "
		      "GPUs each (%lld in all): %s; set %s to %lld, or job.gpus_per_worker to what "
		      "the job uses"),
		    word, k->procs, workers, gpus, want,
		    k->procs < want ? _("the other GPUs sit idle while the job runs")
				    : _("the ranks beyond the GPUs there are fail to start"),
		    k->procs_opt, want);
	else
		jp_lint_fail(L, JP_LINT_PROCESSES, word, NULL,
		    _("'%s' starts %lld processes on each Worker, but each Worker has %lld GPUs "
		      "(job.gpus_per_worker): %s; set %s to %lld, or job.gpus_per_worker to %lld "
		      "(the exports ask for what the command uses)"),
		    word, k->procs, gpus,
		    k->procs < gpus ? _("the other GPUs sit idle while the job runs")
				    : _("the ranks beyond the GPUs there are fail to start"),
		    k->procs_opt, gpus, k->procs);
}

static void nodes_verdict(struct lint *L, const struct jp_lint_counts *k, const char *launcher)
{
	long long workers = L->ctx->workers > 0 ? L->ctx->workers : 1;
	char word[96];

	if (k->nodes_min <= 0 || k->nodes_max < k->nodes_min)
		return;
	/* --nnodes=1 on several Workers: launch.launcher says they run alone */
	if (k->nodes_max == 1 && workers > 1)
		return;
	if (workers >= k->nodes_min && workers <= k->nodes_max)
		return;
	if (k->nodes_min == k->nodes_max)
		snprintf(word, sizeof(word), "%s %s=%lld", launcher, k->nodes_opt, k->nodes_min);
	else
		snprintf(word, sizeof(word), "%s %s=%lld:%lld", launcher, k->nodes_opt, k->nodes_min,
			 k->nodes_max);
	jp_lint_fail(L, JP_LINT_NODES, word, NULL,
	    _("'%s' waits for %lld nodes, but the job has %lld Workers (job.workers): %s; pass "
	      "%s=\"$WORLD_SIZE\" (the platform sets it on every Worker), or set job.workers"),
	    word, workers < k->nodes_min ? k->nodes_min : k->nodes_max, workers,
	    workers < k->nodes_min ? _("the Workers there are wait for the others until the job's "
				       "time runs out")
				   : _("the Workers beyond that count never join the job"),
	    k->nodes_opt);
}

/* accelerate launch --config_file X: the counts X gives (num_processes,
 * num_machines), when the command gives none itself; the lint read X as a
 * config the command names (lint_config.c). */
static void accelerate_config(struct lint *L, struct jp_lint_counts *k, const char *const *words,
			      const char *const *raw, size_t n)
{
	const char *v = NULL, *dir = jp_lint_dir(L);

	for (size_t j = 0; j < n && !v && !ends_options(raw[j]); j++)
		if (!value_of(words, raw, n, j, "--config_file", &v))
			value_of(words, raw, n, j, "--config-file", &v);
	for (size_t f = 0; v && f < L->n_configs; f++) {
		const struct jp_lint_config *c = &L->configs[f].c;
		const char *p = L->configs[f].path, *procs, *nodes;
		size_t dn = dir ? strlen(dir) : 0;

		/* the file named: absolute, or relative to where the command runs */
		if (strcmp(p, v) != 0 && !(dir && strncmp(p, dir, dn) == 0 && p[dn] == '/' &&
					   strcmp(p + dn + 1, v[0] == '.' && v[1] == '/' ? v + 2 : v) == 0))
			continue;
		procs = jp_lint_config_get(c, "num_processes");
		nodes = jp_lint_config_get(c, "num_machines");
		if (k->procs <= 0 && procs && count_of(procs) > 0) {
			k->procs = count_of(procs);
			k->procs_opt = "num_processes";
		}
		if (k->nodes_min <= 0 && nodes && count_of(nodes) > 0) {
			k->nodes_min = k->nodes_max = count_of(nodes);
			k->nodes_opt = "--num_machines";
		}
		return;
	}
}

void jp_lint_counts(struct lint *L, const struct cmd *c, size_t i)
{
	const char **words, **raw;
	struct jp_lint_counts k;
	const char *launcher;
	size_t from = 0;

	if (i >= c->n || c->args[i]->has_var)
		return;
	words = calloc(c->n + 1, sizeof(*words));
	raw = calloc(c->n + 1, sizeof(*raw));
	if (!words || !raw) {
		L->oom = 1;
		goto out;
	}
	for (size_t k2 = 0; k2 < c->n; k2++) {
		raw[k2] = c->args[k2]->text;
		words[k2] = jp_lint_expand(L, c->args[k2]);
	}
	launcher = jp_lint_counts_launcher(raw, c->n, i, &from);
	if (!launcher)
		goto out;
	jp_lint_read_counts(&k, launcher, words + from, raw + from, c->n - from);
	if (strcmp(launcher, "accelerate") == 0)
		accelerate_config(L, &k, words + from, raw + from, c->n - from);
	procs_verdict(L, &k, launcher);
	nodes_verdict(L, &k, launcher);
out:
	for (size_t k2 = 0; words && k2 < c->n; k2++)
		free((char *)words[k2]);
	free(words);
	free(raw);
}

long long jp_lint_command_gpus(const char *command, long long workers, long long gpus)
{
	struct jp_sh_line sl = JP_SH_LINE_INIT;
	long long found = -1;

	if (!command || jp_sh_split(&sl, command, NULL) < 0)
		return -1;
	for (size_t c = 0; c < sl.n && found < 0; c++) {
		const struct jp_sh_command *sh = &sl.cmds[c];
		const char **raw = calloc(sh->n_words + 1, sizeof(*raw)), **words;
		size_t n = 0, from = 0;

		if (!raw)
			break;
		for (size_t k = 0; k < sh->n_words; k++)
			if (!sh->words[k].redir)
				raw[n++] = sh->words[k].text;
		/* a literal count only: a variable is the platform's */
		words = calloc(n + 1, sizeof(*words));
		for (size_t k = 0, m = 0; words && k < sh->n_words; k++)
			if (!sh->words[k].redir)
				words[m++] = sh->words[k].has_var ? NULL : sh->words[k].text;
		for (size_t i = 0; words && i < n && found < 0; i++) {
			const char *launcher = jp_lint_counts_launcher(raw, n, i, &from);
			struct jp_lint_counts k;

			if (!launcher)
				continue;
			jp_lint_read_counts(&k, launcher, words + from, raw + from, n - from);
			found = per_worker(&k, workers > 0 ? workers : 1, gpus);
			break;
		}
		free(words);
		free(raw);
	}
	jp_sh_line_dispose(&sl);
	return found;
}
