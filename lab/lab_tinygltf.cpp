/* lab/lab_tinygltf.cpp - Debian's header-only tinygltf compiled once for the
 * lab's WebAssembly build (the command line links Debian's libtinygltf
 * instead). Without stb: neither the importer nor the page's look
 * (lab_import.cpp) decodes images here; the browser does. Owns nothing. */
#define TINYGLTF_IMPLEMENTATION
#include <tiny_gltf.h>
