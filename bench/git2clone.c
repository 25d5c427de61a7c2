/* The peer for jobprep's clone benchmarks: a bare libgit2 clone, as any
 * program using libgit2 would write it (git_clone with default options).
 *   git2clone [--progress] URL DIR
 * --progress sets transfer and checkout callbacks that only count. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include <git2.h>

static unsigned long calls;

static int on_transfer(const git_indexer_progress *st, void *payload)
{
	(void)st;
	(void)payload;
	calls++;
	return 0;
}

static void on_checkout(const char *path, size_t done, size_t total, void *payload)
{
	(void)path;
	(void)done;
	(void)total;
	(void)payload;
	calls++;
}

int main(int argc, char **argv)
{
	git_clone_options opts;
	git_repository *repo = NULL;
	int progress = argc == 4 && strcmp(argv[1], "--progress") == 0;
	int rc;

	if (argc != 3 + progress) {
		fprintf(stderr, "usage: git2clone [--progress] URL DIR\n");
		return 2;
	}
	git_libgit2_init();
	git_clone_options_init(&opts, GIT_CLONE_OPTIONS_VERSION);
	if (progress) {
		opts.fetch_opts.callbacks.transfer_progress = on_transfer;
		opts.checkout_opts.progress_cb = on_checkout;
	}
	rc = git_clone(&repo, argv[1 + progress], argv[2 + progress], &opts);
	if (rc != 0) {
		const git_error *e = git_error_last();
		fprintf(stderr, "git2clone: %s\n", e && e->message ? e->message : "failed");
	}
	git_repository_free(repo);
	git_libgit2_shutdown();
	return rc != 0;
}
