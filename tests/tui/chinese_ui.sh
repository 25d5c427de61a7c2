#!/bin/sh
# The wizard and the command line in Simplified Chinese (LANGUAGE=zh_CN):
# `jobprep --help` and a usage error speak Chinese; the wizard's step bar,
# labels and key hints are translated and laid out by display width (CJK
# takes two columns: the label column is as wide as the widest label, the ✓
# of every field on the Job step sits in one column); F1 help is Chinese;
# pressing Enter alone walks the --demo flow to a written manifest that
# `jobprep check` passes.
set -u
. "$TOP_SRCDIR/tests/tui/lib.sh"
tui_init chinese-ui
. "$TOP_SRCDIR/tests/lib/zh.sh"
zh_env

# --- the command line -------------------------------------------------------
zh_run "$JOBPREP" --help >"$T/help.out" 2>&1
jp_expect help_exits_0 [ $? = 0 ]
jp_expect help_usage_line_is_chinese grep -q '^用法：jobprep \[--demo\]' "$T/help.out"
jp_expect help_lists_commands_in_chinese grep -q '^命令：' "$T/help.out"
jp_expect help_summary_uses_the_platform_terms grep -q '把仓库克隆到共享存储上' "$T/help.out"
jp_expect help_keeps_options_untranslated grep -q -- '--profile FILE' "$T/help.out"
zh_run "$JOBPREP" no-such-command >"$T/usage.out" 2>&1
jp_expect usage_error_exits_2 [ $? = 2 ]
jp_expect usage_error_is_chinese grep -q "未知命令 'no-such-command'" "$T/usage.out"
jp_expect usage_error_points_to_help grep -q "请运行 'jobprep --help'" "$T/usage.out"

# --- the wizard -------------------------------------------------------------
# col LINE TEXT: the display column where TEXT starts on LINE (wide
# characters count two, as the terminal shows them), or nothing.
col() {
	case $1 in
	*"$2"*) printf '%s' "${1%%"$2"*}" | LC_ALL=C.UTF-8 wc -L ;;
	esac
}

zh_tui_start 100 30 -- --demo
tui_must starts_on_the_job_step_in_chinese tui_step 1 任务
tui_must step_bar_is_translated tui_wait "● 任务   ○ 代码   ○ 数据   ○ 输出   ○ 启动   ○ 核对"
tui_must job_labels_are_translated tui_wait "任务名称"
tui_must key_hints_are_translated tui_wait "Enter 下一步 · Esc 返回"
tui_must field_help_is_translated tui_wait "小写字母、数字和 '-'，最多 63 个字符"

tui_screen >"$T/job.screen"
# Each field line ends in its verdict mark; their columns must agree.
grep '✓' "$T/job.screen" | grep -v '●' >"$T/marks"
jp_expect job_step_has_three_checked_fields [ "$(wc -l <"$T/marks")" = 3 ]
cols=$(while IFS= read -r l; do col "$l" ✓; done <"$T/marks" | sort -u)
jp_expect checkmarks_share_one_column sh -c '[ -n "$1" ] && [ "$(echo "$1" | wc -l)" = 1 ]' sh "$cols"
# The label column is as wide as the widest label in display columns: two
# spaces, then its value (a byte count would make it wider).
jp_expect label_column_fits_the_widest_label grep -q '每 Worker GPU 数  8 ' "$T/job.screen"
l1=$(grep '任务名称' "$T/job.screen")
l2=$(grep 'Worker 数' "$T/job.screen" | grep -v GPU)
l3=$(grep 'GPU 数' "$T/job.screen")
v1=$(col "$l1" demo)
v2=$(col "$l2" " 1 ")
v3=$(col "$l3" " 8 ")
jp_expect values_start_in_one_column \
	sh -c '[ -n "$1" ] && [ -n "$2" ] && [ -n "$3" ] && [ "$1" = $(($2 + 1)) ] && [ "$1" = $(($3 + 1)) ]' \
	sh "$v1" "$v2" "$v3"

tui_keys F1
tui_must help_overlay_is_chinese tui_wait "帮助：任务"
tui_must help_lists_keys_in_chinese tui_wait "完成本步骤并继续"
tui_keys Escape
tui_must help_closes tui_wait_gone "帮助：任务"

tui_keys Enter
tui_must enter_goes_to_code tui_step 2 代码
tui_must code_source_choices_are_translated tui_wait "(•) 共享高性能存储"
tui_must custom_image_choice tui_wait "( ) 自定义镜像"
tui_keys Enter
tui_must enter_goes_to_data tui_step 3 数据
tui_must demo_data_sources_listed tui_wait "demo-corpus"
tui_must public_source_marked_read_only_in_chinese tui_wait "公共 只读"
tui_keys Enter
tui_must enter_goes_to_outputs tui_step 4 输出
tui_must checkpoint_label tui_wait "checkpoint 目录"
tui_keys Enter
tui_must enter_goes_to_launch tui_step 5 启动
tui_must launch_command_label tui_wait "启动命令"
tui_keys Enter
tui_must enter_goes_to_review tui_step 6 核对
tui_must review_asks_before_creating_directories tui_wait "现在创建本次运行的目录吗"
tui_keys Enter
tui_must checks_are_shown tui_wait "检查："
tui_must no_check_failed tui_wait "0 项失败" 60
tui_must review_position_in_chinese tui_wait "项，共 "
# The check list's messages start in one column after the step names
# (their column is as wide as the widest name, in display columns).
tui_screen | grep -E '^│   (✓|!|✗|\+) ' >"$T/rows"
mcols=$(while IFS= read -r l; do
	col "$l" "$(printf '%s' "$l" | sed -E 's/^│   [^ ]+ [^ ]+ +//')"
done <"$T/rows" | sort -u)
jp_expect review_rows_listed [ "$(wc -l <"$T/rows")" -ge 10 ]
jp_expect review_messages_share_one_column sh -c '[ -n "$1" ] && [ "$(echo "$1" | wc -l)" = 1 ]' sh "$mcols"
tui_keys Enter
tui_must manifest_written_screen tui_wait "已写入 manifest："
tui_must launch_command_to_paste_shown tui_wait "填入平台表单的启动命令："
tui_keys Enter
rc=$(tui_wait_exit)
jp_expect exits_0_after_writing [ "$rc" = 0 ]

m=$(sed -n 's/^已写入 manifest：//p' "$T/stdout")
jp_expect summary_names_the_manifest_in_chinese [ -n "$m" ]
jp_expect manifest_is_in_the_run_directory [ "$m" = "$T/work/jobprep-demo/shared/outputs/demo/run-001/job.json" ]
zh_run "$JOBPREP" check "$m" >"$T/check.out" 2>&1
jp_expect jobprep_check_passes_on_the_written_manifest [ $? = 0 ]
jp_expect check_summary_is_chinese grep -q '项通过' "$T/check.out"
jp_expect terminal_modes_restored cmp -s "$T/stty.before" "$T/stty.after"
tui_finish
