/* The wire codec of the process boundary (src/helper.c): a request's inputs
 * and its answer as bytes (struct probe_bytes), written by one side and read
 * back field by field, in the same order, by the other. A reader that runs
 * past the end, or a writer out of memory, sets bad; every get after that
 * reads zeros (NULL for a string), so a caller checks bad once, at the end.
 * An error crosses whole (probe_bytes_put_error): its code and every line. */
#ifndef JOBPREP_WIRE_INTERNAL_H
#define JOBPREP_WIRE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "jobprep/error.h"

/* A request's inputs or its answer, as bytes. */
struct probe_bytes {
	char *p;
	size_t n, cap;
	size_t off; /* reading */
	bool bad;   /* out of memory, or read past the end */
};

void probe_bytes_put(struct probe_bytes *b, const void *data, size_t n);
void probe_bytes_put_str(struct probe_bytes *b, const char *s);
void probe_bytes_get(struct probe_bytes *b, void *out, size_t n);
char *probe_bytes_get_str(struct probe_bytes *b); /* malloc'd; NULL for NULL */
/* A profile (NULL: none) as its JSON text; read back into *out (NULL for
 * none), the caller's to free; < 0 when the bytes do not hold one. Defined
 * in profile.c, with the profile's JSON: the codec itself uses no other
 * file. */
struct jp_profile;
void probe_bytes_put_profile(struct probe_bytes *b, const struct jp_profile *profile);
int probe_bytes_get_profile(struct jp_profile **out, struct probe_bytes *b, struct jp_error *err);

/* An error whole: its code and every line (e NULL or empty: none). Read
 * back, its lines are recorded in err (may be NULL) with its code, or with
 * rc when it has none; none and rc non-zero: rc's description. Returns the
 * code so recorded (0 for none), or 0 with b->bad set when the bytes do not
 * hold a whole error (then nothing is recorded). */
void probe_bytes_put_error(struct probe_bytes *b, const struct jp_error *e);
int probe_bytes_get_error(struct probe_bytes *b, struct jp_error *err, int rc);

#endif
