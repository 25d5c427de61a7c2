/* Git: put code on shared storage (clone), describe an existing checkout
 * (inspect), and pin a repository for a launch-command clone (remote).
 *
 * Built on libgit2 (1.5 on Debian 12). Nothing here prints: progress, secrets
 * and questions go through a struct jp_port; failures return a negative JP_E*
 * code with one line per problem in a caller-owned struct jp_error. No
 * message, result or file written ever carries a password or token. */
#ifndef JOBPREP_GIT_H
#define JOBPREP_GIT_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>
#include <stdint.h>

#include "jobprep/error.h"
#include "jobprep/port.h"
#include "jobprep/profile.h"
#include "jobprep/strv.h"

/* libgit2's global state, set up once per process (thread-safe; every jp_git_*
 * call does it on demand). A front end may call jp_git_global_shutdown once
 * at exit, after all git work has finished. */
void jp_git_global_shutdown(void);

/* ---- clone --------------------------------------------------------------- */

/* Where the clone is built before it appears at the target. */
/* The source document's `chmod +x scripts/<star>.sh`. */
#define JP_GIT_EXEC_DEFAULT "scripts/" "*.sh"

enum jp_git_staging {
	JP_GIT_STAGE_AUTO = 0, /* network target: on local scratch disk, then a
				* parallel copy; otherwise beside the target */
	JP_GIT_STAGE_NEVER,    /* always beside the target */
	JP_GIT_STAGE_ALWAYS,   /* always on scratch disk (tests, benchmarks) */
};

enum jp_git_ref_kind {
	JP_GIT_REF_BRANCH = 0,
	JP_GIT_REF_TAG,
	JP_GIT_REF_COMMIT,
};

/* "branch", "tag" or "commit" (not translated: what --json outputs say);
 * static. */
const char *jp_git_ref_kind_name(enum jp_git_ref_kind kind);

struct jp_git_clone_options {
	/* https, http, ssh, user@host:path, git://, file:// or a local path.
	 * A user:token@ in an http(s) URL is used for that host only and never
	 * stored. Required. */
	const char *url;
	/* The directory to create: absent, or an empty directory. Required. */
	const char *target;
	/* Branch, tag or commit (4-40 hex); NULL = the remote's HEAD. */
	const char *ref;
	/* Initialise and update submodules, recursively. */
	bool submodules;
	/* fnmatch(3) pattern (FNM_PATHNAME) of files to make executable after
	 * checkout, relative to the top; NULL = JP_GIT_EXEC_DEFAULT; "" = none. */
	const char *exec_pattern;
	/* Decides where the target lives; NULL = the embedded default. */
	const struct jp_profile *profile;
	enum jp_git_staging staging;
	/* Local scratch directory for staging; NULL = $JOBPREP_SCRATCH. Either
	 * is used only when it is not on a network filesystem and has room
	 * (else the clone is built in place). When neither is set: the first
	 * of /dev/shm (a tmpfs, counted at up to half the available memory),
	 * $TMPDIR, /var/tmp and /tmp that is local and has room. */
	const char *scratch_dir;
	/* Parallel writers for the copy onto shared storage; 0 = 16. */
	unsigned copy_threads;
	/* A server silent for this long fails the clone with JP_ETIMEOUT;
	 * 0 = JP_GIT_STALL_TIMEOUT_S. Applies to http(s), git:// and ssh. */
	unsigned stall_timeout_s;
	/* Go to the server only, not through the local mirror cache
	 * ($XDG_CACHE_HOME/jobprep/git; see docs/reference.md). JOBPREP_NO_CACHE=1 does
	 * the same for every clone and update. */
	bool no_cache;
};

/* How long a server may send nothing before an operation fails. */
#define JP_GIT_STALL_TIMEOUT_S 120

#define JP_GIT_CLONE_OPTIONS_INIT { .url = NULL, .staging = JP_GIT_STAGE_AUTO }

struct jp_git_clone_result {
	char commit[41];             /* the checked-out commit, 40 hex */
	char *url;                   /* as recorded in .git/config: redacted */
	char *ref;                   /* branch or tag name; NULL for a commit */
	enum jp_git_ref_kind ref_kind;
	char *path;                  /* where the clone now is (absolute) */
	bool staged;                 /* built on scratch disk, then copied */
	uint64_t files;              /* files checked out (top repository) */
	unsigned exec_files;         /* files made executable */
	/* Files stored with Git LFS: fetched by git-lfs as part of the clone,
	 * and those still pointers (all of them where git-lfs is not
	 * installed: the check code.repo.lfs names them). */
	size_t lfs_fetched, lfs_left;
	/* ... left because the LFS server asked for credentials git-lfs could
	 * get from none of git's credential helpers (jobprep passes none on):
	 * the clone is made without the content, `git lfs pull` fetches it. */
	bool lfs_auth;
};

#define JP_GIT_CLONE_RESULT_INIT { .commit = "", .ref_kind = JP_GIT_REF_BRANCH }

void jp_git_clone_result_dispose(struct jp_git_clone_result *res);

/* Clone opts->url into opts->target. Files stored with Git LFS get their
 * content from the LFS server by the real git-lfs where it is installed
 * (`git lfs install --local`, `git lfs pull`: progress as
 * JP_PHASE_DOWNLOAD, cancel, the stall timeout; a failure fails the
 * clone, except an LFS server wanting credentials: lfs_auth). The clone is
 * built under a temporary
 * name (".<name>.jobprep-tmp-<pid>-<random>" beside the target) and renamed
 * into place only when complete: on any failure, cancel (port->progress
 * returning < 0) or crash, the target stays absent (or the empty directory
 * it was), and the temporary is removed now or by the next run.
 * Fills *out (dispose with jp_git_clone_result_dispose) on success.
 * Returns 0, or JP_EUSAGE / JP_EEXIST / JP_EREFUSED (refused before any
 * network use), JP_EAUTH, JP_ENET, JP_ETIMEOUT, JP_ENOENT (ref not found),
 * JP_ENOSPC, JP_ECANCELED, JP_EIO, JP_EGIT. `port` may be NULL. */
int jp_git_clone(struct jp_git_clone_result *out,
		 const struct jp_git_clone_options *opts,
		 const struct jp_port *port, struct jp_error *err);

/* ---- an existing checkout -------------------------------------------------- */

struct jp_git_repo_info {
	char *workdir;       /* absolute, with trailing '/' removed */
	char *remote;        /* "origin" or the only remote; NULL if none */
	char *url;           /* its URL, redacted; NULL if none */
	char *branch;        /* short name; NULL when detached or unborn */
	char *upstream;      /* e.g. "origin/main"; NULL if none */
	char commit[41];     /* HEAD, "" when unborn */
	bool detached;
	/* Tracked files changed in the index or work tree (a job would run code
	 * nobody can reproduce). Exec-bit-only changes on files matching the
	 * exec pattern are not counted: jobprep made them. */
	size_t dirty;
	size_t untracked;    /* untracked, not ignored */
	size_t exec_only;    /* the exec-bit-only changes left out of dirty */
	/* Commits on HEAD that no remote-tracking branch has (vs the upstream
	 * when there is one); capped at 10000. */
	size_t unpushed;
	size_t behind;       /* upstream commits HEAD lacks (0 without one) */
	/* The first JP_GIT_NAMES_MAX of the dirty files, ", "-separated, with
	 * ", ..." when there are more; NULL when none. */
	char *dirty_paths;
};

#define JP_GIT_NAMES_MAX 5

#define JP_GIT_REPO_INFO_INIT { .workdir = NULL, .commit = "" }

/* Describe the repository whose work tree is `path` (the top, or any
 * directory inside it). exec_pattern as in jp_git_clone_options. Returns 0,
 * JP_ENOENT (not a git work tree), JP_EREFUSED (owned by another user:
 * the message says who and what to run), JP_EGIT. */
int jp_git_inspect(struct jp_git_repo_info *out, const char *path,
		   const char *exec_pattern, struct jp_error *err);
void jp_git_repo_info_dispose(struct jp_git_repo_info *info);

/* ---- what a checkout may lack: Git LFS content, submodules ----------------- */

/* A file stored with Git LFS whose work tree copy is still the pointer
 * (`version https://git-lfs.github.com/spec/v1`, under 1 KiB): libgit2
 * checks out the pointer, the content stays on the LFS server. */
struct jp_git_lfs_file {
	char *path;    /* relative to the work tree's top */
	uint64_t size; /* the content's size, from the pointer's `size` line */
	/* The attributes put it under filter=lfs: git-lfs 3.6 and later fetch
	 * and check out only such files (`git lfs pull` leaves a pointer
	 * committed as a plain file alone; 3.3 replaced it, and staged it). */
	bool named;
};

struct jp_git_lfs_report {
	char *workdir;                  /* the work tree's top */
	size_t tracked;                 /* files git holds as LFS pointers */
	size_t n;                       /* files still pointers in the work tree */
	struct jp_git_lfs_file *v;      /* them (jp_git_lfs_check: the first few) */
	size_t listed;                  /* entries in v */
	uint64_t bytes;                 /* their contents' total size */
	size_t unnamed;                 /* of the n, those not `named` */
	bool unfinished;                /* a look did not answer in time */
};

#define JP_GIT_LFS_REPORT_INIT { NULL, 0, 0, NULL, 0, 0, 0, false }

/* The git-lfs program is on PATH (Debian: git-lfs). */
bool jp_git_lfs_installed(void);

struct jp_git_sm_report {
	char *workdir;           /* the work tree's top */
	size_t declared;         /* submodules .gitmodules declares and HEAD pins */
	size_t n_missing;        /* of them, not cloned (no .git in the folder) */
	struct jp_strv missing;  /* their paths (jp_git_submodules_check: the first few) */
	bool unfinished;         /* a look did not answer in time */
};

#define JP_GIT_SM_REPORT_INIT { NULL, 0, 0, JP_STRV_INIT, false }

/* What jp_git_fill_in did. */
struct jp_git_fill_result {
	size_t submodules;  /* submodules cloned */
	size_t lfs_fetched; /* files stored with Git LFS fetched */
	size_t lfs_left;    /* still pointers (git-lfs not installed, or left) */
};

/* ---- an existing checkout, moved to a ref ---------------------------------- */

struct jp_git_update_options {
	/* The repository asked for: the checkout's remote must be the same
	 * repository (jp_url_same_repo). Required. */
	const char *url;
	/* The checkout: the top of its work tree. Required. */
	const char *path;
	/* Branch, tag (annotated or not), commit (4-40 hex); NULL = the
	 * remote's HEAD. */
	const char *ref;
	/* As in jp_git_clone_options: files made executable after the move. */
	const char *exec_pattern;
	/* 0 = 120 s; as in jp_git_clone_options. */
	unsigned stall_timeout_s;
	/* Ask port->confirm before moving (the question shows from -> to,
	 * commits and files); a "no" (or no confirm) refuses the move. */
	bool ask;
	/* As in jp_git_clone_options: fetch from the server only. */
	bool no_cache;
	/* Write the changed files as onto network storage (on local disk
	 * first, then with parallel writers) wherever the checkout is; on a
	 * network filesystem that is what happens anyway. */
	bool net_writers;
};

#define JP_GIT_UPDATE_OPTIONS_INIT { .url = NULL }

struct jp_git_update_result {
	bool moved;          /* false: it was already there (nothing changed) */
	char from[41];       /* HEAD before, 40 hex */
	char to[41];         /* the commit the ref names, 40 hex */
	char *from_name;     /* the branch or tag at `from`; NULL if none */
	char *ref;           /* the branch or tag resolved; NULL for a commit */
	enum jp_git_ref_kind ref_kind;
	size_t ahead;        /* commits `to` has that `from` lacks */
	size_t back;         /* commits `from` has that `to` lacks (on a remote) */
	size_t files;        /* files that differ between them */
	/* Already there but with uncommitted changes: the job runs code no
	 * commit records (moving is refused instead when it would move). */
	size_t dirty;
	char *dirty_paths;   /* as in jp_git_repo_info */
	/* One translated line: "already at v1.8.1 (f5513f1)", or what moved. */
	char *summary;
	/* What the checkout is now (after the move, or as it was when nothing
	 * moved or the move was refused); workdir NULL when path is no
	 * checkout. Saves the caller another look (a status of every file). */
	struct jp_git_repo_info checkout;
	/* The changed files were written on local disk, then copied with
	 * parallel writers (a checkout on network storage). */
	bool parallel;
	/* ... by the parallel checkout writer, straight from the objects into
	 * the checkout (no local copy first): a tree no filter applies to. */
	bool direct;
	unsigned writers; /* how many wrote at once */
	/* What jp_git_update_undo needs: the branch HEAD was on before the
	 * move ("" when detached), and what the branch the move set pointed at
	 * before ("" when the move made it). */
	char head_was[256];
	char branch_was[41];
	/* Uncommitted edits the move carried (in files it did not change). */
	size_t carried;
};

#define JP_GIT_UPDATE_RESULT_INIT { .moved = false, .ref_kind = JP_GIT_REF_BRANCH, .checkout = JP_GIT_REPO_INFO_INIT }

/* ---- a launch-command clone ------------------------------------------------ */

struct jp_git_remote_info {
	char commit[41];      /* what `ref` resolves to on the server */
	char *url;            /* redacted */
	char *ref_name;       /* full ref name, e.g. "refs/heads/main"; NULL
			       * when ref was a commit */
	enum jp_git_ref_kind ref_kind;
	/* ref was a commit the server does not advertise as a tip: it could
	 * not be confirmed without fetching. */
	bool commit_unverified;
};

#define JP_GIT_REMOTE_INFO_INIT { .commit = "", .ref_kind = JP_GIT_REF_BRANCH }

/* List the server's refs (ls-remote) and resolve `ref` (NULL = HEAD) to a
 * commit. Credentials as for jp_git_clone; a server silent for
 * stall_timeout_s (0 = JP_GIT_STALL_TIMEOUT_S) fails it. Returns 0,
 * JP_ENOENT (no such ref), JP_EAUTH, JP_ENET, JP_ETIMEOUT, JP_EUSAGE,
 * JP_ECANCELED. */
int jp_git_remote_check(struct jp_git_remote_info *out, const char *url,
			const char *ref, unsigned stall_timeout_s,
			const struct jp_port *port, struct jp_error *err);
void jp_git_remote_info_dispose(struct jp_git_remote_info *info);

enum jp_git_cmd_flags {
	JP_GIT_CMD_SUBMODULES = 1 << 0, /* also fetch submodules */
};

/* The POSIX sh command a launch command runs to get exactly `commit` of
 * `url` into `dir`: a one-commit fetch where the server allows fetching by
 * id, a full fetch otherwise, then a detached checkout. Every argument is
 * shell-quoted; url is redacted. *out is the caller's, free with free(). */
int jp_git_clone_command(char **out, const char *url, const char *commit,
			 const char *dir, unsigned flags, struct jp_error *err);

/* ---- the local mirror cache ---------------------------------------------- */

/* One mirror in the cache ($XDG_CACHE_HOME/jobprep/git; docs/reference.md). */
struct jp_git_cache_entry {
	char *path;               /* the bare mirror's folder */
	char *url;                /* the server's URL it mirrors (no credentials); NULL if unreadable */
	unsigned long long bytes; /* its size on disk */
	time_t used;              /* its last use (a clone, an update) */
	bool busy;                /* another jobprep is using it now */
};

struct jp_git_cache_list {
	char *dir; /* the cache folder; NULL when HOME and XDG_CACHE_HOME name none */
	struct jp_git_cache_entry *v;
	size_t n;
	unsigned long long cap; /* JOBPREP_CACHE_MAX, default 4 GiB */
};

#define JP_GIT_CACHE_LIST_INIT { NULL, NULL, 0, 0 }

/* The cache's mirrors, least recently used first. A missing cache folder
 * is an empty list. Returns 0 or JP_ENOMEM. */
int jp_git_cache_list(struct jp_git_cache_list *out, struct jp_error *err);
void jp_git_cache_list_dispose(struct jp_git_cache_list *l);

/* Remove every mirror no other jobprep is using (each under its lock, so a
 * clone reading one is never cut short); *removed and *freed say what went,
 * *busy how many were left because they were in use. Returns 0, JP_EIO
 * (a mirror could not be removed: named in err), JP_ENOMEM. */
int jp_git_cache_clear(size_t *removed, size_t *busy, unsigned long long *freed,
		       struct jp_error *err);

/* ---- URLs ------------------------------------------------------------------ */

#endif
