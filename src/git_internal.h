/* Shared by src/git_*.c only: URL parsing, the state one git operation's
 * callbacks share, credentials, temporaries. Not part of the public API. */
#ifndef JOBPREP_GIT_INTERNAL_H
#define JOBPREP_GIT_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>

#include <git2.h>
/* The version, by 1.8's names (LIBGIT2_VERSION_*) or 1.5's (LIBGIT2_VER_*,
 * which 1.8 keeps only in git2/deprecated.h). */
#ifdef LIBGIT2_VERSION_MINOR
#define JP_LIBGIT2_MAJOR LIBGIT2_VERSION_MAJOR
#define JP_LIBGIT2_MINOR LIBGIT2_VERSION_MINOR
#else
#define JP_LIBGIT2_MAJOR LIBGIT2_VER_MAJOR
#define JP_LIBGIT2_MINOR LIBGIT2_VER_MINOR
#endif
/* libgit2 1.8 moved git_error_set, git_error_set_str and git_error_clear
 * out of git2.h into git2/sys/errors.h. */
#if JP_LIBGIT2_MAJOR > 1 || JP_LIBGIT2_MINOR >= 8
#include <git2/sys/errors.h>
#endif

#include "jobprep/error.h"
#include "jobprep/git.h"
#include "deadline_internal.h"
#include "jobprep/port.h"
#include "jobprep/strv.h"
#include "treecopy.h"

/* ---- URLs (git_url.c) ---- */

enum jp_url_kind {
	JP_URL_LOCAL = 0, /* a path */
	JP_URL_FILE,      /* file:// */
	JP_URL_HTTP,
	JP_URL_HTTPS,
	JP_URL_SSH,       /* ssh:// or user@host:path */
	JP_URL_GIT,       /* git:// */
};

struct jp_git_url {
	enum jp_url_kind kind;
	bool scp;     /* user@host:path form */
	char *user;   /* percent-decoded; NULL if none */
	char *secret; /* percent-decoded password/token; wiped on dispose */
	char *host;   /* lower-case, without brackets; NULL for paths */
	char *port;   /* NULL = the scheme's default */
	char *path;
	char *clean;  /* what libgit2 gets and .git/config records: no secret;
		       * for http(s) no user info either; a local path made
		       * absolute */
};

#define JP_GIT_URL_INIT { .kind = JP_URL_LOCAL }

/* Parse a URL as given by a person. Refuses a URL beginning with '-'.
 * Local paths are made absolute against the working directory. */
int jp_git_url_parse(struct jp_git_url *out, const char *url,
		     struct jp_error *err);
void jp_git_url_dispose(struct jp_git_url *u);
/* Same scheme family, host and port: a credential for one fits the other. */
bool jp_git_url_same_server(const struct jp_git_url *a,
			    const struct jp_git_url *b);
/* Wipe and free a secret string. */
void jp_secret_free(char *s);

/* ---- one operation's shared callback state (git_op.c) ---- */

struct jp_git_creds; /* git_cred.c */

struct jp_git_op {
	const struct jp_port *port;
	struct jp_git_creds *creds;
	bool canceled;      /* the port asked to stop */
	int fail_code;      /* set by a callback that decided to stop */
	char fail_msg[2048]; /* why: its lines, joined by '\n' */
	/* progress */
	enum jp_phase phase;
	uint64_t t_start, t_last, t_rate; /* ns, monotonic */
	uint64_t rate_bytes;
	double rate;
	uint64_t last_done, last_total, last_bytes; /* as last reported */
	/* checkout: renamed away on cancel so libgit2's next write fails */
	const char *rug;
	/* staging: stop fetching when the pack outgrows this (0 = no limit) */
	uint64_t room;
	bool out_of_room;
	unsigned stall_timeout_s;
	const char *what;
	/* the ssh server named, for known_hosts' [host]:port */
	const char *ssh_host, *ssh_port;
	/* staging: told of each file the checkout has finished writing */
	void (*on_file)(void *ctx, const char *path);
	void *on_file_ctx;
	/* Once an ssh step's helper was given up (git_ssh.c): why
	 * (JP_ECANCELED or JP_ETIMEOUT), and the message that says so. */
	atomic_int abandoned;
	char abandoned_msg[512];
};

void jp_git_op_init(struct jp_git_op *op, const struct jp_port *port);
/* Report progress (rate-limited unless force); returns < 0 once the port
 * asked to cancel. */
int jp_git_op_progress(struct jp_git_op *op, enum jp_phase phase,
		       uint64_t done, uint64_t total, uint64_t bytes, bool force);
/* From a wait with nothing new to report (the socket stream): repeat the
 * last progress now and then so the port can cancel. < 0 when canceled. */
int jp_git_op_tick(struct jp_git_op *op);
/* Record a decision to stop; returns GIT_EUSER for a libgit2 callback. */
int jp_git_op_fail(struct jp_git_op *op, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The same with a whole error (its code, every line), as one that crossed
 * from a helper; nothing when e holds none. */
int jp_git_op_fail_whole(struct jp_git_op *op, const struct jp_error *e);
/* Fill libgit2 remote callbacks (credentials, host keys, progress). */
void jp_git_op_remote_callbacks(git_remote_callbacks *cb, struct jp_git_op *op);
void jp_git_op_checkout_callbacks(git_checkout_options *co, struct jp_git_op *op);
/* Turn a libgit2 failure `gerr` during `what` into a JP_E* code and a
 * message in err. `dir` (may be NULL) is checked for a full disk. */
int jp_git_op_error(struct jp_git_op *op, int gerr, const char *dir,
		    struct jp_error *err, const char *what);
/* For a thread-local "current operation" used by the socket stream. */
void jp_git_op_enter(struct jp_git_op *op);
void jp_git_op_leave(struct jp_git_op *op);
struct jp_git_op *jp_git_op_current(void);

/* ---- credentials (git_cred.c) ---- */

/* Credentials for one operation: `named` is the URL the person typed, the
 * only server that gets its token or JOBPREP_GIT_TOKEN. */
int jp_git_creds_new(struct jp_git_creds **out, const struct jp_git_url *named,
		     const struct jp_port *port);
void jp_git_creds_free(struct jp_git_creds *c);
/* The URL the person typed, as c holds it (borrowed). */
const struct jp_git_url *jp_git_creds_named(const struct jp_git_creds *c);
/* libgit2 callbacks; payload is the struct jp_git_op. */
int jp_git_cred_cb(git_credential **out, const char *url,
		   const char *username_from_url, unsigned int allowed_types,
		   void *payload);
/* ssh host keys: known_hosts (via ssh-keygen -F), else ask the port. */
int jp_git_hostkey_cb(git_cert *cert, int valid, const char *host,
		      void *payload);

/* ---- temporaries (git_tmp.c) ---- */

struct jp_git_tmp {
	char *dir;  /* the temporary directory (has an "owner" file) */
	char *tree; /* dir/tree: where the clone is built */
};

#define JP_GIT_TMP_INIT { NULL, NULL }

/* Create PARENT/PREFIX<pid>-<random> with an owner file. */
int jp_git_tmp_create(struct jp_git_tmp *t, const char *parent,
		      const char *prefix, struct jp_error *err);
/* Remove the temporary and everything in it; frees t's strings. */
int jp_git_tmp_remove(struct jp_git_tmp *t);
/* Remove PARENT/PREFIX* temporaries whose owner died on this host. *live
 * (may be NULL) gets the number left because their owner is alive or
 * unknown; who (may be NULL) describes the first of them: "PATH (pid N on
 * HOST)". */
int jp_git_tmp_clean_stale(const char *parent, const char *prefix,
			   unsigned *live, char *who, size_t who_len);

/* ---- the target directory (git_target.c) ---- */

struct jp_git_target {
	char *path;       /* absolute, symlinks resolved */
	char *parent;     /* its directory */
	char *name;       /* its last component */
	bool exists;      /* an empty directory is already there */
	bool inside;      /* ... and the clone is built inside it: it is a mount
			   * point, or its parent is not ours to write in */
	unsigned mode;    /* the existing directory's mode bits */
	unsigned gid;     /* ... and group */
	bool network;     /* on a network filesystem */
	char *fstype;
	char *tmp_parent; /* where temporaries go */
	char *tmp_prefix; /* their name prefix */
	struct jp_strv made; /* parents created by jp_git_target_make_parents */
};

/* The refusals (no network): '-' paths, files, non-empty directories,
 * symlinks into ephemeral storage, another clone running there. Cleans
 * stale temporaries of dead runs. */
int jp_git_target_plan(struct jp_git_target *t, const char *target,
		       const struct jp_profile *profile, struct jp_error *err);
/* mkdir -p of the parent, remembering what was created. */
int jp_git_target_make_parents(struct jp_git_target *t, struct jp_error *err);
/* Remove the parents created, if still empty. */
void jp_git_target_unmake_parents(struct jp_git_target *t);
/* Move the finished tree into place in one rename. */
int jp_git_target_place(const struct jp_git_target *t, const char *tree,
			struct jp_error *err);
void jp_git_target_dispose(struct jp_git_target *t);

/* ---- the local mirror cache (git_cache.c) ---- */

struct jp_git_cache {
	char *dir;    /* $XDG_CACHE_HOME/jobprep/git (default ~/.cache/...) */
	char *mirror; /* dir/<SHA-1 of the clean URL>.git: a bare mirror */
	char *lock;   /* dir/<key>.lock: flock'ed while open; its mtime is
		       * the mirror's last use */
	int lock_fd;
	bool fresh;   /* made from scratch by this open */
	/* The pack files (path of the .pack, its .idx beside it) this open's
	 * fetch brought: complete packs (index-pack fixed them), exactly what
	 * an update of a checkout behind the server needs. */
	struct jp_strv new_packs;
};

#define JP_GIT_CACHE_INIT { .dir = NULL, .lock_fd = -1, .new_packs = JP_STRV_INIT }

/* Whether url goes through the cache: not with no_cache, JOBPREP_NO_CACHE
 * set (not "0"), JOBPREP_CACHE_MAX=0, or for a repository already on this
 * machine (a path, file://). */
bool jp_git_cache_wanted(const struct jp_git_url *url, bool no_cache);
/* Lock url's mirror (waiting for another jobprep using it) and bring it up
 * to date from the server with op's callbacks, making it on first use and
 * again from scratch when it fails its checks. Returns 0 (c open: its
 * mirror is a complete local copy until jp_git_cache_close), 1 when there
 * can be no cache here (no cache folder: go to the server directly; c
 * stays closed), or the fetch's JP_E* code (message in err). */
int jp_git_cache_open(struct jp_git_cache *c, const struct jp_git_url *url,
		      struct jp_git_op *op, struct jp_error *err);
/* The mirror failed a clone or update made from it: remove it, so the
 * next open fetches it anew (c stays open). */
void jp_git_cache_discard(struct jp_git_cache *c);
/* Unlock, then trim the cache to JOBPREP_CACHE_MAX (default 4 GiB), least
 * recently used mirrors first. Safe on a closed c. */
void jp_git_cache_close(struct jp_git_cache *c);
void jp_git_cache_dispose(struct jp_git_cache *c);

/* ---- the parallel checkout writer (git_pcheckout.c) ---- */

/* Give an index entry the stat of the file just written for it (times,
 * device, inode, owner, size), marked up to date so that libgit2's index
 * write does not read the file again; *newest becomes the latest of its
 * mtime and ctime seen so far. */
void jp_git_entry_stat(git_index_entry *ne, const struct stat *st, time_t *newest);

struct jp_git_pco_file {
	const char *path; /* relative to the top, borrowed */
	git_oid id;       /* the blob */
	unsigned mode;    /* GIT_FILEMODE_BLOB, _BLOB_EXECUTABLE, _LINK; 0: remove path */
	bool exec;        /* made executable too (jobprep's exec pattern) */
	bool is_new;      /* the path is not there yet: its folders may be made */
	struct stat st;   /* out: the file's stat under its final name */
	bool done;        /* out: written (or removed) */
};

/* Write the blobs of v[0..n) into the work tree at top with `threads`
 * writers (0 = 16), dealt out folder by folder: fresh (replace false:
 * nothing is there; every folder is made) or over what is there (as git's
 * checkout does: the old file unlinked, the new one made under its name; a
 * symlink made as JP_TREECOPY_TMP_PREFIX NAME and renamed over; only the
 * folders of is_new files are made). No filters are applied: only for
 * trees jp_git_plain_tree accepts. Progress (JP_PHASE_CHECKOUT) and cancel
 * through op. On failure, files already written stay (v[i].done): the
 * caller puts them back. 0, JP_ECANCELED, JP_ENOSPC, JP_EIO, JP_ENOMEM,
 * JP_EGIT. */
int jp_git_pcheckout(git_repository *repo, const char *top, struct jp_git_pco_file *v, size_t n,
		     unsigned threads, bool replace, struct jp_git_op *op, struct jp_error *err);

/* A fresh checkout of tree into the empty work tree dir of repo by the
 * parallel writer, and the index of it with the files' stat: 0, 1 when
 * not for this tree (filters, submodules: libgit2's checkout then), or an
 * error as jp_git_pcheckout's. */
int jp_git_pcheckout_tree(git_repository *repo, git_tree *tree, const char *dir, unsigned threads,
			  struct jp_git_op *op, struct jp_error *err);

/* ---- the parallel status (git_pstatus.c) ---- */

/* Whether a checkout's files are exactly its blobs: no .gitattributes in
 * tree (NULL: in repo's index), no info/attributes, no core.autocrlf,
 * core.eol, core.attributesFile, core.filemode or core.symlinks false,
 * core.ignorecase. Anything else goes through libgit2. */
bool jp_git_plain_tree(git_repository *repo, git_tree *tree);
/* On network storage (the mount table's filesystem type). */
bool jp_git_on_network(const char *path);
#define JP_GIT_PSTATUS_FALLBACK 2
/* count_changes of git_inspect.c with many threads: every tracked file
 * lstat'ed in parallel and compared with the index's stat data (hashed only
 * when it differs or is racily clean), the folders read in parallel for
 * untracked files. 0 (info's dirty, dirty_paths, untracked, exec_only
 * filled), JP_GIT_PSTATUS_FALLBACK for a checkout it does not handle
 * (filters, conflicts, sparse entries: ask libgit2), 1 when out of memory,
 * or a libgit2 error (< 0). */
int jp_git_pstatus(struct jp_git_repo_info *info, git_repository *repo, const char *pattern);

/* ---- running a helper program (git_run.c) ---- */

/* Run argv (PATH searched) in a new session without a terminal: stdin gets
 * `input`, stdout is captured into out (NUL-terminated, at most cap-1
 * bytes), stderr goes to /dev/null, and prompting is switched off in the
 * environment. Killed after timeout_ms. Returns the exit status (0-255), or
 * -1 when it could not run or was killed. out is wiped by the caller. */
int jp_run_capture(char *const argv[], const char *input, char *out, size_t cap,
		   int timeout_ms);

/* Run argv (PATH searched) in w->cwd, in a session of its own without a
 * terminal, prompting off, plus w->env_add (NAME=value, NULL-ended; may be
 * NULL). Its fd 3 is a pipe whose lines go to w->on_line (< 0 stops it); the
 * end of its stdout and stderr is kept in w->errbuf. Stopped (its whole
 * process group killed) when the current git operation is cancelled, or
 * when neither pipe said anything for w->stall_ms (0: never). Returns the
 * exit status (0-255), -1 when it could not run or died of a signal,
 * JP_ECANCELED, JP_ETIMEOUT. */
struct jp_run_watch {
	const char *cwd;
	char *const *env_add;
	int (*on_line)(char *line, void *payload);
	void *payload;
	unsigned stall_ms;
	char *errbuf;
	size_t errcap;
};
int jp_run_watched(char *const argv[], const struct jp_run_watch *w);

/* ---- Git LFS content for a clone (git_lfs.c) ---- */

/* In the finished clone at dir: when it holds LFS pointers and git-lfs is
 * installed, set git-lfs up in the clone's own config (`git lfs install
 * --local`: the filter, so git sees the files as clean, and the hooks, so a
 * push from it uploads), name the pointers no attribute names in the
 * clone's .git/info/attributes (git-lfs 3.6 and later fetch only what the
 * attributes name) and fetch the content (`git lfs pull`), with
 * progress (JP_PHASE_DOWNLOAD: files, bytes), cancel and op's stall timeout.
 * *out counts the files fetched and those still pointers (all of them when
 * git-lfs is not installed). Returns 0, JP_ECANCELED, JP_ETIMEOUT, JP_ENET
 * (git-lfs failed: its last words in err), JP_ENOMEM. */
struct jp_git_lfs_pull_opts {
	const char *shown;    /* the server, in messages */
	/* Local scratch disk (NULL: none) with room bytes free: when the
	 * content fits there, git-lfs keeps its objects in a temporary there
	 * (lfs.storage) and only writes each file into the clone, not a
	 * second copy into its .git on shared storage. */
	const char *scratch;
	uint64_t room;
};

/* The attributes `git lfs track` gives a file stored with Git LFS. */
#define JP_GIT_LFS_ATTRS "filter=lfs diff=lfs merge=lfs -text"

/* The pattern of an attributes file that names path (relative to the work
 * tree's top) and only it: anchored at the top, the pattern characters
 * escaped, whitespace as [[:space:]] (as `git lfs track` writes it), which
 * git, libgit2 and git-lfs all match. Appended to b. */
struct jp_buf;
void jp_git_lfs_attr_pattern(struct jp_buf *b, const char *path);

struct jp_git_lfs_pulled {
	size_t fetched; /* files that got their content */
	size_t left;    /* still pointers */
	/* The LFS server asked for credentials jobprep cannot pass on to
	 * git-lfs (only git's credential helpers reach it): the clone goes on
	 * without the content, the check names the pointers and the pull. */
	bool auth;
};

int jp_git_lfs_pull(struct jp_git_op *op, const char *dir, const struct jp_git_lfs_pull_opts *o,
		    struct jp_git_lfs_pulled *out, struct jp_error *err);

/* ---- refs (git_remote.c, git_clone.c) ---- */

/* Resolve ref (NULL = the server's HEAD) among the heads a server listed:
 * a branch, a tag (peeled to its commit), or a commit id that is a tip
 * (a full id that is none is taken as given, commit_unverified). Fills
 * info's commit, ref_name, ref_kind; `shown` names the server in
 * messages. JP_ENOENT when nothing matches. */
int jp_git_remote_resolve(struct jp_git_remote_info *info, const git_remote_head **heads,
			  size_t n, const char *ref, const char *shown, struct jp_error *err);
/* Refuse a ref that is empty, begins with '-' or is no valid name or id. */
int jp_git_ref_check(const char *ref, struct jp_error *err);

/* ---- staging a clone onto shared storage (git_stage.c) ---- */

/* A clone built on scratch disk (src) copied to its place on network
 * storage (dst) while it is built: jp_git_stage_start once the ref is
 * resolved (the objects, then the rest of .git, on a thread of their own,
 * and a stream for the work tree's files), jp_git_stage_file for each file
 * the checkout finishes (an on_file callback, ctx the stage), then
 * jp_git_stage_join (stop: make them give up first; else the stream's
 * result goes to *streamed) and jp_git_stage_finish: everything not yet
 * copied (.git, submodules, what the checkout did not report), modes made
 * since, and the copied index given the copies' stat data. */
struct jp_git_stage {
	char *src;     /* the scratch tree (borrowed) */
	char *dst;     /* the tree on shared storage (borrowed) */
	pthread_t tid;
	bool started;
	atomic_bool stop;
	int rc;
	struct jp_error err;
	/* the work tree's files, copied as the checkout writes them */
	struct jp_treecopy_stream *stream;
	bool stream_failed;
	struct jp_treecopy_result git_done; /* .git files copied early */
};

void jp_git_stage_init(struct jp_git_stage *st, char *src, char *dst);
int jp_git_stage_start(struct jp_git_stage *st, struct jp_error *err);
void jp_git_stage_file(void *ctx, const char *path);
int jp_git_stage_join(struct jp_git_stage *st, bool stop, struct jp_treecopy_result *streamed,
		      struct jp_error *err);
int jp_git_stage_finish(struct jp_git_stage *st, unsigned threads,
			const struct jp_treecopy_result *streamed, const struct jp_port *port,
			struct jp_error *err);
/* Stops what still runs and frees what the stage holds. */
void jp_git_stage_dispose(struct jp_git_stage *st);

/* ---- socket stream with stall timeout and cancel (git_stream.c) ---- */

/* For http(s) and git:// (ssh never uses it: git_ssh.c). */
int jp_git_stream_register(void);

/* ---- ssh's network steps in a watched helper (git_ssh.c) ---- */

/* Whether op's server is reached over ssh: its fetches, clones and
 * ls-remotes then go through jp_git_ssh_*, never libgit2 here. */
bool jp_git_op_ssh(const struct jp_git_op *op);

struct jp_git_ssh_fetch {
	const char *repo;            /* the repository (its git dir) */
	const char *remote;          /* the remote of its config to fetch from */
	const git_strarray *specs;   /* NULL: the remote's own */
	const git_fetch_options *fo; /* of it: download_tags, prune, update_fetchhead */
	const char *reflog;
	bool follow_head;            /* HEAD follows the server's default branch */
};

/* Each as the libgit2 call it stands for (git_remote_fetch; git_clone with
 * no checkout; git_remote_connect_ext and git_remote_ls, on a remote of
 * repo, or on url when repo is NULL): 0, or < 0 with libgit2's error set
 * and op's verdict (fail_code, canceled, abandoned) for jp_git_op_error.
 * Progress, cancel and questions through op's port; op->creds says the URL
 * the person named. */
int jp_git_ssh_fetch(struct jp_git_op *op, const struct jp_git_ssh_fetch *f);
int jp_git_ssh_clone(struct jp_git_op *op, const char *url, const char *dir);

struct jp_git_ssh_heads {
	git_remote_head *v;
	const git_remote_head **p; /* for jp_git_remote_resolve */
	size_t n;
};
int jp_git_ssh_ls(struct jp_git_ssh_heads *out, struct jp_git_op *op, const char *repo,
		  const char *remote, const char *url);
void jp_git_ssh_heads_dispose(struct jp_git_ssh_heads *h);

/* An ssh step's outcome as it crosses from its helper: libgit2's result
 * (gerr) and error, and op's verdict: its failure whole (code and every
 * line, probe_bytes_put_error), canceled, out of room. Put in the helper;
 * taken in the caller, where libgit2's error is set again and the verdict
 * added to op's; returns gerr (GIT_ERROR, the error set, when the bytes do
 * not hold an outcome). One pair for both sides. */
struct probe_bytes;
void jp_git_ssh_outcome_put(struct probe_bytes *out, int gerr, const struct jp_git_op *op);
int jp_git_ssh_outcome_get(struct jp_git_op *op, struct probe_bytes *in);
/* git_submodule_update(init) of the submodule `name` of the work tree
 * workdir, whose URL is an ssh one, in the helper. */
int jp_git_ssh_submodule(struct jp_git_op *op, const char *workdir, const char *name);


/* In a helper serving an ssh step, before jp_git_global_init: neither
 * jobprep's stream nor the refusal is registered there. */
void jp_git_global_in_helper(void);

/* ---- of jobprep/git.h, what no front end calls ---- */

/* libgit2's global state, set up once per process (thread-safe; every jp_git_*
 * call does it on demand). A front end may call jp_git_global_shutdown once
 * at exit, after all git work has finished. */
int jp_git_global_init(struct jp_error *err);

void jp_git_update_result_dispose(struct jp_git_update_result *res);

/* Bring the checkout at opts->path to the commit opts->ref names on the
 * server: resolve it there (ls-remote) and compare commits; already there,
 * nothing is touched; elsewhere, fetch what is missing (objects and
 * remote-tracking refs only), then move: the branch fast-forwarded, or
 * HEAD detached at a tag or commit. Only the files that differ are written
 * (libgit2's safe checkout; an untracked file in the way refuses before any
 * is written); when the checkout fails or is cancelled half-way, those
 * files and the index are put back, so the work tree is as it was.
 * Never loses work: refuses (JP_EREFUSED, nothing touched, the message
 * names the files and what to do) uncommitted changes to tracked files,
 * local commits the move would leave behind, a local branch that cannot be
 * fast-forwarded, a checkout of another repository, a directory that is no
 * checkout, a declined question, too little room for the new files.
 * *out is filled as far as known, on failure too (dispose it). Returns 0,
 * JP_EREFUSED, JP_EUSAGE, JP_ENOENT (no such ref), JP_EAUTH, JP_ENET,
 * JP_ETIMEOUT, JP_ENOSPC, JP_ECANCELED, JP_EIO, JP_EGIT. */
int jp_git_update(struct jp_git_update_result *out, const struct jp_git_update_options *opts,
		  const struct jp_port *port, struct jp_error *err);

/* A copy of url safe to show and store: no password or token; for http(s)
 * no user info at all. NULL when out of memory. */
char *jp_git_url_redact(const char *url);

/* Give the checkout at or above `path` what a clone without them left out:
 * its submodules (initialised and cloned, recursively, from the URLs
 * .gitmodules names, as jp_git_clone with submodules does, over the
 * checkout's origin's transport) and the content of its files stored with
 * Git LFS (git-lfs, as in jp_git_clone). Progress and cancel through port;
 * a submodule cloned before a failure stays (the check names the rest).
 * Returns 0, JP_ENOENT (no checkout), JP_EREFUSED (a submodule URL or path
 * refused, as for a clone), JP_EAUTH, JP_ENET, JP_ETIMEOUT, JP_ECANCELED,
 * JP_EGIT. */
int jp_git_fill_in(struct jp_git_fill_result *out, const char *path,
		   const struct jp_port *port, struct jp_error *err);

/* The same look as a whole in a child process, in bounded time (twice the
 * probe timeout: git's index and objects are on that storage too), for a
 * check of a path on a user's storage: v lists the first
 * JP_GIT_NAMES_MAX + 1 pointers; a look that did not answer is
 * `unfinished`. */
int jp_git_lfs_check(struct jp_git_lfs_report *out, const char *path, struct jp_error *err);

/* Find the LFS pointers in the checkout at or above `path`: files git holds
 * as a pointer (by content) that the attributes put under filter=lfs or
 * whose checked-out size is under 1 KiB, and whose work tree file still is
 * the pointer. Only those files are read, each look in bounded time (a
 * mount that does not answer sets `unfinished`). Returns 0, JP_ENOENT (no
 * work tree), JP_EGIT, JP_ENOMEM. */
int jp_git_lfs_find(struct jp_git_lfs_report *out, const char *path, struct jp_error *err);

/* The same look as a whole in a child process, in bounded time (twice the
 * probe timeout: git's index and objects are on that storage too), for a
 * check of a path on a user's storage: v lists the first
 * JP_GIT_NAMES_MAX + 1 pointers; a look that did not answer is
 * `unfinished`. */
void jp_git_lfs_report_dispose(struct jp_git_lfs_report *r);

void jp_git_sm_report_dispose(struct jp_git_sm_report *r);

/* The same, bounded as a whole, as jp_git_lfs_check. */
int jp_git_submodules_check(struct jp_git_sm_report *out, const char *path,
			    struct jp_error *err);

/* The submodules of the checkout at or above `path` that are declared
 * (.gitmodules, with a commit in the index) but not cloned: their folder
 * is empty or absent. Each look in bounded time. Returns 0, JP_ENOENT,
 * JP_EGIT, JP_ENOMEM. */
int jp_git_submodules_find(struct jp_git_sm_report *out, const char *path, struct jp_error *err);

/* ---- a move taken back (git_update.c) ---- */

/* Put a checkout jp_git_update moved (res->moved) back where it was: the
 * files of res->to that differ from res->from, HEAD and the branch the move
 * set; edits it carried stay. For a prep refused after its move. Returns
 * 0, JP_EGIT (the message says how to put it back by hand). */
int jp_git_update_undo(const char *path, const struct jp_git_update_result *res,
		       struct jp_error *err);

#endif
