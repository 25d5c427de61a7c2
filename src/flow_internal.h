/* The flow's insides, shared by src/flow*.c only (not a public header). */
#ifndef JOBPREP_FLOW_INTERNAL_H
#define JOBPREP_FLOW_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "jobprep/flow.h"
#include "jobprep/lint.h"
#include "jobprep/git.h"
#include "jobprep/probe.h"
#include "jobprep/strv.h"
#include "str.h"

/* Every field, the one list of them: X(key, name, kind, check) with
 * enum fkey's identity, the key's name ("[]" where an index goes), its
 * enum jp_field_kind (flow_parse_key holds the jp_flow_fields tables to it)
 * and its inline check in flow_validate.c (NULL: none). Scalars first:
 * flow->set[] is indexed by them. The order within a step is the
 * jp_flow_fields tables', this is only an identity. */
#define FLOW_SCALAR_FIELDS(X)                                                     \
	X(K_JOB_NAME, "job.name", JP_FIELD_TEXT, check_job_name)                  \
	X(K_WORKERS, "job.workers", JP_FIELD_INTEGER, check_count)                \
	X(K_GPUS, "job.gpus_per_worker", JP_FIELD_INTEGER, check_count)           \
	X(K_CODE_SOURCE, "code.source", JP_FIELD_CHOICE, check_code_source)       \
	X(K_CODE_CHECKOUT, "code.checkout", JP_FIELD_CHOICE, check_checkout)      \
	X(K_CODE_PATH, "code.path", JP_FIELD_PATH, check_code_path)               \
	X(K_REPO_URL, "code.repo.url", JP_FIELD_TEXT, check_repo_url)             \
	X(K_REPO_REF, "code.repo.ref", JP_FIELD_TEXT, check_repo_ref)             \
	X(K_REPO_COMMIT, "code.repo.commit", JP_FIELD_TEXT, check_repo_commit)    \
	X(K_IMAGE, "code.image", JP_FIELD_TEXT, check_image)                      \
	X(K_OUTPUT_DIR, "outputs.output_dir", JP_FIELD_PATH, check_output_path)   \
	X(K_CHECKPOINT_DIR, "outputs.checkpoint_dir", JP_FIELD_PATH, check_output_path) \
	X(K_LOG_DIR, "outputs.log_dir", JP_FIELD_PATH, check_output_path)         \
	X(K_LAUNCH, "job.launch_command", JP_FIELD_TEXT, check_launch)            \
	X(K_RESUME_FROM, "job.resume_from", JP_FIELD_TEXT, check_resume_from)     \
	X(K_MANIFEST_PATH, "review.manifest_path", JP_FIELD_PATH, check_review_path) \
	X(K_ENV_PATH, "review.env_path", JP_FIELD_PATH, check_review_path)

/* lists and their items */
#define FLOW_LIST_FIELDS(X)                                                       \
	X(K_DATA, "data", JP_FIELD_LIST, NULL)                                    \
	X(K_DATA_NAME, "data[].name", JP_FIELD_TEXT, check_data_name)             \
	X(K_DATA_PATH, "data[].path", JP_FIELD_PATH, check_data_path)             \
	X(K_DATA_KIND, "data[].kind", JP_FIELD_CHOICE, NULL)                      \
	X(K_DATA_RO, "data[].read_only", JP_FIELD_BOOL, check_data_ro)            \
	X(K_DATA_FROM, "data[].from", JP_FIELD_TEXT, check_data_from)             \
	X(K_DATA_UNPACK, "data[].unpack_archives", JP_FIELD_BOOL, NULL)           \
	X(K_DATA_OUTPUT, "data[].output", JP_FIELD_BOOL, NULL)                    \
	X(K_ENV, "job.env", JP_FIELD_LIST, NULL)                                  \
	X(K_ENV_NAME, "job.env[].name", JP_FIELD_TEXT, check_env_name)            \
	X(K_ENV_VALUE, "job.env[].value", JP_FIELD_TEXT, check_env_value)

#define FLOW_FIELDS(X) FLOW_SCALAR_FIELDS(X) FLOW_LIST_FIELDS(X)

#define FLOW_FIELD_KEY(key, name, kind, check) key,
enum fkey {
	FLOW_SCALAR_FIELDS(FLOW_FIELD_KEY)
	K_N_SCALAR,
	K_LISTS_BEFORE = K_N_SCALAR - 1, /* the first list is K_N_SCALAR */
	FLOW_LIST_FIELDS(FLOW_FIELD_KEY)
	K_COUNT,
};
#undef FLOW_FIELD_KEY

enum checkout {
	CHECKOUT_CLONE = 0,
	CHECKOUT_EXISTING,
};

/* A parsed key: "data[2].path" -> K_DATA_PATH, index 2. */
struct fref {
	enum fkey key;
	size_t index;
	const struct jp_field *field;
};

/* Per data source: what the user set, and the last scan of it. */
struct data_extra {
	bool name_set, kind_set, ro_set;
	char *scanned_path; /* the path the scan below is of; NULL: none */
	bool scanned_deep;
	bool complete;
	struct jp_data_stats stats;
	uint64_t unreadable, links_outside, archive_bytes;
	/* data[].from as given, credentials and all, when it has some (the
	 * draft holds it without them); NULL: the draft's is the whole */
	char *from_secret;
	char *want_sha256; /* the download must have this SHA-256 (answers) */
	/* the last staging that finished: from what (as in the draft) to where */
	char *staged_from, *staged_path;
	/* the path whose archives were last unpacked where they are, and how
	 * many (unpack_archives) */
	char *unpacked_path;
	uint64_t unpacked_n;
};

/* What an existing checkout turned out to be. */
struct inspected {
	char *path;      /* NULL: not inspected */
	bool is_git;
	char *url;       /* redacted */
	char *branch;
	char commit[41];
	size_t dirty, untracked, unpushed;
	char *dirty_paths; /* the first few dirty files, ", "-separated */
	char *problem;   /* why it could not be inspected (not a checkout) */
	/* Brought to a ref (code.repo.url or .ref set): what for, and how */
	bool synced;
	char *req_url, *req_ref; /* the answers it was for (NULL: not set) */
	char *note;      /* "already at v1 (f5513f1)" or what moved */
	char *refusal;   /* why the checkout was not used or moved; NULL: fine */
	enum fkey refusal_key;   /* the field the refusal is about */
	unsigned long refused_gen; /* flow->code_gen when refused: tried again
				    * once a code answer is set again */
	/* The move this inspection made, for a refused prep to take back
	 * (jp_git_update_undo): moved.moved false when none. Its strings
	 * are not kept (ref in moved_ref). */
	struct jp_git_update_result moved;
	char moved_ref[256];
};

struct jp_flow {
	struct jp_profile *profile;
	struct jp_manifest *m; /* the draft: every default filled in */
	bool set[K_N_SCALAR];  /* the user set this scalar field */
	enum checkout checkout;
	char *manifest_path;
	char *env_path;
	struct data_extra *dx; /* m->n_data of them */

	/* the next free run directory, remembered per base */
	char *run_base;
	char *run_dir;
	bool run_reuse; /* run_dir is there already, left without a manifest */
	int run_lock;   /* holds the run folder this flow claimed (flock); -1 none */

	/* results of actions, with what they were for */
	char *cloned_url, *cloned_req_ref, *cloned_path, *cloned_ref;
	char cloned_commit[41];
	struct inspected insp;
	char *resolved_url, *resolved_req_ref, *resolved_ref;
	char resolved_commit[41];
	bool resolved_unverified;
	char *made_out, *made_ckpt, *made_log;
	struct jp_strv created; /* directories this flow created, parents first */

	unsigned long gen; /* bumped by every change of an answer */
	unsigned long code_gen; /* ... of a code.* answer */
	unsigned options;  /* enum jp_flow_option */

	/* Inline checks run at every keystroke: what they learnt slowly is kept
	 * here (a cache, so it may change behind a const flow). */
	struct flow_cache *cache;
	/* inspections applied that moved the checkout */
	unsigned moves;
	/* what the run written last takes (flow_runcode.c); NULL: none */
	char *code_story;
};

struct flow_cache {
	char *sync_path; /* the project the answer below is about; NULL: none */
	int syncs;       /* jp_lint_project_syncs(sync_path) */
};

/* flow_fields.c */
int flow_parse_key(struct fref *out, const char *key);
const char *flow_key_name(enum fkey key);
/* The concrete key: K_DATA_PATH, 2 -> "data[2].path"; a scalar's name as
 * it is (index unused). Into buf, cut to size like snprintf. */
void flow_item_key(char *buf, size_t size, enum fkey key, size_t index);
/* Whether the field applies to the current answers (an image only for
 * code in an image, ...). */
bool flow_active(const struct jp_flow *flow, const struct fref *ref);

/* flow_defaults.c: recompute every field the user has not set. */
int flow_recompute(struct jp_flow *flow, struct jp_error *err);
/* The template with {shared} {job} {output} filled in, NNN left alone. */
char *flow_expand_template(const struct jp_flow *flow, const char *tmpl, const char *output);
/* path is a run folder of the profile's output template for this job
 * ({shared}/outputs/{job}/run-<digits>). */
bool flow_is_run_folder(const struct jp_flow *flow, const char *path);
/* The profile's shared storage root. */
const char *flow_shared_root(const struct jp_flow *flow);
/* The flow's looks at paths run on the person's thread: each is bounded by
 * jp_probe_interactive_timeout_ms() (jobprep/probe.h). */
#define flow_fs_timeout_ms() jp_probe_interactive_timeout_ms()
/* A bounded look at path that classifies its storage (JP_PROBE_CLASSIFY,
 * flow_fs_timeout_ms()) into *r, which the caller disposes; returns
 * jp_probe_path's code (JP_ETIMEOUT when the storage did not answer). */
int flow_probe_classify(struct jp_probe_result *r, const struct jp_flow *flow, const char *path);
/* Empty or missing; false with errno ETIMEDOUT when it did not answer. */
bool flow_dir_is_empty(const char *path, size_t *entries);
/* Files (not directories) anywhere under path; 0 when it does not exist. */
size_t flow_dir_files(const char *path);
/* The clone line and launch command default for launch_clone. */
int flow_launch_clone_line(char **out, const struct jp_flow *flow, struct jp_error *err);

/* flow_validate.c */
/* The verdict on value (never NULL) for the field r names. */
int flow_validate_value(struct jp_verdict *v, const struct jp_flow *flow,
			const struct fref *ref, const char *value);
/* The inspection of code.path was made for the current code answers. */
bool flow_insp_current(const struct jp_flow *flow);
/* Actions whose results defaults wait for (a clone still to come ...). */
bool flow_code_pending(const struct jp_flow *flow);
/* The launch command cmd's lint findings as the Launch step judges them
 * (job.env's own paths left to their rows); *r is the caller's, dispose
 * with jp_lint_report_dispose. */
int flow_launch_findings(struct jp_lint_report *r, const struct jp_flow *flow, const char *cmd);
/* A finding of flow_launch_findings: fail or warn. */
enum jp_check_status flow_launch_finding_status(const struct jp_flow *flow,
						const struct jp_lint_finding *f);
/* An image reference: registry/name:tag or name@sha256:<64 hex>.
 * Returns NULL when fine, else why not (static text). */
const char *flow_image_problem(const char *ref, bool *no_tag);

/* flow_work.c: jp_flow_pending, with full scans when deep. */
int flow_pending_deep(enum jp_action **kinds, size_t **indices, size_t *n,
		      const struct jp_flow *flow, bool deep, struct jp_error *err);

/* flow_stage.c: data[].from, staged onto data[].path before the scan. */
/* Store data[i].from: a path (normalised) or an http(s) URL; NULL or ""
 * clears it. A URL's credentials stay in the flow, out of the draft. */
int flow_stage_store(struct jp_flow *flow, size_t i, const char *value,
		     struct jp_verdict *why);
/* The staging of data[i] finished for the current from and path: the
 * copy, unpack or download from `from` (from_done), the unpacking of the
 * archives it holds when unpack_archives (unpack_done), both (done). */
bool flow_stage_done(const struct jp_flow *flow, size_t i);
bool flow_stage_from_done(const struct jp_flow *flow, size_t i);
bool flow_stage_unpack_done(const struct jp_flow *flow, size_t i);
/* Free what a data_extra owns (not the struct itself). */
void flow_data_extra_dispose(struct data_extra *x);
/* *dst = a deep copy of src; JP_ENOMEM leaves dst disposable. */
int flow_data_extra_copy(struct data_extra *dst, const struct data_extra *src);

/* flow_resume.c: store job.resume_from: an absolute path as it is, a run
 * folder's name or "last" looked up (jobprep/resume_internal.h); NULL or ""
 * clears it. JP_EUSAGE with *why when there is no such checkpoint. */
int flow_resume_store(struct jp_flow *flow, const char *value, struct jp_verdict *why);

/* flow_copy.c */
int flow_manifest_copy(struct jp_manifest **out, const struct jp_manifest *src);
/* src's storage records set into m (jp_manifest_set_storage). 0 or JP_ENOMEM. */
int flow_storage_copy(struct jp_manifest *m, const struct jp_manifest *src);
/* A deep copy of the whole flow, its cache included; free with jp_flow_free. */
int flow_snapshot(struct jp_flow **out, const struct jp_flow *src);

/* flow.c */
void flow_inspected_dispose(struct inspected *i);
/* *dst = a deep copy of src (every string its own); on JP_ENOMEM dst holds
 * what was copied so far, for flow_inspected_dispose. */
int flow_inspected_copy(struct inspected *dst, const struct inspected *src);
/* Every failing active field into err as "[ORIGIN: ]KEY: message";
 * JP_ECHECK if any. */
int flow_report_failures(struct jp_flow *flow, const char *origin, struct jp_error *err);

/* flow_verdict.c */
void flow_verdict_set(struct jp_verdict *v, enum jp_check_status st, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* An absolute path; else a failing verdict that says so (the one message
 * for the rule, for a value typed and a value stored). */
bool flow_check_absolute(struct jp_verdict *v, const char *s);

/* flow_files.c: where a run's files go. The run's manifest is
 * review.manifest_path when that lies in the run's folder, else
 * {output_dir}/job.json, with a copy at review.manifest_path (*copy; NULL
 * when none). Both the caller's; JP_ENOMEM. */
int flow_run_files(char **manifest, char **copy, const struct jp_flow *flow);
/* flow_runcode.c: the run's own read-only copy of m's checkout; m's
 * code.path then names it and code.checkout the live checkout. */
int flow_run_code(struct jp_flow *flow, struct jp_manifest *m, struct jp_error *err);
/* What is at the copy's path now. */
enum copy_state {
	COPY_FREE,       /* nothing, or in the run's folder */
	COPY_OURS,       /* a manifest of this run (it names this run's folder) */
	COPY_OTHER_RUN,  /* a manifest of another run: *other_run is its folder */
	COPY_OTHER_FILE, /* a regular file that is no manifest */
	COPY_LINK,       /* a symbolic link: never written through */
	COPY_NOT_FILE,   /* a directory, a device ... */
	COPY_NO_ANSWER,  /* the look did not answer within timeout_ms: unknown */
};
/* What is at a manifest copy's path, looked at in timeout_ms (lstat, then
 * the file if it is one); COPY_NO_ANSWER puts why into *why. */
int flow_copy_state(enum copy_state *st, char **other_run, const struct jp_flow *flow,
		    const char *path, unsigned timeout_ms, struct jp_error *why);
/* The inline verdict of review.manifest_path (what is at the copy's path)
 * or review.env_path (in the run's folder), past the path's own checks. */
int flow_judge_review_path(struct jp_verdict *v, const struct jp_flow *flow, enum fkey key,
			   const char *path);
/* May the copy be written? A link or a non-file: never (JP_EREFUSED).
 * Another run's manifest or another file: with `force`; else, when `ask`,
 * when port->confirm says yes; when not `ask`, whenever port->confirm
 * exists (it is asked later). JP_EREFUSED with the way out otherwise.
 * A path that does not answer even in the commands' longer bound is never
 * taken for a free one: what it holds is unknown (JP_ETIMEOUT; with
 * `force` the write goes on, and says so itself if the storage is hung). */
int flow_copy_allowed(const struct jp_flow *flow, const char *copy, bool force, bool ask,
		      const struct jp_port *port, struct jp_error *err);

/* ---- of jobprep/flow.h, what no front end calls ---- */

/* Run one task start to end on this thread: new, run, apply, free. */
int jp_flow_run(struct jp_flow *flow, enum jp_action kind, size_t index,
		bool deep, const struct jp_port *port, struct jp_error *err);

/* The finished manifest (a deep copy, with created_at set). *out is the
 * caller's, free with jp_manifest_free. */
int jp_flow_take_manifest(struct jp_manifest **out, const struct jp_flow *flow,
			  struct jp_error *err);

#endif
