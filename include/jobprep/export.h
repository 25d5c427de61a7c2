/* Job files for an engine, built from a manifest: a Slurm batch script or a
 * Kubeflow PyTorchJob (`jobprep export`). The text is returned to the caller,
 * who decides where it goes.
 *
 * Both run, before the launch command, the lines `jobprep env` prints (the
 * manifest's paths and job.env, single-quoted) and
 * `mkdir -p "$CHECKPOINT_DIR" "$LOG_DIR"`. The job's working directory is
 * code.path for shared_storage and image, and outputs.output_dir for
 * launch_clone (the clone does not exist until the launch command makes it).
 * Nothing secret can reach the text: it is made from the manifest alone,
 * which holds none (repository URLs carry no credentials). */
#ifndef JOBPREP_EXPORT_H
#define JOBPREP_EXPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "jobprep/error.h"
#include "jobprep/manifest.h"

enum jp_export_target {
	JP_EXPORT_SLURM = 0,  /* an sbatch script */
	JP_EXPORT_PYTORCHJOB, /* kubeflow.org/v1 PyTorchJob YAML */
};

/* Notes an export hands back for the caller to tell the user. */
enum jp_export_note {
	/* The manifest names no image (code on shared storage or cloned by
	 * the launch command): the YAML carries JP_EXPORT_IMAGE_PLACEHOLDER,
	 * which the user must replace. */
	JP_EXPORT_NOTE_IMAGE_PLACEHOLDER = 1u << 0,
};

/* Not a valid image reference (upper case), so a job submitted without
 * filling it in fails with InvalidImageName instead of pulling anything. */
#define JP_EXPORT_IMAGE_PLACEHOLDER "FILL-IN-IMAGE"

/* What a person fills in by hand, which the manifest does not hold: given
 * with `export --image` and the like, or kept from the export being
 * replaced. "" is unset. Flat, so a bounded look in a child process can
 * hand it back. */
#define JP_EXPORT_FILL_MAX 512
struct jp_export_fill {
	/* a PyTorchJob's */
	char image[JP_EXPORT_FILL_MAX];          /* each container's image */
	char k8s_namespace[JP_EXPORT_FILL_MAX];  /* metadata.namespace */
	char priority_class[JP_EXPORT_FILL_MAX]; /* each Pod's priorityClassName */
	char queue[JP_EXPORT_FILL_MAX];          /* the Kueue label kueue.x-k8s.io/queue-name */
	/* a Slurm script's #SBATCH lines, over the profile's "slurm" */
	char partition[JP_EXPORT_FILL_MAX];
	char account[JP_EXPORT_FILL_MAX];
	char qos[JP_EXPORT_FILL_MAX];
	char time[JP_EXPORT_FILL_MAX];
};

/* The reverse: 0, or JP_EUSAGE for another name. */
int jp_export_target_from_name(enum jp_export_target *out, const char *name);
/* Permission bits for the written file: 0755 for a script, 0644 for YAML. */
unsigned jp_export_file_mode(enum jp_export_target target);

/* The job file for `target`. m is validated first (JP_EFORMAT with every
 * problem). Messages start with `origin` (the manifest's file name; NULL
 * for "manifest"). Whether failed checks may be exported is the caller's
 * decision. *notes (may be NULL) gets a set of
 * jp_export_note bits. *out is the caller's, free with free(). Returns 0,
 * JP_EFORMAT, JP_EREFUSED (the engine cannot run this manifest; the message
 * says why) or JP_ENOMEM.
 * fill (may be NULL) sets what a person fills in, each engine its own
 * (JP_EUSAGE for another's, or a Slurm value that is no sbatch word). */
int jp_export_render(char **out, unsigned *notes, const struct jp_manifest *m,
		     enum jp_export_target target, const struct jp_export_fill *fill,
		     const char *origin, struct jp_error *err);

/* The digest line. `jobprep export` stamps every file it writes with one
 * comment line,
 *   # jobprep-export-digest: xxh3-64=<16 hex> (jobprep export -o replaces ...)
 * right after a #! line (else first), holding the XXH3 digest of every
 * other byte of the file but the person's: the values of the lines
 * jp_export_fill names (in a PyTorchJob image:, namespace:,
 * priorityClassName:, kueue.x-k8s.io/queue-name:, and the "# FILL IN"
 * comments; in a Slurm script's #SBATCH header --partition=, --account=,
 * --qos=, --time=). A file whose
 * line is there and still matches is an export nobody edited since in
 * jobprep's lines; anything else (edited there, or written by someone
 * else) is not replaced without being told.
 *
 * jp_export_stamp: text with the line added; *out the caller's (free()).
 * jp_export_is_unedited: len bytes of text carry a matching line.
 * jp_export_read_fill: the person's values in an export's text (a file with
 * a digest line, matching or not); "" where none or the placeholder.
 * jp_export_may_replace: 0 when nothing is at `path` or it holds an export
 * unedited in jobprep's lines (or `force`); JP_EREFUSED (the message names
 * the file, why, and which lines are the person's) for an edited export,
 * another file, a symbolic link or a non-file; JP_EIO when unreadable.
 * *kept (may be NULL) gets jp_export_read_fill of what is there. */
int jp_export_stamp(char **out, const char *text, struct jp_error *err);
int jp_export_may_replace(const char *path, bool force, struct jp_export_fill *kept,
			  struct jp_error *err);

#endif
