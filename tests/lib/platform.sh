# Shell helper for tests: the training platform's mount layout, privately.
#
#   . "$TOP_SRCDIR/tests/lib/platform.sh"
#   jp_platform_available || jp_skip_all "needs root, unshare, chroot and overlayfs"
#   jp_platform_run "$scratch" "$scratch/inside.sh" [ARG...]
#
# jp_platform_run makes a private mount namespace (unshare -m), builds a
# container-like root there and runs `sh SCRIPT ARG...` chrooted into it:
#
#   /                an overlay (lower: this machine's /, upper: a tmpfs),
#                    like a container's root: writes vanish with the test
#   /proc /dev       a fresh proc, this machine's /dev (for /dev/fuse)
#   /mnt/public      a bind mount of SCRATCH/shared   (shared storage)
#   /infini-data     a read-only bind of SCRATCH/public (public data)
#   /workspace       a tmpfs                            (ephemeral)
#   SCRATCH          a bind of the real SCRATCH, at the same path
#
# Nothing is created outside SCRATCH on the machine: the mount points live
# in the overlay's upper tmpfs. The script runs as root inside; it may mount
# more. Everything is gone when it ends (kill what you start: an sshfs mount
# keeps the namespace alive until its process exits).

jp_platform_available() {
	[ "$(id -u)" = 0 ] || return 1
	command -v unshare >/dev/null 2>&1 || return 1
	command -v chroot >/dev/null 2>&1 || return 1
	grep -qw overlay /proc/filesystems 2>/dev/null || return 1
	return 0
}

jp_platform_run() {
	_s=$(cd "$1" && pwd) || return 1
	shift
	mkdir -p "$_s/shared" "$_s/public" "$_s/.root" "$_s/.upper" || return 1
	unshare -m --propagation private sh -eu -c '
		s=$1
		shift
		mount -t tmpfs -o size=256m,mode=755 jp-upper "$s/.upper"
		mkdir -p "$s/.upper/up" "$s/.upper/work"
		mount -t overlay jp-root \
			-o "lowerdir=/,upperdir=$s/.upper/up,workdir=$s/.upper/work" "$s/.root"
		r=$s/.root
		mount -t proc proc "$r/proc"
		mount --rbind /dev "$r/dev"
		mkdir -p "$r/mnt/public" "$r/infini-data" "$r/workspace" "$r$s"
		mount --bind "$s" "$r$s"
		mount --bind "$s/shared" "$r/mnt/public"
		mount --bind "$s/public" "$r/infini-data"
		mount -o remount,bind,ro "$r/infini-data"
		mount -t tmpfs -o size=64m jp-workspace "$r/workspace"
		exec chroot "$r" /bin/sh "$@"
	' sh "$_s" "$@"
}
