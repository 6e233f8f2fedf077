/*
 * bench/baseline_hosts.c: B4's floor, a bare C libmicrohttpd server holding HOSTS documents (issue 22 item 1).
 *
 * What the least any libmicrohttpd 0.9.75 server must do to answer GET /pins/{host} for a host picked at random
 * among a million, in the layout most favourable to it:
 * - every document (key, ETag, a 691-byte body) in one arena of 2 MiB pages (MADV_HUGEPAGE before the first
 *   touch), 64-byte aligned, in host order;
 * - an open-addressing table of {64-bit hash, document} pairs, 16 bytes each, also on 2 MiB pages: the hash and
 *   the pointer share a cache line, so a lookup costs the table line and the document's first line;
 * - a built response (Content-Type, ETag and Cache-Control over the stored body, not copied) kept for at most
 *   KEPT documents, first come (pinset's default response cache is 100,000); others get one built for their
 *   request and destroyed after it, as libmicrohttpd 0.9.75 allows no other way (each header line is three
 *   allocations of its own);
 * - the same libmicrohttpd set-up as bench/baseline.c and pinset: epoll internal thread, a pool of one thread,
 *   answering on the second access-handler call, If-None-Match looked up (never sent by B4's script).
 * Hosts are h<i>.bench.example for i in 0..HOSTS-1, as bench/random_hosts.lua asks for them. /healthz answers
 * 200. It prints "huge pages" once the documents are in place (bench/b4_compare.sh waits for that line).
 *
 * usage: baseline_hosts PORT HOSTS [KEPT]
 * build: cc -O2 -o baseline_hosts baseline_hosts.c $(pkg-config --cflags --libs libmicrohttpd)
 */
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <microhttpd.h>

#define BODY_SIZE 691
#define ETAG_SIZE 26 /* a quoted base64url of 18 bytes, as pinset's */
#define PREFIX "/pins/"

struct document {
  struct MHD_Response *kept; /* NULL until built and kept */
  uint32_t key_size;
  char etag[ETAG_SIZE + 1];
  char data[];               /* key, then the body */
};

struct slot {
  uint64_t hash;             /* 0: empty */
  struct document *document;
};

static struct slot *table;
static uint64_t table_mask;
static long kept_limit, kept_count;
static pthread_mutex_t kept_lock = PTHREAD_MUTEX_INITIALIZER;
static struct MHD_Response *health;
static int marker;

static uint64_t hash_of(const char *key, size_t size) { /* FNV-1a, never 0 */
  uint64_t h = 1469598103934665603ULL;
  for (size_t i = 0; i < size; i++) h = (h ^ (unsigned char)key[i]) * 1099511628211ULL;
  return h | 1;
}

static void *huge(size_t size) {
  size = (size + (2u << 20) - 1) & ~(size_t)((2u << 20) - 1);
  void *memory = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (memory == MAP_FAILED) { perror("mmap"); exit(1); }
  madvise(memory, size, MADV_HUGEPAGE);
  return memory;
}

static struct document *find(const char *key, size_t size) {
  uint64_t h = hash_of(key, size);
  for (uint64_t i = h & table_mask;; i = (i + 1) & table_mask) {
    if (table[i].hash == 0) return NULL;
    if (table[i].hash == h && table[i].document->key_size == size &&
        memcmp(table[i].document->data, key, size) == 0)
      return table[i].document;
  }
}

static struct MHD_Response *build(struct document *d) {
  struct MHD_Response *r = MHD_create_response_from_buffer(BODY_SIZE, d->data + d->key_size, MHD_RESPMEM_PERSISTENT);
  MHD_add_response_header(r, "Content-Type", "application/json");
  MHD_add_response_header(r, "ETag", d->etag);
  MHD_add_response_header(r, "Cache-Control", "public, max-age=300");
  return r;
}

static enum MHD_Result handler(void *cls, struct MHD_Connection *connection, const char *url, const char *method,
                               const char *version, const char *upload_data, size_t *upload_data_size,
                               void **con_cls) {
  (void)cls; (void)method; (void)version; (void)upload_data;
  if (*con_cls == NULL) {
    *con_cls = &marker;
    return MHD_YES;
  }
  if (*upload_data_size != 0) {
    *upload_data_size = 0;
    return MHD_YES;
  }
  if (strcmp(url, "/healthz") == 0) return MHD_queue_response(connection, MHD_HTTP_OK, health);
  if (strncmp(url, PREFIX, sizeof PREFIX - 1) != 0) return MHD_NO;
  const char *key = url + sizeof PREFIX - 1;
  (void)MHD_lookup_connection_value(connection, MHD_HEADER_KIND, "If-None-Match");
  struct document *d = find(key, strlen(key));
  if (d == NULL) return MHD_NO;
  __builtin_prefetch(d->data + d->key_size);
  __builtin_prefetch(d->data + d->key_size + 256);
  __builtin_prefetch(d->data + d->key_size + 512);
  struct MHD_Response *r = __atomic_load_n(&d->kept, __ATOMIC_ACQUIRE);
  if (r != NULL) return MHD_queue_response(connection, MHD_HTTP_OK, r);
  r = build(d);
  pthread_mutex_lock(&kept_lock);
  int keep = d->kept == NULL && kept_count < kept_limit;
  if (keep) { kept_count++; __atomic_store_n(&d->kept, r, __ATOMIC_RELEASE); }
  pthread_mutex_unlock(&kept_lock);
  enum MHD_Result result = MHD_queue_response(connection, MHD_HTTP_OK, r);
  if (!keep) MHD_destroy_response(r);
  return result;
}

static void completed(void *cls, struct MHD_Connection *connection, void **con_cls,
                      enum MHD_RequestTerminationCode toe) {
  (void)cls; (void)connection; (void)toe;
  *con_cls = NULL;
}

int main(int argc, char **argv) {
  if (argc != 3 && argc != 4) {
    fprintf(stderr, "usage: %s PORT HOSTS [KEPT]\n", argv[0]);
    return 2;
  }
  int port = atoi(argv[1]);
  long hosts = atol(argv[2]);
  kept_limit = argc == 4 ? atol(argv[3]) : 100000;
  if (hosts < 1) { fprintf(stderr, "HOSTS must be at least 1\n"); return 2; }

  size_t stride = (sizeof(struct document) + 32 + BODY_SIZE + 63) & ~(size_t)63;
  char *arena = huge(stride * (size_t)hosts);
  uint64_t capacity = 1;
  while (capacity < (uint64_t)hosts * 2) capacity <<= 1;
  table = huge(capacity * sizeof(struct slot));
  table_mask = capacity - 1;
  static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  for (long i = 0; i < hosts; i++) {
    struct document *d = (struct document *)(arena + stride * (size_t)i);
    char key[32];
    int size = snprintf(key, sizeof key, "h%ld.bench.example", i);
    memcpy(d->data, key, (size_t)size);
    d->key_size = (uint32_t)size;
    uint64_t h = hash_of(d->data, (size_t)size);
    d->etag[0] = '"';
    for (int k = 1; k < ETAG_SIZE - 1; k++) d->etag[k] = alphabet[(h >> ((k * 5) % 59)) & 63];
    d->etag[ETAG_SIZE - 1] = '"';
    d->etag[ETAG_SIZE] = 0;
    char *body = d->data + size;
    int written = snprintf(body, BODY_SIZE, "{\"host\":\"%s\",\"pins\":[", key);
    for (int k = written; k < BODY_SIZE - 2; k++) body[k] = alphabet[(h >> (k % 58)) & 63];
    body[BODY_SIZE - 2] = ']';
    body[BODY_SIZE - 1] = '}';
    uint64_t j = h & table_mask;
    while (table[j].hash != 0) j = (j + 1) & table_mask;
    table[j].hash = h;
    table[j].document = d;
  }
  health = MHD_create_response_from_buffer(2, (void *)"ok", MHD_RESPMEM_PERSISTENT);

  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, NULL);

  struct MHD_Daemon *daemon = MHD_start_daemon(
      MHD_USE_EPOLL_INTERNAL_THREAD | MHD_USE_ITC, (uint16_t)port, NULL, NULL, handler, NULL,
      MHD_OPTION_THREAD_POOL_SIZE, (unsigned int)1,
      MHD_OPTION_CONNECTION_LIMIT, (unsigned int)1024,
      MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)15,
      MHD_OPTION_NOTIFY_COMPLETED, completed, NULL,
      MHD_OPTION_END);
  if (daemon == NULL) { fprintf(stderr, "cannot listen on port %d\n", port); return 1; }
  fprintf(stderr, "baseline_hosts listening on %d: %ld documents on huge pages, at most %ld responses kept\n",
          port, hosts, kept_limit);
  int sig;
  sigwait(&stop_signals, &sig);
  MHD_stop_daemon(daemon);
  return 0;
}
