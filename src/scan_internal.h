/* The core's side of jobprep/scan.h: what only src/ (and the unit tests)
 * call. The front ends use include/jobprep/scan.h. */
#ifndef JOBPREP_SCAN_INTERNAL_H
#define JOBPREP_SCAN_INTERNAL_H

#include "jobprep/scan.h"

/* True when a file name looks like an archive or a compressed file a job
 * would have to unpack (.tar .tar.gz .tgz .tar.bz2 .tar.xz .tar.zst .zip .7z
 * .rar .gz .bz2 .xz .zst ...), compared without regard to case. */
bool jp_scan_is_archive_name(const char *name);

/* jp_scan on this process's own threads, unbounded by a helper: what a
 * helper runs for jp_scan (scan_bounded.c). Items come without the
 * unpacked look (-1). */
int jp_scan_now(struct jp_scan_result *out, const char *path, const struct jp_scan_opts *opts,
		const struct jp_scan_output *output, const struct jp_port *port,
		struct jp_error *err);

#endif
