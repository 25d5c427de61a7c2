/* Sizes for people: whole bytes below a KiB, then one decimal. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "jobprep/units.h"

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(bytes_below_a_kib_are_whole),
		cmocka_unit_test(larger_sizes_take_the_largest_unit_below_them),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
