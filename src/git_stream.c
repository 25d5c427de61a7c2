/* The TCP stream under libgit2's http(s) and git:// transports.
 *
 * libgit2 1.5 blocks in connect() and recv() with no timeout, so a server
 * that stops answering hangs a clone for good, and nothing can cancel it.
 * This stream waits in poll() in short ticks instead: each tick gives the
 * operation's port a chance to cancel, and a server silent for longer than
 * the operation's stall timeout fails the clone. TLS (mbedTLS/OpenSSL)
 * wraps this stream, so https gets the same behaviour.
 *
 * libgit2 uses it only through its public vtable (git2/sys/stream.h).
 * Not ssh: libgit2's ssh transport hands libssh2 a descriptor it reads out
 * of libgit2's own private socket stream, so ssh's network steps run in a
 * helper process where this stream is not registered (git_ssh.c), and in
 * this process ssh:// is refused before it gets here. */
#include "config.h"

#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <git2/sys/stream.h>

#include "jobprep/i18n.h"
#include "git_internal.h"

#include "deadline_internal.h"

#define TICK_MS 200
#define DEFAULT_STALL_S 300 /* outside a jobprep operation */

/* libgit2 sees only parent (git_stream: its vtable), and gives back the
 * pointer it got, which is where parent is. */
struct jp_stream {
	git_stream parent;
	char *host;
	char *port;
	int s;
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
		/* Our reads and writes never block (poll + MSG_DONTWAIT). */
		keepalive(s);
		freeaddrinfo(res);
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

	if (st->s >= 0) {
		close(st->s);
		st->s = -1;
	}
	return 0;
}

static void stream_free(git_stream *stream)
{
	struct jp_stream *st = (struct jp_stream *)stream;

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
