// A header only, no library: the read cache's one CPU hint, which Swift cannot express.
#include <stddef.h>

// __builtin_prefetch is a compiler builtin, which Swift cannot call: asks the CPU to start loading `count` bytes
// from `start` into its caches, a 64-byte line at a time, without waiting for them (the read cache uses it so that
// a cold document's body is on its way while libmicrohttpd writes the headers).
static inline void cprefetch(const void *start, size_t count) {
    for (size_t offset = 0; offset < count; offset += 64) __builtin_prefetch((const char *)start + offset, 0, 3);
}
