/* The PKCS#11 types and constants, from p11-kit's header (Debian: libp11-kit-dev). Nothing is linked: the
   module an operator names is loaded at run time with dlopen, and every call goes through its function list. */
#include <stddef.h>
#include <dlfcn.h>
#include <p11-kit-1/p11-kit/pkcs11.h>
