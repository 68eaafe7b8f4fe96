#!/bin/sh
# Re-vendors three.js at VERSION from the npm registry: the files agview report's 3D view
# embeds (src/app/report/view3d.rs, include_str!), its licence, and the version and the
# tarball's integrity in VERSION. Nothing in the build runs this: it is how the vendored
# copy is updated, by hand, with a network; commit what it changes.
#
#   vendor/three/update.sh 0.147.0
#
# The view loads three as classic scripts (no modules: index.html must work from file://),
# so the version must still ship examples/js/ (removed from the npm package in 0.148.0)
# and load EXT_mesh_gpu_instancing (0.146.0 and later). docs/spec-decisions.md,
# "Report: 3D view", says why 0.147.0.
set -eu
version=${1:?usage: vendor/three/update.sh VERSION (for example 0.147.0)}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --json "three@$version" >pack.json)
integrity=$(node -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1]))[0].integrity)' "$tmp/pack.json")
tar xzf "$tmp/three-$version.tgz" -C "$tmp"
for f in build/three.min.js examples/js/loaders/GLTFLoader.js examples/js/controls/OrbitControls.js LICENSE; do
    if [ ! -f "$tmp/package/$f" ]; then
        echo "update.sh: three@$version has no $f (the classic scripts need 0.146.0 to 0.147.0)" >&2
        exit 1
    fi
done
cp "$tmp/package/build/three.min.js" "$here/three.min.js"
cp "$tmp/package/examples/js/loaders/GLTFLoader.js" "$here/GLTFLoader.js"
cp "$tmp/package/examples/js/controls/OrbitControls.js" "$here/OrbitControls.js"
cp "$tmp/package/LICENSE" "$here/LICENSE"
printf 'three@%s\n%s\n' "$version" "$integrity" >"$here/VERSION"
echo "vendored three@$version ($integrity)"
