/* The core's side of jobprep/manifest.h: what only src/ (and the unit tests)
 * call. The front ends use include/jobprep/manifest.h. */
#ifndef JOBPREP_MANIFEST_INTERNAL_H
#define JOBPREP_MANIFEST_INTERNAL_H

#include "jobprep/manifest.h"
#include "path_internal.h" /* jp_path_is_normal, the manifest's rule for paths */

/* An empty manifest (schema_version 1, generator jobprep/VERSION, workers 1,
 * gpus_per_worker 0). */
int jp_manifest_new(struct jp_manifest **out);

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
/* code.python: free its strings, back to not recorded. */
void jp_code_python_dispose(struct jp_code_python *py);
/* A copy of src into dst (dst's old strings freed); 0 or JP_ENOMEM. */
int jp_code_python_copy(struct jp_code_python *dst, const struct jp_code_python *src);
/* Append a module name to py->modules (a copy); 0 or JP_ENOMEM. */
int jp_code_python_add(struct jp_code_python *py, const char *module);
/* A module name as code.python.modules holds it: a Python identifier
 * (ASCII letters, digits, '_', not starting with a digit). */
bool jp_valid_module_name(const char *s);
/* "3.N" (N up to 99), as code.python.min_version holds it. */
bool jp_valid_python_version(const char *s);

/* Set created_at to the current time (RFC 3339 UTC, whole seconds).
 * jp_manifest_new already does this once. */
int jp_manifest_stamp(struct jp_manifest *m);

/* A check status's name, as written in JSON (jobprep/manifest.h has the others). */
const char *jp_check_status_name(enum jp_check_status s);

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

/* Check an in-memory manifest against the same rules as parsing (it is
 * written to text and read back), every required field included. */
int jp_manifest_validate(const struct jp_manifest *m, const char *origin,
			 struct jp_error *err);

/* Serialise to JSON text (pretty, trailing newline); *out is the caller's,
 * free with free(). */
int jp_manifest_to_text(char **out, const struct jp_manifest *m,
			struct jp_error *err);

/* Four times jp_probe_default_timeout_ms(): a flush on a slow but living
 * network mount takes its time. */
unsigned jp_file_write_timeout_ms(void);
/* Validate m (JP_EFORMAT with every problem, nothing written), then write
 * it with jp_file_write_atomic. Whether failed checks may be written is the
 * caller's decision. */
int jp_manifest_write(const struct jp_manifest *m, const char *path,
		      unsigned mode, struct jp_error *err);

/* A full commit id: 40 lower-case hex digits. */
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
/* NAME is one the platform sets for each Worker (RANK, WORLD_SIZE,
 * MASTER_ADDR, SLURM_PROCID, PET_NNODES...): job.env may not set it. */
bool jp_env_name_platform(const char *name);
/* The i-th of those names, NULL past the last (PET_* counts as one). */
const char *jp_env_platform_name(size_t i);
/* The record of field, when it is of path (NULL otherwise). */
const struct jp_storage_record *jp_manifest_storage_record(const struct jp_manifest *m,
							   const char *field, const char *path);
/* Record (or replace) where field's path lived. Returns 0 or JP_ENOMEM. */
int jp_manifest_set_storage(struct jp_manifest *m, const char *field, const char *path,
			    const char *fstype, const char *mount_point);
/* RFC 3339 in UTC: YYYY-MM-DDTHH:MM:SS[.fraction]Z. */
bool jp_valid_timestamp(const char *s);

#endif
