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
#include "jobprep/path.h" /* jp_path_is_normal, the manifest's rule for paths */
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
};

struct jp_code {
	enum jp_code_source source;
	char *path;        /* shared_storage: the checkout; image: code dir in it */
	char *repo_url;    /* without credentials */
	char *repo_ref;
	char *repo_commit; /* 40 hex */
	char *image;       /* image reference */
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
};

/* An empty manifest (schema_version 1, generator jobprep/VERSION, workers 1,
 * gpus_per_worker 0). */
int jp_manifest_new(struct jp_manifest **out);
void jp_manifest_free(struct jp_manifest *m);

/* Appending: each copies its string arguments. */
int jp_manifest_add_env(struct jp_manifest *m, const char *name,
			const char *value);
int jp_manifest_add_data(struct jp_manifest *m, const char *name,
			 const char *path, enum jp_data_kind kind,
			 bool read_only);
int jp_manifest_add_check(struct jp_manifest *m, const char *id,
			  enum jp_check_status status, const char *path,
			  const char *fmt, ...) __attribute__((format(printf, 5, 6)));
void jp_manifest_clear_checks(struct jp_manifest *m);
/* The worst status among the checks (PASS if none). */
enum jp_check_status jp_manifest_worst(const struct jp_manifest *m);

/* Set created_at to the current time (RFC 3339 UTC, whole seconds).
 * jp_manifest_new already does this once. */
int jp_manifest_stamp(struct jp_manifest *m);

/* Names for enums, as written in JSON (NULL for JP_CODE_UNSET). */
const char *jp_code_source_name(enum jp_code_source s);
const char *jp_data_kind_name(enum jp_data_kind k);
const char *jp_check_status_name(enum jp_check_status s);
const char *jp_origin_kind_name(enum jp_origin_kind k);
/* The reverse: 0, or JP_EFORMAT for a name that is not one of them. */
int jp_code_source_from_name(enum jp_code_source *out, const char *name);
int jp_data_kind_from_name(enum jp_data_kind *out, const char *name);
int jp_check_status_from_name(enum jp_check_status *out, const char *name);
int jp_origin_kind_from_name(enum jp_origin_kind *out, const char *name);
/* A copy of src into *dst (dst's old strings freed); 0 or JP_ENOMEM. */
int jp_data_origin_copy(struct jp_data_origin *dst, const struct jp_data_origin *src);
void jp_data_origin_dispose(struct jp_data_origin *o);
/* The hex digits a digest algorithm has (64 for "sha256", 16 for
 * "xxh3-64"); 0 for an algorithm the manifest does not know. */
size_t jp_digest_hex_len(const char *algorithm);

/* How strictly to read JSON into a manifest. */
enum jp_read_mode {
	JP_READ_MANIFEST, /* a full manifest: required fields must be there */
	JP_READ_ANSWERS,  /* an answers file: any subset of the manifest */
};

/* Parse manifest JSON text of `len` bytes. Every problem is recorded in err as
 * "ORIGIN: field.path: expected X, got Y" (problems in the JSON text itself,
 * found before any field is read, as "ORIGIN:LINE:COLUMN: field.path: ...");
 * returns JP_EFORMAT if any, and *out stays NULL. Field paths look like
 * "job.workers", "data[0].path", "job.env.NAME"; the root is "(top level)".
 * Rejects duplicate keys, invalid UTF-8, NUL in strings, excess nesting,
 * unknown fields, out-of-range numbers, relative paths, bad job names, bad
 * commits and credentials in repository URLs (never echoed back).
 * JP_READ_ANSWERS: nothing is required; what is absent stays as
 * jp_manifest_new leaves it, except created_at, which stays NULL, and
 * job.gpus_per_worker, which is -1 (not given: the profile's default). */
int jp_manifest_parse(struct jp_manifest **out, const char *text, size_t len,
		      const char *origin, enum jp_read_mode mode,
		      struct jp_error *err);
/* Read and parse a file (at most 16 MiB). */
int jp_manifest_load(struct jp_manifest **out, const char *path,
		     enum jp_read_mode mode, struct jp_error *err);
/* Check an in-memory manifest against the same rules as parsing (it is
 * written to text and read back), every required field included. */
int jp_manifest_validate(const struct jp_manifest *m, const char *origin,
			 struct jp_error *err);

/* Serialise to JSON text (pretty, trailing newline); *out is the caller's,
 * free with free(). */
int jp_manifest_to_text(char **out, const struct jp_manifest *m,
			struct jp_error *err);

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
/* Four times jp_probe_default_timeout_ms(): a flush on a slow but living
 * network mount takes its time. */
unsigned jp_file_write_timeout_ms(void);
/* Validate m (JP_EFORMAT with every problem, nothing written), then write
 * it with jp_file_write_atomic. Whether failed checks may be written is the
 * caller's decision. */
int jp_manifest_write(const struct jp_manifest *m, const char *path,
		      unsigned mode, struct jp_error *err);

/* The manifest's JSON Schema (draft 2020-12); borrowed, static. */
const char *jp_manifest_schema(void);

/* Small validators shared by the manifest, the flow and the UI. */
bool jp_valid_job_name(const char *name);
bool jp_valid_commit(const char *hex);
/* a and b name the same repository, but for a trailing ".git" or '/'
 * ("https://h/x.git" and "https://h/x/"); false when either is NULL. */
bool jp_url_same_repo(const char *a, const char *b);
/* A POSIX sh variable name: [A-Za-z_][A-Za-z0-9_]*. */
bool jp_valid_env_name(const char *name);
/* Why a shell would not keep NAME as env.sh sets it (RANDOM, UID, OPTIND,
 * zsh's status or path...): a reason, untranslated (give it to _()), static;
 * NULL for an ordinary name. */
const char *jp_env_name_special(const char *name);
/* The i-th of those names, NULL past the last (for the schema's test). */
const char *jp_env_special_name(size_t i);
/* RFC 3339 in UTC: YYYY-MM-DDTHH:MM:SS[.fraction]Z. */
bool jp_valid_timestamp(const char *s);

/* Deepest nesting a manifest needs, with room to spare; deeper is refused. */
#define JP_MANIFEST_MAX_DEPTH 8
/* Largest manifest file jp_manifest_load reads. */
#define JP_MANIFEST_MAX_BYTES (16 * 1024 * 1024)

/* Test hook, NULL in production: jp_file_write_atomic calls it after the
 * temporary is written and synced, just before the rename. Tests set it to
 * kill the process there and prove the old file survives. */
extern void (*jp_file_write_atomic_hook)(const char *tmp_path);

#endif
