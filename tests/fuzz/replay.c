/* The main() of a fuzz target built without libFuzzer (a gcc build, `make
 * check`): run LLVMFuzzerTestOneInput once over each file named, or over
 * each file of each folder named; with no argument, over the target's seed
 * corpus $TOP_SRCDIR/tests/fuzz/corpus/NAME (NAME from -DJP_FUZZ_NAME).
 * A property a target checks ends in abort(), so a seed that breaks one
 * fails the test. Exit 0 when every input ran, 1 when one could not be read. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#ifndef JP_FUZZ_NAME
#error "define JP_FUZZ_NAME, the target's corpus folder under tests/fuzz/corpus"
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path, unsigned *count)
{
	FILE *f = fopen(path, "rb");
	uint8_t *data = NULL;
	size_t len = 0, cap = 0;

	if (!f) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return -1;
	}
	for (;;) {
		if (len == cap) {
			uint8_t *grown = realloc(data, cap ? cap * 2 : 4096);
			if (!grown) {
				fprintf(stderr, "%s: out of memory\n", path);
				free(data);
				fclose(f);
				return -1;
			}
			data = grown;
			cap = cap ? cap * 2 : 4096;
		}
		size_t got = fread(data + len, 1, cap - len, f);
		len += got;
		if (got == 0)
			break;
	}
	if (ferror(f)) {
		fprintf(stderr, "%s: cannot read\n", path);
		free(data);
		fclose(f);
		return -1;
	}
	fclose(f);
	/* exactly len bytes, as libFuzzer gives them: a tight copy lets ASan
	 * and valgrind see a read past the end */
	uint8_t *exact = malloc(len ? len : 1);
	if (!exact) {
		free(data);
		return -1;
	}
	if (len)
		memcpy(exact, data, len);
	free(data);
	LLVMFuzzerTestOneInput(exact, len);
	free(exact);
	(*count)++;
	return 0;
}

static int run_path(const char *path, unsigned *count)
{
	struct stat st;
	DIR *d;
	struct dirent *e;
	int rc = 0;

	if (stat(path, &st) != 0) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode))
		return run_file(path, count);
	d = opendir(path);
	if (!d) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return -1;
	}
	while ((e = readdir(d)) != NULL) {
		char *child;

		if (e->d_name[0] == '.')
			continue;
		if (asprintf(&child, "%s/%s", path, e->d_name) < 0) {
			rc = -1;
			break;
		}
		if (run_path(child, count) < 0)
			rc = -1;
		free(child);
	}
	closedir(d);
	return rc;
}

int main(int argc, char **argv)
{
	unsigned count = 0;
	int rc = 0;

	if (argc > 1) {
		for (int i = 1; i < argc; i++)
			if (run_path(argv[i], &count) < 0)
				rc = 1;
	} else {
		const char *top = getenv("TOP_SRCDIR");
		char *dir;

		if (asprintf(&dir, "%s/tests/fuzz/corpus/%s", top ? top : ".", JP_FUZZ_NAME) < 0)
			return 1;
		if (run_path(dir, &count) < 0)
			rc = 1;
		free(dir);
	}
	printf("%s %s: %u input%s replayed\n", rc ? "not ok -" : "ok -", JP_FUZZ_NAME, count,
	       count == 1 ? "" : "s");
	if (count == 0)
		rc = 1;
	return rc;
}
