/* Shared by src/stage_hf*.c only: a Hugging Face Hub repository staged into
 * the Hub's cache layout (stage_hf.c downloads it, stage_hf_cache.c lays
 * it out). */
#ifndef JOBPREP_STAGE_HF_H
#define JOBPREP_STAGE_HF_H

#include <stdbool.h>
#include <stddef.h>

#include "jobprep/error.h"

/* A name from the Hub or a person, safe as a relative path under a folder:
 * no empty, "." or ".." component, no leading '/', no control character or
 * backslash; '/' only when slashes. */
bool jp_hf_name_ok(const char *s, bool slashes);
/* An ETag jobprep names a blob after: 40 (a git blob id) or 64 (an LFS
 * file's SHA-256) lower-case hex digits. */
bool jp_hf_etag_ok(const char *s);
/* mkdir -p (0755). 0 or a JP_E* code. */
int jp_hf_mkdirs(const char *path, struct jp_error *err);
/* repo_dir/blobs/ETAG into out; -1 when it does not fit. */
int jp_hf_blob_path(char *out, size_t n, const char *repo_dir, const char *etag);
/* snapshots/COMMIT/RFILENAME made (or replaced whole) a relative symlink
 * to blobs/ETAG, its folders made. 0 or a JP_E* code. */
int jp_hf_link(const char *repo_dir, const char *commit, const char *rfilename, const char *etag,
	       struct jp_error *err);
/* snapshots/COMMIT/RFILENAME is a link to a blob that is there. */
bool jp_hf_linked(const char *repo_dir, const char *commit, const char *rfilename);
/* refs/REVISION holds COMMIT (40 characters, no newline; written whole,
 * and only when it does not already); nothing when revision is the
 * commit. 0 or a JP_E* code. */
int jp_hf_write_ref(const char *repo_dir, const char *revision, const char *commit,
		    struct jp_error *err);

#endif
