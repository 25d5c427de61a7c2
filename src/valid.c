/* Small validators shared by the manifest, the flow and the UI.
 *
 * Each accepts exactly what the matching pattern in schema.c accepts, so
 * `jobprep check` and the JSON Schema agree (tests/integration/schema.sh). */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "jobprep/i18n.h"
#include "jobprep/manifest.h"
#include "manifest_internal.h"

static bool is_lower_alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool is_alpha(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

bool jp_valid_job_name(const char *name)
{
	size_t len;

	if (!name)
		return false;
	len = strlen(name);
	if (len < 1 || len > 63)
		return false;
	for (size_t i = 0; i < len; i++)
		if (!is_lower_alnum(name[i]) && name[i] != '-')
			return false;
	return is_lower_alnum(name[0]) && is_lower_alnum(name[len - 1]);
}

bool jp_valid_commit(const char *hex)
{
	size_t i;

	if (!hex)
		return false;
	for (i = 0; hex[i]; i++)
		if (!is_digit(hex[i]) && !(hex[i] >= 'a' && hex[i] <= 'f'))
			return false;
	return i == 40;
}

bool jp_valid_env_name(const char *name)
{
	if (!name || !(is_alpha(name[0]) || name[0] == '_'))
		return false;
	for (size_t i = 1; name[i]; i++)
		if (!is_alpha(name[i]) && !is_digit(name[i]) && name[i] != '_')
			return false;
	return true;
}

/* Names the shells treat specially: sourcing `export NAME='value'` in dash,
 * bash or zsh loses the value, or stops reading env.sh there
 * (tests/integration/env_special_names.sh shows each). The schema's
 * propertyNames list is this one (tests/unit/test_manifest_read.c). */
static const struct {
	const char *reason;
	const char *names[16];
} special_names[] = {
	{ N_("the shell sets it itself, so the value is lost"),
	  { "RANDOM", "SRANDOM", "SECONDS", "EPOCHSECONDS", "EPOCHREALTIME", "LINENO", "HISTCMD",
	    "BASHPID", "BASH_SUBSHELL", "BASH_COMMAND", "FUNCNAME", "ERRNO", "TTYIDLE",
	    "ZSH_SUBSHELL", "_", NULL } },
	{ N_("bash or zsh will not take a value for it (read-only, or it would switch users); "
	     "zsh stops reading env.sh there"),
	  { "UID", "EUID", "GID", "EGID", "PPID", "GROUPS", "SHELLOPTS", "BASHOPTS", "USERNAME",
	    "status", "pipestatus", NULL } },
	{ N_("getopts keeps its place in it, and dash and bash refuse a value that is not a "
	     "number"),
	  { "OPTIND", NULL } },
	{ N_("zsh ties it to another variable as an array, so the value is lost"),
	  { "argv", "path", "cdpath", "fpath", "manpath", "mailpath", "psvar", "module_path",
	    NULL } },
	{ N_("zsh reads it as a number: any other value stops env.sh there"),
	  { "COLUMNS", "LINES", "HISTSIZE", "KEYTIMEOUT", "SHLVL", "TRY_BLOCK_ERROR", NULL } },
	{ N_("it changes how the shell splits the words of the launch command"), { "IFS", NULL } },
};

const char *jp_env_name_special(const char *name)
{
	for (size_t i = 0; name && i < sizeof(special_names) / sizeof(special_names[0]); i++)
		for (size_t k = 0; special_names[i].names[k]; k++)
			if (strcmp(special_names[i].names[k], name) == 0)
				return special_names[i].reason;
	return NULL;
}

const char *jp_env_special_name(size_t i)
{
	for (size_t r = 0; r < sizeof(special_names) / sizeof(special_names[0]); r++)
		for (size_t k = 0; special_names[r].names[k]; k++)
			if (i-- == 0)
				return special_names[r].names[k];
	return NULL;
}

/* What the platform sets for each Worker: its rank, the Worker count, rank
 * 0's address (torchrun and its launchers, Slurm, MPI, the Kubeflow training
 * operator's PET_*), and the preflight's own JOBPREP_RANK and
 * JOBPREP_ATTEMPT. One value for every Worker from env.sh would make each
 * of them rank 0 of a one-Worker job. */
static const char *const platform_names[] = {
	"RANK", "LOCAL_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE", "NODE_RANK", "GROUP_RANK",
	"GROUP_WORLD_SIZE", "ROLE_RANK", "ROLE_WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT",
	"TORCHELASTIC_RUN_ID", "SLURM_PROCID", "SLURM_NODEID", "SLURM_LOCALID", "SLURM_NTASKS",
	"SLURM_NPROCS", "SLURM_NNODES", "SLURM_JOB_NUM_NODES", "SLURM_JOB_ID", "SLURM_JOBID",
	"SLURM_STEP_ID", "SLURM_NTASKS_PER_NODE", "SLURM_TASKS_PER_NODE", "SLURM_JOB_NODELIST",
	"SLURM_NODELIST", "SLURM_RESTART_COUNT", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE",
	"OMPI_COMM_WORLD_LOCAL_RANK", "PMI_RANK", "PMI_SIZE", "JOBPREP_RANK", "JOBPREP_ATTEMPT",
	"PET_*", NULL
};

bool jp_env_name_platform(const char *name)
{
	for (size_t i = 0; name && platform_names[i]; i++) {
		size_t n = strlen(platform_names[i]);

		if (platform_names[i][n - 1] == '*' ? strncmp(name, platform_names[i], n - 1) == 0
						    : strcmp(name, platform_names[i]) == 0)
			return true;
	}
	return false;
}

const char *jp_env_platform_name(size_t i)
{
	for (size_t k = 0; platform_names[k]; k++)
		if (k == i)
			return platform_names[k];
	return NULL;
}

/* Digits at s[0..n) forming a number in [lo, hi]. */
static bool digits_in(const char *s, size_t n, int lo, int hi)
{
	int v = 0;

	for (size_t i = 0; i < n; i++) {
		if (!is_digit(s[i]))
			return false;
		v = v * 10 + (s[i] - '0');
	}
	return v >= lo && v <= hi;
}

bool jp_valid_timestamp(const char *s)
{
	size_t i;

	/* YYYY-MM-DDTHH:MM:SS[.frac]Z; field ranges as in the schema's pattern. */
	if (!s || strlen(s) < 20)
		return false;
	if (!digits_in(s, 4, 0, 9999) || s[4] != '-' || !digits_in(s + 5, 2, 1, 12) ||
	    s[7] != '-' || !digits_in(s + 8, 2, 1, 31) || s[10] != 'T' ||
	    !digits_in(s + 11, 2, 0, 23) || s[13] != ':' || !digits_in(s + 14, 2, 0, 59) ||
	    s[16] != ':' || !digits_in(s + 17, 2, 0, 60))
		return false;
	i = 19;
	if (s[i] == '.') {
		size_t start = ++i;
		while (is_digit(s[i]))
			i++;
		if (i == start)
			return false;
	}
	return s[i] == 'Z' && s[i + 1] == '\0';
}

bool jp_url_same_repo(const char *a, const char *b)
{
	size_t la, lb;

	if (!a || !b)
		return false;
	la = strlen(a);
	lb = strlen(b);
	while (la > 0 && a[la - 1] == '/')
		la--;
	while (lb > 0 && b[lb - 1] == '/')
		lb--;
	if (la > 4 && strncmp(a + la - 4, ".git", 4) == 0)
		la -= 4;
	if (lb > 4 && strncmp(b + lb - 4, ".git", 4) == 0)
		lb -= 4;
	return la == lb && strncmp(a, b, la) == 0;
}
