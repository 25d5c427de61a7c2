/* Sizes for people: bytes in binary units, as every message shows them;
 * rates and durations in the same way. */
#ifndef JOBPREP_UNITS_H
#define JOBPREP_UNITS_H

#include <stddef.h>
#include <stdint.h>

/* "512 B", "1.5 KiB", ... "2.0 EiB" (one decimal from KiB on) into buf;
 * returns buf. 16 bytes always suffice. */
const char *jp_units_format_bytes(char *buf, size_t len, uint64_t bytes);
/* "512 B/s", "5.2 MiB/s"; "" when not above 0. 20 bytes suffice. */
const char *jp_units_format_rate(char *buf, size_t len, double bytes_per_s);
/* A time to go, rounded to the second: "42s", "2m05s", "1h02m", "3d04h";
 * "" when negative (unknown) or beyond three years. 16 bytes suffice. */
const char *jp_units_format_duration(char *buf, size_t len, double seconds);

#endif
