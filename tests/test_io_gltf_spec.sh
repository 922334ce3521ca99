#!/usr/bin/env bash
# glTF import checked from outside (tests/gltf_check.py): InterpolationTest and
# written files against the specification's formulas, hostile and partial
# files through the CLI (exit status, one-line messages).
set -u
exec python3 "${STANCE_SOURCE:?}/tests/gltf_check.py"
