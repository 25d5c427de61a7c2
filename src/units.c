/* Sizes, rates and durations for people. */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

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

const char *jp_units_format_rate(char *buf, size_t len, double bytes_per_s)
{
	size_t n;

	if (!(bytes_per_s > 0) || len < 3) {
		snprintf(buf, len, "%s", "");
		return buf;
	}
	jp_units_format_bytes(buf, len - 2,
			      bytes_per_s >= 1.8e19 ? UINT64_MAX : (uint64_t)(bytes_per_s + 0.5));
	n = strlen(buf);
	snprintf(buf + n, len - n, "/s");
	return buf;
}

const char *jp_units_format_duration(char *buf, size_t len, double seconds)
{
	uint64_t s;

	if (!(seconds >= 0) || seconds > 9.9e7) {
		snprintf(buf, len, "%s", "");
		return buf;
	}
	s = (uint64_t)(seconds + 0.5);
	if (s < 60)
		snprintf(buf, len, "%" PRIu64 "s", s);
	else if (s < 3600)
		snprintf(buf, len, "%" PRIu64 "m%02" PRIu64 "s", s / 60, s % 60);
	else if (s < 86400)
		snprintf(buf, len, "%" PRIu64 "h%02" PRIu64 "m", s / 3600, s % 3600 / 60);
	else
		snprintf(buf, len, "%" PRIu64 "d%02" PRIu64 "h", s / 86400, s % 86400 / 3600);
	return buf;
}
