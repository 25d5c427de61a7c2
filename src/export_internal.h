/* Shared by the exporters (export.c, export_slurm.c, export_pytorchjob.c):
 * finishing a text (buf.h) and the lines every engine runs first; and what
 * of jobprep/export.h only the core calls (the engines, the stamp's check). */
#ifndef JOBPREP_EXPORT_INTERNAL_H
#define JOBPREP_EXPORT_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "jobprep/error.h"
#include "jobprep/export.h"
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

/* The GPUs each node / Pod asks for: the processes per Worker the launch
 * command's launcher starts (torchrun --nproc_per_node=2: 2), else
 * job.gpus_per_worker; 0 for none. */
int64_t export_gpus(const struct jp_manifest *m);

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

/* ---- of jobprep/export.h, what no front end calls ---- */

/* "slurm" or "pytorchjob"; static. */
const char *jp_export_target_name(enum jp_export_target target);

/* Whether text (len bytes) is an export nobody edited: its digest line
 * matches the rest (jp_export_stamp). */
bool jp_export_is_unedited(const char *text, size_t len);

/* The two exporters, for a manifest already validated.
 *
 * Slurm: `#!/bin/bash`, #SBATCH --job-name, --nodes (workers),
 * --ntasks-per-node=1, --gpus-per-node (left out when 0), --partition,
 * --time, --account, --qos (fill's, else the recorded profile's "slurm",
 * each only when set), --output and
 * --error as %x-%j.out / %x-%j.err in outputs.log_dir, --chdir; then the
 * rendezvous variables PyTorchJob sets (MASTER_ADDR, MASTER_PORT,
 * WORLD_SIZE, RANK), the env lines, mkdir, and the launch command run with
 * `bash -c` (one Worker) or `srun` once per node (several). Refused
 * (JP_EREFUSED): code in an image, a line break in a directory named in an
 * #SBATCH line, a backslash in outputs.log_dir (Slurm then expands no %j). */
int jp_export_slurm(char **out, const struct jp_manifest *m, const struct jp_export_fill *fill,
		    const char *origin, struct jp_error *err);
/* PyTorchJob: Master (1 replica) and Worker (workers - 1, left out when
 * none), container "pytorch" running ["/bin/sh", "-c", env lines, mkdir,
 * launch command], nvidia.com/gpu limits when gpus_per_worker > 0, and
 * hostPath volumes at the same paths for the profile's shared roots, its
 * public roots (read-only) and any manifest path outside them. Every
 * string is a double-quoted YAML scalar. */
int jp_export_pytorchjob(char **out, unsigned *notes, const struct jp_manifest *m,
			 const struct jp_export_fill *fill, const char *origin,
			 struct jp_error *err);

void jp_export_read_fill(struct jp_export_fill *out, const char *text, size_t len);

#endif
