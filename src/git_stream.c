/* The TCP stream under libgit2's http(s), git:// and ssh transports.
 *
 * libgit2 1.5 blocks in connect() and recv() with no timeout, so a server
 * that stops answering hangs a clone for good, and nothing can cancel it.
 * This stream waits in poll() in short ticks instead: each tick gives the
 * operation's port a chance to cancel, and a server silent for longer than
 * the operation's stall timeout fails the clone. TLS (mbedTLS/OpenSSL)
 * wraps this stream, so https gets the same behaviour.
 *
 * libgit2's ssh transport hands the socket to libssh2 by reading the `s`
 * member of its own git_socket_stream, so this struct starts with exactly
 * that layout (the same from libgit2 1.5 through 1.9; configure refuses
 * another version). libssh2 then does its own I/O
 * on the descriptor, blocking in poll() with no timeout (and libgit2 retries
 * its handshake when a signal interrupts that poll). So for ssh a watchdog
 * thread watches the connection instead: when the port says stop, or the
 * server has sent nothing for the stall timeout while the operation waits
 * on it, the watchdog shuts the socket down (shutdown(2) from another thread
 * wakes the blocked poll and recv, which then see the end of the stream),
 * and the operation fails with the watchdog's verdict. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <git2/sys/stream.h>
#include <git2/version.h>

#include "jobprep/i18n.h"
#include "git_internal.h"

/* configure checks this too (and says what to do); this catches a build
 * whose headers are not the libgit2 configure found. */
#if !defined(JP_LIBGIT2_UNCHECKED) && \
	(JP_LIBGIT2_MAJOR != 1 || JP_LIBGIT2_MINOR < 5 || JP_LIBGIT2_MINOR > 9)
#error "struct jp_stream mirrors libgit2 1.5-1.9's git_socket_stream; see configure --enable-unchecked-libgit2"
#endif
#include "deadline_internal.h"

#define TICK_MS 200
#define DEFAULT_STALL_S 300 /* outside a jobprep operation */

/* The ssh watchdog: lives from connect to close, joined before the
 * descriptor is closed. */
struct watchdog {
	pthread_t tid;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool stop;
	int fd;
	struct jp_git_op *op;
	const char *host, *port; /* the stream's */
	unsigned limit_s;
};

struct jp_stream {
	/* Mirrors libgit2's git_socket_stream: keep these first, in order. */
	git_stream parent;
	char *host;
	char *port;
	int s;
	/* ours */
	struct watchdog *dog; /* ssh only */
};

static unsigned stall_limit_s(void)
{
	struct jp_git_op *op = jp_git_op_current();

	return op && op->stall_timeout_s ? op->stall_timeout_s : DEFAULT_STALL_S;
}

/* Wait for fd to be ready for `events`, ticking the operation; 0 when
 * ready, -1 with a libgit2 error set otherwise. */
static int wait_fd(struct jp_stream *st, short events, const char *doing)
{
	struct jp_git_op *op = jp_git_op_current();
	uint64_t start = jp_now_ns();
	uint64_t limit = (uint64_t)stall_limit_s() * 1000000000ULL;

	for (;;) {
		struct pollfd pfd = { st->s, events, 0 };
		int rc = poll(&pfd, 1, TICK_MS);

		if (rc > 0)
			return 0;
		if (rc < 0 && errno != EINTR) {
			git_error_set(GIT_ERROR_NET, "poll: %s", strerror(errno));
			return -1;
		}
		if (op && jp_git_op_tick(op) < 0) {
			git_error_set_str(GIT_ERROR_NET, "canceled");
			return -1;
		}
		if (jp_now_ns() - start >= limit) {
			if (op && !op->fail_code)
				jp_git_op_fail(op, JP_ETIMEOUT,
					       "%s:%s sent nothing for %u s while %s; the server or "
					       "the network has stopped",
					       st->host, st->port, stall_limit_s(), doing);
			git_error_set(GIT_ERROR_NET, "%s:%s: no answer for %u s while %s", st->host,
				      st->port, stall_limit_s(), doing);
			return -1;
		}
	}
}

static void keepalive(int s)
{
	int on = 1, idle = 30, intvl = 10, cnt = 6;

	setsockopt(s, SOL_SOCKET, SO_KEEPALIVE, &on, sizeof(on));
	setsockopt(s, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof(idle));
	setsockopt(s, IPPROTO_TCP, TCP_KEEPINTVL, &intvl, sizeof(intvl));
	setsockopt(s, IPPROTO_TCP, TCP_KEEPCNT, &cnt, sizeof(cnt));
}

/* Milliseconds since the server last sent data on fd; 0 when unknown. */
static unsigned long quiet_ms(int fd)
{
	struct tcp_info ti;
	socklen_t len = sizeof(ti);

	memset(&ti, 0, sizeof(ti));
	if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len) != 0)
		return 0;
	return ti.tcpi_last_data_recv;
}

/* Waiting on the server: connecting or receiving. Indexing, checking out,
 * or a callback waiting on a person is not the server's silence. */
static bool waits_on_server(struct jp_git_op *op)
{
	int phase = atomic_load_explicit(&op->net_phase, memory_order_relaxed);

	return atomic_load(&op->busy_elsewhere) == 0 &&
	       (phase == JP_PHASE_CONNECT || phase == JP_PHASE_FETCH);
}

static void abandon(struct watchdog *d, int code)
{
	struct jp_git_op *op = d->op;
	int none = 0;

	if (code == JP_ETIMEOUT)
		snprintf(op->abandoned_msg, sizeof(op->abandoned_msg),
			 _("%s:%s sent nothing for %u s; the server or the network has stopped"),
			 d->host, d->port, d->limit_s);
	else
		snprintf(op->abandoned_msg, sizeof(op->abandoned_msg), "%s", _("canceled"));
	atomic_compare_exchange_strong(&op->abandoned, &none, code);
	shutdown(d->fd, SHUT_RDWR);
}

static void *watchdog_main(void *arg)
{
	struct watchdog *d = arg;
	const struct jp_port *port = d->op->port;
	unsigned long limit_ms = (unsigned long)d->limit_s * 1000UL;
	uint64_t waiting_since = jp_now_ns();

	pthread_mutex_lock(&d->lock);
	while (!d->stop) {
		struct timespec ts;

		deadline_after_ms(&ts, CLOCK_MONOTONIC, TICK_MS);
		pthread_cond_timedwait(&d->cond, &d->lock, &ts);
		if (d->stop)
			break;
		if (port && port->cancelled && port->cancelled(port->payload)) {
			abandon(d, JP_ECANCELED);
			break;
		}
		uint64_t now = jp_now_ns();
		if (!waits_on_server(d->op))
			waiting_since = now;
		else if ((now - waiting_since) / 1000000ULL >= limit_ms &&
			 quiet_ms(d->fd) >= limit_ms) {
			abandon(d, JP_ETIMEOUT);
			break;
		}
	}
	pthread_mutex_unlock(&d->lock);
	return NULL;
}

static void watchdog_start(struct jp_stream *st)
{
	struct jp_git_op *op = jp_git_op_current();
	struct watchdog *d;
	pthread_condattr_t ca;
	sigset_t all, old;

	if (!op || !op->ssh_host || !(d = calloc(1, sizeof(*d))))
		return;
	d->fd = st->s;
	d->op = op;
	d->host = st->host;
	d->port = st->port;
	d->limit_s = stall_limit_s();
	pthread_mutex_init(&d->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&d->cond, &ca);
	pthread_condattr_destroy(&ca);
	/* Signals belong to the front end's thread. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	int e = pthread_create(&d->tid, NULL, watchdog_main, d);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (e) {
		pthread_mutex_destroy(&d->lock);
		pthread_cond_destroy(&d->cond);
		free(d);
		return;
	}
	st->dog = d;
}

static void watchdog_stop(struct jp_stream *st)
{
	struct watchdog *d = st->dog;

	if (!d)
		return;
	pthread_mutex_lock(&d->lock);
	d->stop = true;
	pthread_cond_signal(&d->cond);
	pthread_mutex_unlock(&d->lock);
	pthread_join(d->tid, NULL);
	pthread_mutex_destroy(&d->lock);
	pthread_cond_destroy(&d->cond);
	free(d);
	st->dog = NULL;
}

static int stream_connect(git_stream *stream)
{
	struct jp_stream *st = (struct jp_stream *)stream;
	struct addrinfo hints, *res = NULL, *ai;
	int gai, last_errno = 0;

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	if ((gai = getaddrinfo(st->host, st->port, &hints, &res)) != 0) {
		git_error_set(GIT_ERROR_NET, "failed to resolve address for %s: %s", st->host,
			      gai_strerror(gai));
		return -1;
	}
	for (ai = res; ai; ai = ai->ai_next) {
		int s = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK,
			       ai->ai_protocol);
		int soerr = 0;
		socklen_t len = sizeof(soerr);

		if (s < 0) {
			last_errno = errno;
			continue;
		}
		st->s = s;
		if (connect(s, ai->ai_addr, ai->ai_addrlen) != 0) {
			if (errno != EINPROGRESS) {
				last_errno = errno;
				goto next;
			}
			if (wait_fd(st, POLLOUT, "connecting") != 0)
				goto fail;
			if (getsockopt(s, SOL_SOCKET, SO_ERROR, &soerr, &len) != 0 || soerr != 0) {
				last_errno = soerr ? soerr : errno;
				goto next;
			}
		}
		/* Blocking again for libssh2, which uses the descriptor itself;
		 * our reads and writes never block (poll + MSG_DONTWAIT). */
		fcntl(s, F_SETFL, fcntl(s, F_GETFL) & ~O_NONBLOCK);
		keepalive(s);
		freeaddrinfo(res);
		watchdog_start(st);
		return 0;
next:
		close(s);
		st->s = -1;
	}
	git_error_set(GIT_ERROR_NET, "failed to connect to %s:%s: %s", st->host, st->port,
		      strerror(last_errno ? last_errno : ECONNREFUSED));
	freeaddrinfo(res);
	return -1;
fail:
	close(st->s);
	st->s = -1;
	freeaddrinfo(res);
	return -1;
}

static ssize_t stream_read(git_stream *stream, void *data, size_t len)
{
	struct jp_stream *st = (struct jp_stream *)stream;

	for (;;) {
		ssize_t n = recv(st->s, data, len, MSG_DONTWAIT);

		if (n >= 0)
			return n;
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN && errno != EWOULDBLOCK) {
			git_error_set(GIT_ERROR_NET, "error receiving from %s: %s", st->host,
				      strerror(errno));
			return -1;
		}
		if (wait_fd(st, POLLIN, "receiving") != 0)
			return -1;
	}
}

static ssize_t stream_write(git_stream *stream, const char *data, size_t len, int flags)
{
	struct jp_stream *st = (struct jp_stream *)stream;
	size_t off = 0;

	(void)flags;
	while (off < len) {
		ssize_t n = send(st->s, data + off, len - off, MSG_DONTWAIT | MSG_NOSIGNAL);

		if (n >= 0) {
			off += (size_t)n;
			continue;
		}
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN && errno != EWOULDBLOCK) {
			git_error_set(GIT_ERROR_NET, "error sending to %s: %s", st->host,
				      strerror(errno));
			return -1;
		}
		if (wait_fd(st, POLLOUT, "sending") != 0)
			return -1;
	}
	return (ssize_t)len;
}

static int stream_close(git_stream *stream)
{
	struct jp_stream *st = (struct jp_stream *)stream;

	watchdog_stop(st);
	if (st->s >= 0) {
		close(st->s);
		st->s = -1;
	}
	return 0;
}

static void stream_free(git_stream *stream)
{
	struct jp_stream *st = (struct jp_stream *)stream;

	watchdog_stop(st);
	if (st->s >= 0)
		close(st->s);
	free(st->host);
	free(st->port);
	free(st);
}

static int stream_new(git_stream **out, const char *host, const char *port)
{
	struct jp_stream *st = calloc(1, sizeof(*st));

	*out = NULL;
	if (!st || !(st->host = strdup(host)) || !(st->port = strdup(port))) {
		if (st)
			free(st->host);
		free(st);
		git_error_set_str(GIT_ERROR_NOMEMORY, "out of memory");
		return -1;
	}
	st->s = -1;
	st->parent.version = GIT_STREAM_VERSION;
	st->parent.encrypted = 0;
	st->parent.proxy_support = 0;
	st->parent.connect = stream_connect;
	st->parent.read = stream_read;
	st->parent.write = stream_write;
	st->parent.close = stream_close;
	st->parent.free = stream_free;
	*out = &st->parent;
	return 0;
}

int jp_git_stream_register(void)
{
	git_stream_registration reg;

	memset(&reg, 0, sizeof(reg));
	reg.version = GIT_STREAM_VERSION;
	reg.init = stream_new;
	return git_stream_register(GIT_STREAM_STANDARD, &reg);
}
