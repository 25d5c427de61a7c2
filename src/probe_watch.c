/* Long work on user paths in a watched child process (probe_watch.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "jobprep/i18n.h"
#include "deadline_internal.h"
#include "probe_watch.h"

#define POLL_MS 100
#define CPU_SAMPLE_MS 500
/* a gap between two looks this long: we were stopped, not it silent */
#define STOPPED_GAP_MS 2000
/* CPU spent in a sample that counts as a sign of life: 4% (an idle loop
 * that only reports spends far less; copying, removing, walking more). */
#define CPU_LIFE_PERMILLE 40

enum { FRAME_REPORT = 'R', FRAME_ANSWER = 'A' };

/* --- the child's side ------------------------------------------------------- */

static int child_fd = -1;
static atomic_int *child_stop;
static pthread_mutex_t child_lock = PTHREAD_MUTEX_INITIALIZER;

static void put_all(int fd, const void *data, size_t n)
{
	const char *p = data;

	while (n > 0) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			_exit(1); /* the parent is gone */
		p += w;
		n -= (size_t)w;
	}
}

static void frame(int type, const void *msg, size_t n)
{
	unsigned char head[5];
	uint32_t len = (uint32_t)n;

	memcpy(head, &len, sizeof(len));
	head[4] = (unsigned char)type;
	pthread_mutex_lock(&child_lock);
	put_all(child_fd, head, sizeof(head));
	put_all(child_fd, msg, n);
	pthread_mutex_unlock(&child_lock);
}

void jp_watch_send(const void *msg, size_t n)
{
	if (child_fd >= 0)
		frame(FRAME_REPORT, msg, n);
}

bool jp_watch_stop_asked(void)
{
	return child_stop && atomic_load(child_stop) != 0;
}

static void child_main(int fd, atomic_int *stop, pid_t parent, jp_probe_fn fn, void *arg,
		       void (*pack)(struct probe_bytes *out, void *arg))
{
	struct probe_bytes b = { NULL, 0, 0, 0, false };

	/* A parent killed (kill -9) takes the work with it: no second writer
	 * on the destination behind the next run's back. The parent decides
	 * what a signal means and passes a cancel on. */
	probe_child_enter(parent);
	child_fd = fd;
	child_stop = stop;
	fn(arg);
	pack(&b, arg);
	if (b.bad)
		_exit(1);
	frame(FRAME_ANSWER, b.p, b.n);
	free(b.p);
	_exit(0);
}

/* --- the parent's side ------------------------------------------------------- */

/* The CPU time pid has spent (its threads', dead ones too), in clock
 * ticks; -1 when unknown. */
static long long child_cpu(pid_t pid)
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

struct reader {
	struct probe_bytes in;  /* bytes read, not yet taken */
	struct probe_bytes ans; /* the answer, once whole */
	bool answered, eof, want_cancel, life;
};

/* Take the whole frames in r->in. */
static void take_frames(struct reader *r, const struct jp_watch *w)
{
	for (;;) {
		uint32_t len;
		size_t left = r->in.n - r->in.off;

		if (left < 5)
			break;
		memcpy(&len, r->in.p + r->in.off, sizeof(len));
		if (left - 5 < len)
			break;
		const char *msg = r->in.p + r->in.off + 5;
		if (r->in.p[r->in.off + 4] == FRAME_ANSWER) {
			probe_bytes_put(&r->ans, msg, len);
			r->answered = true;
		} else if (w->report) {
			int v = w->report(msg, len, w->payload);
			if (v < 0)
				r->want_cancel = true;
			else if (v > 0)
				r->life = true;
		}
		r->in.off += 5 + (size_t)len;
	}
	if (r->in.off > 0 && r->in.off == r->in.n)
		r->in.n = r->in.off = 0;
	else if (r->in.off > 65536) {
		memmove(r->in.p, r->in.p + r->in.off, r->in.n - r->in.off);
		r->in.n -= r->in.off;
		r->in.off = 0;
	}
}

static void read_some(struct reader *r, int fd)
{
	struct pollfd pfd = { fd, POLLIN, 0 };
	char chunk[16384];

	if (poll(&pfd, 1, POLL_MS) <= 0)
		return;
	ssize_t n = read(fd, chunk, sizeof(chunk));
	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n <= 0) {
		r->eof = true;
		return;
	}
	probe_bytes_put(&r->in, chunk, (size_t)n);
}

/* Watch pid until it answers (true) or is given up (false; *cancel_sent
 * says why). */
static bool watch(pid_t pid, int fd, atomic_int *stop, const struct jp_watch *w,
		  struct reader *r, bool *cancel_sent)
{
	long tck = sysconf(_SC_CLK_TCK);
	long long cpu_min = (tck > 0 ? tck : 100) * CPU_SAMPLE_MS * CPU_LIFE_PERMILLE / 1000000;
	uint64_t life_ns = jp_now_ns(), sample_ns = life_ns, last_ns = life_ns;
	long long cpu = child_cpu(pid);

	if (cpu_min < 1)
		cpu_min = 1;
	while (!r->eof && !r->in.bad) {
		read_some(r, fd);
		take_frames(r, w);
		uint64_t now = jp_now_ns();
		/* A long gap between two looks: this process was stopped (Ctrl-Z,
		 * SIGSTOP), not the child silent: the wait starts again. */
		if (now - last_ns >= (uint64_t)STOPPED_GAP_MS * 1000000u) {
			life_ns = sample_ns = now;
			cpu = child_cpu(pid);
		}
		last_ns = now;
		if (r->life) {
			r->life = false;
			life_ns = now;
		}
		if (now - sample_ns >= (uint64_t)CPU_SAMPLE_MS * 1000000u) {
			long long c = child_cpu(pid);
			if (c >= 0 && cpu >= 0 && c - cpu >= cpu_min)
				life_ns = now;
			cpu = c;
			sample_ns = now;
		}
		if (!*cancel_sent && (r->want_cancel || (w->cancelled && w->cancelled(w->payload)))) {
			atomic_store(stop, 1);
			*cancel_sent = true;
			life_ns = now;
		}
		if (r->eof)
			break;
		unsigned limit = *cancel_sent ? w->grace_ms : w->stall_ms;
		if (now - life_ns >= (uint64_t)limit * 1000000u)
			return false;
	}
	return true;
}

int jp_watch_call(jp_probe_fn fn, void *arg, void (*pack)(struct probe_bytes *out, void *arg),
		  bool (*unpack)(struct probe_bytes *in, void *arg), const struct jp_watch *w,
		  bool *cancel_sent, struct jp_error *err)
{
	struct reader r;
	atomic_int *stop;
	int fds[2], rc = 0;
	pid_t pid, self = getpid();

	*cancel_sent = false;
	memset(&r, 0, sizeof(r));
	stop = mmap(NULL, sizeof(*stop), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (stop == MAP_FAILED)
		return jp_error_set(err, JP_EINTERNAL, _("cannot start a process: %s"),
				    strerror(errno));
	atomic_init(stop, 0);
	if (pipe2(fds, O_CLOEXEC) != 0) {
		rc = jp_error_set(err, JP_EINTERNAL, _("cannot start a process: %s"),
				  strerror(errno));
		munmap(stop, sizeof(*stop));
		return rc;
	}
	pid = fork();
	if (pid == 0) {
		close(fds[0]);
		child_main(fds[1], stop, self, fn, arg, pack);
	}
	close(fds[1]);
	if (pid < 0) {
		rc = jp_error_set(err, JP_EINTERNAL, _("cannot start a process: %s"),
				  strerror(errno));
		close(fds[0]);
		munmap(stop, sizeof(*stop));
		return rc;
	}
	if (!watch(pid, fds[0], stop, w, &r, cancel_sent)) {
		/* Stuck (a hung mount), or deaf to the cancel: leave it. */
		probe_child_abandon(pid, w->path);
		rc = *cancel_sent ? JP_ECANCELED : JP_ETIMEOUT;
	} else {
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
		if (!r.answered || r.ans.bad || !unpack(&r.ans, arg))
			rc = jp_error_set(err, JP_EINTERNAL, "%s",
					  _("the work's process ended without an answer"));
	}
	close(fds[0]);
	munmap(stop, sizeof(*stop));
	free(r.in.p);
	free(r.ans.p);
	return rc;
}
