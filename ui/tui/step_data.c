/* Step 3, Data: zero or more data sources in a list with add/delete; the
 * selected source's fields below it. Accepting the step starts a quick look
 * at every source in the background; the list shows what it found (files,
 * bytes, archives) beside each source, and a note warns about archives that
 * would be unpacked while GPUs wait. Enter on a path that is on this
 * machine's own disk, an archive, or a URL offers to stage it (copy,
 * unpack, download) to {shared}/datasets/{name} in the background, as the
 * clone runs; Review waits for it. Enter on a folder on shared storage that
 * holds archives offers to unpack them there, each into the folder beside
 * it (train.tar -> train/). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobprep/i18n.h"
#include "jobprep/stage.h"
#include "jobprep/units.h"
#include "jobprep/url.h"
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

/* What the scan found, beside the source: bytes, files, archives. */
static void scan_result(char *out, size_t size, const char *kname, const char *mark,
			const struct jp_data_stats *st)
{
	char a[32], b[32], c[32], files[64], archives[64];

	jp_units_format_bytes(a, sizeof(a), st->bytes);
	/* TRANSLATORS: a data source's file count beside it ("1,204 files") */
	snprintf(files, sizeof(files), P_("%s file", "%s files", st->files),
		 jp_fmt_count(b, sizeof(b), st->files));
	/* TRANSLATORS: archives found in a data source ("2 archives") */
	snprintf(archives, sizeof(archives), P_("%s archive", "%s archives", st->archives),
		 jp_fmt_count(c, sizeof(c), st->archives));
	if (snprintf(out, size, "%s%s  %8s  %11s  %s ", kname, mark, a, files,
		     st->archives ? archives : "") >= (int)size)
		out[size - 1] = '\0'; /* cut: the row is narrower anyway */
}

static void draw_source(void *arg, const char *list_key, size_t i, int y, int x,
			int width, bool selected)
{
	struct jp_wizard *w = arg;
	const struct jp_manifest *m = jp_flow_manifest(w->flow);
	const struct jp_glyphs *g = jp_term_glyphs();
	enum jp_style st = selected ? JP_STYLE_SELECTED : JP_STYLE_NORMAL;
	char num[24], right[160], mark[32], *path, *kind;
	const char *kname, *ro;
	enum jp_check_status status = JP_CHECK_PASS;
	int rw, used, pathw;

	(void)list_key;
	snprintf(num, sizeof(num), "data[%zu].path", i);
	path = jp_form_shown_value(&w->form, num); /* as it is typed */
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
	if (jp_wizard_find_running(w, JP_ACTION_STAGE, i))
		snprintf(right, sizeof(right), "%s  %s", _("staging..."), "");
	else if (jp_wizard_find_running(w, JP_ACTION_SCAN, i))
		snprintf(right, sizeof(right), "%s  %s", _("scanning..."), "");
	else if (m && i < m->n_data && m->data[i].has_stats)
		scan_result(right, sizeof(right), kname, mark, &m->data[i].stats);
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
	char note[768], head[512];
	size_t i;

	free(w->form.note);
	w->form.note = NULL;
	for (i = 0; m && i < m->n_data; i++) {
		const char *name = m->data[i].name ? m->data[i].name : m->data[i].path;
		unsigned long long n = m->data[i].stats.archives;

		if (!m->data[i].has_stats || n == 0)
			continue;
		free(w->form.note);
		/* asked to unpack them there: done by the staging, before the job */
		if (m->data[i].unpack_archives) {
			snprintf(note, sizeof(note),
				 _("%llu archive(s) under %s: unpacked before the job, each into "
				   "the folder beside it."),
				 n, name);
			w->form.note = strdup(note);
			w->form.note_status = JP_CHECK_PASS;
			continue;
		}
		snprintf(head, sizeof(head),
			 _("%llu archive(s) under %s: unpack them before submitting, not in the "
			   "job's first step while the GPUs wait."),
			 n, name);
		snprintf(note, sizeof(note), "%s %s", head,
			 _("Enter on its path offers to unpack them there."));
		w->form.note = strdup(note);
		w->form.note_status = JP_CHECK_WARN;
		return;
	}
}

/* The path text the person said "not now" to, so Enter on it goes on. */
static char *declined;

/* The index of a focused "data[N].path" row, or -1. */
static long focused_path(struct jp_wizard *w, const char **text)
{
	struct jp_form_row *r = jp_form_focused(&w->form);
	unsigned long i;
	int end = 0;

	if (!r || !r->key || sscanf(r->key, "data[%lu].path%n", &i, &end) != 1 || r->key[end])
		return -1;
	*text = jp_le_text(&r->le);
	return (long)i;
}

static const char *offer_question(const struct jp_stage_offer *off)
{
	switch (off->kind) {
	case JP_STAGE_OFFER_COPY:
		return _("%s is on this machine's own disk: the job's Workers cannot see it. Copy "
			 "it to %s now, in the background, and use that?");
	case JP_STAGE_OFFER_UNPACK:
		return _("%s is an archive: the job would unpack it while the GPUs wait. Unpack "
			 "it into %s now, in the background, and use that?");
	case JP_STAGE_OFFER_DOWNLOAD:
		if (off->unpack)
			return _("%s is the URL of an archive: the job must not download its data. "
				 "Download it and unpack it into %s now, in the background, and use "
				 "that?");
		return _("%s is a URL: the job must not download its data. Download it to %s "
			 "now, in the background, and use that?");
	case JP_STAGE_OFFER_WITHIN:
	case JP_STAGE_OFFER_NONE:
		break;
	}
	return "%s %s";
}

/* "train.tar, val.tar.gz" and "train/, val/": the first few archives of a
 * WITHIN offer, named from the folder, and the folders they go to. */
static void within_names(char *names, char *dirs, size_t size, const struct jp_stage_offer *off)
{
	size_t dl = strlen(off->dest), k;

	names[0] = dirs[0] = '\0';
	for (k = 0; k < off->archives.n && k < 3; k++) {
		const char *a = off->archives.v[k];
		char *beside = jp_stage_beside(a);
		const char *rel = strncmp(a, off->dest, dl) == 0 && a[dl] == '/' ? a + dl + 1 : a;

		snprintf(names + strlen(names), size - strlen(names), "%s%s", k ? ", " : "", rel);
		if (beside)
			snprintf(dirs + strlen(dirs), size - strlen(dirs), "%s%s/", k ? ", " : "",
				 strlen(beside) > dl ? beside + dl + 1 : beside);
		free(beside);
	}
	if (off->archives.n > 3 || !off->complete) {
		snprintf(names + strlen(names), size - strlen(names), ", ...");
		snprintf(dirs + strlen(dirs), size - strlen(dirs), ", ...");
	}
}

/* The question of a WITHIN offer. */
static void within_question(char *q, size_t size, const struct jp_stage_offer *off)
{
	char names[512], dirs[512], count[32], bytes[32], what[96];

	within_names(names, dirs, sizeof(names), off);
	jp_fmt_count(count, sizeof(count), off->archives.n);
	/* TRANSLATORS: archives found in a data set ("2 archives") */
	snprintf(what, sizeof(what), P_("%s%s archive", "%s%s archives", off->archives.n),
		 off->complete ? "" : _("at least "), count);
	jp_units_format_bytes(bytes, sizeof(bytes), off->bytes);
	snprintf(q, size,
		 _("%s holds %s (%s, %s): the job would unpack them while the GPUs wait. Unpack "
		   "each into the folder beside it (%s) now, in the background? The archives "
		   "stay."),
		 off->dest, what, bytes, names, dirs);
}

/* Enter on a data path that should be staged first: offer it. */
static int data_key(struct jp_wizard *w, enum jp_act act, const struct jp_key *key)
{
	struct jp_stage_offer off = JP_STAGE_OFFER_INIT;
	struct jp_error err = JP_ERROR_INIT;
	const char *text = NULL;
	char q[1024], *from = NULL, *shown;
	long i;
	int rc;

	(void)key;
	if (act != JP_ACT_ACCEPT || (i = focused_path(w, &text)) < 0 || !text[0] ||
	    (declined && strcmp(declined, text) == 0))
		return JP_EV_IGNORED;
	if (jp_flow_stage_offer(&off, w->flow, (size_t)i, text, &err) < 0 ||
	    off.kind == JP_STAGE_OFFER_NONE || !(from = strdup(text))) {
		jp_stage_offer_dispose(&off);
		jp_error_dispose(&err);
		return JP_EV_IGNORED;
	}
	/* a token typed in the URL is not shown again */
	shown = jp_url_redact(from);
	if (off.kind == JP_STAGE_OFFER_WITHIN)
		within_question(q, sizeof(q), &off);
	else
		snprintf(q, sizeof(q), offer_question(&off), shown ? shown : "URL", off.dest);
	free(shown);
	w->modal_depth++;
	rc = jp_confirm(&w->ui, _("Stage the data first?"), q,
			off.kind == JP_STAGE_OFFER_COPY	      ? _("Copy")
			: off.kind == JP_STAGE_OFFER_DOWNLOAD ? _("Download")
							      : _("Unpack"),
			_("Not now"), true);
	w->modal_depth--;
	w->redraw = true;
	if (rc != 1) {
		free(declined);
		declined = from;
		jp_stage_offer_dispose(&off);
		return JP_EV_IGNORED;
	}
	if (jp_flow_stage_take(w->flow, (size_t)i, off.kind == JP_STAGE_OFFER_WITHIN ? NULL : from,
			       off.dest, &err) < 0) {
		jp_wizard_status(w, JP_CHECK_FAIL, "%s", jp_error_message(&err));
	} else {
		struct jp_form_row *r = jp_form_focused(&w->form);

		/* the field shows where the data goes now */
		if (r)
			r->edited = r->rejected = false;
		w->form.changed = true;
		jp_form_build(&w->form);
		if (jp_wizard_start(w, JP_ACTION_STAGE, (size_t)i, false) == 0)
			jp_wizard_news(w, JP_CHECK_PASS,
					 off.kind == JP_STAGE_OFFER_WITHIN
						 ? _("unpacking the archives %s holds in the background")
						 : _("staging onto %s in the background"),
					 off.dest);
	}
	explicit_bzero(from, strlen(from));
	free(from);
	jp_stage_offer_dispose(&off);
	jp_error_dispose(&err);
	return JP_EV_HANDLED | JP_EV_REDRAW;
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
	jp_wizard_start_pending(w, (1u << JP_ACTION_STAGE) | (1u << JP_ACTION_SCAN));
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
	.key = data_key,
	.draw = data_draw,
	.accepted = data_accepted,
	.work_done = data_refresh,
};
