/* The wizard's flow as data: steps, fields, defaults, inline checks, actions.
 *
 * Both front ends drive this one flow: the ncurses wizard field by field,
 * headless `jobprep init` in one go (jp_flow_apply_answers, then
 * jp_flow_finish). For the same answers they write the same manifest.
 *
 * A struct jp_flow holds the draft manifest and the profile. Every field has
 * a key ("job.name", "code.path", "data[2].path", "job.env[0].name"); a
 * field the user has not set follows its default, which is derived from the
 * profile and from earlier answers (change job.name and the project and
 * output directories follow, unless the user edited them).
 *
 * Threads: a struct jp_flow is NOT thread-safe; one thread (the UI thread)
 * owns it and makes every jp_flow_* call. Long actions (clone, scans,
 * checks) go through a struct jp_flow_work: created from the flow on the
 * owning thread (it takes a snapshot of what it needs), run on any thread
 * (it never touches the flow), applied back to the flow on the owning
 * thread. The static field table (jp_flow_fields) may be read anywhere. */
#ifndef JOBPREP_FLOW_H
#define JOBPREP_FLOW_H

#include <stdbool.h>
#include <stddef.h>

#include "jobprep/error.h"
#include "jobprep/manifest.h"
#include "jobprep/port.h"
#include "jobprep/profile.h"
#include "jobprep/strv.h"

/* --- Steps and fields (static data) -------------------------------------- */

enum jp_step {
	JP_STEP_JOB = 0,
	JP_STEP_CODE,
	JP_STEP_DATA,
	JP_STEP_OUTPUTS,
	JP_STEP_LAUNCH,
	JP_STEP_REVIEW,
	JP_STEP_COUNT,
};

enum jp_field_kind {
	JP_FIELD_TEXT = 0, /* free text (a name, a URL, a command) */
	JP_FIELD_PATH,     /* an absolute path; stored normalised */
	JP_FIELD_INTEGER,  /* decimal, within [min, max] */
	JP_FIELD_CHOICE,   /* one of choices[].value */
	JP_FIELD_BOOL,     /* "true" / "false" (also "yes"/"no") */
	JP_FIELD_LIST,     /* a list of items; items[] are the per-item fields */
};

enum jp_field_flags {
	JP_FIELD_OPTIONAL = 1 << 0, /* may stay empty */
	JP_FIELD_DERIVED = 1 << 1,  /* computed by an action (commit); read-only */
	JP_FIELD_FLOW_ONLY = 1 << 2, /* steers the flow, not written to the manifest */
};

struct jp_choice {
	const char *value; /* as written in the manifest, e.g. "shared_storage" */
	const char *label; /* N_() text: translate with _() when shown */
	const char *help;  /* N_() text */
};

struct jp_field {
	const char *key; /* "job.name"; list items use "[]": "data[].path" */
	enum jp_step step;
	enum jp_field_kind kind;
	unsigned flags;         /* enum jp_field_flags */
	const char *label;      /* N_() text: translate with _() when shown */
	const char *help;       /* N_() text, one or two sentences */
	const struct jp_choice *choices; /* JP_FIELD_CHOICE; ends with {NULL} */
	long long min, max;     /* JP_FIELD_INTEGER */
	const struct jp_field *items; /* JP_FIELD_LIST: item fields, end {NULL} */
};

/* The step's name, N_() text ("Job", "Code", ...); static. */
const char *jp_step_name(enum jp_step step);
/* The fields of a step in display order, ending with a {NULL} entry; static.
 * Fields that do not apply to the current answers are still listed: ask
 * jp_flow_field_active. List fields (data, job.env) carry their items. */
const struct jp_field *jp_flow_fields(enum jp_step step);
/* The field for a key, indexed keys too ("data[3].path" finds "data[].path");
 * NULL when unknown. Static. */
const struct jp_field *jp_flow_field(const char *key);

/* A list item's key: the field's key with the index in its "[]"
 * ("data[].path", 2 -> "data[2].path"); a key without "[]" as it is. Into
 * buf, cut to size as snprintf does; returns the length the whole key
 * takes (a result >= size means it was cut). */
size_t jp_flow_item_key(char *buf, size_t size, const char *generic, size_t index);

/* The field a check is about, which fixes it: the longest prefix of the
 * check's id that is a field key ("data[1].path.exists" -> "data[1].path";
 * "outputs.log_dir.writable" -> "outputs.log_dir"); the launch lint's
 * findings ("launch.*") are about job.launch_command. *step (may be NULL)
 * is that field's step, JP_STEP_REVIEW when no field fixes it. Returns 0
 * with *key the caller's to free() (NULL: no field), or JP_ENOMEM. */
int jp_flow_check_field(char **key, enum jp_step *step, const char *check_id);

/* The field keys, for reference (all are also in jp_flow_fields):
 *   job.name job.workers job.gpus_per_worker
 *   code.source           shared_storage | image | launch_clone
 *   code.checkout         clone | existing   (flow only; shared_storage)
 *   code.path             shared_storage: the checkout; image: code dir in it;
 *                         launch_clone: where the launch command clones to
 *   code.repo.url code.repo.ref   code.repo.commit (derived)   code.image
 *   data                  list; items data[N].name .path .kind .read_only
 *                         .from (a path or http(s) URL staged onto .path;
 *                         the manifest's data[N].origin.from)
 *   outputs.output_dir outputs.checkpoint_dir outputs.log_dir
 *   job.launch_command    job.env (list; items job.env[N].name .value)
 *   review.manifest_path review.env_path   (flow only; default in output dir)
 *
 * Every run in its own folder: the run's manifest and env.sh are always
 * written into outputs.output_dir (env.sh must lie there); a
 * review.manifest_path outside it gets a copy of the manifest, which never
 * replaces another run's manifest or another file unless told (see
 * jp_flow_finish), and is never written through a symbolic link.
 */

/* --- The flow object ----------------------------------------------------- */

struct jp_flow;

/* A new flow under `profile` (copied). Defaults are filled in at once.
 * *out is the caller's, free with jp_flow_free. */
int jp_flow_new(struct jp_flow **out, const struct jp_profile *profile,
		struct jp_error *err);
void jp_flow_free(struct jp_flow *flow);

/* How the flow does its work, set by the front end (not answers). */
enum jp_flow_option {
	/* Move an existing checkout to the ref asked for without asking
	 * (headless init: the answers named the ref); otherwise port->confirm
	 * is asked first, with what would change. */
	JP_FLOW_MOVE_CHECKOUT = 1 << 0,
	/* Clones and updates go to the server only, not through the local
	 * mirror cache (JOBPREP_NO_CACHE=1 does the same for every front end). */
	JP_FLOW_NO_CACHE = 1 << 1,
};

void jp_flow_set_options(struct jp_flow *flow, unsigned options);

/* What the last look at the existing checkout at code.path said, for the
 * current answers: "already at v1.8.1 (f5513f1)", what it moved, or why it
 * refused (*status, may be NULL: pass / warn for uncommitted changes /
 * fail); NULL when there is nothing to say. Borrowed, valid until the next
 * call that changes the flow. */
const char *jp_flow_code_note(const struct jp_flow *flow, enum jp_check_status *status);
/* When bringing the checkout to the answers was refused (the note above is
 * a failure): the key of the field the refusal is about ("code.repo.ref",
 * "code.repo.url"), borrowed; else NULL. */
const char *jp_flow_code_refusal_key(const struct jp_flow *flow);
/* Try bringing the checkout to the ref again (the person fixed what was
 * refused, or changed their mind about a declined move): the refusal no
 * longer counts, and the inspection is pending again. */
void jp_flow_code_retry(struct jp_flow *flow);

/* Borrowed; valid until the next call that changes the flow. The draft has
 * every default filled in; m->profile is the flow's profile. */
const struct jp_manifest *jp_flow_manifest(const struct jp_flow *flow);

/* After a write (jp_flow_finish): what the run takes and from where, where
 * its own read-only copy of the code is and how to get the same code again
 * (lines, translated); NULL when its code is no git checkout. Borrowed. */
const char *jp_flow_code_story(const struct jp_flow *flow);
const struct jp_profile *jp_flow_profile(const struct jp_flow *flow);

/* An inline verdict on one value. */
struct jp_verdict {
	enum jp_check_status status; /* pass / warn / fail */
	char *message; /* owned; NULL for a pass with nothing to say */
};

#define JP_VERDICT_INIT { JP_CHECK_PASS, NULL }

void jp_verdict_dispose(struct jp_verdict *v);

/* The current value of a field as text (its default when not set; "" when
 * empty). *out is the caller's, free with free(). JP_EUSAGE for an unknown
 * key or an index out of range. */
int jp_flow_get(char **out, const struct jp_flow *flow, const char *key,
		struct jp_error *err);
/* True when the user set the field (it no longer follows its default). */
bool jp_flow_is_set(const struct jp_flow *flow, const char *key);
/* True when the field applies to the current answers (code.image only for
 * an image, code.checkout only for shared storage, ...). */
bool jp_flow_field_active(const struct jp_flow *flow, const char *key);

/* Set a field from text, as typed. NULL or "" for an optional field clears
 * it; value NULL for any field goes back to following its default.
 * Values that cannot be represented (not an integer, not a choice, a
 * relative path) are NOT stored: *verdict says why and JP_EUSAGE is
 * returned. Otherwise the value is stored (normalised) and dependent
 * defaults are recomputed; *verdict (may be NULL) then holds the inline
 * check of the stored value (it may still warn or fail, e.g. /tmp/out for
 * the output directory fails). Touches the file system for path fields
 * (classification, existence), never the network. */
int jp_flow_set(struct jp_verdict *verdict, struct jp_flow *flow,
		const char *key, const char *value, struct jp_error *err);
/* The inline check of a candidate value without storing it (value NULL:
 * the current value), for checking as the user types. */
int jp_flow_validate(struct jp_verdict *verdict, const struct jp_flow *flow,
		     const char *key, const char *value, struct jp_error *err);
/* The inline check off the flow's thread, for a front end that must stay
 * live while a path's storage does not answer: jp_flow_check_start takes a
 * snapshot of the flow (the flow may change at once) and checks `value`
 * (NULL: the current value) of `key` on a thread of its own.
 * jp_flow_check_poll waits at most wait_ms (0: just looks) and returns true
 * once the verdict is in, filling *verdict (the caller disposes it); given
 * the flow, it also keeps what the check learnt slowly. jp_flow_check_free
 * at any time: a check still running is left to finish on its own. All
 * three on the flow's thread. For code.repo.ref the check also asks the
 * repository's server (ls-remote, at most a few seconds, nobody asked for
 * credentials): a ref it does not have fails, naming the default branch. */
struct jp_flow_check;
int jp_flow_check_start(struct jp_flow_check **out, const struct jp_flow *flow,
			const char *key, const char *value, struct jp_error *err);
bool jp_flow_check_poll(struct jp_verdict *verdict, struct jp_flow_check *check,
			const struct jp_flow *flow, unsigned wait_ms);
void jp_flow_check_free(struct jp_flow_check *check);

/* The worst verdict among a step's active fields; when it is not a pass,
 * *first_key (may be NULL) gets the first such field's key (caller frees)
 * and verdict->message its message. */
int jp_flow_step_verdict(struct jp_verdict *verdict, char **first_key,
			 const struct jp_flow *flow, enum jp_step step,
			 struct jp_error *err);

/* Lists ("data", "job.env"). */
size_t jp_flow_list_count(const struct jp_flow *flow, const char *list_key);
/* Append an empty item (a data source gets a default name); *index gets
 * its position. */
int jp_flow_list_add(size_t *index, struct jp_flow *flow,
		     const char *list_key, struct jp_error *err);
int jp_flow_list_remove(struct jp_flow *flow, const char *list_key,
			size_t index, struct jp_error *err);

/* Take answers (a manifest read with JP_READ_ANSWERS, any subset): every
 * value present is set as if typed, in step order; absent values keep
 * following their defaults; derived values (commit, stats, checks,
 * generator, created_at) are ignored. Every problem is recorded in err
 * naming the field ("answers.json: outputs.output_dir: ..."); returns
 * JP_EFORMAT when a value cannot be represented, JP_ECHECK when a value
 * was stored but its inline check failed (e.g. an output dir under /tmp).
 * `origin` names the answers file in messages. */
int jp_flow_apply_answers(struct jp_flow *flow, const struct jp_manifest *answers,
			  const char *origin, struct jp_error *err);

/* --- Actions -------------------------------------------------------------- */

enum jp_action {
	JP_ACTION_CLONE = 0, /* shared_storage + clone: clone code.repo into code.path */
	JP_ACTION_INSPECT,   /* shared_storage + existing: read url/ref/commit
			    * of the checkout at code.path; with code.repo.url
			    * or .ref set, bring it to that ref first
			    * (jp_git_update: asks port->confirm before moving
			    * unless JP_FLOW_MOVE_CHECKOUT; a refusal is a
			    * failed code.repo.url / .ref check, not an error) */
	JP_ACTION_RESOLVE,   /* launch_clone: ls-remote code.repo.ref to a commit */
	JP_ACTION_SCAN,      /* data[index]: quick look (or a full scan, deep);
			    * stats reach the manifest only from a scan that
			    * counted everything */
	JP_ACTION_OUTPUTS,   /* mkdir -p output, checkpoint and log dirs (a run
			    * directory holding files is not reused without
			    * port->confirm; one holding only empty folders is) */
	JP_ACTION_CHECK,     /* every check (check.h + the launch lint) */
	JP_ACTION_STAGE,     /* data[index]: stage data[].from onto data[].path
			    * (jobprep/stage.h: copy, unpack or download,
			    * incremental), before that source's scan; records
			    * the manifest's data[].origin */
	JP_ACTION_FILL_IN,   /* shared_storage: give the checkout at code.path
			    * the submodules and Git LFS content a clone left
			    * out (jp_git_fill_in); never pending, only asked
			    * for (the review's code.repo.submodules and
			    * code.repo.lfs) */
};

struct jp_flow_work;

/* What still has to run before the flow can be written, in order: the
 * task kinds (and for JP_ACTION_SCAN the data index) whose result is missing
 * or stale for the current answers. *kinds and *indices are the caller's
 * (free with free()); *n may be 0. JP_ACTION_CHECK is always last. */
int jp_flow_pending(enum jp_action **kinds, size_t **indices, size_t *n,
		    const struct jp_flow *flow, struct jp_error *err);

/* Snapshot what a task needs (owning thread). `index` is the data index for
 * JP_ACTION_SCAN, else ignored; `deep` asks a scan for full statistics.
 * JP_EUSAGE when the task does not apply (e.g. a clone for an image). */
int jp_flow_work_new(struct jp_flow_work **out, const struct jp_flow *flow,
		     enum jp_action kind, size_t index, bool deep,
		     struct jp_error *err);
/* Do the work (any thread; never touches the flow). The port's callbacks
 * are called from this thread: progress (return < 0 to cancel: the task
 * then fails with JP_ECANCELED and leaves nothing half-made), ask_secret
 * (a password for a clone; NULL: fails with JP_ENEEDUSER), confirm (only
 * JP_ACTION_OUTPUTS, to write into a run directory that already holds files;
 * NULL or "no": fails with JP_EREFUSED). Creating missing directories
 * needs no confirmation here: ask the person before starting the task. */
int jp_flow_work_run(struct jp_flow_work *task, const struct jp_port *port,
		     struct jp_error *err);
/* Put a finished task's result into the flow (owning thread); defaults
 * that depend on it follow (a clone brings the commit and, when it has
 * scripts/train.sh, the default launch command). When the answers changed
 * since the snapshot (another path, another URL) the result is set aside
 * and JP_EREFUSED returned with a message saying so; directories the task
 * made are remembered either way (a clone into the old path is then used as
 * an existing checkout if the person goes back to that path). */
int jp_flow_work_apply(struct jp_flow *flow, const struct jp_flow_work *task,
		       struct jp_error *err);
void jp_flow_work_free(struct jp_flow_work *task);

/* --- Staging data (data[].from) ------------------------------------------ */

enum jp_stage_offer_kind {
	JP_STAGE_OFFER_NONE = 0, /* the path is fine where it is, or unknown */
	JP_STAGE_OFFER_COPY,     /* a folder or file on this machine's own disk */
	JP_STAGE_OFFER_UNPACK,   /* an archive */
	JP_STAGE_OFFER_DOWNLOAD, /* an http(s) URL typed as the path */
	JP_STAGE_OFFER_WITHIN,   /* a folder on shared storage holding archives:
				  * unpack each beside it (jp_stage_unpack_within) */
};

struct jp_stage_offer {
	enum jp_stage_offer_kind kind;
	char *dest; /* owned: {shared}/datasets/{name} (WITHIN: the folder
		       itself); NULL with NONE */
	/* WITHIN: the archives still to unpack (as found in a quick look:
	 * maybe not all, see complete), their sizes */
	struct jp_strv archives;
	uint64_t bytes;
	bool complete;
	/* DOWNLOAD: the URL names an archive, unpacked into dest */
	bool unpack;
};

#define JP_STAGE_OFFER_INIT { JP_STAGE_OFFER_NONE, NULL, JP_STRV_INIT, 0, false, false }

/* What to offer for `typed` as data[index]'s path: copy a folder or file on
 * local (or ephemeral) disk, unpack an archive, download a URL, each to
 * {shared}/datasets/{name} ({name}: its last component, an archive's
 * suffix left out). Looks at the path in bounded time (the interactive
 * probe timeout); a path that does not answer offers nothing. Release
 * with jp_stage_offer_dispose. */
int jp_flow_stage_offer(struct jp_stage_offer *out, const struct jp_flow *flow, size_t index,
			const char *typed, struct jp_error *err);
void jp_stage_offer_dispose(struct jp_stage_offer *offer);
/* The resume offer (launch.resume) taken as the same folder:
 * outputs.checkpoint_dir set to the checkpoint folder `run` names (a run
 * folder's name such as "run-001", "last" for the last complete one, or a
 * path), looked up like job.resume_from. JP_EUSAGE with the reason when
 * there is no such checkpoint. */
int jp_flow_resume_in(struct jp_flow *flow, const char *run, struct jp_error *err);

/* Take an offer: data[index].from = from (a URL's credentials kept out of
 * the draft), data[index].path = dest; then start JP_ACTION_STAGE. A
 * WITHIN offer: from NULL, data[index].path = dest and its
 * unpack_archives set. */
int jp_flow_stage_take(struct jp_flow *flow, size_t index, const char *from, const char *dest,
		       struct jp_error *err);

/* --- Review --------------------------------------------------------------- */

enum jp_finish_flags {
	JP_FINISH_FORCE = 1 << 0, /* write even when a check failed */
	JP_FINISH_DEEP = 1 << 1,  /* full data scans */
	JP_FINISH_NO_WRITE = 1 << 2, /* run everything, write nothing; the
				       * folders made for the checks go again */
};

/* Finish the flow: refuse (JP_ECHECK, nothing made, one "KEY: message" per
 * failing field in err) when any active field's inline check fails, and
 * refuse (JP_EREFUSED, nothing made) a copy of the manifest that would
 * replace another run's manifest or another file, unless FORCE or
 * port->confirm (asked just before writing) says yes; then
 * run every pending task in order (jp_flow_pending) on this thread with
 * `port`, look at the fields again (a checkout of another repository, no
 * scripts/train.sh after the clone), run the checks; then, unless a check
 * failed (JP_ECHECK; FORCE writes anyway, recording the failures), write
 * env.sh to review.env_path, preflight.sh beside it (jobprep/preflight.h),
 * the manifest into the run's folder and its copy
 * (jp_flow_files), each atomically; when a later one fails, the earlier ones
 * are removed again. port->progress is also called (phase JP_PHASE_DONE) between
 * steps, so a cancel lands before the checks and before the write. The
 * draft (jp_flow_manifest) holds the checks afterwards, also on JP_ECHECK.
 * On cancel or failure, directories this flow created that are still empty
 * are removed again (a finished clone stays: the next run inspects it). */
int jp_flow_finish(struct jp_flow *flow, unsigned flags,
		   const struct jp_port *port, struct jp_error *err);

/* Where jp_flow_finish writes: the run's manifest and env.sh (in
 * outputs.output_dir), and the copy of the manifest (review.manifest_path
 * when that lies outside the run's folder; else NULL). Each NULL while not
 * known yet; each the caller's, free with free(). */
int jp_flow_files(char **manifest, char **env, char **copy, const struct jp_flow *flow,
		  struct jp_error *err);

/* Where jp_flow_finish writes the run's preflight.sh: in the run's folder
 * (outputs.output_dir), beside env.sh, where the exports run it from. NULL
 * while not known; *out the caller's (free()). 0 or JP_ENOMEM. */
int jp_flow_preflight_file(char **out, const struct jp_flow *flow);

/* The launch command to paste into the platform's form: sources env.sh by
 * absolute path, runs the run's preflight.sh, then job.launch_command, e.g.
 *   . '/mnt/public/outputs/llama/run-001/env.sh' &&
 *   sh '/mnt/public/outputs/llama/run-001/preflight.sh' && cd "$PROJECT_DIR" && ...
 * (one line). *out is the caller's, free with free(). */
int jp_flow_platform_command(char **out, const struct jp_flow *flow,
			     struct jp_error *err);

#endif
