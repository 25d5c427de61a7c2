/* Owned strings: the one helper that replaces a string field with a copy.
 * A leaf: it needs nothing of jobprep but the error codes. */
#ifndef JOBPREP_STR_H
#define JOBPREP_STR_H

/* Set *field to a copy of value (NULL clears), freeing what it held.
 * Returns 0, or JP_ENOMEM with *field unchanged. */
int jp_set_str(char **field, const char *value);

#endif
