#!/bin/sh
# `check:package` of every package: publint and attw on the tarball `npm pack` makes. It is packed
# once here and both tools read it (`publint --pack npm` and `attw --pack` would each pack again).
set -eu
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
npm pack --silent --pack-destination "$dir" >/dev/null
publint --strict "$dir"/*.tgz
attw "$dir"/*.tgz --profile esm-only
