#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/err.h>
#include <openssl/sha.h>
#include <openssl/rand.h>
#include <openssl/crypto.h>

/* XN_FLAG_RFC2253 is a macro built from other macros and casts, which Swift does not import. */
static inline unsigned long pinset_xn_flag_rfc2253(void) { return XN_FLAG_RFC2253; }
#include <openssl/ssl.h>

/* SSL_set_tlsext_host_name is a macro over SSL_ctrl, which Swift does not import. */
static inline long pinset_ssl_set_sni(SSL *ssl, const char *name) { return SSL_set_tlsext_host_name(ssl, name); }
