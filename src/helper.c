/* The process boundary (helper_internal.h): helpers are this program,
 * started again with posix_spawn and JOBPREP_HELPER=1 in their
 * environment, with one end of a socket pair as descriptor 3. The
 * constructor below sees that variable before main() runs and serves
 * requests until the socket closes, so every program linked with the core
 * (jobprep, the unit tests, the benchmarks) is its own helper without a
 * line of its main(). Nothing runs between a fork and an exec of ours:
 * posix_spawn does both at once.
 *
 * On the socket: a request is a u32 length and that many bytes (the
 * request's name as a string, then its inputs); the helper sends frames of
 * a u32 length, a type byte and the bytes: '+' once when it has started,
 * then for each request reports ('R', watched work only) and questions
 * ('Q', watched work only), then the answer ('A'), or 'X' when it could
 * not serve it. The other way, watched work gets a stop ('S', one byte; or
 * the socket closing) and the reply to a question ('a', a u32 length and
 * the bytes), which comes only when asked. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <xxhash.h>

#include "jobprep/i18n.h"
#include "deadline_internal.h"
#include "helper_internal.h"
#include "spawn_internal.h"

extern char **environ;

#define HELPER_ENV "JOBPREP_HELPER"
#define HELPER_LOCALE_ENV "JOBPREP_HELPER_LOCALEDIR"
#define HELPER_PARENT_ENV "JOBPREP_HELPER_PARENT"
#define HELPER_FD 3
/* helpers kept for the next call, once their answer is in */
#define IDLE_MAX 4
#define POLL_MS 100
#define CPU_SAMPLE_MS 500
/* a gap between two looks this long: we were stopped, not it silent */
#define STOPPED_GAP_MS 2000
/* CPU spent in a sample that counts as a sign of life: 4% (an idle loop
 * that only reports spends far less; copying, removing, walking more). */
#define CPU_LIFE_PERMILLE 40
#define FRAME_HEAD 5
/* a helper's start (exec, its libraries, the constructor): a bound for a
 * machine that is only very busy, not a call's deadline */
#define READY_MS 60000
#define REQUEST_MAX (64u << 20)

enum {
	FRAME_READY = '+',
	FRAME_REPORT = 'R',
	FRAME_QUESTION = 'Q',
	FRAME_ANSWER = 'A',
	FRAME_FAILED = 'X'
};
/* the caller's, to watched work */
enum { TO_HELPER_STOP = 'S', TO_HELPER_REPLY = 'a' };

/* The requests registered by JP_HELPER_REQUEST, gathered by the linker
 * (weak: a program may link none). */
extern const struct jp_helper_request *const __start_jp_helper_requests[] __attribute__((weak));
extern const struct jp_helper_request *const __stop_jp_helper_requests[] __attribute__((weak));

/* ---- bytes on a descriptor ---------------------------------------------- */

/* All of n bytes to fd; false when the other end is gone. */
static bool send_all(int fd, const void *data, size_t n)
{
	const char *p = data;

	while (n > 0) {
		ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return false;
		p += w;
		n -= (size_t)w;
	}
	return true;
}

/* Exactly n bytes from fd, waiting as long as it takes; false at its end. */
static bool recv_all(int fd, void *data, size_t n)
{
	char *p = data;

	while (n > 0) {
		ssize_t r = read(fd, p, n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return false;
		p += r;
		n -= (size_t)r;
	}
	return true;
}

/* ==== the helper's side ==================================================== */

static int serve_fd = -1;
static atomic_bool stop_asked;
static pthread_mutex_t send_lock = PTHREAD_MUTEX_INITIALIZER;

static void send_frame(int type, const void *msg, size_t n)
{
	unsigned char head[FRAME_HEAD];
	uint32_t len = (uint32_t)n;

	memcpy(head, &len, sizeof(len));
	head[4] = (unsigned char)type;
	pthread_mutex_lock(&send_lock);
	bool ok = send_all(serve_fd, head, sizeof(head)) && send_all(serve_fd, msg, n);
	pthread_mutex_unlock(&send_lock);
	if (!ok)
		_exit(1); /* the caller is gone: so is the work */
}

void jp_watch_send(const void *msg, size_t n)
{
	if (serve_fd >= 0)
		send_frame(FRAME_REPORT, msg, n);
}

bool jp_watch_ask(struct probe_bytes *reply, const void *msg, size_t n)
{
	unsigned char kind = 0;
	uint32_t len = 0;

	memset(reply, 0, sizeof(*reply));
	if (serve_fd < 0 || atomic_load(&stop_asked))
		return false;
	send_frame(FRAME_QUESTION, msg, n);
	/* the reply, or a stop sent before the caller saw the question */
	if (!recv_all(serve_fd, &kind, 1) || kind != TO_HELPER_REPLY) {
		atomic_store(&stop_asked, true);
		return false;
	}
	if (!recv_all(serve_fd, &len, sizeof(len)) || len > REQUEST_MAX ||
	    !(reply->p = malloc(len ? len : 1)) || !recv_all(serve_fd, reply->p, len)) {
		free(reply->p);
		reply->p = NULL;
		atomic_store(&stop_asked, true);
		return false;
	}
	reply->n = reply->cap = len;
	return true;
}

bool jp_watch_stop_asked(void)
{
	struct pollfd pfd = {serve_fd, POLLIN, 0};

	if (serve_fd < 0 || atomic_load(&stop_asked))
		return atomic_load(&stop_asked);
	/* a stop byte, or the caller gone (the socket's end) */
	if (poll(&pfd, 1, 0) > 0)
		atomic_store(&stop_asked, true);
	return atomic_load(&stop_asked);
}

static const struct jp_helper_request *find_request(const char *name)
{
	if (!name)
		return NULL;
	/* The section's bounds are two symbols the linker places around it:
	 * count what lies between by address, never by comparing pointers
	 * to what C calls different objects. */
	uintptr_t from = (uintptr_t)__start_jp_helper_requests;
	uintptr_t to = (uintptr_t)__stop_jp_helper_requests;
	size_t n = from && to > from ? (to - from) / sizeof(*__start_jp_helper_requests) : 0;

	for (size_t i = 0; i < n; i++)
		if (strcmp(__start_jp_helper_requests[i]->name, name) == 0)
			return __start_jp_helper_requests[i];
	for (size_t i = 0; jp_helper_extra_requests && jp_helper_extra_requests[i]; i++)
		if (strcmp(jp_helper_extra_requests[i]->name, name) == 0)
			return jp_helper_extra_requests[i];
	return NULL;
}

/* One request read, served and answered; false at the socket's end. */
static bool serve_one(void)
{
	struct probe_bytes in = {NULL, 0, 0, 0, false, false}, out = {NULL, 0, 0, 0, false, false};
	const struct jp_helper_request *req;
	uint32_t len;
	char *name;

	if (!recv_all(serve_fd, &len, sizeof(len)) || len > REQUEST_MAX ||
	    !(in.p = malloc(len ? len : 1)) || !recv_all(serve_fd, in.p, len))
		return false;
	in.n = in.cap = len;
	in.reading = true;
	atomic_store(&stop_asked, false); /* a new request: nobody asked yet */
	name = probe_bytes_get_str(&in);
	req = find_request(name);
	free(name);
	if (req)
		req->serve(&in, &out);
	if (!req || in.bad || out.bad)
		send_frame(FRAME_FAILED, "", 0);
	else
		send_frame(FRAME_ANSWER, out.p, out.n);
	free(in.p);
	free(out.p);
	return true;
}

/* The locale the caller runs in, so that the messages a helper writes read
 * as the caller's own. */
static void helper_locale(void)
{
	setlocale(LC_ALL, "");
#ifdef ENABLE_NLS
	const char *dir = getenv(HELPER_LOCALE_ENV);

	if (dir && *dir)
		bindtextdomain("jobprep", dir);
#endif
	unsetenv(HELPER_LOCALE_ENV);
}

/* A helper of watched work (HELPER_ENV "=2") ends with its caller at once,
 * as the forked children did: a caller killed (kill -9) takes the work
 * with it, leaving what kill -9 leaves (the next run goes on from there),
 * never a second writer behind the next run's back. (PR_SET_PDEATHSIG
 * follows the thread that spawned it, which waits for it all along; a
 * helper kept for the next call may outlive that thread, and has no work
 * to leave when its caller goes: it sees the socket's end.) */
static void die_with_caller(void)
{
	const char *parent = getenv(HELPER_PARENT_ENV);

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (!parent || getppid() != (pid_t)strtol(parent, NULL, 10))
		_exit(1); /* gone already */
}

/* Before main(): a program started as a helper serves, then ends. Its
 * caller decides what a signal means (a Ctrl-C to the process group must
 * not turn the work into a failure): SIGINT, SIGTERM and SIGHUP are
 * ignored here, and were blocked from the spawn on, so none is lost in
 * between. SIGPIPE ends it. */
__attribute__((constructor)) static void helper_serve_if_asked(void)
{
	const char *v = getenv(HELPER_ENV);
	sigset_t none;

	if (!v || (strcmp(v, "1") != 0 && strcmp(v, "2") != 0))
		return;
	if (v[0] == '2')
		die_with_caller();
	unsetenv(HELPER_ENV);
	unsetenv(HELPER_PARENT_ENV);
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	signal(SIGPIPE, SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	/* what the work starts (git-lfs, a shell) does not get the socket */
	if (fcntl(HELPER_FD, F_SETFD, FD_CLOEXEC) != 0)
		_exit(1);
	serve_fd = HELPER_FD;
	helper_locale();
	send_frame(FRAME_READY, "", 0);
	while (serve_one())
		;
	_exit(0);
}

/* ==== the caller's side ===================================================== */

struct helper {
	struct jp_child child; /* its pid, once started */
	int fd;
	/* started from the process's main thread with PR_SET_PDEATHSIG: it
	 * dies with this process, so watched work may use it too */
	bool bound;
	/* the world it was started in (helper_world): relative paths, mounts
	 * and rights are the caller's only while these are the same */
	struct helper_world {
		uint64_t cwd_hash; /* of the working folder's path */
		ino_t mnt_ns;
		uid_t euid;
		gid_t egid;
	} world;
};

/* This process's working folder, mount namespace and credentials now.
 * The folder by the kernel's link to it: a stat of "." would wait on a
 * hung mount. */
static struct helper_world helper_world(void)
{
	struct helper_world w;
	char cwd[4096];
	struct stat st;
	ssize_t n;

	memset(&w, 0, sizeof(w));
	n = readlink("/proc/self/cwd", cwd, sizeof(cwd));
	w.cwd_hash = XXH3_64bits(cwd, n > 0 ? (size_t)n : 0);
	if (stat("/proc/self/ns/mnt", &st) == 0)
		w.mnt_ns = st.st_ino;
	w.euid = geteuid();
	w.egid = getegid();
	return w;
}

static bool same_world(const struct helper_world *a, const struct helper_world *b)
{
	return a->cwd_hash == b->cwd_hash && a->mnt_ns == b->mnt_ns && a->euid == b->euid &&
	       a->egid == b->egid;
}

static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static struct helper idle[IDLE_MAX];
static size_t n_idle;
/* The process that started the idle helpers. A child forked since (a test
 * that drops to another user, say) inherits the list, but those helpers
 * are its parent's: they run with the parent's credentials and the parent
 * may use them at the same time. */
static pid_t idle_owner;
static atomic_size_t n_live;

size_t jp_helper_count(void)
{
	return atomic_load(&n_live);
}

bool jp_helper_serving(void)
{
	return serve_fd >= 0;
}

/* This program's file: the name the kernel gives it (under valgrind, the
 * program valgrind runs, not valgrind's own), or the kernel's link itself
 * when the file was replaced on disk since it started. */
static char self_path[4096];
static pthread_once_t self_once = PTHREAD_ONCE_INIT;

static void self_find(void)
{
	ssize_t n = readlink("/proc/self/exe", self_path, sizeof(self_path) - 1);

	if (n > 0 && (size_t)n < sizeof(self_path) - 1) {
		self_path[n] = '\0';
		if (!strstr(self_path, " (deleted)") && access(self_path, X_OK) == 0)
			return;
	}
	snprintf(self_path, sizeof(self_path), "%s", "/proc/self/exe");
}

static const char *self_program(void)
{
	pthread_once(&self_once, self_find);
	return self_path;
}

static int start_failed(struct jp_error *err, int e)
{
	return jp_error_set(err, JP_EINTERNAL, _("cannot start a process: %s"), strerror(e));
}

static bool ours(const char *entry, const char *name)
{
	size_t n = strlen(name);

	return strncmp(entry, name, n) == 0 && entry[n] == '=';
}

/* The environment of a helper: ours without the variables it reads, then
 * the n of add. */
static char **helper_env(char *const *add, size_t n_add)
{
	size_t n = 0, k = 0;
	char **env;

	while (environ[n])
		n++;
	if (!(env = calloc(n + n_add + 1, sizeof(*env))))
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (!ours(environ[i], HELPER_ENV) && !ours(environ[i], HELPER_LOCALE_ENV) &&
		    !ours(environ[i], HELPER_PARENT_ENV))
			env[k++] = environ[i];
	for (size_t i = 0; i < n_add; i++)
		if (add[i])
			env[k++] = add[i];
	return env;
}

/* Wait for a new helper's first frame (FRAME_READY): its start is not the
 * work's time, which a call's deadline measures (on a loaded machine a
 * start alone can take longer than a look's bound). */
static bool wait_ready(int fd)
{
	unsigned char head[FRAME_HEAD];
	uint64_t end = jp_now_ns() + (uint64_t)READY_MS * 1000000u;
	size_t got = 0;

	while (got < sizeof(head)) {
		struct pollfd pfd = { fd, POLLIN, 0 };
		uint64_t now = jp_now_ns();
		if (now >= end)
			return false;
		int p = poll(&pfd, 1, (int)((end - now) / 1000000u) + 1);
		if (p < 0 && errno == EINTR)
			continue;
		if (p < 0)
			return false;
		if (p == 0)
			continue;
		ssize_t r = read(fd, head + got, sizeof(head) - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return false;
		got += (size_t)r;
	}
	return head[4] == FRAME_READY && memcmp(head, "\0\0\0\0", 4) == 0;
}

/* A helper: this program with JOBPREP_HELPER=1 (=2 for watched work, which
 * dies with us), one end of a socket pair as its descriptor 3, stdout on
 * /dev/null (what it might print must not reach the wizard's screen),
 * stderr ours (a sanitizer's report). The ends are blocked from its start
 * until it ignores them. */
static int spawn_helper(struct helper *h, bool watched, struct jp_error *err)
{
	/* from the main thread, every helper dies with the process: kept
	 * idle, it can serve watched work later */
	if (gettid() == getpid())
		watched = true;
	static char pooled_flag[] = HELPER_ENV "=1", watched_flag[] = HELPER_ENV "=2";
	struct jp_child c = JP_CHILD_INIT;
	char *add[3] = {watched ? watched_flag : pooled_flag, NULL, NULL}, **env;
	sigset_t ends;
	int sv[2], e;
	char *argv[] = {(char *)"jobprep-helper", NULL};

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
		return start_failed(err, errno);
	if (watched && asprintf(&add[1], HELPER_PARENT_ENV "=%ld", (long)getpid()) < 0)
		add[1] = NULL;
#ifdef ENABLE_NLS
	const char *dir = bindtextdomain("jobprep", NULL);
	if (dir && asprintf(&add[2], HELPER_LOCALE_ENV "=%s", dir) < 0)
		add[2] = NULL;
#endif
	env = helper_env(add, 3);
	sigemptyset(&ends);
	sigaddset(&ends, SIGINT);
	sigaddset(&ends, SIGTERM);
	sigaddset(&ends, SIGHUP);
	c.file = self_program();
	c.argv = argv;
	c.env = env;
	c.fd[2] = STDERR_FILENO;
	c.fd[HELPER_FD] = sv[1];
	c.blocked = &ends;
	e = env ? jp_child_start(&c) : ENOMEM;
	/* a process that has since become another user (a test dropping to
	 * nobody) may not reach the file by its name (a 0700 home): the
	 * kernel's link to it needs no path */
	if (env && (e == EACCES || e == ENOENT)) {
		c.file = "/proc/self/exe";
		e = jp_child_start(&c);
	}
	free(env);
	/* what it was started with goes with this frame; its pid stays */
	c.file = NULL;
	c.argv = c.env = NULL;
	c.blocked = NULL;
	h->child = c;
	free(add[1]);
	free(add[2]);
	close(sv[1]);
	if (e != 0) {
		close(sv[0]);
		return start_failed(err, e);
	}
	if (!wait_ready(sv[0])) {
		close(sv[0]);
		probe_child_finish(&h->child, NULL);
		return start_failed(err, ETIMEDOUT);
	}
	h->fd = sv[0];
	h->bound = watched && gettid() == getpid();
	h->world = helper_world();
	atomic_fetch_add(&n_live, 1);
	return 0;
}

/* A helper that has answered, or that is to be given up: killed and reaped
 * before this returns (probe_child_finish). One that does not end at once
 * (stuck in a hung mount's kernel call: a look that did not answer, or a
 * scan's answer that left a thread there) is left to the kernel, and
 * path's mount (may be NULL) counts as hung until it dies. */
static void helper_end_at(struct helper *h, const char *path)
{
	close(h->fd);
	probe_child_finish(&h->child, path);
	atomic_fetch_sub(&n_live, 1);
}

static void helper_end(struct helper *h)
{
	helper_end_at(h, NULL);
}

/* Under pool_lock: forget idle helpers inherited over a fork (only this
 * process's copies of their sockets are closed; ending them is the
 * parent's). */
static void idle_claim(void)
{
	pid_t self = getpid();

	if (idle_owner == self)
		return;
	for (size_t i = 0; i < n_idle; i++) {
		close(idle[i].fd);
		atomic_fetch_sub(&n_live, 1);
	}
	n_idle = 0;
	idle_owner = self;
}

/* An idle helper (one bound to this process when bound), else a new one. */
static int helper_take(struct helper *h, bool bound, struct jp_error *err)
{
	struct helper_world now = helper_world();
	struct helper stale[IDLE_MAX];
	size_t n_stale = 0;
	bool have = false;

	pthread_mutex_lock(&pool_lock);
	idle_claim();
	for (size_t i = n_idle; i-- > 0 && !have;) {
		if (!same_world(&idle[i].world, &now)) {
			/* started in another folder, namespace or identity */
			stale[n_stale++] = idle[i];
			idle[i] = idle[--n_idle];
			continue;
		}
		if (bound && !idle[i].bound)
			continue;
		have = true;
		*h = idle[i];
		idle[i] = idle[--n_idle];
	}
	pthread_mutex_unlock(&pool_lock);
	for (size_t i = 0; i < n_stale; i++)
		helper_end(&stale[i]);
	return have ? 0 : spawn_helper(h, bound, err);
}

/* The idle helpers end with this program, killed and reaped before it
 * exits: left to notice the socket's end on their own, they would outlive
 * it for a moment, and whoever waits for the command would see children of
 * it still there (a Ctrl-C must leave none). Only those of the process
 * that kept them (idle_claim): a forked child that ends must not end its
 * parent's helpers. */
static pthread_once_t pool_exit_once = PTHREAD_ONCE_INIT;

static void helpers_end_idle(void)
{
	struct helper ending[IDLE_MAX];
	size_t n;

	pthread_mutex_lock(&pool_lock);
	idle_claim();
	n = n_idle;
	memcpy(ending, idle, n * sizeof(*ending));
	n_idle = 0;
	pthread_mutex_unlock(&pool_lock);
	for (size_t i = 0; i < n; i++)
		helper_end(&ending[i]);
}

static void pool_exit_register(void)
{
	atexit(helpers_end_idle);
}

static void helper_give_back(struct helper *h)
{
	pthread_once(&pool_exit_once, pool_exit_register);
	pthread_mutex_lock(&pool_lock);
	idle_claim();
	bool kept = n_idle < IDLE_MAX;
	if (kept)
		idle[n_idle++] = *h;
	pthread_mutex_unlock(&pool_lock);
	if (!kept)
		helper_end(h);
}

static bool send_request(const struct helper *h, const struct jp_helper_request *req,
			 const struct probe_bytes *in)
{
	struct probe_bytes b = {NULL, 0, 0, 0, false, false};
	uint32_t len = 0;
	bool ok;

	probe_bytes_put(&b, &len, sizeof(len));
	probe_bytes_put_str(&b, req->name);
	if (in && in->n)
		probe_bytes_put(&b, in->p, in->n);
	if (b.bad || b.n - sizeof(len) > REQUEST_MAX) {
		free(b.p);
		return false;
	}
	len = (uint32_t)(b.n - sizeof(len));
	memcpy(b.p, &len, sizeof(len));
	ok = send_all(h->fd, b.p, b.n);
	free(b.p);
	return ok;
}

/* What has come from a helper: bytes read and not yet taken, and the
 * answer once whole. */
struct reader {
	struct probe_bytes in;
	struct probe_bytes ans;
	bool answered, failed, eof, want_cancel, life;
	int fd; /* the helper's, for the replies to its questions */
};

/* A question from watched work: w->question's reply sent back (an empty
 * one when there is none). The time a person takes is not the helper's
 * silence. */
static void reply_to(struct reader *r, const struct jp_watch *w, const char *msg, size_t n)
{
	struct probe_bytes reply = {NULL, 0, 0, 0, false, false};
	unsigned char head[1 + sizeof(uint32_t)];
	uint32_t len;

	if (w && w->question)
		w->question(&reply, msg, n, w->payload);
	len = reply.bad ? 0 : (uint32_t)reply.n;
	head[0] = TO_HELPER_REPLY;
	memcpy(head + 1, &len, sizeof(len));
	if (!send_all(r->fd, head, sizeof(head)) || !send_all(r->fd, reply.p, len))
		r->eof = true;
	if (reply.p)
		explicit_bzero(reply.p, reply.n);
	free(reply.p);
	r->life = true;
}

/* Take the whole frames in r->in: reports to w (NULL: dropped). */
static void take_frames(struct reader *r, const struct jp_watch *w)
{
	for (;;) {
		size_t left = r->in.n - r->in.off;
		uint32_t len;

		if (left < FRAME_HEAD)
			break;
		memcpy(&len, r->in.p + r->in.off, sizeof(len));
		if (left - FRAME_HEAD < len)
			break;
		const char *msg = r->in.p + r->in.off + FRAME_HEAD;
		int type = r->in.p[r->in.off + 4];
		if (type == FRAME_ANSWER) {
			probe_bytes_put(&r->ans, msg, len);
			r->answered = true;
		} else if (type == FRAME_FAILED) {
			r->failed = true;
		} else if (type == FRAME_QUESTION && w) {
			reply_to(r, w, msg, len);
		} else if (w && w->report) {
			int v = w->report(msg, len, w->payload);
			if (v < 0)
				r->want_cancel = true;
			else if (v > 0)
				r->life = true;
		}
		r->in.off += FRAME_HEAD + (size_t)len;
	}
	if (r->in.off > 0 && r->in.off == r->in.n)
		r->in.n = r->in.off = 0;
	else if (r->in.off > 65536) {
		memmove(r->in.p, r->in.p + r->in.off, r->in.n - r->in.off);
		r->in.n -= r->in.off;
		r->in.off = 0;
	}
}

/* Read what is there within wait_ms, and take its frames. */
static void read_some(struct reader *r, int fd, int wait_ms, const struct jp_watch *w)
{
	struct pollfd pfd = {fd, POLLIN, 0};
	char chunk[16384];
	int p = poll(&pfd, 1, wait_ms);

	if (p <= 0)
		return;
	ssize_t n = read(fd, chunk, sizeof(chunk));
	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n <= 0) {
		r->eof = true;
		return;
	}
	probe_bytes_put(&r->in, chunk, (size_t)n);
	take_frames(r, w);
}

static bool reader_done(const struct reader *r)
{
	return r->answered || r->failed || r->eof || r->in.bad;
}

static void reader_dispose(struct reader *r)
{
	free(r->in.p);
	free(r->ans.p);
}

unsigned jp_helper_deadline_ms(const struct jp_helper_request *req)
{
	switch (req->deadline) {
	case JP_HELPER_LOOK:
		return jp_probe_default_timeout_ms();
	case JP_HELPER_LONG_LOOK:
		return 2 * jp_probe_default_timeout_ms();
	case JP_HELPER_WATCHED:
		break;
	}
	return 0;
}

int jp_helper_no_answer(struct jp_error *err, const char *path, unsigned ms)
{
	return jp_error_set(err, JP_ETIMEOUT,
			    _("%s: no answer within %u.%u s (is a network mount hung?)"),
			    path ? path : "?", ms / 1000, (ms % 1000) / 100);
}

/* A look asked to be watched, or watched work asked for as a look: a
 * mistake in the program, not the user's. */
static int refused(const struct jp_helper_request *req, struct jp_error *err)
{
	return jp_error_set(err, JP_EINTERNAL, "%s: %s", req->name,
			    req->deadline == JP_HELPER_WATCHED
				? "watched work, called as a look"
				: "a look, called as watched work");
}

int jp_helper_call(struct probe_bytes *out, const struct jp_helper_request *req,
		   const struct probe_bytes *in, const char *path, unsigned timeout_ms,
		   struct jp_error *err)
{
	struct reader r;
	struct helper h;
	uint64_t end;
	int rc;

	memset(out, 0, sizeof(*out));
	memset(&r, 0, sizeof(r));
	if (req->deadline == JP_HELPER_WATCHED)
		return refused(req, err);
	/* path's mount known hung: at once, not one more helper left there */
	if ((rc = jp_probe_fail_hung(path, err)) < 0)
		return rc;
	if (!timeout_ms)
		timeout_ms = jp_helper_deadline_ms(req);
	if ((rc = helper_take(&h, false, err)) < 0)
		return rc;
	/* an idle helper that has died since (killed from outside): once more
	 * with a new one */
	if (!send_request(&h, req, in)) {
		helper_end(&h);
		if ((rc = spawn_helper(&h, false, err)) < 0)
			return rc;
		if (!send_request(&h, req, in)) {
			helper_end(&h);
			return jp_error_set(err, JP_EINTERNAL, "%s: %s", path ? path : "?",
					    _("the look at it failed"));
		}
	}
	end = jp_now_ns() + (uint64_t)timeout_ms * 1000000u;
	while (!reader_done(&r)) {
		uint64_t now = jp_now_ns();
		if (now >= end)
			break;
		read_some(&r, h.fd, (int)((end - now + 999999u) / 1000000u), NULL);
	}
	if (!reader_done(&r)) {
		helper_end_at(&h, path);
		reader_dispose(&r);
		return jp_helper_no_answer(err, path, timeout_ms);
	}
	if (r.answered && !r.ans.bad) {
		helper_give_back(&h);
		*out = r.ans;
		out->reading = true;
		r.ans.p = NULL;
		reader_dispose(&r);
		return 0;
	}
	helper_end(&h);
	reader_dispose(&r);
	return jp_error_set(err, JP_EINTERNAL, "%s: %s", path ? path : "?",
			    _("the look at it failed"));
}

/* ---- watched work --------------------------------------------------------- */

/* The CPU time pid has spent (its threads', dead ones too), in clock
 * ticks; -1 when unknown. */
static long long helper_cpu(pid_t pid)
{
	char path[64], buf[1024];
	long long utime, stime;
	FILE *f;
	char *p;

	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	if (!(f = fopen(path, "re")))
		return -1;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* after the name in parentheses: state is field 3, utime 14, stime 15 */
	if (!(p = strrchr(buf, ')')) ||
	    sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lld %lld", &utime,
		   &stime) != 2)
		return -1;
	return utime + stime;
}

/* When the helper last showed a sign of life, and what its CPU was. */
struct life {
	uint64_t life_ns, sample_ns, last_ns;
	long long cpu, cpu_min;
};

static void life_init(struct life *l, pid_t pid)
{
	long tck = sysconf(_SC_CLK_TCK);

	l->life_ns = l->sample_ns = l->last_ns = jp_now_ns();
	l->cpu = helper_cpu(pid);
	l->cpu_min = (tck > 0 ? tck : 100) * CPU_SAMPLE_MS * CPU_LIFE_PERMILLE / 1000000;
	if (l->cpu_min < 1)
		l->cpu_min = 1;
}

static void life_update(struct life *l, pid_t pid, struct reader *r, uint64_t now)
{
	/* A long gap between two looks: this process was stopped (Ctrl-Z,
	 * SIGSTOP), not the helper silent: the wait starts again. */
	if (now - l->last_ns >= (uint64_t)STOPPED_GAP_MS * 1000000u) {
		l->life_ns = l->sample_ns = now;
		l->cpu = helper_cpu(pid);
	}
	l->last_ns = now;
	if (r->life) {
		r->life = false;
		l->life_ns = now;
	}
	if (now - l->sample_ns >= (uint64_t)CPU_SAMPLE_MS * 1000000u) {
		long long c = helper_cpu(pid);
		if (c >= 0 && l->cpu >= 0 && c - l->cpu >= l->cpu_min)
			l->life_ns = now;
		l->cpu = c;
		l->sample_ns = now;
	}
}

/* Watch h until it answers (true) or is given up (false; *cancel_sent
 * says why). */
static bool watch(const struct helper *h, const struct jp_watch *w, struct reader *r,
		  bool *cancel_sent)
{
	struct life l;

	life_init(&l, h->child.pid);
	while (!reader_done(r)) {
		read_some(r, h->fd, POLL_MS, w);
		uint64_t now = jp_now_ns();
		life_update(&l, h->child.pid, r, now);
		if (!*cancel_sent &&
		    (r->want_cancel || (w->cancelled && w->cancelled(w->payload)))) {
			send_all(h->fd, (char[]){ TO_HELPER_STOP }, 1);
			*cancel_sent = true;
			l.life_ns = now;
		}
		if (reader_done(r))
			break;
		unsigned limit = *cancel_sent ? w->grace_ms : w->stall_ms;
		if (now - l.life_ns >= (uint64_t)limit * 1000000u)
			return false;
	}
	return true;
}

int jp_helper_watch(struct probe_bytes *out, const struct jp_helper_request *req,
		    const struct probe_bytes *in, const struct jp_watch *w, bool *cancel_sent,
		    struct jp_error *err)
{
	struct reader r;
	struct helper h;
	int rc = 0;

	*cancel_sent = false;
	memset(out, 0, sizeof(*out));
	memset(&r, 0, sizeof(r));
	r.fd = -1;
	if (req->deadline != JP_HELPER_WATCHED)
		return refused(req, err);
	/* a path's mount known hung: at once, not one more helper left there */
	const char *on[] = {w->path, w->also[0], w->also[1]};
	for (size_t i = 0; i < sizeof(on) / sizeof(*on); i++)
		if ((rc = jp_probe_fail_hung(on[i], err)) < 0)
			return rc;
	/* from the main thread, an idle helper bound to this process (it
	 * dies with it); from another, one of its own, bound to that thread */
	bool main_thread = gettid() == getpid();
	if ((rc = main_thread ? helper_take(&h, true, err) : spawn_helper(&h, true, err)) < 0)
		return rc;
	/* an idle helper that has died since: once more with a new one */
	if (!send_request(&h, req, in)) {
		helper_end(&h);
		if ((rc = spawn_helper(&h, true, err)) < 0)
			return rc;
		if (!send_request(&h, req, in)) {
			helper_end(&h);
			return jp_error_set(err, JP_EINTERNAL, "%s",
					    _("the work's process ended without an answer"));
		}
	}
	r.fd = h.fd;
	if (!watch(&h, w, &r, cancel_sent)) {
		/* Stuck (a hung mount), or deaf to the cancel: leave it. */
		helper_end_at(&h, w->path);
		if (*cancel_sent)
			rc = JP_ECANCELED;
		else if (w->stalled)
			rc = w->stalled(w->payload, w->stall_ms, err);
		else
			rc = jp_helper_no_answer(err, w->path, w->stall_ms);
	} else {
		/* kept for the next call when it answered, was never asked to
		 * stop (no stop byte can reach the next request) and the work
		 * leaves nothing running behind its answer */
		if (w->keep && h.bound && !*cancel_sent && r.answered && !r.ans.bad)
			helper_give_back(&h);
		else
			helper_end_at(&h, w->path);
		if (r.answered && !r.ans.bad) {
			*out = r.ans;
			out->reading = true;
			r.ans.p = NULL;
		} else {
			rc = jp_error_set(err, JP_EINTERNAL, "%s",
					  _("the work's process ended without an answer"));
		}
	}
	reader_dispose(&r);
	return rc;
}
