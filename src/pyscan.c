/* A light reader of Python source (pyscan.h): a tokenizer that knows
 * comments, string literals (prefixes, triple quotes, escapes) and
 * brackets, enough to see calls, their first argument and the import
 * statements; a walk from the scripts through the imports that resolve to
 * files in the project, each file read once, bounded in files and bytes. */
#include "config.h"

#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jobprep/input.h"
#include "jobprep/path.h"
#include "jobprep/strv.h"
#include "pyscan.h"
#include "input_internal.h"
#include "lint_internal.h"
#include "path_internal.h"

enum tk { T_END, T_NAME, T_STR, T_OP, T_NL };

struct lex {
	const char *p, *end;
	unsigned line;
	int depth;          /* ( [ { open */
};

struct tok {
	enum tk kind;
	const char *s;      /* T_NAME: the name; T_STR: the contents; T_OP: the char */
	size_t n;
	unsigned line;
	bool plain;         /* T_STR: no f-prefix, no backslash: its value is s */
};

static bool name_char(unsigned char c)
{
	return isalnum(c) || c == '_' || c >= 0x80;
}

/* A string literal from q (the opening quote). */
static void string_tok(struct lex *L, struct tok *t, bool fstr)
{
	char q = *L->p;
	bool triple = L->end - L->p >= 3 && L->p[1] == q && L->p[2] == q;
	const char *s = L->p + (triple ? 3 : 1);

	t->kind = T_STR;
	t->s = s;
	t->plain = !fstr;
	for (L->p = s; L->p < L->end; L->p++) {
		if (*L->p == '\\' && L->p + 1 < L->end) {
			t->plain = false;
			if (L->p[1] == '\n')
				L->line++;
			L->p++;
			continue;
		}
		if (*L->p == '\n') {
			if (!triple)
				break; /* an unterminated string: stop at the line */
			L->line++;
		}
		if (*L->p == q && (!triple || (L->end - L->p >= 3 && L->p[1] == q && L->p[2] == q))) {
			t->n = (size_t)(L->p - s);
			L->p += triple ? 3 : 1;
			return;
		}
	}
	t->n = (size_t)(L->p - s);
	t->plain = false;
}

static bool string_prefix(const char *s, size_t n, bool *fstr)
{
	*fstr = false;
	if (n > 2)
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = (char)tolower((unsigned char)s[i]);

		if (c == 'f')
			*fstr = true;
		else if (c != 'r' && c != 'b' && c != 'u')
			return false;
	}
	return true;
}

static void next(struct lex *L, struct tok *t)
{
	for (;;) {
		if (L->p >= L->end) {
			t->kind = T_END;
			return;
		}
		unsigned char c = (unsigned char)*L->p;

		t->line = L->line;
		if (c == '#') {
			while (L->p < L->end && *L->p != '\n')
				L->p++;
		} else if (c == '\\' && L->p + 1 < L->end && L->p[1] == '\n') {
			L->p += 2;
			L->line++;
		} else if (c == '\n') {
			L->p++;
			L->line++;
			if (L->depth == 0) {
				t->kind = T_NL;
				return;
			}
		} else if (c == ' ' || c == '\t' || c == '\r' || c == '\f') {
			L->p++;
		} else if (c == '"' || c == '\'') {
			string_tok(L, t, false);
			return;
		} else if (name_char(c) && !isdigit(c)) {
			const char *s = L->p;
			bool fstr;

			while (L->p < L->end && name_char((unsigned char)*L->p))
				L->p++;
			if (L->p < L->end && (*L->p == '"' || *L->p == '\'') &&
			    string_prefix(s, (size_t)(L->p - s), &fstr)) {
				string_tok(L, t, fstr);
				return;
			}
			t->kind = T_NAME;
			t->s = s;
			t->n = (size_t)(L->p - s);
			return;
		} else {
			if (c == '(' || c == '[' || c == '{')
				L->depth++;
			else if ((c == ')' || c == ']' || c == '}') && L->depth > 0)
				L->depth--;
			t->kind = c == ';' && L->depth == 0 ? T_NL : T_OP;
			t->s = L->p++;
			t->n = 1;
			return;
		}
	}
}

static bool is(const struct tok *t, enum tk kind, const char *s)
{
	return t->kind == kind && t->n == strlen(s) && memcmp(t->s, s, t->n) == 0;
}

/* ---- the files: read once each, found from the imports ---- */

/* A folder's names, listed once: on network storage a failed stat is a round
 * trip, and most imports (os, torch) name no file of the project, so each
 * look-up is answered from its folder's listing instead. */
struct entry {
	char *name;
	unsigned char type; /* d_type */
};

struct listing {
	char *dir;
	struct entry *e; /* sorted by name */
	size_t n;
	bool ok;         /* listed (else: not a folder, or unreadable) */
};

#define MAX_LISTINGS 4096
#define READERS 8   /* files read at once: on network storage each is round trips */
#define AHEAD 32    /* read at most this far ahead of the parse (memory) */

struct slot {
	char *path;   /* owned */
	char *text;   /* what was read, owned; NULL: unreadable */
	size_t len;
	bool done;
};

struct prefetch {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct slot *slots; /* capacity fixed at the start: never moves */
	size_t cap, count, claim, at;
	bool stop;
	pthread_t tid[READERS];
	unsigned n_tid;
};

struct scan {
	struct jp_pyscan_result *out;
	const char *project, *hub_cache;
	struct jp_strv seen;   /* every file queued, in order; read from index `at` */
	size_t at;
	struct listing *dirs;
	size_t n_dirs;
	struct prefetch *pf;   /* reads the files queued ahead; NULL: read here */
	const char *const *vars; /* NAME=VALUE the configs give (a later one wins) */
	size_t n_vars;
	size_t n_scripts;        /* seen[0..n_scripts) are the scripts the command runs */
	bool in_script;          /* the file being read is one of them */
	struct jp_lint_config local; /* the file's own simple assignments, in order */
	const char *text;        /* the file being read */
	size_t text_n;
};

static bool has(const struct jp_strv *v, const char *s)
{
	for (size_t i = 0; i < v->n; i++)
		if (strcmp(v->v[i], s) == 0)
			return true;
	return false;
}

static bool regular(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct entry *)a)->name, ((const struct entry *)b)->name);
}

static void list_dir(struct listing *l)
{
	DIR *d = opendir(l->dir);
	struct dirent *de;
	size_t cap = 0;

	if (!d)
		return;
	l->ok = true;
	while ((de = readdir(d)) != NULL) {
		if (l->n == cap) {
			size_t nc = cap ? 2 * cap : 64;
			struct entry *ne = realloc(l->e, nc * sizeof(*ne));

			if (!ne) {
				l->ok = false;
				break;
			}
			l->e = ne;
			cap = nc;
		}
		if (!(l->e[l->n].name = strdup(de->d_name))) {
			l->ok = false;
			break;
		}
		l->e[l->n++].type = de->d_type;
	}
	closedir(d);
	if (l->n)
		qsort(l->e, l->n, sizeof(*l->e), by_name);
}

static const struct listing *listing_of(struct scan *S, const char *dir)
{
	for (size_t i = S->n_dirs; i-- > 0;)
		if (strcmp(S->dirs[i].dir, dir) == 0)
			return &S->dirs[i];
	if (S->n_dirs >= MAX_LISTINGS)
		return NULL;
	if (S->n_dirs % 64 == 0) {
		struct listing *g = realloc(S->dirs, (S->n_dirs + 64) * sizeof(*g));

		if (!g)
			return NULL;
		S->dirs = g;
	}
	S->dirs[S->n_dirs] = (struct listing){ .dir = strdup(dir) };
	if (!S->dirs[S->n_dirs].dir)
		return NULL;
	list_dir(&S->dirs[S->n_dirs]);
	return &S->dirs[S->n_dirs++];
}

static void listings_free(struct scan *S)
{
	for (size_t i = 0; i < S->n_dirs; i++) {
		for (size_t k = 0; k < S->dirs[i].n; k++)
			free(S->dirs[i].e[k].name);
		free(S->dirs[i].e);
		free(S->dirs[i].dir);
	}
	free(S->dirs);
}

/* path is a regular file, answered from its folder's listing (and the
 * folder's from its parent's): a stat only for a symlink or an unknown type. */
static bool lookup_file(struct scan *S, const char *path, bool want_dir)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(path, '/');
	const struct listing *l;
	struct entry key, *at;
	struct stat st;

	if (!slash || slash == path || (size_t)(slash - path) >= sizeof(dir))
		return want_dir ? false : regular(path);
	snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	/* the folder itself must be there: ask its parent first (it is cached) */
	if (S->project && jp_path_is_under(dir, S->project) && strcmp(dir, S->project) != 0 &&
	    !lookup_file(S, dir, true))
		return false;
	if (!(l = listing_of(S, dir)) || !l->ok)
		return l ? false : (want_dir ? false : regular(path));
	key.name = (char *)(slash + 1);
	at = l->n ? bsearch(&key, l->e, l->n, sizeof(*l->e), by_name) : NULL;
	if (!at)
		return false;
	if (at->type == (want_dir ? DT_DIR : DT_REG))
		return true;
	if (at->type != DT_LNK && at->type != DT_UNKNOWN)
		return false;
	return stat(path, &st) == 0 && (want_dir ? S_ISDIR(st.st_mode) : S_ISREG(st.st_mode));
}

static char *read_head(const char *path, size_t *n);

static void *reader(void *arg)
{
	struct prefetch *P = arg;

	pthread_mutex_lock(&P->mu);
	for (;;) {
		while (!P->stop && (P->claim >= P->count || P->claim >= P->at + AHEAD))
			pthread_cond_wait(&P->cv, &P->mu);
		if (P->stop)
			break;
		size_t i = P->claim++;
		char *path = P->slots[i].path, *text;
		size_t len = 0;

		pthread_mutex_unlock(&P->mu);
		text = read_head(path, &len);
		pthread_mutex_lock(&P->mu);
		P->slots[i].text = text;
		P->slots[i].len = len;
		P->slots[i].done = true;
		pthread_cond_broadcast(&P->cv);
	}
	pthread_mutex_unlock(&P->mu);
	return NULL;
}

/* The readers, for at most cap files; NULL (read on this thread) when they
 * cannot start. */
static struct prefetch *prefetch_start(size_t cap)
{
	struct prefetch *P = calloc(1, sizeof(*P));

	if (!P || !(P->slots = calloc(cap, sizeof(*P->slots)))) {
		free(P);
		return NULL;
	}
	P->cap = cap;
	pthread_mutex_init(&P->mu, NULL);
	pthread_cond_init(&P->cv, NULL);
	for (; P->n_tid < READERS; P->n_tid++)
		if (pthread_create(&P->tid[P->n_tid], NULL, reader, P) != 0)
			break;
	return P;
}

static void publish(struct prefetch *P, const char *path)
{
	char *copy;

	if (!P)
		return;
	copy = strdup(path);
	pthread_mutex_lock(&P->mu);
	if (P->count < P->cap) {
		P->slots[P->count].path = copy;
		/* no copy: nothing to read, done at once */
		P->slots[P->count].done = !copy;
		P->count++;
		copy = NULL;
	}
	pthread_cond_broadcast(&P->cv);
	pthread_mutex_unlock(&P->mu);
	free(copy);
}

/* File i's text (the caller's to free), once a reader has it; read here
 * when there are no readers. */
static char *take(struct prefetch *P, size_t i, const char *path, size_t *len)
{
	char *text;

	if (!P || P->n_tid == 0 || i >= P->count)
		return read_head(path, len);
	pthread_mutex_lock(&P->mu);
	P->at = i;
	pthread_cond_broadcast(&P->cv);
	while (!P->slots[i].done)
		pthread_cond_wait(&P->cv, &P->mu);
	text = P->slots[i].text;
	*len = P->slots[i].len;
	P->slots[i].text = NULL;
	pthread_mutex_unlock(&P->mu);
	return text;
}

static void prefetch_stop(struct prefetch *P)
{
	if (!P)
		return;
	pthread_mutex_lock(&P->mu);
	P->stop = true;
	pthread_cond_broadcast(&P->cv);
	pthread_mutex_unlock(&P->mu);
	for (unsigned k = 0; k < P->n_tid; k++)
		pthread_join(P->tid[k], NULL);
	for (size_t i = 0; i < P->count; i++) {
		free(P->slots[i].path);
		free(P->slots[i].text);
	}
	free(P->slots);
	pthread_cond_destroy(&P->cv);
	pthread_mutex_destroy(&P->mu);
	free(P);
}

static void queue(struct scan *S, const char *path)
{
	char *norm = jp_path_normalize(path);

	if (!norm)
		return;
	if ((!S->project || jp_path_is_under(norm, S->project)) && !has(&S->seen, norm)) {
		if (S->seen.n >= JP_PYSCAN_MAX_FILES)
			S->out->truncated = true;
		else if (lookup_file(S, norm, false) && jp_strv_push(&S->seen, norm) == 0)
			publish(S->pf, norm);
	}
	free(norm);
}

/* base/a/b/c.py, or base/a/b/c/__init__.py (and the packages' own
 * __init__.py on the way, which importing runs too). */
static bool resolve_in(struct scan *S, const char *base, const char *dotted, size_t n)
{
	char path[PATH_MAX];
	size_t len;
	int k = snprintf(path, sizeof(path), "%s/", base);

	if (k < 0 || (size_t)k + n + 16 >= sizeof(path))
		return false;
	len = (size_t)k;
	for (size_t i = 0; i < n; i++)
		path[len++] = dotted[i] == '.' ? '/' : dotted[i];
	path[len] = '\0';
	for (size_t i = (size_t)k; i < len; i++) {
		if (path[i] != '/')
			continue;
		path[i] = '\0';
		{
			char init[PATH_MAX + 16];

			snprintf(init, sizeof(init), "%s/__init__.py", path);
			queue(S, init);
		}
		path[i] = '/';
	}
	snprintf(path + len, sizeof(path) - len, ".py");
	if (lookup_file(S, path, false)) {
		queue(S, path);
		return true;
	}
	snprintf(path + len, sizeof(path) - len, "/__init__.py");
	if (lookup_file(S, path, false)) {
		queue(S, path);
		return true;
	}
	return false;
}

/* A module as Python finds it: beside the importing file (a script's own
 * folder is on sys.path, as is the project when the job runs there), or
 * relative (level dots up from the importing file's package). */
static void resolve(struct scan *S, const char *file, int level, const char *dotted, size_t n)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(file, '/');

	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - file) : 0, file);
	if (level > 0) {
		for (int i = 1; i < level; i++) {
			char *up = strrchr(dir, '/');

			if (!up)
				return;
			*up = '\0';
		}
		if (n == 0) {
			char init[PATH_MAX + 16];

			snprintf(init, sizeof(init), "%s/__init__.py", dir);
			queue(S, init);
		} else {
			resolve_in(S, dir, dotted, n);
		}
		return;
	}
	if (n == 0 || resolve_in(S, dir, dotted, n))
		return;
	if (S->project && strcmp(dir, S->project) != 0)
		resolve_in(S, S->project, dotted, n);
}

/* ---- what the code needs of a Worker's python3 ---- */

/* name (a top-level module) is a file or folder of the project: beside the
 * importing file, or at the project's top. */
static bool own_module(struct scan *S, const char *file, const char *name)
{
	char p[PATH_MAX];
	const char *slash = strrchr(file, '/');
	const char *dirs[2] = { NULL, S->project };
	char here[PATH_MAX];

	snprintf(here, sizeof(here), "%.*s", slash ? (int)(slash - file) : 0, file);
	dirs[0] = here;
	for (int k = 0; k < 2; k++) {
		if (!dirs[k])
			continue;
		if (snprintf(p, sizeof(p), "%s/%s.py", dirs[k], name) < (int)sizeof(p) &&
		    lookup_file(S, p, false))
			return true;
		if (snprintf(p, sizeof(p), "%s/%s", dirs[k], name) < (int)sizeof(p) &&
		    lookup_file(S, p, true))
			return true;
	}
	return false;
}

static int by_module(const void *a, const void *b)
{
	return strcmp((const char *)a, (const char *)b);
}

/* The top-level name of dotted, imported unconditionally by file: kept
 * when it is no module of the project's or the standard library's. */
static void note_module(struct scan *S, const char *file, const char *dotted)
{
	struct jp_pyscan_result *o = S->out;
	char name[JP_PYSCAN_MODULE_LEN];
	size_t n = strcspn(dotted, ".");

	if (n == 0 || n >= sizeof(name))
		return;
	memcpy(name, dotted, n);
	name[n] = '\0';
	if (jp_pyscan_is_stdlib(name) || o->n_modules >= JP_PYSCAN_MAX_MODULES)
		return;
	for (size_t i = 0; i < o->n_modules; i++)
		if (strcmp(o->modules[i], name) == 0)
			return;
	if (own_module(S, file, name))
		return;
	memcpy(o->modules[o->n_modules++], name, n + 1);
	qsort(o->modules, o->n_modules, sizeof(o->modules[0]), by_module);
}

static void need_minor(struct scan *S, unsigned minor)
{
	if (minor > S->out->min_minor)
		S->out->min_minor = minor;
}

/* `match SUBJECT:` (3.10): a statement that starts with the soft keyword
 * match, whose line ends in ':' (match(x) or match = ... do not). */
static bool match_stmt(const struct lex *at, const struct tok *t)
{
	struct lex L = *at;
	struct tok k = *t, last;

	next(&L, &k);
	if (k.kind == T_OP && strchr("=.,)]}:;", k.s[0]))
		return false;
	for (last = k; k.kind != T_NL && k.kind != T_END; next(&L, &k))
		last = k;
	return is(&last, T_OP, ":");
}

/* num_workers=VALUE in a call: workers unless VALUE is literally 0 */
static bool loader_workers(const struct lex *at, const struct tok *t)
{
	struct lex L = *at;
	struct tok k = *t;

	if (at->depth == 0)
		return false;
	next(&L, &k);
	if (!is(&k, T_OP, "="))
		return false;
	next(&L, &k);
	if (is(&k, T_OP, "="))
		return false; /* num_workers == ... */
	if (!is(&k, T_OP, "0"))
		return true;
	next(&L, &k);
	return !(is(&k, T_OP, ",") || is(&k, T_OP, ")") || k.kind == T_NL || k.kind == T_END);
}

/* The syntax and calls that say what the code needs of python3. */
static void runtime_signs(struct scan *S, const struct lex *L, const struct tok *t, bool start)
{
	if (t->kind == T_OP && t->s[0] == ':' && t->s + 1 < L->end && t->s[1] == '=')
		need_minor(S, 8);
	else if (start && L->depth == 0 && is(t, T_NAME, "match") && match_stmt(L, t))
		need_minor(S, 10);
	else if (start && is(t, T_NAME, "except")) {
		struct lex la = *L;
		struct tok k = *t;

		next(&la, &k);
		if (is(&k, T_OP, "*"))
			need_minor(S, 11);
	} else if (is(t, T_NAME, "num_workers") && !S->out->loader_workers)
		S->out->loader_workers = loader_workers(L, t);
}

/* A dotted name from the tokens: into buf (cut at its size). */
static void dotted_name(struct lex *L, struct tok *t, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	while (t->kind == T_NAME) {
		if (len + t->n + 2 >= size)
			break;
		memcpy(buf + len, t->s, t->n);
		len += t->n;
		buf[len] = '\0';
		next(L, t);
		if (!is(t, T_OP, "."))
			break;
		buf[len++] = '.';
		buf[len] = '\0';
		next(L, t);
	}
}

/* import a.b [as x], c; top: at a file's top level (not indented) */
static void import_stmt(struct scan *S, const char *file, struct lex *L, struct tok *t, bool top)
{
	char mod[512];

	next(L, t);
	while (t->kind == T_NAME) {
		dotted_name(L, t, mod, sizeof(mod));
		resolve(S, file, 0, mod, strlen(mod));
		if (top)
			note_module(S, file, mod);
		if (is(t, T_NAME, "as")) {
			next(L, t);
			next(L, t);
		}
		if (!is(t, T_OP, ","))
			break;
		next(L, t);
	}
}

/* from [.]a.b import c [as x], d   (or (c, d)) */
static void from_stmt(struct scan *S, const char *file, struct lex *L, struct tok *t, bool top)
{
	char mod[512], sub[1024];
	int level = 0;

	next(L, t);
	while (is(t, T_OP, ".")) {
		level++;
		next(L, t);
	}
	mod[0] = '\0';
	if (!is(t, T_NAME, "import")) /* from . import x: no module name */
		dotted_name(L, t, mod, sizeof(mod));
	resolve(S, file, level, mod, strlen(mod));
	if (top && level == 0)
		note_module(S, file, mod);
	if (!is(t, T_NAME, "import"))
		return;
	next(L, t);
	if (is(t, T_OP, "("))
		next(L, t);
	/* a name imported may be a submodule: a.b.c */
	while (t->kind == T_NAME) {
		snprintf(sub, sizeof(sub), "%s%s%.*s", mod, mod[0] ? "." : "", (int)t->n, t->s);
		resolve(S, file, level, sub, strlen(sub));
		next(L, t);
		if (is(t, T_NAME, "as")) {
			next(L, t);
			next(L, t);
		}
		if (!is(t, T_OP, ","))
			break;
		next(L, t);
	}
}

/* ---- the calls ---- */

static const char *const calls[] = { "from_pretrained", "load_dataset", "snapshot_download",
				     "hf_hub_download", NULL };
/* load_dataset's packaged builders: files named elsewhere, no Hub repository */
static const char *const builders[] = { "json", "csv", "parquet", "text", "arrow", "pandas",
					"sql", "webdataset", "imagefolder", "audiofolder",
					"videofolder", "generator", "spark", "xml", "cache", NULL };

bool jp_pyscan_is_hub_id(const char *s)
{
	size_t n = strlen(s), slashes = 0;

	if (n == 0 || n > 96 * 2 + 1 || strstr(s, "--") || strstr(s, ".."))
		return false;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		bool edge = i == 0 || i == n - 1 || s[i - 1] == '/' || s[i + 1] == '/';

		if (c == '/') {
			if (++slashes > 1 || i == 0 || i == n - 1)
				return false;
		} else if (!isalnum(c) && c != '_' && !((c == '-' || c == '.') && !edge)) {
			return false;
		}
	}
	return true;
}

static int call_index(const struct tok *t)
{
	for (int i = 0; calls[i]; i++)
		if (is(t, T_NAME, calls[i]))
			return i;
	return -1;
}

/* Is value a path there is (beside the file, in the project)? */
static bool existing_path(const struct scan *S, const char *file, const char *value)
{
	char p[PATH_MAX];
	const char *slash = strrchr(file, '/');
	struct stat st;

	if (snprintf(p, sizeof(p), "%.*s/%s", slash ? (int)(slash - file) : 0, file, value) <
		    (int)sizeof(p) &&
	    stat(p, &st) == 0)
		return true;
	return S->project &&
	       snprintf(p, sizeof(p), "%s/%s", S->project, value) < (int)sizeof(p) && stat(p, &st) == 0;
}

static bool staged(const struct scan *S, const char *repo, bool dataset)
{
	char p[PATH_MAX];
	const char *slash = strchr(repo, '/');
	struct stat st;

	return S->hub_cache &&
	       snprintf(p, sizeof(p), "%s/%s--%.*s%s%s/refs/main", S->hub_cache,
			dataset ? "datasets" : "models",
			slash ? (int)(slash - repo) : (int)strlen(repo), repo, slash ? "--" : "",
			slash ? slash + 1 : "") < (int)sizeof(p) &&
	       stat(p, &st) == 0;
}

static void hub_hit(struct scan *S, const char *file, struct lex *L, struct tok *t, int which,
		    unsigned line, const char *value, int depth);

/* The value the configs give name (its n bytes), into buf; false: none. */
static bool given_value(const struct scan *S, const char *name, size_t n, char *buf, size_t size)
{
	for (size_t i = S->n_vars; i-- > 0;) {
		const char *v = S->vars[i];

		if (strncmp(v, name, n) == 0 && v[n] == '=' && strlen(v + n + 1) < size) {
			snprintf(buf, size, "%s", v + n + 1);
			return true;
		}
	}
	return false;
}

/* The tokens after NAME(: the first argument, or a keyword naming the
 * repository; repo_type="dataset" anywhere in the call makes it a data set. */
static void call(struct scan *S, const char *file, struct lex *L, struct tok *t, int which,
		 unsigned line)
{
	static const char *const keys[] = { "repo_id", "pretrained_model_name_or_path", "path", NULL };
	char value[256] = "";
	bool found = false;
	int depth = L->depth;

	next(L, t);
	if (t->kind == T_NAME) {
		struct tok kw = *t;

		next(L, t);
		/* from_pretrained(init_from): its value where a config sets it */
		if ((is(t, T_OP, ",") || is(t, T_OP, ")")) &&
		    given_value(S, kw.s, kw.n, value, sizeof(value))) {
			hub_hit(S, file, L, t, which, line, value, depth);
			return;
		}
		if (!is(t, T_OP, "="))
			return;
		for (int k = 0; keys[k] && !found; k++)
			found = is(&kw, T_NAME, keys[k]);
		if (!found)
			return;
		next(L, t);
	}
	if (t->kind != T_STR || !t->plain || t->n >= sizeof(value))
		return;
	memcpy(value, t->s, t->n);
	value[t->n] = '\0';
	hub_hit(S, file, L, t, which, line, value, depth);
}

/* The rest of a Hub call whose repository is value: repo_type, the hit. */
static void hub_hit(struct scan *S, const char *file, struct lex *L, struct tok *t, int which,
		    unsigned line, const char *value, int depth)
{
	bool dataset = which == 1;

	/* repo_type="dataset" before the call's closing bracket */
	for (next(L, t); t->kind != T_END && L->depth >= depth; next(L, t))
		if (is(t, T_NAME, "repo_type")) {
			next(L, t);
			next(L, t);
			dataset = dataset || (t->kind == T_STR && t->n == 7 && !memcmp(t->s, "dataset", 7));
		}
	if (!jp_pyscan_is_hub_id(value) || existing_path(S, file, value))
		return;
	for (int k = 0; which == 1 && builders[k]; k++)
		if (strcmp(value, builders[k]) == 0)
			return;
	if (S->out->n_hits >= JP_PYSCAN_MAX_HITS) {
		S->out->more_hits = true;
		return;
	}
	struct jp_pyscan_hit *h = &S->out->hits[S->out->n_hits++];

	snprintf(h->file, sizeof(h->file), "%s", file);
	h->line = line;
	snprintf(h->call, sizeof(h->call), "%s", calls[which]);
	snprintf(h->repo, sizeof(h->repo), "%s", value);
	h->dataset = dataset;
	h->staged = staged(S, value, dataset);
}

/* ---- values, as far as the text and the configs give them ---- */

/* A name's value: the configs' (given), else the file's own assignments. */
static const char *value_of(const struct scan *S, const char *name, size_t n)
{
	for (size_t i = S->n_vars; i-- > 0;)
		if (strncmp(S->vars[i], name, n) == 0 && S->vars[i][n] == '=')
			return S->vars[i] + n + 1;
	for (size_t i = S->local.n; i-- > 0;)
		if (strlen(S->local.items[i].key) == n && strncmp(S->local.items[i].key, name, n) == 0)
			return S->local.items[i].value;
	return NULL;
}

static bool eval_expr(struct scan *S, struct lex *L, struct tok *t, char *out, size_t size,
		      int depth);

/* os.path.join(a, b, ...), its '(' at t: joined as Python does. */
static bool eval_join(struct scan *S, struct lex *L, struct tok *t, char *out, size_t size,
		      int depth)
{
	size_t len = 0;

	out[0] = '\0';
	next(L, t);
	while (!is(t, T_OP, ")")) {
		char part[512];

		if (!eval_expr(S, L, t, part, sizeof(part), depth + 1))
			return false;
		if (part[0] == '/')
			len = 0;
		if (snprintf(out + len, size - len, "%s%s", len ? "/" : "", part) >= (int)(size - len))
			return false;
		len = strlen(out);
		if (is(t, T_OP, ","))
			next(L, t);
		else if (!is(t, T_OP, ")"))
			return false;
	}
	next(L, t);
	return true;
}

/* A string, a name with a value, True/False/None, os.path.join(...). */
static bool eval_primary(struct scan *S, struct lex *L, struct tok *t, char *out, size_t size,
			 int depth)
{
	char name[128];
	const char *v;

	if (t->kind == T_STR) {
		if (!t->plain || t->n >= size)
			return false;
		memcpy(out, t->s, t->n);
		out[t->n] = '\0';
		next(L, t);
		return true;
	}
	if (t->kind != T_NAME || depth > 4)
		return false;
	dotted_name(L, t, name, sizeof(name));
	if (is(t, T_OP, "("))
		return (strcmp(name, "os.path.join") == 0 || strcmp(name, "path.join") == 0) &&
		       eval_join(S, L, t, out, size, depth);
	if (strcmp(name, "True") == 0 || strcmp(name, "False") == 0 || strcmp(name, "None") == 0)
		v = name;
	else if (strchr(name, '.') || !(v = value_of(S, name, strlen(name))))
		return false;
	if (strlen(v) >= size)
		return false;
	snprintf(out, size, "%s", v);
	return true;
}

/* primary ('+' primary)*: t moves past it. */
static bool eval_expr(struct scan *S, struct lex *L, struct tok *t, char *out, size_t size,
		      int depth)
{
	size_t len = 0;

	for (;;) {
		char part[512];

		if (!eval_primary(S, L, t, part, sizeof(part), depth) || len + strlen(part) >= size)
			return false;
		memcpy(out + len, part, strlen(part) + 1);
		len += strlen(part);
		if (!is(t, T_OP, "+"))
			return true;
		next(L, t);
	}
}

/* NAME = value at a statement's start, remembered (the lexer moves past
 * it); false, nothing moved, for anything else. */
static bool assignment(struct scan *S, struct lex *L, struct tok *t)
{
	struct lex l2 = *L;
	struct tok t2 = *t;
	char name[64], value[512], kv[600];

	if (t2.kind != T_NAME || t2.n >= sizeof(name))
		return false;
	memcpy(name, t2.s, t2.n);
	name[t2.n] = '\0';
	next(&l2, &t2);
	if (!is(&t2, T_OP, "="))
		return false;
	next(&l2, &t2);
	if (is(&t2, T_OP, "=") || !eval_expr(S, &l2, &t2, value, sizeof(value), 0) ||
	    (t2.kind != T_NL && t2.kind != T_END))
		return false;
	snprintf(kv, sizeof(kv), "%s=%s", name, value);
	jp_lint_config_override(&S->local, kv);
	*L = l2;
	*t = t2;
	return true;
}

/* ---- the uses: prompts, wandb.init, downloads, data reads ---- */

static const struct use_rule {
	const char *name;   /* the called name */
	const char *owner;  /* the name before its '.', NULL: any or none */
	const char *owner2; /* another owner */
	int kind;
	const char *shown;
} use_rules[] = {
	{ "input", "", NULL, JP_PYSCAN_PROMPT, "input" },
	{ "getpass", NULL, NULL, JP_PYSCAN_PROMPT, "getpass" },
	{ "init", "wandb", NULL, JP_PYSCAN_WANDB, "wandb.init" },
	{ "get", "requests", NULL, JP_PYSCAN_FETCH, "requests.get" },
	{ "urlretrieve", NULL, NULL, JP_PYSCAN_FETCH, "urlretrieve" },
	{ "urlopen", NULL, NULL, JP_PYSCAN_FETCH, "urlopen" },
	{ "download", "wget", NULL, JP_PYSCAN_FETCH, "wget.download" },
	{ "memmap", "np", "numpy", JP_PYSCAN_READ, "np.memmap" },
	{ "fromfile", "np", "numpy", JP_PYSCAN_READ, "np.fromfile" },
	{ "load", "np", "numpy", JP_PYSCAN_READ, "np.load" },
	{ "load_from_disk", NULL, NULL, JP_PYSCAN_READ, "load_from_disk" },
	{ "read_csv", "pd", "pandas", JP_PYSCAN_READ, "pd.read_csv" },
	{ "read_parquet", "pd", "pandas", JP_PYSCAN_READ, "pd.read_parquet" },
	{ "read_json", "pd", "pandas", JP_PYSCAN_READ, "pd.read_json" },
};

/* The rule for NAME at t, p1 the token before it and p2 the one before
 * that ("wandb" "." "init"); NULL: none. */
static const struct use_rule *use_rule_of(const struct tok *t, const struct tok *p1,
					  const struct tok *p2)
{
	bool dot = is(p1, T_OP, ".");

	if (t->kind != T_NAME || is(p1, T_NAME, "def"))
		return NULL;
	for (size_t i = 0; i < sizeof(use_rules) / sizeof(use_rules[0]); i++) {
		const struct use_rule *r = &use_rules[i];

		if (!is(t, T_NAME, r->name))
			continue;
		if (r->owner && !r->owner[0] && dot)
			return NULL; /* input(: not x.input( */
		if (r->owner && r->owner[0] &&
		    !(dot && (is(p2, T_NAME, r->owner) || (r->owner2 && is(p2, T_NAME, r->owner2)))))
			return NULL;
		return r;
	}
	return NULL;
}

/* The line's start in the text (lines from 1). */
static const char *line_start(const char *text, size_t n, unsigned line)
{
	const char *p = text, *end = text + n;

	for (unsigned k = 1; k < line && p < end; k++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			return end;
		p = nl + 1;
	}
	return p;
}

static size_t indent_of(const char *p, const char *end)
{
	size_t k = 0;

	while (p + k < end && (p[k] == ' ' || p[k] == '\t'))
		k++;
	return k;
}

/* The block around line: guarded when an if/else/def/while holds it, and
 * the first name an `if NAME` tests (u->guard). */
static void guard_of(const struct scan *S, struct jp_pyscan_use *u)
{
	const char *end = S->text + S->text_n, *p = line_start(S->text, S->text_n, u->line);
	size_t ind = indent_of(p, end);

	u->guard_value = -1;
	while (ind > 0 && p > S->text) {
		const char *q = p - 1;

		while (q > S->text && q[-1] != '\n')
			q--;
		p = q;
		size_t k = indent_of(p, end);
		const char *w = p + k;
		if (w >= end || *w == '\n' || *w == '#' || k >= ind)
			continue;
		ind = k;
		/* blocks that run (a script's __main__ block too) */
		if (strncmp(w, "for ", 4) == 0 || strncmp(w, "with ", 5) == 0 ||
		    strncmp(w, "try:", 4) == 0 || strncmp(w, "async ", 6) == 0 ||
		    (S->in_script && strncmp(w, "if __name__", 11) == 0))
			continue;
		u->guarded = true;
		if (strncmp(w, "if ", 3) == 0 || strncmp(w, "elif ", 5) == 0) {
			const char *g = w + (w[0] == 'i' ? 3 : 5);
			size_t n = 0;

			while (*g == ' ' || *g == '(')
				g++;
			while (g + n < end && (isalnum((unsigned char)g[n]) || g[n] == '_'))
				n++;
			if (n && n < sizeof(u->guard) && strncmp(g, "not", n) != 0) {
				const char *v = value_of(S, g, n);

				memcpy(u->guard, g, n);
				u->guard[n] = '\0';
				if (v)
					u->guard_value = strcmp(v, "False") == 0 || strcmp(v, "None") == 0 ||
								 strcmp(v, "0") == 0 || !v[0]
							 ? 0
							 : strcmp(v, "True") == 0 ? 1 : -1;
			}
		}
		return;
	}
}

/* A use of rule r at t (its NAME; '(' next): recorded, with its first
 * argument's value when it has one and the `if` around it. */
static void use(struct scan *S, const char *file, struct lex *L, struct tok *t,
		const struct use_rule *r)
{
	struct jp_pyscan_use *u;
	struct lex l2 = *L;
	struct tok t2 = *t;

	if (S->out->n_uses >= JP_PYSCAN_MAX_USES)
		return;
	u = &S->out->uses[S->out->n_uses];
	memset(u, 0, sizeof(*u));
	snprintf(u->file, sizeof(u->file), "%s", file);
	u->line = t->line;
	u->kind = r->kind;
	u->script = S->in_script;
	snprintf(u->call, sizeof(u->call), "%s", r->shown);
	next(&l2, &t2); /* ( */
	next(&l2, &t2);
	if ((r->kind == JP_PYSCAN_FETCH || r->kind == JP_PYSCAN_READ) &&
	    !eval_expr(S, &l2, &t2, u->arg, sizeof(u->arg), 0))
		u->arg[0] = '\0';
	if (r->kind == JP_PYSCAN_READ && u->arg[0]) {
		char p[PATH_MAX];
		const char *slash = strrchr(file, '/');
		struct stat st;

		if (u->arg[0] == '/')
			snprintf(p, sizeof(p), "%s", u->arg);
		else if (S->project)
			snprintf(p, sizeof(p), "%s/%s", S->project, u->arg);
		else
			snprintf(p, sizeof(p), "%.*s/%s", slash ? (int)(slash - file) : 0, file, u->arg);
		u->exists = stat(p, &st) == 0;
	}
	guard_of(S, u);
	S->out->n_uses++;
}

static void scan_text(struct scan *S, const char *file, const char *text, size_t n)
{
	struct lex L = { text, text + n, 1, 0 };
	struct tok t, p1 = { T_END, NULL, 0, 0, false }, p2 = p1;
	bool start = true; /* at a statement's start */
	const struct use_rule *r;

	jp_lint_config_dispose(&S->local);
	S->text = text;
	S->text_n = n;
	next(&L, &t);
	while (t.kind != T_END) {
		int which;
		/* at a file's top level: an import that surely runs */
		bool top = t.kind == T_NAME && (t.s == text || t.s[-1] == '\n');

		if (start && is(&t, T_NAME, "import")) {
			import_stmt(S, file, &L, &t, top);
		} else if (start && is(&t, T_NAME, "from")) {
			from_stmt(S, file, &L, &t, top);
		} else if ((which = call_index(&t)) >= 0) {
			unsigned line = t.line;

			next(&L, &t);
			if (is(&t, T_OP, "("))
				call(S, file, &L, &t, which, line);
			start = false;
			p1.kind = p2.kind = T_END;
			continue;
		} else if (start && assignment(S, &L, &t)) {
			/* t is at the statement's end */
		} else if ((r = use_rule_of(&t, &p1, &p2)) != NULL) {
			struct lex l2 = L;
			struct tok t2;

			next(&l2, &t2);
			if (is(&t2, T_OP, "("))
				use(S, file, &L, &t, r);
		}
		if (t.kind == T_END)
			break;
		runtime_signs(S, &L, &t, start);
		/* `try: import x`, `if x: import y` begin a statement too */
		start = t.kind == T_NL || (is(&t, T_OP, ":") && L.depth == 0);
		p2 = p1;
		p1 = t;
		next(&L, &t);
	}
	jp_lint_config_dispose(&S->local);
	S->text = NULL;
}

static char *read_head(const char *path, size_t *n)
{
	struct stat st;
	char *buf = NULL;
	ssize_t r;
	int fd;

	*n = 0;
	if (jp_input_open(&fd, &st, path, NULL) != 0)
		return NULL;
	if ((buf = malloc(JP_PYSCAN_MAX_BYTES + 1)) != NULL) {
		while (*n < JP_PYSCAN_MAX_BYTES &&
		       (r = read(fd, buf + *n, JP_PYSCAN_MAX_BYTES - *n)) > 0)
			*n += (size_t)r;
		buf[*n] = '\0';
	}
	close(fd);
	return buf;
}

void jp_pyscan_run(struct jp_pyscan_result *out, const char *const *scripts, size_t n,
		   const char *project_dir, const char *hub_cache)
{
	jp_pyscan_run_vars(out, scripts, n, project_dir, hub_cache, NULL, 0);
}

void jp_pyscan_run_vars(struct jp_pyscan_result *out, const char *const *scripts, size_t n,
			const char *project_dir, const char *hub_cache, const char *const *vars,
			size_t n_vars)
{
	struct scan S = { .out = out, .project = project_dir, .hub_cache = hub_cache, .seen = JP_STRV_INIT };

	S.vars = vars;
	S.n_vars = n_vars;
	memset(out, 0, sizeof(*out));
	S.pf = prefetch_start(n + JP_PYSCAN_MAX_FILES);
	for (size_t i = 0; i < n; i++) {
		char *norm = jp_path_normalize(scripts[i]);

		/* a script is read wherever it is; its imports only from the project */
		if (norm && !has(&S.seen, norm) && regular(norm) && jp_strv_push(&S.seen, norm) == 0)
			publish(S.pf, norm);
		free(norm);
	}
	S.n_scripts = S.seen.n;
	for (; S.at < S.seen.n; S.at++) {
		size_t len = 0;
		char *text = take(S.pf, S.at, S.seen.v[S.at], &len);

		if (!text)
			continue;
		out->n_files++;
		S.in_script = S.at < S.n_scripts;
		scan_text(&S, S.seen.v[S.at], text, len);
		free(text);
	}
	prefetch_stop(S.pf);
	jp_strv_dispose(&S.seen);
	listings_free(&S);
}

void jp_pyscan_text(struct jp_pyscan_result *out, const char *file, const char *text, size_t n)
{
	struct scan S = { .out = out, .seen = JP_STRV_INIT };

	memset(out, 0, sizeof(*out));
	scan_text(&S, file, text, n);
	jp_strv_dispose(&S.seen);
	listings_free(&S);
}
