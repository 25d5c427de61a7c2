/* Step 3, Data: zero or more data sources in a list with add/delete; the
 * selected source's fields below it. Accepting the step starts a quick look
 * at every source in the background; the list shows what it found, and a
 * note warns about archives that would be unpacked while GPUs wait. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobprep/i18n.h"
#include "jobprep/units.h"
#include "tui/draw.h"
#include "tui/utf8.h"
#include "tui/wizard.h"

static char *get(struct jp_wizard *w, const char *fmt, size_t i)
{
	char key[64], *v = NULL;

	snprintf(key, sizeof(key), fmt, i);
	if (jp_flow_get(&v, w->flow, key, NULL) < 0)
		return NULL;
	return v;
}

static void draw_source(void *arg, const char *list_key, size_t i, int y, int x,
			int width, bool selected)
{
	struct jp_wizard *w = arg;
	const struct jp_manifest *m = jp_flow_manifest(w->flow);
	const struct jp_glyphs *g = jp_term_glyphs();
	enum jp_style st = selected ? JP_STYLE_SELECTED : JP_STYLE_NORMAL;
	char num[24], right[96], a[32], b[32], mark[32], *path, *kind;
	const char *kname, *ro;
	enum jp_check_status status = JP_CHECK_PASS;
	int rw, used, pathw;

	(void)list_key;
	path = get(w, "data[%zu].path", i);
	kind = get(w, "data[%zu].kind", i);
	if (i < w->form.n_items)
		status = w->form.item_status[i];

	/* The kind and "ro" as the list shows them (translated); a source that
	 * is not read-only gets blanks as wide as the mark, so the columns
	 * after it stay put. */
	kname = !kind || !kind[0] ? "" : strcmp(kind, "public") == 0 ? _("public") : _("team");
	ro = _("ro");
	if (m && i < m->n_data && m->data[i].read_only)
		snprintf(mark, sizeof(mark), " %s", ro);
	else
		snprintf(mark, sizeof(mark), "%*s", jp_utf8_swidth(ro) + 1, "");
	snprintf(num, sizeof(num), "%2zu  ", i + 1);
	if (jp_wizard_find_running(w, JP_ACTION_SCAN, i))
		snprintf(right, sizeof(right), "%s  %s", _("scanning..."), "");
	else if (m && i < m->n_data && m->data[i].has_stats)
		snprintf(right, sizeof(right), "%s%s  %8s  %9s ", kname, mark,
			 jp_units_format_bytes(a, sizeof(a), m->data[i].stats.bytes),
			 jp_fmt_count(b, sizeof(b), m->data[i].stats.files));
	else
		snprintf(right, sizeof(right), "%s%s ", kname, mark);
	rw = jp_utf8_swidth(right) + 2;
	used = jp_draw_text(y, x, width, st, num);
	pathw = width - used - rw - 1;
	if (pathw < 8) {
		pathw = width - used - 3;
		right[0] = '\0';
	}
	jp_draw_text_tail(y, x + used, pathw, st, path && path[0] ? path : _("(no path yet)"));
	if (right[0])
		jp_draw_text(y, x + width - rw, rw - 2, st, right);
	jp_draw_text(y, x + width - 2, 2,
		     status == JP_CHECK_FAIL ? JP_STYLE_FAIL
		     : status == JP_CHECK_WARN ? JP_STYLE_WARN : JP_STYLE_OK,
		     status == JP_CHECK_FAIL ? g->fail : status == JP_CHECK_WARN ? g->warn : g->ok);
	free(path);
	free(kind);
}

/* The archives found by the scans: unpack before submitting. */
static void update_note(struct jp_wizard *w)
{
	const struct jp_manifest *m = jp_flow_manifest(w->flow);
	char note[512];
	size_t i;

	free(w->form.note);
	w->form.note = NULL;
	for (i = 0; m && i < m->n_data; i++) {
		if (!m->data[i].has_stats || m->data[i].stats.archives == 0)
			continue;
		snprintf(note, sizeof(note),
			 _("%llu archive(s) under %s: unpack them before submitting, not in the "
			   "job's first step while the GPUs wait."),
			 (unsigned long long)m->data[i].stats.archives,
			 m->data[i].name ? m->data[i].name : m->data[i].path);
		w->form.note = strdup(note);
		w->form.note_status = JP_CHECK_WARN;
		return;
	}
}

static void data_enter(struct jp_wizard *w)
{
	w->form.draw_item = draw_source;
	w->form.item_arg = w;
	update_note(w);
}

static void data_draw(struct jp_wizard *w, int y, int x, int h, int width)
{
	update_note(w);
	jp_form_draw(&w->form, y, x, h, width);
}

static void data_accepted(struct jp_wizard *w)
{
	jp_wizard_start_pending(w, 1u << JP_ACTION_SCAN);
}

static void data_refresh(struct jp_wizard *w)
{
	update_note(w);
	w->rebuild = true;
}

const struct jp_step_ops jp_step_data_ops = {
	.step = JP_STEP_DATA,
	.help = N_("Prepare the data before the job: team data goes onto shared storage "
		   "beforehand; the platform's public models and data sets are mounted "
		   "read-only under the public data root (choose \"public data\" when creating "
		   "the job). Do not make downloading, unpacking or format conversion the job's "
		   "first step: the GPUs are already allocated and would wait. Every Worker "
		   "must use the same data path. Add a source with a (or Insert), delete one "
		   "with d; its fields are below the list."),
	.enter = data_enter,
	.draw = data_draw,
	.accepted = data_accepted,
	.work_done = data_refresh,
};
