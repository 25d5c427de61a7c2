/* Sizes for people: whole bytes below a KiB, then one decimal; rates the
 * same per second; times to go rounded to the second, two units at most.
 * And the figures of a progress report (meter.h): the rate over the last
 * few seconds, the fraction by bytes, the time to go. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "jobprep/meter.h"
#include "jobprep/units.h"
#include "meter_internal.h"

static void bytes_below_a_kib_are_whole(void **state)
{
	char buf[16];

	(void)state;
	assert_string_equal(jp_units_format_bytes(buf, sizeof(buf), 0), "0 B");
	assert_string_equal(jp_units_format_bytes(buf, sizeof(buf), 1023), "1023 B");
}

static void larger_sizes_take_the_largest_unit_below_them(void **state)
{
	char buf[16];

	(void)state;
	assert_string_equal(jp_units_format_bytes(buf, sizeof(buf), 1024), "1.0 KiB");
	assert_string_equal(jp_units_format_bytes(buf, sizeof(buf), 1536), "1.5 KiB");
	assert_string_equal(jp_units_format_bytes(buf, sizeof(buf), 64ULL << 20), "64.0 MiB");
	assert_string_equal(jp_units_format_bytes(buf, sizeof(buf), 3ULL << 40), "3.0 TiB");
	assert_string_equal(jp_units_format_bytes(buf, sizeof(buf), UINT64_MAX), "16.0 EiB");
}

static void rates_are_sizes_per_second(void **state)
{
	char buf[24];

	(void)state;
	assert_string_equal(jp_units_format_rate(buf, sizeof(buf), 0), "");
	assert_string_equal(jp_units_format_rate(buf, sizeof(buf), -1), "");
	assert_string_equal(jp_units_format_rate(buf, sizeof(buf), 512), "512 B/s");
	assert_string_equal(jp_units_format_rate(buf, sizeof(buf), 5.25 * 1048576), "5.2 MiB/s");
}

static void durations_take_two_units_at_most(void **state)
{
	char buf[16];

	(void)state;
	assert_string_equal(jp_units_format_duration(buf, sizeof(buf), -1), "");
	assert_string_equal(jp_units_format_duration(buf, sizeof(buf), 0), "0s");
	assert_string_equal(jp_units_format_duration(buf, sizeof(buf), 41.6), "42s");
	assert_string_equal(jp_units_format_duration(buf, sizeof(buf), 125), "2m05s");
	assert_string_equal(jp_units_format_duration(buf, sizeof(buf), 3725), "1h02m");
	assert_string_equal(jp_units_format_duration(buf, sizeof(buf), 3 * 86400 + 4 * 3600 + 5), "3d04h");
	assert_string_equal(jp_units_format_duration(buf, sizeof(buf), 1e9), "");
}

#define S 1000000000ULL

static void the_rate_is_over_the_last_few_seconds(void **state)
{
	struct jp_meter m = JP_METER_INIT;

	(void)state;
	/* bytes kept from before (a resume) make no rate */
	assert_true(jp_meter_rate(&m, 10 * S, 5000000) == 0);
	assert_true(jp_meter_rate(&m, 10 * S + S / 10, 5100000) == 0); /* too soon */
	/* 1 MB/s for 10 s */
	for (uint64_t t = 1; t <= 20; t++)
		jp_meter_rate(&m, 10 * S + t * S / 2, 5000000 + t * 500000);
	assert_float_equal(jp_meter_rate(&m, 20 * S, 15000000), 1e6, 1);
	/* then 4 MB/s: after 5 s the window holds only that */
	for (uint64_t t = 1; t <= 10; t++)
		jp_meter_rate(&m, 20 * S + t * S / 2, 15000000 + t * 2000000);
	assert_float_equal(jp_meter_rate(&m, 25 * S, 35000000), 4e6, 1);
	/* started again from zero: no rate until it has one */
	assert_true(jp_meter_rate(&m, 26 * S, 1000) == 0);
	assert_float_equal(jp_meter_rate(&m, 27 * S, 1001000), 1e6, 1);
}

static void fraction_and_time_to_go_go_by_bytes(void **state)
{
	struct jp_progress p = { JP_PHASE_DOWNLOAD, 0, 0, 0, 0, 0, NULL };

	(void)state;
	assert_true(jp_progress_fraction(&p) < 0);
	assert_true(jp_progress_eta(&p) < 0);
	p.bytes = 50;
	p.bytes_total = 200;
	p.done = 9;
	p.total = 10; /* the items do not decide when the bytes can */
	assert_float_equal(jp_progress_fraction(&p), 0.25, 1e-9);
	assert_true(jp_progress_eta(&p) < 0); /* no rate yet */
	p.rate = 10;
	assert_float_equal(jp_progress_eta(&p), 15, 1e-9);
	p.bytes_total = 0;
	assert_float_equal(jp_progress_fraction(&p), 0.9, 1e-9);
	assert_true(jp_progress_eta(&p) < 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(bytes_below_a_kib_are_whole),
		cmocka_unit_test(larger_sizes_take_the_largest_unit_below_them),
		cmocka_unit_test(rates_are_sizes_per_second),
		cmocka_unit_test(durations_take_two_units_at_most),
		cmocka_unit_test(the_rate_is_over_the_last_few_seconds),
		cmocka_unit_test(fraction_and_time_to_go_go_by_bytes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
