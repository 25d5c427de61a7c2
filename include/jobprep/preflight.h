/* The run's preflight.sh: the check every Worker runs before the launch
 * command, made from the manifest. It sits in the run's folder
 * ({shared}/outputs/{job}/run-NNN/) beside the manifest and env.sh.
 *
 * Plain POSIX sh (dash, busybox sh, bash): no jobprep; python3 only for the
 * job's runtime checks (src/preflight_runtime.sh), skipped with one warning
 * where the Worker has none. As the
 * Worker sees them, it judges the paths jobprep check judges
 * (jp_check_paths, same ids): each exists, code and data are readable,
 * outputs writable (a probe file made and removed), nothing on ephemeral
 * storage (the profile's roots, then /proc/self/mountinfo: tmpfs, ramfs,
 * overlay), free space (df). Every look at a path is bounded
 * (JOBPREP_PREFLIGHT_TIMEOUT seconds, default 10): a hung mount is a failure
 * line. With more than one Worker they meet: rank 0 writes a mark for this
 * run and attempt into outputs.output_dir, every other rank waits
 * (JOBPREP_PREFLIGHT_WAIT seconds, default 60) for exactly that mark, and
 * one that never sees it fails naming its host and the path.
 *
 * The Workers are job.workers, or SLURM_JOB_NUM_NODES, SLURM_NNODES or
 * PET_NNODES when one is larger (the platform started more); one Worker
 * skips the meeting. The rank is the first set of JOBPREP_RANK, PET_NODE_RANK, NODE_RANK,
 * GROUP_RANK, SLURM_NODEID, RANK, SLURM_PROCID. The attempt is the first
 * set of JOBPREP_ATTEMPT, Slurm's SLURM_JOB_ID + SLURM_RESTART_COUNT,
 * TORCHELASTIC_RUN_ID, MASTER_ADDR:MASTER_PORT: a value every Worker of one
 * attempt shares and a later attempt does not (with MASTER_ADDR alone, as in
 * a PyTorchJob, a job re-created under the same name shares it: set
 * JOBPREP_ATTEMPT there when that matters).
 *
 * The Worker's word is final: a path under a declared shared root on tmpfs,
 * ramfs, overlay, or on another filesystem or mount point than the
 * manifest's storage record fails (warns in a sandbox profile); rank 0's
 * mark is met in every output folder; a data set with fewer files than
 * recorded (data[i].path.count) or a .jobprep-tmp-* inside it fails; so does
 * a job.env that sets the platform's per-Worker variables (job.env.identity).
 *
 * Then the job's runtime on this Worker (runtime.*, docs/reference.md): the
 * modules and Python version code.python records, /dev/shm and ulimit -n
 * for DataLoader workers, the interfaces NCCL_SOCKET_IFNAME,
 * GLOO_SOCKET_IFNAME and NCCL_IB_HCA name, MASTER_ADDR:MASTER_PORT (rank 0
 * listens until every rank has connected, then lets the port go), the
 * NVIDIA GPUs against gpus_per_worker, and no terminal at standard input.
 *
 * Output: one "[FAIL] ID: message" or "[warn] ID: message" line per problem
 * on stderr, then this Worker's table ("[area] AREA STATUS": storage, data,
 * identity, python, network, shm, limits, gpus; pass, warn, fail or "-"),
 * recorded by the sh function jp_area AREA STATUS, then a last line that
 * counts the failures and warnings and names their ids ("every check
 * passed" only when none); exit 0 when nothing failed, 1 otherwise. */
#ifndef JOBPREP_PREFLIGHT_H
#define JOBPREP_PREFLIGHT_H

#include "jobprep/error.h"
#include "jobprep/manifest.h"

/* The check id of the Workers' meeting (not one of jobprep check's: only
 * the Workers can tell whether they share the output directory). */
#define JP_PREFLIGHT_MEET_ID "outputs.output_dir.same_storage"

/* The script for m, judged under m->profile (NULL: the built-in profile).
 * Messages are in the current language. *out is the caller's (free()).
 * Returns 0, JP_EFORMAT (no outputs.output_dir: there is no run) or
 * JP_ENOMEM. */
int jp_preflight_render(char **out, const struct jp_manifest *m, struct jp_error *err);

#endif
