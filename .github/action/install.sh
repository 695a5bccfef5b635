#!/usr/bin/env bash
# Installs `report` for this runner, for action.yml: the prebuilt release
# archive, verified against its SHA-256 file, or `cargo install --git` where
# no archive fits the runner (or the archive's binary does not run on it).
# A checksum that does not match, or is missing, fails the step: nothing is
# installed and nothing else is tried.
#
# Inputs, from the environment:
#   REPORT_VERSION      0.1.0, v0.1.0 or latest; empty: the action's own tag
#                       when it is a version (benchmark-report/report@v0.1.0), else latest
#   REPORT_REPOSITORY   OWNER/NAME of the releases; empty: the action's own
#   REPORT_DOWNLOAD_URL where the releases are (https, or http on 127.0.0.1
#                       for tests); empty: https://github.com/OWNER/NAME/releases
#   REPORT_INSTALL_DIR  where to install; empty: $RUNNER_TEMP/report
#   REPORT_CARGO        the cargo to fall back on (default: cargo)
#   ACTION_REPOSITORY, ACTION_REF, GITHUB_ACTION_PATH: the action's own
#   repository and ref (the first two are empty inside some composite actions,
#   so they are also read from the path, .../_actions/OWNER/NAME/REF)
#   RUNNER_OS, RUNNER_ARCH, RUNNER_TEMP, GITHUB_PATH, GITHUB_OUTPUT
# Archives are named report-TARGET.tar.gz (report-TARGET.zip on Windows), hold
# report-TARGET/report, and sit beside report-TARGET.tar.gz.sha256.
set -euo pipefail

fail() {
  echo "::error title=report install::$1" >&2
  exit 1
}

# The action's repository and ref, from the context or from its path.
action_path=${GITHUB_ACTION_PATH:-}
action_path=${action_path//\\//}
from_path_repo="" from_path_ref=""
case "$action_path" in
  */_actions/*/*/*)
    rest=${action_path##*/_actions/}
    IFS=/ read -r owner name ref _ <<<"$rest"
    from_path_repo="$owner/$name" from_path_ref="$ref"
    ;;
esac
repository=${REPORT_REPOSITORY:-${ACTION_REPOSITORY:-${from_path_repo:-${GITHUB_REPOSITORY:-}}}}
[[ "$repository" =~ ^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$ ]] ||
  fail "no repository to install report from (got '$repository'); set the action's 'repository' input to OWNER/NAME"
action_ref=${ACTION_REF:-$from_path_ref}

version=${REPORT_VERSION:-}
if [ -z "$version" ]; then
  if [[ "$action_ref" =~ ^v[0-9]+\.[0-9]+\.[0-9]+ ]]; then version=$action_ref; else version=latest; fi
fi
version=${version#v}
[[ "$version" == latest || "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+[A-Za-z0-9.+-]*$ ]] ||
  fail "'$version' is not a version of report: write one such as 0.1.0, or latest"

install_dir=${REPORT_INSTALL_DIR:-${RUNNER_TEMP:?RUNNER_TEMP is not set}/report}
base=${REPORT_DOWNLOAD_URL:-https://github.com/$repository/releases}
base=${base%/}
case "$base" in
  https://*) proto="=https" ;;
  http://127.0.0.1[:/]* | http://localhost[:/]*) proto="=http" ;;
  *) fail "download URL '$base' is neither https nor on 127.0.0.1" ;;
esac

case "${RUNNER_OS:-}/${RUNNER_ARCH:-}" in
  Linux/X64) target=x86_64-unknown-linux-gnu ;;
  Linux/ARM64) target=aarch64-unknown-linux-gnu ;;
  macOS/X64) target=x86_64-apple-darwin ;;
  macOS/ARM64) target=aarch64-apple-darwin ;;
  Windows/X64) target=x86_64-pc-windows-msvc ;;
  *) target="" ;;
esac
exe=report
if [ "${RUNNER_OS:-}" = Windows ]; then exe=report.exe; fi

# Fetch URL into FILE; prints the HTTP status (000 when there was no answer).
fetch() {
  curl --proto "$proto" --location --silent --show-error --retry 3 \
    --output "$2" --write-out '%{http_code}' "$1" || true
}

sha256() {
  if command -v sha256sum >/dev/null; then sha256sum "$1"; else shasum -a 256 "$1"; fi |
    cut -d' ' -f1
}

# Download, verify and unpack the archive into $install_dir/bin. Returns 1 when
# there is no archive for this runner (so that cargo is tried); exits on a
# checksum that is missing or wrong, and on a download that breaks off.
install_archive() {
  [ -n "$target" ] || return 1
  local ext=tar.gz
  if [ "${RUNNER_OS:-}" = Windows ]; then ext=zip; fi
  local archive="report-$target.$ext" url
  if [ "$version" = latest ]; then url="$base/latest/download"; else url="$base/download/v$version"; fi
  local work status expected actual
  work=$(mktemp -d)
  status=$(fetch "$url/$archive" "$work/$archive")
  case "$status" in
    200) ;;
    404) echo "No prebuilt report $version for $target at $url/$archive." >&2; return 1 ;;
    *) fail "downloading $url/$archive failed (HTTP status $status)" ;;
  esac
  status=$(fetch "$url/$archive.sha256" "$work/$archive.sha256")
  [ "$status" = 200 ] || fail "no checksum for $archive at $url/$archive.sha256 (HTTP status $status); refusing to install an unverified binary"
  expected=$(cut -d' ' -f1 <"$work/$archive.sha256" | tr -d '\r\n' | tr 'A-F' 'a-f')
  [[ "$expected" =~ ^[0-9a-f]{64}$ ]] || fail "$url/$archive.sha256 holds no SHA-256 checksum"
  actual=$(sha256 "$work/$archive")
  [ "$actual" = "$expected" ] ||
    fail "checksum mismatch for $url/$archive: expected $expected, got $actual; nothing was installed"
  echo "Verified $archive: sha256 $actual"
  mkdir -p "$work/unpacked"
  if [ "$ext" = zip ]; then
    unzip -q "$work/$archive" -d "$work/unpacked" 2>/dev/null ||
      powershell -NoProfile -Command "Expand-Archive -LiteralPath '$work/$archive' -DestinationPath '$work/unpacked'"
  else
    tar -xzf "$work/$archive" -C "$work/unpacked"
  fi
  local binary="$work/unpacked/report-$target/$exe"
  [ -f "$binary" ] || fail "$archive holds no report-$target/$exe"
  chmod +x "$binary"
  if ! "$binary" --version >/dev/null 2>&1; then
    echo "The prebuilt report for $target does not run on this runner." >&2
    return 1
  fi
  mkdir -p "$install_dir/bin"
  mv -f "$binary" "$install_dir/bin/$exe"
  rm -rf "$work"
}

# Build from the repository's source at the version's tag (or its default branch for latest).
install_cargo() {
  local cargo=${REPORT_CARGO:-cargo}
  command -v "$cargo" >/dev/null ||
    fail "no prebuilt report for ${RUNNER_OS:-?}/${RUNNER_ARCH:-?} and no cargo to build it; add a Rust toolchain step (dtolnay/rust-toolchain) before this action"
  local tag=()
  if [ "$version" != latest ]; then tag=(--tag "v$version"); fi
  echo "Building report $version from https://github.com/$repository with cargo."
  "$cargo" install --locked --git "https://github.com/$repository" ${tag[@]+"${tag[@]}"} --root "$install_dir" report
}

install_archive || install_cargo

bin_dir="$install_dir/bin"
"$bin_dir/$exe" --version >/dev/null 2>&1 || fail "the installed $bin_dir/$exe does not run"
installed=$("$bin_dir/$exe" --version)
if [ "$version" != latest ]; then
  case "$installed" in
    "report $version" | "report $version "*) ;;
    *) fail "asked for report $version, but the installed binary says '$installed'" ;;
  esac
fi
echo "Installed $installed in $bin_dir"
if command -v cygpath >/dev/null; then bin_dir=$(cygpath -w "$bin_dir"); fi
if [ -n "${GITHUB_PATH:-}" ]; then echo "$bin_dir" >>"$GITHUB_PATH"; fi
if [ -n "${GITHUB_OUTPUT:-}" ]; then
  {
    echo "version=${installed#report }"
    echo "path=$bin_dir"
  } >>"$GITHUB_OUTPUT"
fi
