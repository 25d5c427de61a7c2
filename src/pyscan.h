/* A light reader of Python source, no Python needed (pyscan.c): from the
 * scripts a launch command runs, and the project's modules they import (as
 * far as they resolve to files in the project), the calls that download
 * from the Hugging Face Hub when the job starts: from_pretrained,
 * load_dataset, snapshot_download, hf_hub_download whose first argument
 * (or repo_id= / pretrained_model_name_or_path= / path=) is a string
 * literal naming a Hub repository ("org/name" or "name") that is no
 * existing path. Used by the launch lint (lint_hub.c). Also what the code
 * needs of a Worker's python3: the top-level modules its unconditional
 * imports name that are neither the project's nor the standard library's,
 * the Python version its syntax needs, and whether it starts DataLoader
 * workers (the preflight's runtime checks, check_runtime.c). */
#ifndef JOBPREP_PYSCAN_H
#define JOBPREP_PYSCAN_H

#include <stdbool.h>
#include <stddef.h>

#define JP_PYSCAN_MAX_HITS 32
#define JP_PYSCAN_MAX_FILES 2000          /* files read, at most */
#define JP_PYSCAN_MAX_BYTES (1024 * 1024) /* of each file */
#define JP_PYSCAN_MAX_MODULES 64          /* third-party modules kept */
#define JP_PYSCAN_MODULE_LEN 64           /* a longer name is not kept */

struct jp_pyscan_hit {
	char file[1024];  /* absolute */
	unsigned line;
	char call[24];    /* "from_pretrained" */
	char repo[128];   /* "org/name" */
	bool dataset;     /* load_dataset, or repo_type="dataset" */
	bool staged;      /* found in the hub cache given (refs/main there) */
};

/* Other calls that matter at job start (issue 31): a prompt, wandb.init(),
 * a download, a read of a data file; each with the `if` around it. */
#define JP_PYSCAN_MAX_USES 24
#define JP_PYSCAN_MAX_VARS 256 /* NAME=VALUE the configs give, at most */
enum jp_pyscan_use_kind {
	JP_PYSCAN_PROMPT = 1, /* input(, getpass( */
	JP_PYSCAN_WANDB,      /* wandb.init( */
	JP_PYSCAN_FETCH,      /* requests.get(, urlretrieve(, urlopen(, wget.download( */
	JP_PYSCAN_READ,       /* np.memmap(, np.load(, np.fromfile(, load_from_disk(, pd.read_*( */
};
struct jp_pyscan_use {
	char file[1024];  /* absolute */
	unsigned line;
	int kind;         /* enum jp_pyscan_use_kind */
	char call[32];    /* "input", "wandb.init", "requests.get", "np.memmap" */
	char arg[512];    /* FETCH: the URL, READ: the path, as far as known; "" not */
	char guard[64];   /* the first name the `if` around it tests; "" none or not a name */
	int guard_value;  /* that name's value: 1 true, 0 false, -1 not known */
	bool guarded;     /* inside an if/else/def (it may not run) */
	bool script;      /* in a script the command runs (not a module it imports) */
	bool exists;      /* READ: arg is a path there is (beside the project) */
};

/* Flat (no pointers): it crosses a process boundary as bytes. */
struct jp_pyscan_result {
	struct jp_pyscan_hit hits[JP_PYSCAN_MAX_HITS];
	size_t n_hits;
	bool more_hits;   /* more than JP_PYSCAN_MAX_HITS */
	size_t n_files;   /* Python files read */
	bool truncated;   /* JP_PYSCAN_MAX_FILES reached */
	/* top-level names of modules imported at a file's top level (not
	 * indented: not under try/if/def) that are neither files or folders
	 * of the project nor the standard library; sorted, each once */
	char modules[JP_PYSCAN_MAX_MODULES][JP_PYSCAN_MODULE_LEN];
	size_t n_modules;
	unsigned min_minor;    /* 3.N the syntax needs (8 walrus, 10 match,
				* 11 except*); 0: nothing told */
	bool loader_workers;   /* a num_workers= argument that is not literally 0 */
	struct jp_pyscan_use uses[JP_PYSCAN_MAX_USES];
	size_t n_uses;
};

/* Read scripts[0..n) (absolute paths of .py files) and, following their
 * imports, the project's modules under project_dir (may be NULL: the
 * scripts only). hub_cache (may be NULL): a Hub cache folder (HF_HOME/hub)
 * to say which hits are staged there. Unreadable files are skipped. The
 * caller bounds the time (it reads the filesystem). */
void jp_pyscan_run(struct jp_pyscan_result *out, const char *const *scripts, size_t n,
		   const char *project_dir, const char *hub_cache);

/* The same, with the values the configs the command names give
 * (vars[0..n_vars): "NAME=VALUE", a later one wins): a variable a call names
 * (from_pretrained(init_from)) is followed to its value there, and a file's
 * own top-level assignments give way to them, as nanoGPT's configurator
 * does. */
void jp_pyscan_run_vars(struct jp_pyscan_result *out, const char *const *scripts, size_t n,
			const char *project_dir, const char *hub_cache, const char *const *vars,
			size_t n_vars);

/* One file's text alone, as read from file (no other file read; its
 * imports only looked up): for the fuzz target. */
void jp_pyscan_text(struct jp_pyscan_result *out, const char *file, const char *text, size_t n);

/* name is a top-level module of Python's standard library (pyscan_stdlib.c:
 * sys.stdlib_module_names of 3.11, and those removed since 3.8). */
bool jp_pyscan_is_stdlib(const char *name);

/* The hub id test alone: s names a Hub repository ("org/name", "name":
 * letters, digits, '-', '_', '.'; no "--" or "..", not starting or ending
 * with '-' or '.'). */
bool jp_pyscan_is_hub_id(const char *s);

#endif
