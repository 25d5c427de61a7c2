/* ssh host keys. libgit2 1.5 accepts any ssh host key unless told
 * otherwise, so a man in the middle could hand out code: check the key
 * against known_hosts (through ssh-keygen -F, which also reads hashed
 * entries), refuse a changed key, and ask the person about an unknown one. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jobprep/i18n.h"
#include "git_internal.h"

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* Base64 of n bytes into a new string; pad=false drops the '='. */
static char *base64(const unsigned char *p, size_t n, bool pad)
{
	char *out = malloc(4 * ((n + 2) / 3) + 1), *o = out;

	if (!out)
		return NULL;
	for (size_t i = 0; i < n; i += 3) {
		unsigned v = (unsigned)p[i] << 16;
		size_t left = n - i;

		if (left > 1)
			v |= (unsigned)p[i + 1] << 8;
		if (left > 2)
			v |= p[i + 2];
		*o++ = b64[(v >> 18) & 63];
		*o++ = b64[(v >> 12) & 63];
		if (left > 1)
			*o++ = b64[(v >> 6) & 63];
		else if (pad)
			*o++ = '=';
		if (left > 2)
			*o++ = b64[v & 63];
		else if (pad)
			*o++ = '=';
	}
	*o = '\0';
	return out;
}

/* The key type named at the start of an ssh key blob. */
static char *blob_type(const unsigned char *blob, size_t n)
{
	uint32_t len;

	if (n < 4)
		return NULL;
	len = (uint32_t)blob[0] << 24 | (uint32_t)blob[1] << 16 | (uint32_t)blob[2] << 8 | blob[3];
	if (len == 0 || len > 64 || len > n - 4)
		return NULL;
	return strndup((const char *)blob + 4, len);
}

enum verdict { KEY_UNKNOWN, KEY_MATCH, KEY_CHANGED };

/* Look `name` up in one known_hosts file. */
static enum verdict lookup(const char *file, const char *name, const char *type,
			   const char *key64)
{
	char *const argv[] = { (char *)"ssh-keygen", (char *)"-F", (char *)name, (char *)"-f",
			       (char *)file, NULL };
	char out[65536];
	enum verdict v = KEY_UNKNOWN;

	if (access(file, R_OK) != 0)
		return KEY_UNKNOWN;
	if (jp_run_capture(argv, NULL, out, sizeof(out), 10000) != 0)
		return KEY_UNKNOWN;
	for (char *line = out, *nl; line && *line; line = nl) {
		char *save = NULL, *host, *ktype, *kdata;

		nl = strchr(line, '\n');
		if (nl)
			*nl++ = '\0';
		if (line[0] == '#' || line[0] == '@' || !*line)
			continue;
		host = strtok_r(line, " \t", &save);
		ktype = strtok_r(NULL, " \t", &save);
		kdata = strtok_r(NULL, " \t", &save);
		if (!host || !ktype || !kdata || strcmp(ktype, type) != 0)
			continue;
		if (strcmp(kdata, key64) == 0)
			return KEY_MATCH;
		v = KEY_CHANGED;
	}
	return v;
}

static const char *home(void)
{
	const char *h = getenv("HOME");

	return h && *h ? h : "/";
}

/* Append an accepted key, as ssh does when a person says yes. */
static void remember(const char *name, const char *type, const char *key64)
{
	char dir[4096], file[4200], line[8192];
	int fd;

	snprintf(dir, sizeof(dir), "%s/.ssh", home());
	mkdir(dir, 0700);
	snprintf(file, sizeof(file), "%s/known_hosts", dir);
	fd = open(file, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return;
	int n = snprintf(line, sizeof(line), "%s %s %s\n", name, type, key64);
	if (n > 0 && (size_t)n < sizeof(line) && write(fd, line, (size_t)n) < 0)
		(void)0;
	close(fd);
}

static int hostkey_cb(git_cert *cert, int valid, const char *host, void *payload)
{
	struct jp_git_op *op = payload;
	const struct jp_port *port = op->port;
	git_cert_hostkey *hk;
	char name[600], file[4200], question[1024];
	char *type = NULL, *key64 = NULL, *fp = NULL;
	const char *p = NULL;
	enum verdict v;
	int rc;

	(void)valid;
	if (cert->cert_type != GIT_CERT_HOSTKEY_LIBSSH2)
		return GIT_PASSTHROUGH; /* TLS: libgit2's own verification decides */
	hk = (git_cert_hostkey *)cert;
	if (!(hk->type & GIT_CERT_SSH_RAW) || !hk->hostkey || hk->hostkey_len == 0)
		return jp_git_op_fail(op, JP_EREFUSED,
				      _("cannot check the ssh host key of %s"), host);
	type = blob_type((const unsigned char *)hk->hostkey, hk->hostkey_len);
	key64 = base64((const unsigned char *)hk->hostkey, hk->hostkey_len, true);
	fp = (hk->type & GIT_CERT_SSH_SHA256) ? base64(hk->hash_sha256, 32, false) : NULL;
	if (!type || !key64) {
		rc = jp_git_op_fail(op, JP_EREFUSED, _("cannot read the ssh host key of %s"), host);
		goto done;
	}
	/* known_hosts names a non-default port as [host]:port. */
	if (op->ssh_port && op->ssh_host && strcmp(op->ssh_host, host) == 0)
		p = op->ssh_port;
	if (p && strcmp(p, "22") != 0)
		snprintf(name, sizeof(name), "[%s]:%s", host, p);
	else
		snprintf(name, sizeof(name), "%s", host);

	snprintf(file, sizeof(file), "%s/.ssh/known_hosts", home());
	v = lookup(file, name, type, key64);
	if (v != KEY_MATCH) {
		enum verdict sys = lookup("/etc/ssh/ssh_known_hosts", name, type, key64);
		if (sys == KEY_MATCH || v == KEY_UNKNOWN)
			v = sys;
	}
	if (v == KEY_MATCH) {
		rc = 0;
		goto done;
	}
	if (v == KEY_CHANGED) {
		rc = jp_git_op_fail(op, JP_EREFUSED,
				    _("the ssh host key of %s has CHANGED (%s SHA256:%s is not the one "
				      "in known_hosts): someone may be intercepting the connection; "
				      "refusing to continue"),
				    name, type, fp ? fp : "?");
		goto done;
	}
	snprintf(question, sizeof(question),
		 _("The authenticity of host %s can't be established. Its %s key fingerprint is "
		   "SHA256:%s. Trust it and continue?"),
		 name, type, fp ? fp : "?");
	if (port && port->confirm && port->confirm(question, port->payload) == 1) {
		remember(name, type, key64);
		rc = 0;
		goto done;
	}
	rc = jp_git_op_fail(op, JP_EREFUSED,
			    _("the ssh host %s is not in known_hosts (%s key SHA256:%s); if that "
			      "fingerprint is right, add it with: ssh-keyscan %s%s %s >> ~/.ssh/known_hosts"),
			    name, type, fp ? fp : "?", p && strcmp(p, "22") ? "-p " : "",
			    p && strcmp(p, "22") ? p : "", host);
done:
	free(type);
	free(key64);
	free(fp);
	return rc;
}

int jp_git_hostkey_cb(git_cert *cert, int valid, const char *host, void *payload)
{
	return hostkey_cb(cert, valid, host, payload);
}
