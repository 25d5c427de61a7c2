/* Shared by the exporters (export.c, export_slurm.c, export_pytorchjob.c):
 * finishing a text (buf.h) and the lines every engine runs first. */
#ifndef JOBPREP_EXPORT_INTERNAL_H
#define JOBPREP_EXPORT_INTERNAL_H

#include <stddef.h>

#include "buf.h"
#include "jobprep/error.h"
#include "jobprep/manifest.h"

/* The keys of a PyTorchJob's lines that are the person's (jp_export_fill):
 * the exporter writes them, the digest leaves their values out, and a
 * re-export keeps what is there. */
#define EXPORT_KEY_IMAGE "image: "
#define EXPORT_KEY_NAMESPACE "namespace: "
#define EXPORT_KEY_PRIORITY "priorityClassName: "
#define EXPORT_KEY_QUEUE "kueue.x-k8s.io/queue-name: "
/* A Slurm script's: its #SBATCH lines that are the person's. */
#define EXPORT_KEY_PARTITION "#SBATCH --partition="
#define EXPORT_KEY_ACCOUNT "#SBATCH --account="
#define EXPORT_KEY_QOS "#SBATCH --qos="
#define EXPORT_KEY_TIME "#SBATCH --time="
/* A comment line the person may drop once done (the image to fill in). */
#define EXPORT_FILL_IN_COMMENT "# FILL IN"

/* Hand the text to *out (the caller's, free with free()), or record the
 * failure in err and free it. Returns 0 or the failure. */
int export_buf_finish(char **out, struct jp_buf *b, struct jp_error *err);

/* Record "ORIGIN: " + the formatted message (origin NULL: "manifest");
 * returns code. */
int export_error(struct jp_error *err, int code, const char *origin, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* The lines run before the launch command on every engine: the export
 * lines of `jobprep env`, then mkdir of the checkpoint and log directories
 * (exit 1 when that fails). Ends with a newline. *out is the caller's. */
int export_prelude(char **out, const struct jp_manifest *m, struct jp_error *err);

/* The line every Worker runs before the launch command: the run's
 * preflight.sh (jobprep/preflight.h) in outputs.output_dir, exit 1 when it
 * fails or is missing. Ends with a newline; static. */
const char *export_preflight_line(void);

/* The directory the job starts in: code.path for shared_storage and image,
 * outputs.output_dir for launch_clone. Borrowed; may be NULL. */
const char *export_workdir(const struct jp_manifest *m);

#endif
