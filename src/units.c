/* Sizes for people. */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>

#include "jobprep/units.h"

const char *jp_units_format_bytes(char *buf, size_t len, uint64_t bytes)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	double d = (double)bytes;
	size_t u = 0;

	while (d >= 1024 && u < 6) {
		d /= 1024;
		u++;
	}
	if (u == 0)
		snprintf(buf, len, "%" PRIu64 " B", bytes);
	else
		snprintf(buf, len, "%.1f %s", d, units[u]);
	return buf;
}
