#!/usr/bin/env bash
# Installs versitygw (an Apache-2.0 S3 gateway over a local folder), the
# S3-compatible server the object storage tests start and stop themselves,
# into a known folder, built with Go from the Go module proxy. Installs Go
# from Debian's archive when it is missing. Prints the binary's path.
#   BRICKPOST_TOOLS  where tools go (default ~/.cache/brickpost-tools)
set -euo pipefail
VERSION=v1.8.0
root="${BRICKPOST_TOOLS:-${XDG_CACHE_HOME:-$HOME/.cache}/brickpost-tools}"
dir="$root/versitygw-$VERSION"
if [ ! -x "$dir/versitygw" ]; then
  if ! command -v go >/dev/null; then
    if [ "$(id -u)" = 0 ]; then
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends golang-go >/dev/null
    else
      echo "error: Go is needed to build versitygw: sudo apt-get install golang-go" >&2
      exit 1
    fi
  fi
  mkdir -p "$dir"
  GOBIN="$dir" GOFLAGS=-mod=mod go install "github.com/versity/versitygw/cmd/versitygw@$VERSION" >&2
fi
echo "$dir/versitygw"
