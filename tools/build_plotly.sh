#!/usr/bin/env bash
# Build the plotly.js that reportgen inlines into every page: plotly.js's core (which holds
# the scatter trace; without the components no page draws: 3D annotations, images, update
# menus, sliders, range sliders and selectors) plus only the other trace types the pages draw,
# from the `plotly.js`
# npm package at the version plotly.py bundles (so Python-side figure validation and the
# browser renderer agree), bundled and minified with esbuild.
#
# Usage: tools/build_plotly.sh [python] [trace ...]   (default traces: scatter bar)
# Writes templates/static/vendor/plotly-custom.min.js.gz (gzip -9, no name, mtime 0; its modules
# made runnable in steps by tools/step_plotly.py),
# plotly-custom.LICENSE, .VERSION and .TRACES (the trace types it registers, one a line;
# tests/test_render.py fails when a figure needs one that is not there). Needs npm; network
# only to the npm registry.
set -euo pipefail

PY="${1:-python}"
shift || true
TRACES=("$@")
[ ${#TRACES[@]} -gt 0 ] || TRACES=(scatter bar)
ESBUILD_VERSION=0.28.2
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
DEST="$ROOT/templates/static/vendor"
VERSION="$("$PY" -c 'import plotly.offline as o; print(o.get_plotlyjs_version())')"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

cd "$WORK"
npm init -y >/dev/null
npm install --silent --no-audit --no-fund --ignore-scripts \
  "plotly.js@${VERSION}" "esbuild@${ESBUILD_VERSION}" >/dev/null
# plotly.js's core (src/core.js) less the components no page draws: the same file with those
# require lines dropped (fewer bytes to unpack, compile and run in the page)
DROP='annotations3d|images|updatemenus|sliders|rangeslider|rangeselector'
sed -E "/require\('\.\/components\/(${DROP})'\)/d
        s#require\('\./#require('plotly.js/src/#g
        s#require\('\.\./build/#require('plotly.js/build/#g" \
  node_modules/plotly.js/src/core.js > core.js
if grep -Eq "components/(${DROP})'" core.js || ! grep -q "components/legend" core.js; then
  echo "plotly.js src/core.js changed shape: check DROP in $0" >&2
  exit 1
fi
{
  echo "var Plotly = require('./core');   // core registers scatter"
  echo "Plotly.register(["
  for t in "${TRACES[@]}"; do
    [ "$t" = scatter ] || echo "  require('plotly.js/lib/$t'),"
  done
  echo "]);"
  echo "module.exports = Plotly;"
} > entry.js
# bundled and minified by esbuild, with plotly.js's attribute metadata (descriptions and the
# like, for its schema and docs) left out, as plotly.js's own minified bundles do
node "$ROOT/tools/plotly_esbuild.js" entry.js bundle.js
if [ "$(grep -o 'description:' bundle.js | wc -l)" -gt 40 ]; then
  echo "plotly.js attribute descriptions were not stripped: check tools/plotly_esbuild.js" >&2
  exit 1
fi
LIST="$(IFS=,; echo "${TRACES[*]}")"
{
  printf '/**\n* plotly.js (custom: %s - minified) v%s\n' "$LIST" "$VERSION"
  printf '* Copyright 2012-2026, Plotly, Inc.\n* All rights reserved.\n'
  printf '* Licensed under the MIT license\n*/\n'
  cat bundle.js
} > plotly-custom.min.js
node -e "
  global.window = global; global.self = global;
  const src = require('fs').readFileSync('bundle.js', 'utf8');
  if (!src.includes('\"${VERSION}\"')) { console.error('bundle does not say ${VERSION}'); process.exit(1); }
"

mkdir -p "$DEST"
gzip -9 -n -c plotly-custom.min.js > "$DEST/plotly-custom.min.js.gz"
# its modules run in steps of a few ms, not in one long task (tools/step_plotly.py)
"$PY" "$ROOT/tools/step_plotly.py" "$DEST/plotly-custom.min.js.gz"
cp node_modules/plotly.js/LICENSE "$DEST/plotly-custom.LICENSE"
echo "$VERSION" > "$DEST/plotly-custom.VERSION"
printf '%s\n' "${TRACES[@]}" | sort > "$DEST/plotly-custom.TRACES"
echo "built plotly.js ${VERSION} (${LIST}): $(wc -c < "$DEST/plotly-custom.min.js.gz") bytes gz"
