// microhttpd.h uses these types without including their headers itself.
#include <stdarg.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <microhttpd.h>

// MHD_get_connection_info is variadic, which Swift cannot call: this fixed-arity wrapper asks for one info type.
static inline const union MHD_ConnectionInfo *
cmhd_connection_info(struct MHD_Connection *connection, enum MHD_ConnectionInfoType type) {
    return MHD_get_connection_info(connection, type);
}

// MHD_get_daemon_info is variadic, which Swift cannot call: this fixed-arity wrapper asks for one info type.
static inline const union MHD_DaemonInfo *
cmhd_daemon_info(struct MHD_Daemon *daemon, enum MHD_DaemonInfoType type) {
    return MHD_get_daemon_info(daemon, type);
}

// __builtin_prefetch is a compiler builtin, which Swift cannot call: asks the CPU to start loading `count` bytes
// from `start` into its caches, a 64-byte line at a time, without waiting for them (the read path uses it so that
// a cold document's body is on its way while libmicrohttpd writes the headers).
static inline void cmhd_prefetch(const void *start, size_t count) {
    for (size_t offset = 0; offset < count; offset += 64) __builtin_prefetch((const char *)start + offset, 0, 3);
}
