/*
 * bench/baseline.c: the bare C reference server for `make bench` (B1, B5).
 *
 * Serves one static buffer for every GET/HEAD, with the same headers the pinset server sends for
 * GET /pins/{host} (Content-Type, ETag, Cache-Control), answers If-None-Match with 304, and uses
 * exactly the libmicrohttpd set-up of the Swift wrapper: epoll internal thread, one thread, ITC,
 * answering on the SECOND access-handler call (so keep-alive stays on).
 *
 * usage: baseline PORT BODY_FILE ETAG       (ETag given with its quotes, e.g. '"abc"')
 * build: cc -O2 -o baseline baseline.c $(pkg-config --cflags --libs libmicrohttpd)
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <unistd.h>
#include <microhttpd.h>

static struct MHD_Response *ok_response;
static struct MHD_Response *not_modified_response;
static const char *etag;
static int marker;

static enum MHD_Result handler(void *cls, struct MHD_Connection *connection, const char *url, const char *method,
                               const char *version, const char *upload_data, size_t *upload_data_size,
                               void **con_cls) {
  (void)cls; (void)url; (void)method; (void)version; (void)upload_data;
  if (*con_cls == NULL) {      /* first call: headers only; answering now would cost keep-alive */
    *con_cls = &marker;
    return MHD_YES;
  }
  if (*upload_data_size != 0) { /* ignore any body */
    *upload_data_size = 0;
    return MHD_YES;
  }
  const char *inm = MHD_lookup_connection_value(connection, MHD_HEADER_KIND, "If-None-Match");
  if (inm != NULL && strcmp(inm, etag) == 0)
    return MHD_queue_response(connection, MHD_HTTP_NOT_MODIFIED, not_modified_response);
  return MHD_queue_response(connection, MHD_HTTP_OK, ok_response);
}

static void completed(void *cls, struct MHD_Connection *connection, void **con_cls,
                      enum MHD_RequestTerminationCode toe) {
  (void)cls; (void)connection; (void)toe;
  *con_cls = NULL;
}

static void add_headers(struct MHD_Response *r, int with_type) {
  if (with_type) MHD_add_response_header(r, "Content-Type", "application/json");
  MHD_add_response_header(r, "ETag", etag);
  MHD_add_response_header(r, "Cache-Control", "public, max-age=300");
}

int main(int argc, char **argv) {
  if (argc != 4 && argc != 5) {
    fprintf(stderr, "usage: %s PORT BODY_FILE ETAG [CONNECTION_MEMORY_LIMIT]\n", argv[0]);
    return 2;
  }
  /* libmicrohttpd's default per-connection pool is 32 KiB, as in pinset; row B0m measures an 8 KiB pool. */
  size_t memory_limit = argc == 5 ? (size_t)atol(argv[4]) : (size_t)32768;
  int port = atoi(argv[1]);
  etag = argv[3];
  FILE *f = fopen(argv[2], "rb");
  if (f == NULL) { perror(argv[2]); return 1; }
  static char body[1 << 20];
  size_t size = fread(body, 1, sizeof body, f);
  fclose(f);

  ok_response = MHD_create_response_from_buffer(size, body, MHD_RESPMEM_MUST_COPY);
  not_modified_response = MHD_create_response_from_buffer(0, NULL, MHD_RESPMEM_PERSISTENT);
  if (ok_response == NULL || not_modified_response == NULL) { fprintf(stderr, "response creation failed\n"); return 1; }
  add_headers(ok_response, 1);
  add_headers(not_modified_response, 0);

  /* Block SIGINT/SIGTERM before MHD starts its threads (they inherit the mask), so sigwait below gets them. */
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, NULL);

  struct MHD_Daemon *d = MHD_start_daemon(
      MHD_USE_EPOLL_INTERNAL_THREAD | MHD_USE_ITC, (uint16_t)port, NULL, NULL, handler, NULL,
      MHD_OPTION_THREAD_POOL_SIZE, (unsigned int)1,
      MHD_OPTION_CONNECTION_LIMIT, (unsigned int)1024,
      MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)15,
      MHD_OPTION_CONNECTION_MEMORY_LIMIT, memory_limit,
      MHD_OPTION_NOTIFY_COMPLETED, completed, NULL,
      MHD_OPTION_END);
  if (d == NULL) { fprintf(stderr, "cannot listen on port %d\n", port); return 1; }
  fprintf(stderr, "baseline listening on %d, %zu-byte body\n", port, size);
  int sig;
  sigwait(&stop_signals, &sig);
  MHD_stop_daemon(d);
  MHD_destroy_response(ok_response);
  MHD_destroy_response(not_modified_response);
  return 0;
}
