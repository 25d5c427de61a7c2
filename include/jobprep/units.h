/* Sizes for people: bytes in binary units, as every message shows them. */
#ifndef JOBPREP_UNITS_H
#define JOBPREP_UNITS_H

#include <stddef.h>
#include <stdint.h>

/* "512 B", "1.5 KiB", ... "2.0 EiB" (one decimal from KiB on) into buf;
 * returns buf. 16 bytes always suffice. */
const char *jp_units_format_bytes(char *buf, size_t len, uint64_t bytes);

#endif
