/* Data-set scans on a real tree in a scratch folder under $TMPDIR:
 * exact counts whatever the number of threads, archives, symlinks inside,
 * outside and dangling, special files, nesting deeper than a thread does
 * inline, a directory big enough to be split into many batches, quick looks
 * that stop on their budget, cancellation through each of its three ways,
 * and unreadable entries as seen by an unprivileged user. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "jobprep/scan.h"
#include "scan_internal.h"
#include "helper_internal.h"
#include "scratch.h"

static char scratch[PATH_MAX - 256];
static int nobody_reaches; /* the unprivileged user can reach the scratch folder */
static char data[PATH_MAX];

/* What the generated tree holds. */
static struct {
	uint64_t files, bytes, archives, archive_bytes, dirs, symlinks, outside, dangling,
		others, top;
} want;

static void join(char *out, size_t len, const char *dir, const char *rel)
{
	snprintf(out, len, "%s/%s", dir, rel);
}

static int make_file(const char *rel, size_t size)
{
	char p[PATH_MAX + 64];
	join(p, sizeof(p), data, rel);
	int fd = open(p, O_WRONLY | O_CREAT | O_EXCL, 0644);
	if (fd < 0)
		return -1;
	if (size && ftruncate(fd, (off_t)size) < 0) {
		close(fd);
		return -1;
	}
	close(fd);
	want.files++;
	want.bytes += size;
	if (!strchr(rel, '/'))
		want.top++;
	const char *base = strrchr(rel, '/');
	if (jp_scan_is_archive_name(base ? base + 1 : rel)) {
		want.archives++;
		want.archive_bytes += size;
	}
	return 0;
}

static int make_dir(const char *rel)
{
	char p[PATH_MAX + 64];
	join(p, sizeof(p), data, rel);
	if (mkdir(p, 0755) < 0)
		return -1;
	want.dirs++;
	if (!strchr(rel, '/'))
		want.top++;
	return 0;
}

static int make_link(const char *rel, const char *target, int outside, int dangling)
{
	char p[PATH_MAX + 64];
	join(p, sizeof(p), data, rel);
	if (symlink(target, p) < 0)
		return -1;
	want.symlinks++;
	want.outside += outside;
	want.dangling += dangling;
	if (!strchr(rel, '/'))
		want.top++;
	return 0;
}

static int rm_rf(const char *path)
{
	char *cmd = NULL;
	if (asprintf(&cmd, "chmod -R u+rwx '%s' 2>/dev/null; rm -rf '%s'", path, path) < 0)
		return -1;
	int rc = system(cmd);
	free(cmd);
	return rc;
}

static int setup(void **state)
{
	char rel[PATH_MAX];
	(void)state;
	/* Where an unprivileged user can reach it, for the permission test
	 * (not the build tree: it may sit in a 0700 home). */
	if (scratch_mkdtemp_for_nobody(scratch, sizeof(scratch), "jobprep-test_scan",
				       &nobody_reaches) < 0)
		return -1;
	snprintf(data, sizeof(data), "%s/data", scratch);
	if (mkdir(data, 0755) < 0)
		return -1;
	want.dirs = 1; /* the top one */

	int rc = 0;
	rc |= make_dir("a");
	for (int i = 0; i < 100; i++) {
		snprintf(rel, sizeof(rel), "a/f%03d.bin", i);
		rc |= make_file(rel, (size_t)i * 1000);
	}
	rc |= make_file("a/shards-000.tar", 10240);
	rc |= make_file("a/Images.ZIP", 4096);
	rc |= make_file("a/model.7z", 123);
	rc |= make_file("a/text.jsonl.zst", 77);
	rc |= make_file("a/.gz", 5); /* a hidden file, not an archive */
	rc |= make_file("a/archive.tar.gz.partial", 9);
	rc |= make_dir("a/b");
	rc |= make_dir("a/b/c");
	rc |= make_file("a/b/c/deep.tgz", 1);
	rc |= make_dir("empty");
	/* Big enough to be cut into many batches and shared. */
	rc |= make_dir("big");
	for (int i = 0; i < 3000; i++) {
		snprintf(rel, sizeof(rel), "big/s%05d", i);
		rc |= make_file(rel, (size_t)(i % 7) * 4096 + 1);
	}
	/* Nesting deeper than a thread does inline. */
	char deep[PATH_MAX] = "deep";
	rc |= make_dir(deep);
	for (int i = 0; i < 60; i++) {
		size_t l = strlen(deep);
		snprintf(deep + l, sizeof(deep) - l, "/%d", i);
		rc |= make_dir(deep);
		snprintf(rel, sizeof(rel), "%s/leaf.bin", deep);
		rc |= make_file(rel, 1);
	}
	rc |= make_link("to-a", "a", 0, 0);
	rc |= make_link("a/b/up", "../../big/s00001", 0, 0);
	rc |= make_link("to-root", "/", 1, 0);
	rc |= make_link("to-sibling", "../", 1, 0);
	rc |= make_link("nowhere", "does/not/exist", 0, 1);
	rc |= make_link("self", "self", 0, 1);
	rc |= make_file("top.tar.xz", 2048);
	char p[PATH_MAX + 64];
	join(p, sizeof(p), data, "pipe");
	rc |= mkfifo(p, 0644);
	want.others++;
	want.top++;
	return rc ? -1 : 0;
}

static int teardown(void **state)
{
	(void)state;
	return rm_rf(scratch) == 0 ? 0 : -1;
}

static void expect_exact(const struct jp_scan_result *r)
{
	assert_true(r->complete);
	assert_int_equal(r->stats.files, want.files);
	assert_int_equal(r->stats.bytes, want.bytes);
	assert_int_equal(r->stats.archives, want.archives);
	assert_int_equal(r->archive_bytes, want.archive_bytes);
	assert_int_equal(r->dirs, want.dirs);
	assert_int_equal(r->symlinks, want.symlinks);
	assert_int_equal(r->symlinks_outside, want.outside);
	assert_int_equal(r->symlinks_dangling, want.dangling);
	assert_int_equal(r->others, want.others);
	assert_int_equal(r->top_entries, want.top);
	assert_int_equal(r->unreadable, 0);
}

/* The scan keeps its descriptors within RLIMIT_NOFILE, so it may run fewer
 * threads than asked where the limit is low (1024, a login's default):
 * raise the soft limit to the hard one, as far as 4096, and where even that
 * is too low accept fewer threads, never more. */
static void a_full_scan_counts_exactly_with_any_number_of_threads(void **state)
{
	static const unsigned threads[] = { 1, 2, 3, 16, 64 };
	struct rlimit rl;
	(void)state;
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &rl), 0);
	if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < 4096 &&
	    (rl.rlim_max == RLIM_INFINITY || rl.rlim_max > rl.rlim_cur)) {
		rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > 4096 ? 4096 : rl.rlim_max;
		assert_int_equal(setrlimit(RLIMIT_NOFILE, &rl), 0);
	}
	for (size_t i = 0; i < sizeof(threads) / sizeof(*threads); i++) {
		struct jp_scan_opts o = JP_SCAN_OPTS_INIT;
		struct jp_scan_result r;
		struct jp_error err = JP_ERROR_INIT;
		o.threads = threads[i];
		if (jp_scan(&r, data, &o, NULL, NULL, &err) != 0)
			fail_msg("%s", jp_error_message(&err));
		/* 26 descriptors a thread and 96 besides are plenty */
		if (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur >= threads[i] * 26 + 96)
			assert_int_equal(r.threads, threads[i]);
		else
			assert_true(r.threads >= 1 && r.threads <= threads[i]);
		expect_exact(&r);
		jp_error_dispose(&err);
	}
}

static void the_default_scan_counts_exactly(void **state)
{
	struct jp_scan_result r;
	(void)state;
	assert_int_equal(jp_scan(&r, data, NULL, NULL, NULL, NULL), 0);
	expect_exact(&r);
	assert_true(r.threads >= 1);
}

struct seen {
	unsigned archives, outside, dangling, unreadable;
	bool saw_tgz, saw_root_target;
	int cancel_at_archive; /* > 0: return -1 at this archive */
};

static int on_item(const struct jp_scan_item *it, void *payload)
{
	struct seen *s = payload;
	switch (it->kind) {
	case JP_SCAN_ITEM_ARCHIVE:
		s->archives++;
		if (strstr(it->path, "a/b/c/deep.tgz") && it->size == 1)
			s->saw_tgz = true;
		if (s->cancel_at_archive && (int)s->archives >= s->cancel_at_archive)
			return -1;
		break;
	case JP_SCAN_ITEM_LINK_OUTSIDE:
		s->outside++;
		if (strstr(it->path, "/to-root") && strcmp(it->target, "/") == 0)
			s->saw_root_target = true;
		break;
	case JP_SCAN_ITEM_LINK_DANGLING:
		s->dangling++;
		break;
	case JP_SCAN_ITEM_UNREADABLE:
		s->unreadable++;
		break;
	case JP_SCAN_ITEM_TEMPORARY:
		break;
	}
	return 0;
}

static void sized(const char *dir, const char *rel, off_t size)
{
	char p[PATH_MAX + 64];
	int fd;

	snprintf(p, sizeof(p), "%s/%s", dir, rel);
	fd = open(p, O_WRONLY | O_CREAT | O_EXCL, 0644);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, size), 0);
	close(fd);
}

static int count_temporary(const struct jp_scan_item *it, void *payload)
{
	if (it->kind == JP_SCAN_ITEM_TEMPORARY)
		(*(int *)payload)++;
	return 0;
}

/* The files' median size (the floor of its bucket: four a power of two)
 * and how many are under 64 KiB (exact); ".jobprep-tmp-*" entries (a
 * stage's record folder, a file's temporary) counted and named. */
static void sizes_and_temporaries_are_counted(void **state)
{
	char dir[PATH_MAX], p[PATH_MAX + 64], cmd[PATH_MAX + 32];
	struct jp_scan_result r;
	int named = 0;
	struct jp_scan_output out = { count_temporary, &named };

	(void)state;
	snprintf(dir, sizeof(dir), "%s/sizes-XXXXXX", scratch);
	assert_non_null(mkdtemp(dir));
	sized(dir, "empty", 0);
	sized(dir, "a", 64);
	sized(dir, "b", 64);
	sized(dir, "c", 100);
	sized(dir, "d", 70000);
	sized(dir, "e", 1 << 20);
	sized(dir, "f", 3 << 20);
	snprintf(p, sizeof(p), "%s/.jobprep-tmp-staging-x", dir);
	assert_int_equal(mkdir(p, 0755), 0);
	snprintf(p, sizeof(p), "%s/sub", dir);
	assert_int_equal(mkdir(p, 0755), 0);
	sized(dir, "sub/.jobprep-tmp-g", 64);
	assert_int_equal(jp_scan(&r, dir, NULL, &out, NULL, NULL), 0);
	assert_int_equal(r.stats.files, 8);
	/* 0 64 64 64 100 70000 1M 3M: the lower middle is 64 */
	assert_int_equal(r.median_bytes, 64);
	assert_int_equal(r.small_files, 5);
	assert_int_equal(r.temporaries, 2);
	assert_int_equal(named, 2);
	/* 0 100 1M 3M: the lower middle, 100, is in the bucket of 96 to 111 */
	for (const char *const *rel = (const char *const[]){ "a", "b", "d", "sub/.jobprep-tmp-g", NULL };
	     *rel; rel++) {
		snprintf(p, sizeof(p), "%s/%s", dir, *rel);
		assert_int_equal(unlink(p), 0);
	}
	assert_int_equal(jp_scan(&r, dir, NULL, NULL, NULL, NULL), 0);
	assert_int_equal(r.median_bytes, 96);
	assert_int_equal(r.small_files, 2);
	assert_int_equal(r.temporaries, 1);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

static void notable_entries_are_reported_one_by_one(void **state)
{
	struct seen seen = { 0 };
	struct jp_scan_output out = { on_item, &seen };
	struct jp_scan_result r;
	(void)state;
	assert_int_equal(jp_scan(&r, data, NULL, &out, NULL, NULL), 0);
	expect_exact(&r);
	assert_int_equal(seen.archives, want.archives);
	assert_int_equal(seen.outside, want.outside);
	assert_int_equal(seen.dangling, want.dangling);
	assert_int_equal(seen.unreadable, 0);
	assert_true(seen.saw_tgz);
	assert_true(seen.saw_root_target);
}

static void archive_names_are_recognised_by_suffix(void **state)
{
	static const char *const yes[] = { "a.tar", "a.tar.gz", "a.tgz", "a.tar.bz2", "a.tar.xz",
					   "a.tar.zst", "a.zip", "a.7z", "a.rar", "a.gz", "a.bz2",
					   "a.xz", "a.zst", "A.TAR.GZ", "x.Zip", "a.tar.lz4" };
	static const char *const no[] = { ".gz", "a.tar.gz.partial", "tar", "a.bin",
					  "a.parquet", "a.targz", "zip", "a.7zz" };
	(void)state;
	for (size_t i = 0; i < sizeof(yes) / sizeof(*yes); i++)
		if (!jp_scan_is_archive_name(yes[i]))
			fail_msg("%s should be an archive", yes[i]);
	for (size_t i = 0; i < sizeof(no) / sizeof(*no); i++)
		if (jp_scan_is_archive_name(no[i]))
			fail_msg("%s should not be an archive", no[i]);
}

static void a_quick_look_of_a_small_tree_is_complete_and_exact(void **state)
{
	struct jp_scan_opts o = JP_SCAN_OPTS_INIT;
	struct jp_scan_result r;
	(void)state;
	o.mode = JP_SCAN_QUICK;
	o.quick_ms = 60000;
	o.quick_entries = 1000000;
	assert_int_equal(jp_scan(&r, data, &o, NULL, NULL, NULL), 0);
	expect_exact(&r);
}

static void a_quick_look_stops_on_its_entry_budget_after_the_top_level(void **state)
{
	struct jp_scan_opts o = JP_SCAN_OPTS_INIT;
	struct jp_scan_result r;
	(void)state;
	o.mode = JP_SCAN_QUICK;
	o.quick_ms = 60000;
	o.quick_entries = 5;
	o.threads = 4;
	assert_int_equal(jp_scan(&r, data, &o, NULL, NULL, NULL), 0);
	assert_false(r.complete);
	/* The whole top-level listing, and little more. */
	assert_int_equal(r.top_entries, want.top);
	assert_true(r.stats.files < want.files);
	assert_true(r.stats.files >= 1);
}

static void a_cancel_flag_set_before_the_scan_cancels_it(void **state)
{
	atomic_int cancel = 1;
	struct jp_scan_opts o = JP_SCAN_OPTS_INIT;
	struct jp_scan_result r;
	struct jp_error err = JP_ERROR_INIT;
	(void)state;
	o.cancel = &cancel;
	assert_int_equal(jp_scan(&r, data, &o, NULL, NULL, &err), JP_ECANCELED);
	assert_false(r.complete);
	assert_true(r.stats.files < want.files);
	assert_non_null(strstr(jp_error_message(&err), "cancelled"));
	jp_error_dispose(&err);
}

struct prog {
	unsigned calls;
	unsigned done_calls;
	int answer;
	uint64_t last_done;
	bool what_ok;
};

static int on_progress(const struct jp_progress *p, void *payload)
{
	struct prog *pr = payload;
	pr->calls++;
	if (p->phase == JP_PHASE_DONE)
		pr->done_calls++;
	else
		assert_int_equal(p->phase, JP_PHASE_SCAN);
	pr->last_done = p->done;
	pr->what_ok = p->what && *p->what;
	return pr->answer;
}

static void progress_is_reported_and_can_cancel(void **state)
{
	struct prog pr = { 0, 0, 0, 0, false };
	struct jp_port port = JP_PORT_INIT;
	struct jp_scan_result r;
	(void)state;
	port.progress = on_progress;
	port.payload = &pr;
	assert_int_equal(jp_scan(&r, data, NULL, NULL, &port, NULL), 0);
	expect_exact(&r);
	assert_true(pr.calls >= 2);
	assert_int_equal(pr.done_calls, 1);
	assert_int_equal(pr.last_done, want.files + want.dirs + want.symlinks + want.others);
	assert_true(pr.what_ok);

	memset(&pr, 0, sizeof(pr));
	pr.answer = -1;
	assert_int_equal(jp_scan(&r, data, NULL, NULL, &port, NULL), JP_ECANCELED);
	assert_false(r.complete);
	assert_int_equal(pr.calls, 1);
	assert_int_equal(pr.done_calls, 0);
}

static void an_item_callback_can_cancel(void **state)
{
	struct seen seen = { 0 };
	struct jp_scan_output out = { on_item, &seen };
	struct jp_scan_result r;
	(void)state;
	seen.cancel_at_archive = 1;
	assert_int_equal(jp_scan(&r, data, NULL, &out, NULL, NULL), JP_ECANCELED);
	assert_false(r.complete);
	assert_int_equal(seen.archives, 1);
}

static void a_single_file_is_a_data_set_of_one(void **state)
{
	char p[PATH_MAX + 64];
	struct jp_scan_result r;
	struct seen seen = { 0 };
	struct jp_scan_output out = { on_item, &seen };
	(void)state;
	join(p, sizeof(p), data, "top.tar.xz");
	assert_int_equal(jp_scan(&r, p, NULL, &out, NULL, NULL), 0);
	assert_true(r.complete);
	assert_int_equal(r.stats.files, 1);
	assert_int_equal(r.stats.bytes, 2048);
	assert_int_equal(r.stats.archives, 1);
	assert_int_equal(seen.archives, 1);
}

static void a_missing_path_is_not_found(void **state)
{
	char p[PATH_MAX + 64];
	struct jp_scan_result r;
	struct jp_error err = JP_ERROR_INIT;
	(void)state;
	join(p, sizeof(p), data, "no-such-dir");
	assert_int_equal(jp_scan(&r, p, NULL, NULL, NULL, &err), JP_ENOENT);
	assert_non_null(strstr(jp_error_message(&err), "no-such-dir"));
	jp_error_dispose(&err);
}

static void a_symlinked_top_is_followed(void **state)
{
	char p[PATH_MAX + 64];
	struct jp_scan_result r;
	(void)state;
	join(p, sizeof(p), scratch, "data-link");
	assert_int_equal(symlink("data", p), 0);
	assert_int_equal(jp_scan(&r, p, NULL, NULL, NULL, NULL), 0);
	expect_exact(&r);
	unlink(p);
}

/* As an unprivileged user (the job's user is rarely root), a directory
 * and a file without read permission are unreadable entries. Run in a
 * child that drops root, since root reads everything. */
static void entries_an_unprivileged_user_cannot_read_are_counted(void **state)
{
	char locked[PATH_MAX + 64], secret[PATH_MAX + 64], inside[PATH_MAX + 128];
	(void)state;
	if (geteuid() == 0 && !nobody_reaches) {
		print_message("no folder here that user 65534 (nobody) can reach: "
			      "$TMPDIR, /tmp, /var/tmp and /dev/shm are closed to it\n");
		skip();
	}
	join(locked, sizeof(locked), data, "locked");
	join(secret, sizeof(secret), data, "secret.bin");
	assert_int_equal(mkdir(locked, 0755), 0);
	snprintf(inside, sizeof(inside), "%s/hidden.bin", locked);
	int fd = open(inside, O_WRONLY | O_CREAT, 0644);
	assert_true(fd >= 0);
	close(fd);
	fd = open(secret, O_WRONLY | O_CREAT, 0644);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, 100), 0);
	close(fd);
	assert_int_equal(chmod(locked, 0), 0);
	assert_int_equal(chmod(secret, 0), 0);

	int pipefd[2];
	assert_int_equal(pipe(pipefd), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(pipefd[0]);
		if (geteuid() == 0 && (setgroups(0, NULL) < 0 || setgid(65534) < 0 ||
				       setuid(65534) < 0))
			_exit(3);
		struct jp_scan_result r;
		int rc = jp_scan(&r, data, NULL, NULL, NULL, NULL);
		uint64_t v[4] = { (uint64_t)(int64_t)rc, r.unreadable, r.stats.files, r.dirs };
		if (write(pipefd[1], v, sizeof(v)) != (ssize_t)sizeof(v))
			_exit(4);
		_exit(0);
	}
	close(pipefd[1]);
	uint64_t v[4];
	ssize_t got = read(pipefd[0], v, sizeof(v));
	close(pipefd[0]);
	int status;
	waitpid(pid, &status, 0);
	chmod(locked, 0755);
	chmod(secret, 0644);
	unlink(inside);
	rmdir(locked);
	unlink(secret);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_int_equal(got, (ssize_t)sizeof(v));
	assert_int_equal((int64_t)v[0], 0);
	assert_int_equal(v[1], 2);                /* locked/ and secret.bin */
	assert_int_equal(v[2], want.files + 1);   /* secret.bin counts; hidden.bin unseen */
	assert_int_equal(v[3], want.dirs + 1);    /* locked/ counts */
}


/* This process's threads. */
static int threads_here(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

struct where {
	int threads_before, threads_max;
	size_t helpers_min;
};

static int note_where(const struct jp_progress *p, void *payload)
{
	struct where *w = payload;
	int n = threads_here();
	size_t h = jp_helper_count();

	(void)p;
	if (n > w->threads_max)
		w->threads_max = n;
	if (h < w->helpers_min)
		w->helpers_min = h;
	return 0;
}

/* The walk runs in a helper process (issue 23's one boundary): while it
 * runs, the caller has a helper and no thread more than before, however
 * many threads the scan uses. */
static void the_walk_runs_in_a_helper_not_on_the_callers_threads(void **state)
{
	struct where w = {threads_here(), 0, (size_t)-1};
	struct jp_port port = JP_PORT_INIT;
	struct jp_scan_opts o = JP_SCAN_OPTS_INIT;
	struct jp_scan_result r;

	(void)state;
	assert_true(w.threads_before >= 1);
	port.progress = note_where;
	port.payload = &w;
	o.threads = 16;
	o.progress_ms = 1;
	assert_int_equal(jp_scan(&r, data, &o, NULL, &port, NULL), 0);
	expect_exact(&r);
	assert_int_equal(r.threads, 16);
	assert_int_equal(w.threads_max, w.threads_before);
	assert_true(w.helpers_min >= 1);
}

struct unpacked_seen {
	int packed, unpacked, other;
};

static int on_archive(const struct jp_scan_item *it, void *payload)
{
	struct unpacked_seen *u = payload;

	if (it->kind != JP_SCAN_ITEM_ARCHIVE)
		return 0;
	if (strstr(it->path, "/done.tar.gz") && it->unpacked == 1)
		u->unpacked++;
	else if (strstr(it->path, "/todo.zip") && it->unpacked == 0)
		u->packed++;
	else
		u->other++;
	return 0;
}

/* An archive's item says whether the folder it unpacks into is beside it,
 * looked up where the walk runs, so no callback looks at the tree. */
static void an_archive_says_whether_it_is_unpacked_beside_it(void **state)
{
	char dir[PATH_MAX], p[PATH_MAX + 32];
	struct unpacked_seen u = {0, 0, 0};
	struct jp_scan_output out = {on_archive, &u};
	struct jp_scan_result r;

	(void)state;
	snprintf(dir, sizeof(dir), "%s/beside", scratch);
	assert_int_equal(mkdir(dir, 0755), 0);
	sized(dir, "done.tar.gz", 10);
	snprintf(p, sizeof(p), "%s/done", dir);
	assert_int_equal(mkdir(p, 0755), 0);
	sized(dir, "todo.zip", 10);
	assert_int_equal(jp_scan(&r, dir, NULL, &out, NULL, NULL), 0);
	assert_int_equal(u.unpacked, 1);
	assert_int_equal(u.packed, 1);
	assert_int_equal(u.other, 0);
	assert_int_equal(rm_rf(dir), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_full_scan_counts_exactly_with_any_number_of_threads),
		cmocka_unit_test(the_default_scan_counts_exactly),
		cmocka_unit_test(notable_entries_are_reported_one_by_one),
		cmocka_unit_test(sizes_and_temporaries_are_counted),
		cmocka_unit_test(archive_names_are_recognised_by_suffix),
		cmocka_unit_test(a_quick_look_of_a_small_tree_is_complete_and_exact),
		cmocka_unit_test(a_quick_look_stops_on_its_entry_budget_after_the_top_level),
		cmocka_unit_test(a_cancel_flag_set_before_the_scan_cancels_it),
		cmocka_unit_test(progress_is_reported_and_can_cancel),
		cmocka_unit_test(an_item_callback_can_cancel),
		cmocka_unit_test(a_single_file_is_a_data_set_of_one),
		cmocka_unit_test(a_missing_path_is_not_found),
		cmocka_unit_test(a_symlinked_top_is_followed),
		cmocka_unit_test(entries_an_unprivileged_user_cannot_read_are_counted),
		cmocka_unit_test(the_walk_runs_in_a_helper_not_on_the_callers_threads),
		cmocka_unit_test(an_archive_says_whether_it_is_unpacked_beside_it),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
