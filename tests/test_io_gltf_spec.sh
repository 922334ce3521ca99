#!/usr/bin/env bash
# glTF import checked from outside (tests/gltf_check.py): InterpolationTest and
# written files against the specification's formulas, hostile and partial
# files through the CLI (exit status, one-line messages).
set -u
probe=$("${STANCE_CLI:?}" info "${STANCE_DATA:?}/interpolation_test/interpolation_test.gltf" 2>&1 >/dev/null)
if [[ "$probe" == *"built without tinygltf"* ]]; then
  echo "glTF import is not built (no tinygltf)"
  [ "${CI:-}" = true ] && exit 1 || exit 0
fi
exec python3 "${STANCE_SOURCE:?}/tests/gltf_check.py"
