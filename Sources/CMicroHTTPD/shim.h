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

// Relaxed atomic load and store of a 64-bit value shared between libmicrohttpd's threads and the wrapper's
// deadline sweeper (Swift's `Atomic` needs macOS 15, above this package's floor).
static inline int64_t cmhd_atomic_load(const int64_t *pointer) {
    return __atomic_load_n(pointer, __ATOMIC_RELAXED);
}

static inline void cmhd_atomic_store(int64_t *pointer, int64_t value) {
    __atomic_store_n(pointer, value, __ATOMIC_RELAXED);
}

