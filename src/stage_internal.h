/* Shared by src/stage*.c only. */
#ifndef JOBPREP_STAGE_INTERNAL_H
#define JOBPREP_STAGE_INTERNAL_H

#include <openssl/evp.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "jobprep/error.h"
#include "jobprep/port.h"
#include "jobprep/stage.h"

/* jp_stage's work, on this process's threads (stage.c); jp_stage runs it
 * in a watched child process (stage_bounded.c). */
int jp_stage_now(struct jp_stage_result *out, const char *source, const char *dest,
		 const struct jp_stage_options *opts, const struct jp_port *port,
		 struct jp_error *err);
/* Does the name say it is an archive stage unpacks (.tar, .tar.gz, .tgz,
 * .tar.zst, .tar.xz, .txz, .tar.bz2, .tbz2, .zip)? */
bool jp_stage_is_archive(const char *name);
/* Unpack the archive at path into dest (stage_archive.c). What out's
 * bytes_written holds on entry (a download's bytes) moves to its
 * bytes_downloaded; bytes_written is the data unpacked. */
int jp_stage_archive(struct jp_stage_result *out, const char *path, const char *dest,
		     const struct jp_stage_options *opts, const struct jp_port *port,
		     struct jp_error *err);
/* DEST ends with '/': a folder (rsync, wget -P), the file goes into it. */
bool jp_stage_names_folder(const char *dest);
/* dir made (mkdir -p) unless it is a folder already; 0 or a JP_E* code. */
int jp_stage_make_folder(const char *dir, struct jp_error *err);
/* http:// or https:// (case-insensitive). */
bool jp_stage_is_url(const char *s);
/* Download url (resumably), check it, put it at dest or unpack it there
 * (stage_http.c). */
int jp_stage_http(struct jp_stage_result *out, const char *url, const char *dest,
		  const struct jp_stage_options *opts, const struct jp_port *port,
		  struct jp_error *err);
/* Download a Hub repository into its cache layout under dest (stage_hf.c). */
int jp_stage_hf(struct jp_stage_result *out, const char *source, const char *dest,
		const struct jp_stage_options *opts, const struct jp_port *port,
		struct jp_error *err);
/* The options every request of a download shares (stage_curl.c): the
 * URL, http(s) only, redirects followed without the credentials, errors
 * into errbuf, token (NULL: $JOBPREP_HTTP_TOKEN; "" none) as a bearer.
 * curl: a CURL easy handle. */
void jp_stage_http_setup(void *curl, const char *url, char *errbuf, const char *token);
/* --timeout (0: the default) for every request jp_stage_http_setup sets
 * up from now on in this process (stage_curl.c), and its value now. */
void jp_stage_curl_timeout(unsigned seconds);
unsigned jp_stage_curl_timeout_s(void);
/* A request that ended (a CURLcode) in a way an answer cut short ends:
 * whole (a 206 capped short, a body cut without a Content-Length), or the
 * connection lost mid-body. Asking for the rest may finish it. */
bool jp_stage_cut_short(int cc);
/* A request that timed out (cc, a CURLcode): errbuf (CURL_ERROR_SIZE)
 * says it in jobprep's words, naming --timeout. */
void jp_stage_curl_explain(int cc, char *errbuf);
/* stage_curl.c: a header's value, its spaces and line end trimmed, into out
 * (cut to n). */
void jp_stage_header_value(char *out, size_t n, const char *v, size_t len);
/* len more bytes written to fd: every few MiB, start writing the file's
 * dirty pages to disk without waiting, so that a flush finds little left
 * and the download goes on meanwhile (*unflushed counts since the last). */
void jp_stage_writeback(int fd, uint64_t *unflushed, size_t len);
/* A download this large or more, from a server that takes ranges, goes
 * over several connections; below it, one. */
#define JP_STAGE_RANGES_MIN (16ull << 20)
#define JP_STAGE_VALIDATOR_MAX 520

/* What a HEAD of a URL says (stage_http_ranges.c). */
struct jp_stage_head {
	bool known;     /* it answered 200 with a length: the rest is set */
	bool ranges;    /* Accept-Ranges: bytes */
	uint64_t size;  /* Content-Length */
	long filetime;  /* Last-Modified, -1 when none */
	char validator[JP_STAGE_VALIDATOR_MAX]; /* a strong ETag, else Last-Modified, "" */
};

/* HEAD url into out (token as for jp_stage_http_setup): 0, or -1
 * (out->known false: a GET will find out). */
int jp_stage_http_head(struct jp_stage_head *out, const char *url, const char *token);
/* Download url into part over several connections at once (ranges
 * written in place with pwrite), resumably (the ranges done so far kept
 * beside part, in part.ranges, with the remote's validator) when the file
 * is large and the server takes ranges (head, from jp_stage_http_head).
 * 0 done (part complete and flushed; *written: the bytes received); 1 not
 * for this URL (small, no ranges, no strong validator, or it changed
 * mid-way: part is removed), use one connection; < 0 a JP_E* error, err
 * set (what was received is kept for the next run). shown: the URL for
 * messages; dest: the file it becomes, which messages name (never the
 * temporary part); token as for jp_stage_http_setup. */
int jp_stage_http_ranges(const char *url, const struct jp_stage_head *head, const char *part,
			 const char *shown, const char *dest, const char *token,
			 const struct jp_port *port, uint64_t *written, struct jp_error *err);
/* Add a note (a member stripped or skipped) to out; 0 or JP_ENOMEM. */
int jp_stage_note(struct jp_stage_result *out, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* ---- the writers of an unpack (stage_pool.c) ---- */

/* One member to write: its bytes in memory. */
struct jp_stage_job {
	int at;            /* its folder, held open by the caller until finish */
	const char *name;  /* its name there (inside rel) */
	char *rel;         /* the clean member name, owned */
	char *data;        /* len bytes, owned; from len to size: a hole */
	size_t len;
	uint64_t size;
	mode_t mode;
	struct timespec times[2];
	int check_dest;    /* a complete copy there at rel: skipped; -1 none */
	bool fresh;        /* its folder was made empty by this run */
};
struct jp_stage_pool;

/* Write j now, on this thread: created (a file there replaced unless
 * fresh), its mode and times, closed. 0, or -1 with errno (nothing left). */
int jp_stage_job_write(const struct jp_stage_job *j, mode_t umask_bits);
/* The two halves of it: j's file created, its fd (or -1 with errno); then
 * its bytes, mode and times written into fd, closed (0, or -1 with errno,
 * the file removed). */
int jp_stage_job_create(const struct jp_stage_job *j);
int jp_stage_job_fill(const struct jp_stage_job *j, int fd, mode_t umask_bits);
void jp_stage_job_free(struct jp_stage_job *j);
/* threads writers (0 = 16, at most 64), holding at most max_bytes of
 * queued data. 0, JP_ENOMEM or JP_EINTERNAL. */
int jp_stage_pool_start(struct jp_stage_pool **out, unsigned threads, size_t max_bytes);
/* Queue j (the pool owns it then), waiting up to wait_ns for room: 0
 * queued, 1 not yet (call again), -1 the pool failed (j still the
 * caller's). */
int jp_stage_pool_put(struct jp_stage_pool *p, struct jp_stage_job *j, long wait_ns);
/* Wait up to wait_ns for every queued job to be written: 0 all done, 1 not
 * yet. */
int jp_stage_pool_drain(struct jp_stage_pool *p, long wait_ns);
/* A write failed (finish says which); or stop was called. */
bool jp_stage_pool_failed(struct jp_stage_pool *p);
void jp_stage_pool_stop(struct jp_stage_pool *p);
/* Bytes written so far. */
uint64_t jp_stage_pool_bytes(struct jp_stage_pool *p);
/* Join the writers, add their counts to out (may be NULL), free p. 0, or
 * the first failure's JP_E* code with "member: reason" in msg. */
int jp_stage_pool_finish(struct jp_stage_pool *p, struct jp_stage_result *out, char *msg,
			 size_t msgsz);

/* ---- filling an unpack folder (stage_unpack.c) ---- */
struct archive;
struct jp_unpack;

/* Into the folder open at tmp_fd (tmp_fresh: made empty by this run);
 * dest_fd (-1: none) holds what is complete already. tick (may be NULL)
 * is called while waiting, and cancels when it returns true. 0 or JP_E*. */
int jp_unpack_start(struct jp_unpack **out, int tmp_fd, bool tmp_fresh, int dest_fd,
		    unsigned jobs, bool (*tick)(void *arg), void *tick_arg);
/* A folder member (made now; perm and times set by finish). 0, -1 errno.
 * A name met before in the archive (any member) replaces what is there
 * once the writers have written what was queued: the last member wins. */
int jp_unpack_dir(struct jp_unpack *u, const char *rel, mode_t perm,
		  const struct timespec times[2]);
/* A regular member whose data r reads next (size -1: unknown); skipped
 * when complete in dest or in the unpack folder. 0; -1 errno (EIO: a
 * writer failed, finish says why; ECANCELED); -2 the archive (*msg). */
int jp_unpack_file(struct jp_unpack *u, struct archive *r, const char *rel, int64_t size,
		   mode_t perm, const struct timespec times[2], const char **msg);
/* A symlink member to target, or (hard set: a clean member name) a hard
 * link to hard, once what is queued is written, its target looked up in
 * the unpack folder, else in dest, with no symlink followed. 0, -1 errno,
 * -3 the target is reached through a symlink (the archive is refused). */
int jp_unpack_link(struct jp_unpack *u, const char *rel, const char *target, const char *hard,
		   const struct timespec times[2]);
/* Bytes written so far; has a writer failed? */
uint64_t jp_unpack_bytes(struct jp_unpack *u);
bool jp_unpack_failed(struct jp_unpack *u);
/* Wait for the writers (ok) or stop them, add the counts to out, give the
 * folders their modes and times (ok). 0, JP_ECANCELED, or the failure's
 * JP_E* code with "member: reason" in msg. Frees u. */
int jp_unpack_finish(struct jp_unpack *u, bool ok, struct jp_stage_result *out, char *msg,
		     size_t msgsz);

/* ---- of jobprep/stage.h, what no front end calls ---- */

/* hf://ORG/NAME, hf://datasets/ORG/NAME (optionally @REVISION): a Hugging
 * Face Hub repository (stage_hf.c). jp_stage downloads it from
 * $HF_ENDPOINT (default https://huggingface.co; $HF_TOKEN, if set, as a
 * Bearer token to that host only) into the Hub's cache layout under
 * dest/hub (models--ORG--NAME/{blobs,snapshots/COMMIT,refs/REVISION}), so
 * that code run with HF_HOME=dest HF_HUB_OFFLINE=1 loads it without a
 * network; res->dest is dest, res->revision the commit. Several files at
 * once, each resumable and checked (an LFS file's SHA-256, else its git
 * blob id); a re-run fetches only what is missing. */
bool jp_stage_is_hub(const char *s);
/* The archive suffix that makes jp_stage unpack `name` (".tar.gz",
 * ".zip", ...): a pointer into name, or NULL when it names no archive. */
const char *jp_stage_archive_suffix(const char *name);
/* The name a data set staged from source gets by default: the last
 * component of its path (of a URL's path, before '?' and '#'), an
 * archive's suffix left out ("c4.tar.zst" is "c4"); "data" when that
 * leaves nothing usable. The caller frees it; NULL when out of memory. */
char *jp_stage_suggest_name(const char *source);

/* The archives under dir still to unpack; quick: a look bounded in time
 * (jp_scan's quick look), so the list may be partial (!complete).
 * Temporaries a killed run left are no part of it. 0 or a negative code. */
int jp_stage_find_packed(struct jp_stage_packed *out, const char *dir, bool quick,
			 struct jp_error *err);
void jp_stage_packed_dispose(struct jp_stage_packed *p);

/* The digest of head (head_len bytes, may be 0) and then path's bytes, as
 * lower-case hex into hex (2 * the digest's size + 1 bytes): sha256_file's
 * and a git blob id's (stage_hf.c). 0, or -1 when path cannot be read. */
int jp_stage_digest_file(char *hex, const char *path, const EVP_MD *md_type, const char *head,
			 size_t head_len);

/* The folder beside archive (jp_stage_beside) is there: a directory, not
 * followed. Unbounded: for a helper's own thread (the scan's items). */
bool jp_stage_unpacked(const char *archive);

#endif
