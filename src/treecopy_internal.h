/* Shared by src/treecopy.c and src/treecopy_stream.c only. */
#ifndef JOBPREP_TREECOPY_INTERNAL_H
#define JOBPREP_TREECOPY_INTERNAL_H

#include <stdatomic.h>
#include <stddef.h>
#include <sys/stat.h>

/* Copy one regular file src_at/src_name to a new dst_at/dst_name with mode
 * (bits the umask took back restored), through buf; count bytes, give up
 * when *stop (errno ECANCELED); fill *st_out (may be NULL) from the copy.
 * 0, or -1 with errno set. */
int jp_tc_copy_file(int src_at, const char *src_name, int dst_at, const char *dst_name,
		    mode_t mode, mode_t umask_bits, char *buf, size_t bufsz,
		    atomic_uint_fast64_t *bytes, atomic_bool *stop, struct stat *st_out);
/* The process umask, read without changing it. */
mode_t jp_tc_umask(void);

#endif
