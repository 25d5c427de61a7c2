/* The job manifest (schema_version 1): the model of a job, and its JSON form.
 *
 * Every string is owned by the manifest (NULL = absent). Free a manifest with
 * jp_manifest_free. In JSON every path is absolute and normal; `jobprep
 * schema` prints the JSON Schema (src/schema.c), and `jobprep check`
 * accepts exactly what the schema accepts. */
#ifndef JOBPREP_MANIFEST_H
#define JOBPREP_MANIFEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "jobprep/error.h"
#include "jobprep/profile.h"
#include "jobprep/url.h" /* jp_url_has_credentials, the manifest's rule for URLs */

#define JP_SCHEMA_VERSION 1

enum jp_code_source {
	JP_CODE_UNSET = 0,
	JP_CODE_SHARED_STORAGE,
	JP_CODE_IMAGE,
	JP_CODE_LAUNCH_CLONE,
};

enum jp_data_kind {
	JP_DATA_TEAM = 0,
	JP_DATA_PUBLIC,
};

enum jp_check_status {
	JP_CHECK_PASS = 0,
	JP_CHECK_WARN,
	JP_CHECK_FAIL,
};

struct jp_env_var {
	char *name;
	char *value;
};

struct jp_data_stats {
	uint64_t files;
	uint64_t bytes;
	uint64_t archives;
};

/* Where a data source's data came from when jobprep staged it onto path
 * (jobprep/stage.h). */
enum jp_origin_kind {
	JP_ORIGIN_DIR = 0, /* a directory, copied */
	JP_ORIGIN_FILE,    /* one file, copied */
	JP_ORIGIN_ARCHIVE, /* an archive, unpacked */
	JP_ORIGIN_URL,     /* an http(s) download (unpacked when an archive) */
	JP_ORIGIN_HUB,     /* a Hugging Face Hub repository (hf://), into its
			    * cache layout; its digest the commit (git-commit) */
};

struct jp_data_origin {
	/* An absolute path, an hf:// repository, or an http(s) URL without credentials (a manifest
	 * never holds one; an answers file may, and the flow keeps it out of
	 * its draft). NULL: the data was not staged by jobprep. */
	char *from;
	enum jp_origin_kind kind;
	char *digest_algorithm; /* "sha256" (64 hex), "xxh3-64" (16 hex) or, for hf://,
				 * "git-commit" (40 hex); NULL: none */
	char *digest;           /* lower-case hex, when digest_algorithm is set */
	char *staged_at;        /* RFC 3339 UTC, when the staging finished;
				 * NULL: not staged yet (not written) */
};

struct jp_data_source {
	char *name;
	char *path;
	enum jp_data_kind kind;
	bool read_only;
	bool has_stats;
	struct jp_data_stats stats;
	struct jp_data_origin origin; /* origin.from NULL: none recorded */
	/* the archives it holds are unpacked, each into the folder beside it,
	 * before the job (jobprep stage --unpack-archives) */
	bool unpack_archives;
	/* the job writes it (a cache, a folder it fills): empty is no failure */
	bool output;
};

struct jp_check {
	char *id;      /* e.g. "outputs.checkpoint_dir.persistent" */
	enum jp_check_status status;
	char *message; /* tells the user what to do */
	char *path;    /* the path checked, may be NULL */
};

struct jp_job {
	char *name; /* DNS-1123 label */
	int64_t workers;
	int64_t gpus_per_worker; /* -1 only in answers: not given */
	char *launch_command;
	struct jp_env_var *env;
	size_t n_env;
	/* The earlier run's checkpoint folder this run resumes from (env.sh
	 * exports it as RESUME_FROM; src/resume.c): an absolute path; in an
	 * answers file also a run folder's name ("run-001") or "last". NULL:
	 * none. */
	char *resume_from;
};

/* What the Python code the launch command runs needs of a Worker's python3,
 * read from the code at init (the launch lint), judged by every Worker's
 * preflight.sh and by `jobprep check` (check_runtime.c). */
struct jp_code_python {
	bool recorded;            /* the code was read (else nothing below holds) */
	char **modules;           /* third-party top-level modules, sorted */
	size_t n_modules;
	char *min_version;        /* "3.10": what its syntax needs; NULL: not told */
	bool dataloader_workers;  /* it starts DataLoader workers (num_workers not 0) */
};

struct jp_code {
	enum jp_code_source source;
	char *path;        /* shared_storage: the checkout; image: code dir in it */
	char *repo_url;    /* without credentials */
	char *repo_ref;
	char *repo_commit; /* 40 hex */
	char *image;       /* image reference */
	/* shared_storage, a run's manifest: path is the run's own read-only
	 * copy of the code, checkout the live checkout it was made from; the
	 * uncommitted changes it includes: their SHA-256 and first few names
	 * (NULL: none). */
	char *checkout;
	char *changes_digest;
	char *changes_files;
	struct jp_code_python python;
};

/* Where a path the checks judge lived when the job was prepared (`init`,
 * the wizard): its filesystem type and mount point, as that machine saw
 * them. Each Worker's preflight.sh compares its own view with it. */
struct jp_storage_record {
	char *field;       /* "code.path", "data[0].path", "outputs.log_dir" */
	char *path;        /* the path then (a record of another path is stale) */
	char *fstype;      /* "nfs4", "lustre", "ext4" */
	char *mount_point; /* the mount the path was on */
};

struct jp_outputs {
	char *output_dir;
	char *checkpoint_dir;
	char *log_dir;
};

struct jp_manifest {
	int schema_version;
	char *generator_name;
	char *generator_version;
	char *created_at; /* RFC 3339 UTC */
	struct jp_job job;
	struct jp_code code;
	struct jp_data_source *data;
	size_t n_data;
	struct jp_outputs outputs;
	struct jp_check *checks;
	size_t n_checks;
	struct jp_profile *profile; /* owned; NULL = not recorded */
	struct jp_storage_record *storage; /* where the paths lived; may be none */
	size_t n_storage;
};

void jp_manifest_free(struct jp_manifest *m);

/* The worst status among the checks (PASS if none). */
enum jp_check_status jp_manifest_worst(const struct jp_manifest *m);

/* Names for enums, as written in JSON (NULL for JP_CODE_UNSET). */
const char *jp_code_source_name(enum jp_code_source s);
const char *jp_data_kind_name(enum jp_data_kind k);
const char *jp_origin_kind_name(enum jp_origin_kind k);

/* How strictly to read JSON into a manifest. */
enum jp_read_mode {
	JP_READ_MANIFEST, /* a full manifest: required fields must be there */
	JP_READ_ANSWERS,  /* an answers file: any subset of the manifest */
};

/* Read and parse a file (at most 16 MiB). */
int jp_manifest_load(struct jp_manifest **out, const char *path,
		     enum jp_read_mode mode, struct jp_error *err);

/* A new cJSON array of m's checks, shaped as in the manifest; NULL when out
 * of memory. The caller frees it with cJSON_Delete. */
struct cJSON *jp_checks_to_json(const struct jp_manifest *m);

/* Write atomically: a temporary in the same directory (O_EXCL|O_NOFOLLOW),
 * fsync, rename over `path`, fsync of the directory. Refuses a `path` that
 * is a symlink. On any failure the previous file is left intact and the
 * temporary removed. `mode` is the new file's permission bits. In bounded
 * time: the write runs in a watched child process (src/probe_watch.h), and
 * on a hung network mount it fails with JP_ETIMEOUT when a phase does not
 * answer within jp_file_write_timeout_ms() (the child, killed, is left to
 * the mount): the write and its flush ("PATH: no answer within N s": the
 * old file stays, the rename was never asked for), the rename ("... while
 * putting the new file in place ...: once the mount answers, it holds the
 * old file or the new one, whole"), the folder's flush (the new file is in
 * place). */
int jp_file_write_atomic(const char *path, const char *data, size_t len,
			 unsigned mode, struct jp_error *err);

/* The manifest's JSON Schema (draft 2020-12); borrowed, static. */
const char *jp_manifest_schema(void);

/* Small validators shared by the manifest, the flow and the UI. */
bool jp_valid_job_name(const char *name);

/* Deepest nesting a manifest needs, with room to spare; deeper is refused. */
#define JP_MANIFEST_MAX_DEPTH 8
/* Largest manifest file jp_manifest_load reads. */
#define JP_MANIFEST_MAX_BYTES (16 * 1024 * 1024)

/* Test hook, NULL in production: jp_file_write_atomic calls it after the
 * temporary is written and synced, just before the rename. Tests set it to
 * kill the process there and prove the old file survives. */
extern void (*jp_file_write_atomic_hook)(const char *tmp_path);

#endif
