# Translations: ui/po/LANG.po -> ui/po/LANG.mo (msgfmt -c), installed as
# $(localedir)/LANG/LC_MESSAGES/jobprep.mo. A copy in the build tree's
# ui/po/locale/ lets ./jobprep show them before any install (ui/main.c).
# `make update-po` (maintainers) re-extracts jobprep.pot and merges each .po.
# Adding a language: its .po in PO_FILES and its .mo in PO_MOFILES.
PO_LINGUAS = zh_CN
PO_FILES = ui/po/zh_CN.po
EXTRA_DIST += ui/po/POTFILES ui/po/jobprep.pot ui/po/mkpot.sh ui/po/update-po.sh $(PO_FILES)
CLEANFILES += ui/po/zh_CN.mo ui/po/locale/stamp

if USE_NLS
PO_MOFILES = ui/po/zh_CN.mo
PO_BUILDTREE = ui/po/locale/stamp
else
PO_MOFILES =
PO_BUILDTREE =
endif

.po.mo:
	@$(MKDIR_P) $(@D)
	$(AM_V_GEN)$(MSGFMT) -c -o $@ $<

# The build tree's catalogues, laid out as bindtextdomain expects them.
ui/po/locale/stamp: $(PO_MOFILES)
	$(AM_V_GEN)for mo in $(PO_MOFILES); do \
		lang=`basename $$mo .mo`; \
		$(MKDIR_P) ui/po/locale/$$lang/LC_MESSAGES && \
		cp $$mo ui/po/locale/$$lang/LC_MESSAGES/$(PACKAGE).mo || exit 1; \
	done; touch $@

all-local: $(PO_MOFILES) $(PO_BUILDTREE)

install-data-local: $(PO_MOFILES)
	@for mo in $(PO_MOFILES); do \
		lang=`basename $$mo .mo`; \
		dir="$(DESTDIR)$(localedir)/$$lang/LC_MESSAGES"; \
		echo " $(MKDIR_P) '$$dir'"; $(MKDIR_P) "$$dir" || exit 1; \
		echo " $(INSTALL_DATA) $$mo '$$dir/$(PACKAGE).mo'"; \
		$(INSTALL_DATA) $$mo "$$dir/$(PACKAGE).mo" || exit 1; \
	done

uninstall-local:
	@for lang in $(PO_LINGUAS); do \
		f="$(DESTDIR)$(localedir)/$$lang/LC_MESSAGES/$(PACKAGE).mo"; \
		echo " rm -f '$$f'"; rm -f "$$f"; \
	done

clean-local:
	-rm -rf ui/po/locale

# Maintainers: the template from the sources in POTFILES, then each
# translation merged with it and its dead entries dropped (new strings arrive
# untranslated, changed ones fuzzy: translate them, then
# tests/integration/po_complete.sh passes); ui/po/update-po.sh --check (CI's
# "po" analyser, tests/analyse.sh) fails while they are out of step.
XGETTEXT = xgettext
MSGMERGE = msgmerge
update-po:
	XGETTEXT='$(XGETTEXT)' MSGMERGE='$(MSGMERGE)' $(SHELL) $(srcdir)/ui/po/update-po.sh $(srcdir)
.PHONY: update-po
