#!/bin/sh
# jobprep clone over git:// (a real git daemon on loopback): by the remote's
# HEAD, branch, annotated and lightweight tag, full and short commit id; what
# is recorded; submodules, recursively; an existing empty directory; and
# `jobprep repo` on the result.
set -u
. "$TOP_SRCDIR/tests/lib/gitserv.sh"
. "$TOP_SRCDIR/tests/lib/unpriv.sh"
T=$(mktemp -d "${TMPDIR:-/tmp}/jobprep-git-refs.XXXXXX") || exit 99
NB=
trap 'jp_gitd_stop "$T"; rm -rf "$T"; [ -z "$NB" ] || rm -rf "$NB"' EXIT
jp_test_env "$T"
J=$JOBPREP

jp_git_repo "$T/srv/r.git" 20 || exit 99
# Submodules: super -> s (relative URL) -> t, pinned to specific commits.
jp_git_repo "$T/srv/t.git" || exit 99
git clone -q "$T/srv/t.git" "$T/w-s" && mkdir -p "$T/w-s/lib" &&
	git -C "$T/w-s" -c protocol.file.allow=always submodule -q add ../t.git inner &&
	git $JP_GIT_ID -C "$T/w-s" commit -qm "add inner" &&
	git clone -q --bare "$T/w-s" "$T/srv/s.git" || exit 99
git clone -q "$T/srv/r.git" "$T/w-super" &&
	git -C "$T/w-super" -c protocol.file.allow=always submodule -q add ../s.git sub &&
	git $JP_GIT_ID -C "$T/w-super" commit -qm "add sub" &&
	git clone -q --bare "$T/w-super" "$T/srv/super.git" || exit 99
# A superproject whose submodule points at a path on this machine.
git clone -q "$T/srv/r.git" "$T/w-evil" &&
	git -C "$T/w-evil" -c protocol.file.allow=always submodule -q add "$T/srv/t.git" local &&
	git $JP_GIT_ID -C "$T/w-evil" commit -qm "add a local submodule" &&
	git clone -q --bare "$T/w-evil" "$T/srv/evil.git" || exit 99
rm -rf "$T/w-s" "$T/w-super" "$T/w-evil"
jp_gitd_start "$T" "$T/srv" || exit 99
U=git://127.0.0.1:$JP_GITD_PORT
rev() { git --git-dir="$T/srv/$1" rev-parse "$2"; }

# --- default: the remote's HEAD
"$J" clone --json "$U/r.git" "$T/c-head" >"$T/out.json" 2>"$T/err"
jp_expect clone_default_exits_0 [ $? = 0 ]
jp_expect clone_default_records_the_remote_head_commit \
	[ "$(jp_json_get "$T/out.json" commit)" = "$(rev r.git main)" ]
jp_expect clone_default_checks_out_branch_main \
	[ "$(git -C "$T/c-head" symbolic-ref --short HEAD 2>/dev/null)" = main ]
jp_expect clone_default_tracks_origin_main \
	[ "$(git -C "$T/c-head" rev-parse --abbrev-ref 'main@{upstream}' 2>/dev/null)" = origin/main ]
jp_expect clone_makes_scripts_executable [ -x "$T/c-head/scripts/train.sh" ]
jp_expect clone_keeps_other_files_unexecutable [ ! -x "$T/c-head/src/train.py" ]
jp_expect clone_keeps_symlinks [ "$(readlink "$T/c-head/link.py")" = src/train.py ]
jp_expect clone_records_the_url_in_git_config \
	[ "$(git -C "$T/c-head" config remote.origin.url)" = "$U/r.git" ]
jp_expect clone_work_tree_matches_the_commit \
	[ -z "$(git -C "$T/c-head" -c core.fileMode=false status --porcelain)" ]
jp_expect clone_leaves_no_temporaries jp_no_temporaries "$T"

# --- a branch
"$J" clone --json --ref dev "$U/r.git" "$T/c-dev" >"$T/out.json" 2>"$T/err"
jp_expect clone_by_branch_records_its_commit \
	[ "$(jp_json_get "$T/out.json" commit)" = "$(rev r.git dev)" ]
jp_expect clone_by_branch_checks_it_out \
	[ "$(git -C "$T/c-dev" symbolic-ref --short HEAD 2>/dev/null)" = dev ]
jp_expect clone_by_branch_keeps_no_other_local_branch \
	[ "$(git -C "$T/c-dev" for-each-ref --format='%(refname)' refs/heads)" = refs/heads/dev ]
jp_expect clone_by_branch_has_the_branch_file [ -f "$T/c-dev/DEV" ]

# --- an annotated tag, a lightweight tag
"$J" clone --json --ref v1 "$U/r.git" "$T/c-v1" >"$T/out.json" 2>"$T/err"
jp_expect clone_by_annotated_tag_records_the_tagged_commit \
	[ "$(jp_json_get "$T/out.json" commit)" = "$(rev r.git 'v1^{commit}')" ]
jp_expect clone_by_tag_says_tag [ "$(jp_json_get "$T/out.json" ref_kind)" = tag ]
jp_expect clone_by_tag_detaches_head \
	[ "$(git -C "$T/c-v1" rev-parse --abbrev-ref HEAD)" = HEAD ]
"$J" clone --json --ref light "$U/r.git" "$T/c-light" >"$T/out.json" 2>"$T/err"
jp_expect clone_by_lightweight_tag_records_its_commit \
	[ "$(jp_json_get "$T/out.json" commit)" = "$(rev r.git light)" ]

# --- commit ids
first=$(rev r.git 'main~1')
"$J" clone --json --ref "$first" "$U/r.git" "$T/c-sha" >"$T/out.json" 2>"$T/err"
jp_expect clone_by_full_commit_id_checks_it_out \
	[ "$(git -C "$T/c-sha" rev-parse HEAD 2>/dev/null)" = "$first" ]
jp_expect clone_by_commit_says_commit [ "$(jp_json_get "$T/out.json" ref_kind)" = commit ]
short=$(printf '%s' "$first" | cut -c1-7)
"$J" clone --json --ref "$short" "$U/r.git" "$T/c-short" >"$T/out.json" 2>"$T/err"
jp_expect clone_by_short_commit_id_records_the_full_id \
	[ "$(jp_json_get "$T/out.json" commit)" = "$first" ]

# --- a ref that does not exist: an error, and nothing left
"$J" clone --ref no-such-branch "$U/r.git" "$T/c-none" >/dev/null 2>"$T/err"
jp_expect clone_of_unknown_ref_fails [ $? = 1 ]
jp_expect clone_of_unknown_ref_names_it grep -q "no-such-branch" "$T/err"
jp_expect clone_of_unknown_ref_leaves_no_target [ ! -e "$T/c-none" ]
jp_expect clone_of_unknown_ref_leaves_no_temporary jp_no_temporaries "$T"

# --- missing parents are created, and removed again on failure
"$J" clone --ref nope "$U/r.git" "$T/new/deeper/c" >/dev/null 2>&1
jp_expect failed_clone_removes_the_parents_it_created [ ! -e "$T/new" ]
"$J" clone "$U/r.git" "$T/new/deeper/c" >/dev/null 2>&1
jp_expect clone_creates_missing_parents [ -f "$T/new/deeper/c/README" ]

# --- an existing empty directory keeps its mode
mkdir "$T/c-empty" && chmod 2770 "$T/c-empty"
"$J" clone "$U/r.git" "$T/c-empty" >/dev/null 2>"$T/err"
jp_expect clone_into_empty_dir_succeeds [ -f "$T/c-empty/README" ]
jp_expect clone_into_empty_dir_keeps_its_mode [ "$(stat -c %a "$T/c-empty")" = 2770 ]

# --- a directory prepared for us in a parent we may not write in (as nobody):
# the clone is built inside it, then moved into place entry by entry. nobody
# runs a copy of jobprep in a folder of its own it can reach ($T and the
# build tree may be under a 0700 folder).
if ! why=$(jp_unpriv_unavailable) && NB=$(jp_unpriv_dir) && jp_unpriv_jobprep "$NB"; then
	mkdir -p "$NB/locked/proj"
	chown nobody "$NB/locked/proj"
	jp_unpriv_run "$NB" "$JP_UNPRIV_JOBPREP" clone "$U/r.git" "$NB/locked/proj" \
		>/dev/null 2>"$T/err"
	jp_expect clone_into_prepared_dir_of_unwritable_parent_succeeds [ -f "$NB/locked/proj/README" ]
	jp_expect clone_into_prepared_dir_keeps_its_owner [ "$(stat -c %U "$NB/locked/proj")" = nobody ]
	jp_expect clone_into_prepared_dir_leaves_no_temporary \
		[ -z "$(ls -A "$NB/locked/proj" | grep jobprep-tmp)" ]
	jp_expect clone_into_prepared_dir_is_a_working_repository \
		[ "$(git -C "$NB/locked/proj" -c safe.directory='*' rev-parse HEAD)" = "$(rev r.git main)" ]
	rm -rf "$NB"
	NB=
else
	jp_skip clone_into_prepared_dir_of_unwritable_parent "${why:-no folder nobody can reach}"
fi

# --- an empty mount point (a volume mounted for the project): built inside it
if why=$(jp_mountns_unavailable); then
	jp_skip clone_into_mount_point "$why"
else
	mkdir -p "$T/mp"
	unshare -m --propagation private sh -c '
		mount -t tmpfs jobprep-mp "$1" || exit 99
		"$2" clone "$3" "$1" >/dev/null 2>"$4/mp.err"
		echo $? >"$4/mp.rc"
		ls -A "$1" >"$4/mp.left"
		git -C "$1" rev-parse HEAD >"$4/mp.head" 2>&1' sh "$T/mp" "$J" "$U/r.git" "$T"
	jp_expect clone_into_mount_point_succeeds [ "$(cat "$T/mp.rc")" = 0 ]
	jp_expect clone_into_mount_point_checks_out_the_commit [ "$(cat "$T/mp.head")" = "$(rev r.git main)" ]
	jp_expect clone_into_mount_point_leaves_no_temporary \
		sh -c '[ -f "$1" ] && ! grep -q jobprep-tmp "$1"' sh "$T/mp.left"
fi

# --- submodules, recursively, with relative links that survive the rename
"$J" clone --json --submodules "$U/super.git" "$T/c-super" >"$T/out.json" 2>"$T/err"
jp_expect clone_with_submodules_exits_0 [ $? = 0 ]
jp_expect clone_with_submodules_checks_out_the_pinned_commit \
	[ "$(git -C "$T/c-super/sub" rev-parse HEAD 2>/dev/null)" = \
	  "$(git --git-dir="$T/srv/super.git" rev-parse HEAD:sub)" ]
jp_expect clone_with_submodules_recurses [ -f "$T/c-super/sub/inner/README" ]
jp_expect clone_with_submodules_leaves_a_clean_tree \
	[ -z "$(git -C "$T/c-super" -c core.fileMode=false status --porcelain 2>&1)" ]
mv "$T/c-super" "$T/c-super-moved"
jp_expect submodule_links_are_relative \
	[ "$(git -C "$T/c-super-moved/sub/inner" rev-parse --show-toplevel 2>/dev/null)" = \
	  "$T/c-super-moved/sub/inner" ]
"$J" clone --submodules "$U/evil.git" "$T/c-evil" >/dev/null 2>"$T/err"
jp_expect network_clone_refuses_a_local_submodule_url grep -q "refusing its local URL" "$T/err"
jp_expect refused_local_submodule_leaves_nothing [ ! -e "$T/c-evil" ]
"$J" clone "$U/super.git" "$T/c-nosub" >/dev/null 2>&1
jp_expect clone_without_submodules_leaves_them_empty [ ! -e "$T/c-nosub/sub/README" ]

# --- jobprep repo on a clone
"$J" repo --json "$T/c-head" >"$T/repo.json" 2>"$T/err"
jp_expect repo_reports_the_commit [ "$(jp_json_get "$T/repo.json" commit)" = "$(rev r.git main)" ]
jp_expect repo_reports_the_branch [ "$(jp_json_get "$T/repo.json" branch)" = main ]
jp_expect repo_reports_the_url [ "$(jp_json_get "$T/repo.json" url)" = "$U/r.git" ]
jp_expect repo_of_fresh_clone_is_clean [ "$(jp_json_get "$T/repo.json" dirty)" = 0 ]
jp_expect repo_does_not_count_our_exec_bit [ "$(jp_json_get "$T/repo.json" exec_only)" = 1 ]
jp_expect repo_of_fresh_clone_has_nothing_unpushed [ "$(jp_json_get "$T/repo.json" unpushed)" = 0 ]
echo change >>"$T/c-head/README"
echo new >"$T/c-head/untracked.txt"
"$J" repo --json "$T/c-head" >"$T/repo.json" 2>"$T/err"
jp_expect repo_counts_uncommitted_changes [ "$(jp_json_get "$T/repo.json" dirty)" = 1 ]
jp_expect repo_counts_untracked_files [ "$(jp_json_get "$T/repo.json" untracked)" = 1 ]
git $JP_GIT_ID -C "$T/c-head" commit -qam local
git $JP_GIT_ID -C "$T/c-head" commit -q --allow-empty -m local2
"$J" repo --json "$T/c-head" >"$T/repo.json" 2>"$T/err"
jp_expect repo_counts_unpushed_commits [ "$(jp_json_get "$T/repo.json" unpushed)" = 2 ]
"$J" repo --json "$T/c-v1" >"$T/repo.json" 2>"$T/err"
jp_expect repo_of_detached_tag_checkout_says_detached [ "$(jp_json_get "$T/repo.json" detached)" = true ]
"$J" repo "$T/srv" >/dev/null 2>"$T/err"
jp_expect repo_of_non_repository_fails [ $? = 1 ]

# A checkout owned by another user: explained, with the way to trust it.
if why=$(jp_unpriv_unavailable); then
	jp_skip repo_owned_by_another_user "$why"
else
	cp -r "$T/c-dev" "$T/c-other" && chown -R nobody "$T/c-other"
	"$J" repo "$T/c-other" >/dev/null 2>"$T/err"
	jp_expect repo_owned_by_another_user_fails [ $? = 1 ]
	jp_expect repo_owned_by_another_user_names_the_owner grep -q "belongs to nobody" "$T/err"
	jp_expect repo_owned_by_another_user_says_how_to_trust_it \
		grep -q "safe.directory $T/c-other" "$T/err"
	git config --global --add safe.directory "$T/c-other"
	"$J" repo --json "$T/c-other" >"$T/repo.json" 2>"$T/err"
	jp_expect repo_owned_by_another_user_works_once_trusted \
		[ "$(jp_json_get "$T/repo.json" branch)" = dev ]
fi

jp_done
