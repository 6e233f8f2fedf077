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
