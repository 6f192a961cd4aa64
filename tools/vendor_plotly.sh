#!/usr/bin/env bash
# Re-vendor the plotly.js cartesian partial bundle that reportgen inlines into every report.
#
# The version must equal the plotly.js bundled with the installed plotly.py
# (plotly.offline.get_plotlyjs_version()), so Python-side figure validation and the browser
# renderer agree. No PyPI package ships partial bundles, so it comes from npm.
#
# Usage: tools/vendor_plotly.sh [python]   (python defaults to the one on PATH)
# Writes templates/static/vendor/plotly-cartesian.min.js.gz (gzip -9 -n: no name, mtime 0,
# so re-running with the same tarball gives the same bytes), its LICENSE and VERSION.
set -euo pipefail

PY="${1:-python}"
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
DEST="$ROOT/templates/static/vendor"
VERSION="$("$PY" -c 'import plotly.offline as o; print(o.get_plotlyjs_version())')"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

(cd "$WORK" && npm pack --silent "plotly.js-cartesian-dist-min@${VERSION}" >/dev/null)
tar -xzf "$WORK"/plotly.js-cartesian-dist-min-"${VERSION}".tgz -C "$WORK"
JS="$WORK/package/plotly-cartesian.min.js"

# The licence header must survive inside the bundle we ship.
head -c 300 "$JS" | grep -q "Licensed under the MIT license" \
  || { echo "licence header missing from $JS" >&2; exit 1; }
head -c 300 "$JS" | grep -q "v${VERSION}" \
  || { echo "bundle header does not say v${VERSION}" >&2; exit 1; }

mkdir -p "$DEST"
gzip -9 -n -c "$JS" > "$DEST/plotly-cartesian.min.js.gz"
cp "$WORK/package/LICENSE" "$DEST/plotly-cartesian.LICENSE"
echo "$VERSION" > "$DEST/plotly-cartesian.VERSION"
echo "vendored plotly.js-cartesian-dist-min@${VERSION}: $(wc -c < "$DEST/plotly-cartesian.min.js.gz") bytes gz"
