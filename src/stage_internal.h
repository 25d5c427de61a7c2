/* Shared by src/stage*.c only. */
#ifndef JOBPREP_STAGE_INTERNAL_H
#define JOBPREP_STAGE_INTERNAL_H

#include <stdbool.h>

#include "jobprep/error.h"
#include "jobprep/port.h"
#include "jobprep/stage.h"

/* Does the name say it is an archive stage unpacks (.tar, .tar.gz, .tgz,
 * .tar.zst, .tar.xz, .txz, .tar.bz2, .tbz2, .zip)? */
bool jp_stage_is_archive(const char *name);
/* Unpack the archive at path into dest (stage_archive.c). */
int jp_stage_archive(struct jp_stage_result *out, const char *path, const char *dest,
		     const struct jp_stage_options *opts, const struct jp_port *port,
		     struct jp_error *err);
/* http:// or https:// (case-insensitive). */
bool jp_stage_is_url(const char *s);
/* Download url (resumably), check it, put it at dest or unpack it there
 * (stage_http.c). */
int jp_stage_http(struct jp_stage_result *out, const char *url, const char *dest,
		  const struct jp_stage_options *opts, const struct jp_port *port,
		  struct jp_error *err);
/* Add a note (a member stripped or skipped) to out; 0 or JP_ENOMEM. */
int jp_stage_note(struct jp_stage_result *out, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
