/* mktree DIR FILES [PER_DIR] [PER_TOP]: make a data-set-like tree for the
 * scan benchmarks and tests: DIR/tNN/dNNNN/fNNNNNN.bin, PER_DIR files per
 * leaf directory (default 500), PER_TOP leaf directories per top directory
 * (default 50). File i is i % 65521 bytes long (sparse: no data written),
 * every 997th file is named .tar.gz. Prints "files bytes archives dirs".
 * A benchmark tool, not part of jobprep. */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: mktree DIR FILES [PER_DIR] [PER_TOP]\n");
		return 2;
	}
	const char *dir = argv[1];
	unsigned long files = strtoul(argv[2], NULL, 10);
	unsigned long per_dir = argc > 3 ? strtoul(argv[3], NULL, 10) : 500;
	unsigned long per_top = argc > 4 ? strtoul(argv[4], NULL, 10) : 50;
	char path[4096];
	uint64_t bytes = 0, archives = 0, dirs = 1;

	if (!per_dir || !per_top)
		return 2;
	if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
		perror(dir);
		return 1;
	}
	for (unsigned long i = 0; i < files; i++) {
		unsigned long leaf = i / per_dir;
		unsigned long top = leaf / per_top;
		if (i % per_dir == 0) {
			if (leaf % per_top == 0) {
				snprintf(path, sizeof(path), "%s/t%02lu", dir, top);
				if (mkdir(path, 0755) < 0 && errno != EEXIST) {
					perror(path);
					return 1;
				}
				dirs++;
			}
			snprintf(path, sizeof(path), "%s/t%02lu/d%04lu", dir, top, leaf);
			if (mkdir(path, 0755) < 0 && errno != EEXIST) {
				perror(path);
				return 1;
			}
			dirs++;
		}
		bool archive = i % 997 == 996;
		snprintf(path, sizeof(path), "%s/t%02lu/d%04lu/f%06lu.%s", dir, top, leaf, i,
			 archive ? "tar.gz" : "bin");
		int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd < 0) {
			perror(path);
			return 1;
		}
		off_t size = (off_t)(i % 65521);
		if (size && ftruncate(fd, size) < 0) {
			perror(path);
			return 1;
		}
		close(fd);
		bytes += (uint64_t)size;
		archives += archive;
	}
	printf("%lu %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", files, bytes, archives, dirs);
	return 0;
}
