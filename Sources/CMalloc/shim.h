#pragma once
// glibc's allocator controls (`mallinfo2`, `malloc_trim`): `<malloc.h>` is not part of Swift's Glibc module.
#include <malloc.h>
