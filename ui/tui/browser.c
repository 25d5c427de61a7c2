/* The directory browser: walk down and up, pick a directory. */
#include "config.h"

#include <curses.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "jobprep/i18n.h"
#include "jobprep/path.h"
#include "jobprep/probe.h"
#include "tui/draw.h"
#include "tui/widgets.h"

struct browser {
	char *dir;      /* absolute, no trailing '/' except "/" */
	char **names;   /* subdirectories, sorted; [0] is ".." unless at "/" */
	size_t n;
	struct jp_listbox lb;
	char error[160];
};

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void clear_names(struct browser *b)
{
	size_t i;

	for (i = 0; i < b->n; i++)
		free(b->names[i]);
	free(b->names);
	b->names = NULL;
	b->n = 0;
}

/* b->names: ".." (but at "/"), then the subdirectories the listing found,
 * taken from it. */
static int take_names(struct browser *b, struct jp_probe_listing *l, bool up)
{
	if (!(b->names = calloc(l->n + 1, sizeof(*b->names))))
		return -1;
	if (up) {
		if (!(b->names[0] = strdup("..")))
			return -1;
		b->n = 1;
	}
	for (size_t i = 0; i < l->n; i++) {
		b->names[b->n++] = l->v[i].name;
		l->v[i].name = NULL;
	}
	return 0;
}

/* The listing runs in bounded time (a hung mount must not freeze the keys):
 * when it does not answer, ".." is still a way out. */
static int load(struct browser *b)
{
	struct jp_probe_listing l = JP_PROBE_LISTING_INIT;
	bool up = strcmp(b->dir, "/") != 0;
	int rc;

	clear_names(b);
	b->error[0] = '\0';
	rc = jp_probe_list(&l, b->dir, NULL, JP_PROBE_LIST_DIRS,
			   jp_probe_interactive_timeout_ms(), NULL);
	if (rc == JP_ETIMEOUT)
		snprintf(b->error, sizeof(b->error), "%s",
			 _("no answer in time: the storage seems hung"));
	else if (rc < 0)
		return -1;
	else if (l.errnum)
		snprintf(b->error, sizeof(b->error), "%s", strerror(l.errnum));
	rc = take_names(b, &l, up);
	jp_probe_listing_dispose(&l);
	if (rc < 0)
		return -1;
	if (b->n > 1 && up)
		qsort(b->names + 1, b->n - 1, sizeof(*b->names), cmp_name);
	else if (b->n > 0 && !up)
		qsort(b->names, b->n, sizeof(*b->names), cmp_name);
	b->lb.n = b->n;
	/* on the first folder, not on "..": going down is what people do */
	b->lb.cursor = b->n > 1 && up ? 1 : 0;
	b->lb.top = 0;
	return 0;
}

static void draw_name(void *arg, size_t i, int y, int x, int width, bool selected)
{
	struct browser *b = arg;
	char name[512];

	snprintf(name, sizeof(name), "%s/", b->names[i]);
	jp_draw_text(y, x + 1, width - 1, selected ? JP_STYLE_SELECTED : JP_STYLE_NORMAL,
		     name);
}

static void draw_browser(void *arg)
{
	struct browser *b = arg;
	int w = 72, h = LINES - 4, y, x;

	jp_ui_center(&y, &x, &h, &w);
	jp_draw_box(y, x, h, w, _("Choose a directory"));
	jp_draw_text_tail(y + 1, x + 2, w - 4, JP_STYLE_TITLE, b->dir);
	if (b->error[0])
		jp_draw_text(y + 2, x + 2, w - 4, JP_STYLE_FAIL, b->error);
	jp_listbox_draw(&b->lb, y + 3, x + 2, w - 4, h - 5, true, draw_name, b);
	jp_draw_text(y + h - 2, x + 2, w - 4, JP_STYLE_DIM,
		     _("Enter open  Backspace up  Space/s choose this directory  Esc cancel"));
}

static void go_up(struct browser *b)
{
	char *slash = strrchr(b->dir, '/');

	if (!slash || strcmp(b->dir, "/") == 0)
		return;
	if (slash == b->dir)
		slash[1] = '\0';
	else
		*slash = '\0';
	load(b);
}

/* Cut dir back to the nearest directory that exists (and answers in time:
 * jobprep/probe.h); no trailing '/' except for "/". */
static void nearest_dir(char *dir)
{
	struct stat st;
	int errnum = 0;

	while (strcmp(dir, "/") != 0 &&
	       (jp_probe_stat(&st, &errnum, dir, 0, jp_probe_interactive_timeout_ms(), NULL) != 0 ||
		errnum || !S_ISDIR(st.st_mode))) {
		char *slash = strrchr(dir, '/');

		if (slash == dir)
			slash[1] = '\0';
		else
			*slash = '\0';
	}
	if (strlen(dir) > 1 && dir[strlen(dir) - 1] == '/')
		dir[strlen(dir) - 1] = '\0';
}

int jp_browse_dir(const struct jp_ui *ui, const char *start, char **out)
{
	struct browser b;
	struct jp_key key;
	bool redraw = true;
	int rc = -1;

	memset(&b, 0, sizeof(b));
	*out = NULL;
	b.lb.add_label = "";
	b.dir = strdup(start && start[0] == '/' ? start : "/");
	if (!b.dir)
		return -1;
	nearest_dir(b.dir);
	load(&b);

	while (jp_ui_next_key(ui, &key, draw_browser, &b, &redraw)) {
		redraw = true;
		if (!key.fn && (key.code == 27 || key.code == JP_KEY_CTRL('c'))) {
			rc = 0;
			break;
		}
		if (!key.fn && (key.code == ' ' || key.code == 's')) {
			*out = strdup(b.dir);
			rc = *out ? 1 : -1;
			break;
		}
		if ((key.fn && (key.code == KEY_BACKSPACE || key.code == KEY_LEFT)) ||
		    (!key.fn && (key.code == 127 || key.code == JP_KEY_CTRL('h')))) {
			go_up(&b);
			continue;
		}
		if ((key.fn && (key.code == KEY_ENTER || key.code == KEY_RIGHT)) && b.n) {
			const char *name = b.names[b.lb.cursor < b.n ? b.lb.cursor : 0];
			char *next;

			if (strcmp(name, "..") == 0) {
				go_up(&b);
				continue;
			}
			next = jp_path_join(b.dir, name);
			if (next) {
				free(b.dir);
				b.dir = next;
				load(&b);
			}
			continue;
		}
		if (key.fn && key.code == KEY_UP && b.lb.cursor > 0)
			b.lb.cursor--;
		else if (key.fn && key.code == KEY_DOWN && b.lb.cursor + 1 < b.n)
			b.lb.cursor++;
		else if (key.fn && key.code == KEY_PPAGE)
			b.lb.cursor = b.lb.cursor > 10 ? b.lb.cursor - 10 : 0;
		else if (key.fn && key.code == KEY_NPAGE && b.n)
			b.lb.cursor = b.lb.cursor + 10 < b.n ? b.lb.cursor + 10 : b.n - 1;
	}
	if (jp_term_signal())
		rc = -1;
	clear_names(&b);
	free(b.dir);
	return rc;
}
