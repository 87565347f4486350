#pragma once
// giflib 5.2 (Debian libgif-dev). It ships no pkg-config file, so the module links "gif" by name and the
// header comes from the default include path.
#include <gif_lib.h>
