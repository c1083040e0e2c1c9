#!/bin/sh
# install.sh: installs plangit, plangit-hook and plangit-mcp from a
# release's archive for this machine, checked against the release's
# checksums.txt, into ~/.local/bin.
#
#   curl -fsSL https://raw.githubusercontent.com/plangit/plangit/main/install.sh | sh
#
# Settings (environment):
#   PLANGIT_VERSION       the version to install (1.2.3); default the latest
#   PLANGIT_INSTALL_DIR   where the programs go; default ~/.local/bin
#   PLANGIT_INSTALL_BASE  the URL of the directory that holds the archives
#                         and checksums.txt; default the project's GitHub
#                         release of PLANGIT_VERSION, or the latest release
#
# A download that fails or an archive whose sha256 is not the one
# checksums.txt gives installs nothing and leaves nothing behind. POSIX sh.
set -eu

releases=https://github.com/plangit/plangit/releases

say() { printf 'install.sh: %s\n' "$*"; }
die() {
	printf 'install.sh: %s\n' "$*" >&2
	exit 1
}

if [ $# -gt 0 ]; then
	die "takes no arguments (settings are environment variables: PLANGIT_VERSION, PLANGIT_INSTALL_DIR, PLANGIT_INSTALL_BASE)"
fi

# The platform, in the archives' names.
os=$(uname -s)
case $os in
Linux) os=linux ;;
Darwin) os=darwin ;;
MINGW* | MSYS* | CYGWIN* | Windows*)
	die "Windows is not supported by install.sh: take plangit_<version>_windows_<arch>.zip from $releases, or npm install -g plangit"
	;;
*) die "unsupported operating system: $os (release archives exist for Linux, macOS and Windows)" ;;
esac
arch=$(uname -m)
case $arch in
x86_64 | amd64) arch=amd64 ;;
aarch64 | arm64) arch=arm64 ;;
*) die "unsupported processor: $arch (release archives exist for amd64 and arm64)" ;;
esac
# An x86_64 shell under Rosetta on an Apple silicon Mac: take the native build.
if [ "$os/$arch" = darwin/amd64 ] && [ "$(sysctl -n sysctl.proc_translated 2>/dev/null || true)" = 1 ]; then
	arch=arm64
fi

version=${PLANGIT_VERSION:-}
version=${version#v}
case $version in
*/* | *' '*) die "PLANGIT_VERSION is \"$version\", not a version such as 1.2.3" ;;
esac
base=${PLANGIT_INSTALL_BASE:-}
if [ -z "$base" ]; then
	if [ -n "$version" ]; then
		base=$releases/download/v$version
	else
		base=$releases/latest/download
	fi
fi
base=${base%/}

if [ -n "${PLANGIT_INSTALL_DIR:-}" ]; then
	dir=$PLANGIT_INSTALL_DIR
elif [ -n "${HOME:-}" ]; then
	dir=$HOME/.local/bin
else
	die "HOME is not set: set PLANGIT_INSTALL_DIR to the directory to install into"
fi

if command -v curl >/dev/null 2>&1; then
	fetch() { curl -fsSL --retry 2 -o "$2" "$1"; }
elif command -v wget >/dev/null 2>&1; then
	fetch() { wget -q -O "$2" "$1"; }
else
	die "neither curl nor wget is installed: install one of them and run install.sh again"
fi
if command -v sha256sum >/dev/null 2>&1; then
	sha256() { sha256sum "$1" | cut -d ' ' -f 1; }
elif command -v shasum >/dev/null 2>&1; then
	sha256() { shasum -a 256 "$1" | cut -d ' ' -f 1; }
else
	die "neither sha256sum nor shasum is installed: install.sh needs one to check the download"
fi

# Everything is downloaded and unpacked into a directory of its own, which
# goes when the script ends, however it ends.
tmp=$(mktemp -d "${TMPDIR:-/tmp}/plangit-install.XXXXXX") || die "cannot make a temporary directory"
staged=""
cleanup() {
	rm -rf "$tmp"
	for f in $staged; do rm -f "$f"; done
}
trap cleanup EXIT
trap 'exit 1' HUP INT TERM

download() {
	if ! fetch "$1" "$2"; then
		die "could not download $1 (it does not exist there, or the server is unreachable)"
	fi
}

download "$base/checksums.txt" "$tmp/checksums.txt"
# The archive: plangit_<version>_<os>_<arch>.tar.gz, the one checksums.txt
# names for this platform (and for PLANGIT_VERSION, when it is set).
if [ -n "$version" ]; then
	archive=plangit_${version}_${os}_${arch}.tar.gz
else
	archive=$(sed -n "s/^[0-9a-f]\{64\}  \*\{0,1\}\(plangit_[^_ ]*_${os}_${arch}\.tar\.gz\)\$/\1/p" "$tmp/checksums.txt")
	case $archive in
	'') die "$base/checksums.txt names no archive for $os/$arch" ;;
	*"
"*) die "$base/checksums.txt names several versions for $os/$arch: set PLANGIT_VERSION to the one to install" ;;
	esac
	version=${archive#plangit_}
	version=${version%%_*}
fi
pattern=$(printf '%s\n' "$archive" | sed 's/[].[*^$\\/]/\\&/g')
want=$(sed -n "s/^\([0-9a-f]\{64\}\)  \*\{0,1\}$pattern\$/\1/p" "$tmp/checksums.txt" | head -n 1)
[ -n "$want" ] || die "$base/checksums.txt names no $archive: is $version a release of plangit?"

say "downloading $base/$archive"
download "$base/$archive" "$tmp/$archive"
got=$(sha256 "$tmp/$archive")
if [ "$got" != "$want" ]; then
	die "$archive does not match checksums.txt (sha256 $got, expected $want): nothing was installed"
fi

mkdir "$tmp/x"
programs="plangit plangit-hook plangit-mcp"
# shellcheck disable=SC2086 # the names are words
tar -xzf "$tmp/$archive" -C "$tmp/x" $programs ||
	die "$archive holds not all of $programs: nothing was installed"
for p in $programs; do
	[ -f "$tmp/x/$p" ] || die "$archive: $p is not a file: nothing was installed"
done

# Each program is copied beside its place first, then all three are moved
# into place, each in one rename: a program is either the old one or the
# new one, never half of either.
mkdir -p "$dir" || die "cannot make $dir"
for p in $programs; do
	t=$dir/.$p.install.$$
	staged="$staged $t"
	if ! cp "$tmp/x/$p" "$t" || ! chmod 755 "$t"; then
		die "cannot write $t: nothing was installed"
	fi
done
for p in $programs; do
	mv -f "$dir/.$p.install.$$" "$dir/$p" || die "cannot move $p into $dir"
done
staged=""

say "installed plangit $version ($programs) into $dir"
"$dir/plangit" version || die "$dir/plangit does not run on this machine"

case ":${PATH:-}:" in
*":$dir:"*)
	found=$(command -v plangit 2>/dev/null || true)
	if [ -n "$found" ] && [ "$found" != "$dir/plangit" ]; then
		say "note: plangit on your PATH is $found, which comes before $dir"
	fi
	;;
*)
	say "$dir is not on your PATH; to put it there, add this line to your shell's profile (~/.profile, ~/.bashrc or ~/.zshrc):"
	# shellcheck disable=SC2016 # $PATH is for the profile to expand
	printf '\n    export PATH="%s:$PATH"\n\n' "$dir"
	;;
esac
say "next: in your project, run plangit setup"
